// A VLAN group's allocation button: "Next free VLAN" asks for a name and creates the VLAN on the group's first
// free VID (POST available-vlans), then opens it; a full group's 409 is shown as it is.
import { useState } from 'react';
import type { DetailTabProps } from '../../app/extensions.ts';
import { Dialog, DialogActions } from '../../components/Dialog.tsx';
import { Button, inputClass } from '../../components/ui.tsx';
import { useAllocate } from './useAllocate.ts';

export default function VlanGroupActions({ model, object }: DetailTabProps) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const { busy, error, allocate } = useAllocate();
  const create = async () => {
    if (name.trim() === '') return;
    if (await allocate(`${model.path}${object.id}/available-vlans/`, { name: name.trim() }, 'ipam.vlan')) setOpen(false);
  };
  return (
    <>
      <Button onClick={() => setOpen(true)}>Next free VLAN</Button>
      <Dialog
        open={open}
        title={`A VLAN on the next free VID of ${object.display}`}
        onClose={() => setOpen(false)}
        footer={<DialogActions onCancel={() => setOpen(false)} onConfirm={() => void create()} confirmLabel="Create" busyLabel="Creating…" pending={busy} disabled={name.trim() === ''} />}
      >
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void create();
          }}
          className="space-y-3"
        >
          <label className="block text-sm">
            <span className="mb-1 block font-medium">Name</span>
            <input className={inputClass} value={name} onChange={(e) => setName(e.target.value)} autoFocus />
          </label>
          {error ? (
            <p role="alert" className="text-sm text-red-700">
              {error}
            </p>
          ) : (
            <p className="text-sm text-slate-600">The VLAN takes the lowest VID of the group not in use.</p>
          )}
        </form>
      </Dialog>
    </>
  );
}
