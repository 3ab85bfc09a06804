// What one interface offers, as NetBox's rows and interface page do: Connect a cable (the far end picked by device,
// then port), Add an IP address (the interface filled in), Trace, Edit, Delete. The device's Interfaces tab shows
// them in each row's Actions menu; the interface's own page shows the first three beside its Edit and Delete.
import { useEffect, useRef, useState, type CSSProperties } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { del } from '../../api/client.ts';
import { useModelInfo } from '../../api/hooks.ts';
import type { ApiObject, Brief } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';
import { Dialog, DialogActions } from '../../components/Dialog.tsx';
import { errorMessage } from '../../components/states.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { Button } from '../../components/ui.tsx';
import { PrefilledCreateDialog } from './PrefilledCreateDialog.tsx';

/** The interface as both places know it: its id and name, its device's name, whether a cable holds it. */
export interface InterfaceRef {
  id: string;
  name: string;
  device: string;
  cabled: boolean;
}

type Open = 'cable' | 'address' | 'delete' | null;

/** The dialogs the actions open, shared by the row menu and the interface page. */
function InterfaceDialogs({ iface, open, onClose, onDeleted }: { iface: InterfaceRef; open: Open; onClose: () => void; onDeleted?: () => void }) {
  const display = `${iface.device} › ${iface.name}`;
  const brief: Brief = { id: iface.id, display, object_type: 'dcim.interface' };
  return (
    <>
      {open === 'cable' ? (
        <PrefilledCreateDialog
          modelName="dcim.cable"
          title={`Connect a cable to ${display}`}
          open
          onClose={onClose}
          prefill={{ a_terminations: { shown: [brief], sent: [{ object_type: 'dcim.interface', object_id: iface.id }] } }}
        />
      ) : null}
      {open === 'address' ? (
        <PrefilledCreateDialog
          modelName="ipam.ipaddress"
          title={`Add an IP address to ${display}`}
          open
          onClose={onClose}
          prefill={{ assigned_interface: { shown: brief, sent: iface.id } }}
        />
      ) : null}
      {open === 'delete' ? <DeleteInterfaceDialog iface={iface} onClose={onClose} onDeleted={onDeleted} /> : null}
    </>
  );
}

function DeleteInterfaceDialog({ iface, onClose, onDeleted }: { iface: InterfaceRef; onClose: () => void; onDeleted?: () => void }) {
  const client = useQueryClient();
  const toast = useToast();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const display = `${iface.device} › ${iface.name}`;
  return (
    <Dialog
      open
      title={`Delete ${display}?`}
      onClose={onClose}
      footer={
        <DialogActions
          onCancel={onClose}
          variant="danger"
          confirmLabel="Delete"
          busyLabel="Deleting…"
          pending={pending}
          onConfirm={() => {
            setPending(true);
            setError(null);
            del(`/api/interfaces/${iface.id}/`)
              .then(() => {
                void client.invalidateQueries({ queryKey: ['list'] });
                toast.show({ message: `Deleted ${display}.`, tone: 'success' });
                onClose();
                onDeleted?.();
              })
              .catch((err: unknown) => setError(errorMessage(err)))
              .finally(() => setPending(false));
          }}
        />
      }
    >
      <p className="text-sm">{iface.cabled ? 'Its cable is deleted with it, and its addresses are left unassigned.' : 'Its addresses are left unassigned.'}</p>
      {error ? (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {error}
        </p>
      ) : null}
    </Dialog>
  );
}

function usePermissions() {
  return {
    cable: Boolean(useModelInfo('dcim.cable').data?.can.add),
    address: Boolean(useModelInfo('ipam.ipaddress').data?.can.add),
    change: Boolean(useModelInfo('dcim.interface').data?.can.change),
    remove: Boolean(useModelInfo('dcim.interface').data?.can.delete),
  };
}

const itemClass = 'block w-full px-3 py-1.5 text-left text-sm hover:bg-slate-100 focus:bg-sky-100 focus:outline-none';

/** A row's Actions menu (a button that opens a list of actions; arrow keys move, Escape closes). */
export function InterfaceRowActions({ iface }: { iface: InterfaceRef }) {
  const can = usePermissions();
  const [menu, setMenu] = useState(false);
  const [open, setOpen] = useState<Open>(null);
  const [place, setPlace] = useState<CSSProperties>({});
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLDivElement>(null);
  // The table scrolls sideways and would clip the menu: it is placed on the page under its button, and follows it.
  const placeUnder = () => {
    const r = button.current?.getBoundingClientRect();
    if (r) setPlace({ position: 'fixed', top: r.bottom + 4, right: Math.max(8, window.innerWidth - r.right) });
  };
  useEffect(() => {
    if (!menu) return;
    (list.current?.querySelector('[role="menuitem"]') as HTMLElement | null)?.focus({ preventScroll: true });
    window.addEventListener('scroll', placeUnder, true);
    window.addEventListener('resize', placeUnder);
    return () => {
      window.removeEventListener('scroll', placeUnder, true);
      window.removeEventListener('resize', placeUnder);
    };
  }, [menu]);
  const toggle = () => {
    placeUnder();
    setMenu((m) => !m);
  };
  const choose = (what: Open) => {
    setMenu(false);
    setOpen(what);
  };
  const onKey = (e: React.KeyboardEvent) => {
    const items = [...(list.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'Escape') {
      e.preventDefault();
      setMenu(false);
      button.current?.focus();
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      items[(at + 1) % items.length]?.focus();
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      items[(at - 1 + items.length) % items.length]?.focus();
    }
  };
  const label = `${iface.name}`;
  return (
    <div
      className="relative"
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setMenu(false);
      }}
    >
      <button
        ref={button}
        type="button"
        aria-haspopup="menu"
        aria-expanded={menu}
        aria-label={`Actions for ${label}`}
        className="rounded border border-slate-300 px-2 py-0.5 text-xs whitespace-nowrap text-slate-700 hover:bg-slate-100"
        onClick={toggle}
      >
        Actions ▾
      </button>
      {menu ? (
        <div ref={list} role="menu" aria-label={`Actions for ${label}`} style={place} className="z-50 min-w-48 text-left rounded-md border border-slate-200 bg-white py-1 shadow-lg" onKeyDown={onKey}>
          {can.cable && !iface.cabled ? (
            <button type="button" role="menuitem" className={itemClass} onClick={() => choose('cable')}>
              Connect a cable
            </button>
          ) : null}
          {can.address ? (
            <button type="button" role="menuitem" className={itemClass} onClick={() => choose('address')}>
              Add an IP address
            </button>
          ) : null}
          <Link role="menuitem" className={itemClass} to={paths.detail('dcim.interface', iface.id)} search={{ tab: 'trace' }}>
            Trace
          </Link>
          {can.change ? (
            <Link role="menuitem" className={itemClass} to={paths.edit('dcim.interface', iface.id)}>
              Edit
            </Link>
          ) : null}
          {can.remove ? (
            <button type="button" role="menuitem" className={`${itemClass} text-red-700`} onClick={() => choose('delete')}>
              Delete
            </button>
          ) : null}
        </div>
      ) : null}
      <InterfaceDialogs iface={iface} open={open} onClose={() => setOpen(null)} />
    </div>
  );
}

/** The interface page's own actions beside its Edit and Delete. */
export default function InterfacePageActions({ object }: DetailTabProps) {
  const can = usePermissions();
  const [open, setOpen] = useState<Open>(null);
  const device = object.device as Brief | null;
  const iface: InterfaceRef = { id: object.id, name: String(object.name ?? ''), device: device?.display ?? '', cabled: Boolean((object as ApiObject).link_peer) };
  return (
    <>
      {can.cable && !iface.cabled ? <Button onClick={() => setOpen('cable')}>Connect a cable</Button> : null}
      {can.address ? <Button onClick={() => setOpen('address')}>Add an IP address</Button> : null}
      <Link to={paths.detail('dcim.interface', object.id)} search={{ tab: 'trace' }} className="inline-flex items-center rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 hover:bg-slate-50">
        Trace
      </Link>
      <InterfaceDialogs iface={iface} open={open} onClose={() => setOpen(null)} />
    </>
  );
}
