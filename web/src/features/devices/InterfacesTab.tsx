// The Interfaces tab of a device: every interface in natural order with its type, state, LAG, 802.1Q mode and VLANs,
// its addresses, and what its cable reaches (the far device › interface, both links). Two list calls for the
// whole device (interfaces, then the addresses on them), whatever its port count; a filter narrows the rows, and
// rows picked with their checkboxes are edited together (the list pages' bulk-edit dialog, one bulk-update call).
// "Add components" adds interfaces and ports by name pattern; each row's Actions menu connects a cable, adds an
// address, traces, edits or deletes it.
import { useMemo, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { get } from '../../api/client.ts';
import { useChoices, useModelInfo, useModels } from '../../api/hooks.ts';
import type { ApiObject, Brief, Page } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { Empty, ErrorState, Loading } from '../../components/states.tsx';
import { Badge, Button, inputClass } from '../../components/ui.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { BulkEditDialog } from '../../pages/list/BulkEditDialog.tsx';
import { AddComponentsDialog, COMPONENT_MODELS } from './AddComponentsDialog.tsx';
import { InterfaceRowActions } from './InterfaceActions.tsx';
import { InterfaceStateBadge, InterfaceStateKey, MacCell, MtuCell, ROW_CLASS, interfaceState } from './interface-states.tsx';

interface LinkPeer {
  object_type: string;
  device: string;
  interface: string;
  device_id: string;
  parent_type: string;
  /** The peer's id, whatever its kind (an interface, or a front or rear port of a patch panel). */
  interface_id: string;
  cable_id: string;
}

/** What a peer other than an interface is, beside its name. */
const PEER_KIND: Record<string, string> = { 'dcim.frontport': 'patch panel', 'dcim.rearport': 'patch panel', 'circuits.circuittermination': 'circuit' };

/** Where a trace ends: the far interface, through any patch panels. */
interface Endpoint {
  id: string;
  object_type: string;
  display: string;
  name: string;
  device: { id: string; display: string } | null;
}

interface Iface extends ApiObject {
  name: string;
  type: string;
  enabled: boolean;
  mgmt_only: boolean;
  mode: string | null;
  mtu: number | null;
  mac_address: string | null;
  lag: Brief | null;
  parent: Brief | null;
  untagged_vlan: Brief | null;
  tagged_vlans: Brief[];
  description: string;
  link_peer: LinkPeer | null;
  connected_endpoint: Endpoint | null;
}

interface Address extends ApiObject {
  address: string;
  assigned_interface: Brief | null;
}

const PAGE = 1000;

export default function InterfacesTab({ object }: DetailTabProps) {
  const query = { device_id: object.id, limit: PAGE };
  const ifaces = useQuery({ queryKey: ['list', '/api/interfaces/', query], queryFn: () => get<Page<Iface>>('/api/interfaces/', query) });
  const addresses = useQuery({ queryKey: ['list', '/api/ip-addresses/', query], queryFn: () => get<Page<Address>>('/api/ip-addresses/', query) });
  const choices = useChoices();
  const [filter, setFilter] = useState('');
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [editing, setEditing] = useState(false);
  const model = useModelInfo('dcim.interface').data;
  const client = useQueryClient();
  const toast = useToast();
  const [adding, setAdding] = useState(false);
  const allModels = useModels();
  const canAddComponents = (allModels.data ?? []).some((m) => COMPONENT_MODELS.includes(m.model) && m.can.add);

  const addressesOf = useMemo(() => {
    const out = new Map<string, Address[]>();
    for (const a of addresses.data?.results ?? []) {
      const id = a.assigned_interface?.id;
      if (id) out.set(id, [...(out.get(id) ?? []), a]);
    }
    return out;
  }, [addresses.data]);

  const addButton = canAddComponents ? (
    <Button variant="primary" onClick={() => setAdding(true)}>
      Add components
    </Button>
  ) : null;
  const addDialog = adding ? <AddComponentsDialog device={object} open onClose={() => setAdding(false)} /> : null;
  if (ifaces.isLoading) return <Loading label="Loading interfaces…" />;
  if (ifaces.error) return <ErrorState error={ifaces.error} retry={() => void ifaces.refetch()} />;
  const all = ifaces.data!.results;
  if (all.length === 0)
    return (
      <div className="space-y-3">
        <Empty title="No interfaces">Interfaces of this device appear here: add them, or give its device type interface templates.</Empty>
        <div className="flex justify-center">{addButton}</div>
        {addDialog}
      </div>
    );

  const label = (vocabulary: string, value: string | null) => (value === null ? null : choices.data?.[vocabulary]?.find((c) => c.value === value)?.label ?? value);
  const needle = filter.trim().toLowerCase();
  const rows = needle
    ? all.filter((i) => [i.name, i.description, i.link_peer?.device ?? '', i.connected_endpoint?.display ?? '', ...(addressesOf.get(i.id) ?? []).map((a) => a.address)].some((t) => t.toLowerCase().includes(needle)))
    : all;
  // What is picked and still shown: a filter hides rows from the edit as well as from view.
  const selected = rows.filter((i) => picked.has(i.id)).map((i) => i.id);
  const stateOf = (i: Iface) => interfaceState(i, choices.data?.interface_types);
  const canEdit = Boolean(model?.can.change);

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <label className="flex items-center gap-2 text-sm">
          <span className="text-slate-600">Filter</span>
          <input type="search" className={`${inputClass} w-64`} placeholder="Name, address, far device…" value={filter} onChange={(e) => setFilter(e.target.value)} />
        </label>
        <div className="flex items-center gap-2 text-sm">
          {selected.length && model?.can.change ? (
            <>
              <span className="font-medium" aria-live="polite">
                {selected.length} selected
              </span>
              <Button onClick={() => setEditing(true)}>Edit selected</Button>
              <Button variant="ghost" onClick={() => setPicked(new Set())}>
                Clear selection
              </Button>
            </>
          ) : null}
          <span className="text-slate-600">
            {rows.length === all.length ? `${all.length} interfaces` : `${rows.length} of ${all.length} interfaces`}
            {ifaces.data!.count > all.length ? ` (the first ${all.length} of ${ifaces.data!.count})` : ''}
          </span>
          {addButton}
        </div>
      </div>
      {addDialog}
      {model ? (
        <BulkEditDialog
          model={model}
          ids={selected}
          open={editing}
          onClose={() => setEditing(false)}
          onDone={(n) => {
            setEditing(false);
            setPicked(new Set());
            toast.show({ message: `Updated ${n} ${n === 1 ? model.label : model.label_plural}.`, tone: 'success' });
            void client.invalidateQueries({ queryKey: ['list', '/api/interfaces/'] });
          }}
        />
      ) : null}
      <DataTable<Iface>
        caption="Interfaces"
        rows={rows}
        rowKey={(i) => i.id}
        rowProps={(i) => ({ className: ROW_CLASS[stateOf(i)], 'data-interface': i.name, 'data-state': stateOf(i) })}
        empty="No interface matches the filter"
        selection={canEdit ? { selected: picked, onChange: setPicked, allLabel: 'Select all interfaces shown', rowLabel: (i) => `Select ${i.name}` } : undefined}
        columns={[
          {
            key: 'name',
            header: 'Name',
            // The name stays in view when the wide table scrolls sideways.
            sticky: true,
            className: 'whitespace-nowrap',
            cell: (i) => (
              <>
                <Link to={paths.detail('dcim.interface', i.id)} className="font-medium text-sky-700 hover:underline">
                  {i.name}
                </Link>
                {i.mgmt_only ? <Badge tone="sky">mgmt</Badge> : null} <InterfaceStateBadge state={stateOf(i)} />
                {i.parent ? <div className="text-xs text-slate-500">on {String(i.parent.name ?? i.parent.display)}</div> : null}
              </>
            ),
          },
          { key: 'type', header: 'Type', cell: (i) => label('interface_types', i.type) },
          { key: 'enabled', header: 'Enabled', cell: (i) => (i.enabled ? <span className="text-green-700">Yes</span> : <span className="text-slate-500">No</span>) },
          { key: 'mtu', header: 'MTU', cell: (i) => <MtuCell mtu={i.mtu} /> },
          { key: 'mac', header: 'MAC address', cell: (i) => <MacCell mac={i.mac_address} /> },
          {
            key: 'lag',
            header: 'LAG',
            className: 'whitespace-nowrap',
            cell: (i) =>
              i.lag ? (
                <Link to={paths.detail('dcim.interface', i.lag.id)} className="text-sky-700 hover:underline">
                  {String(i.lag.name ?? i.lag.display)}
                </Link>
              ) : (
                <span className="text-slate-400">—</span>
              ),
          },
          {
            key: 'vlans',
            header: '802.1Q mode and VLANs',
            cell: (i) => (
              <>
                {i.mode ? <div>{label('interface_modes', i.mode)}</div> : <span className="text-slate-400">—</span>}
                {i.untagged_vlan ? (
                  <div>
                    Untagged:{' '}
                    <Link to={paths.detail('ipam.vlan', i.untagged_vlan.id)} className="text-sky-700 hover:underline">
                      {i.untagged_vlan.display}
                    </Link>
                  </div>
                ) : null}
                {i.tagged_vlans.length ? (
                  <div>
                    Tagged:{' '}
                    {i.tagged_vlans.map((v, n) => (
                      <span key={v.id}>
                        {n ? ', ' : ''}
                        <Link to={paths.detail('ipam.vlan', v.id)} className="text-sky-700 hover:underline">
                          {v.display}
                        </Link>
                      </span>
                    ))}
                  </div>
                ) : null}
              </>
            ),
          },
          {
            key: 'addresses',
            header: 'Addresses',
            cell: (i) => (
              <>
                {(addressesOf.get(i.id) ?? []).map((a) => (
                  <div key={a.id}>
                    <Link to={paths.detail('ipam.ipaddress', a.id)} className="font-mono text-sky-700 hover:underline">
                      {a.address}
                    </Link>
                  </div>
                ))}
                {addresses.isLoading ? <span className="text-slate-400">…</span> : (addressesOf.get(i.id) ?? []).length ? null : <span className="text-slate-400">—</span>}
              </>
            ),
          },
          {
            key: 'cable',
            header: 'Cable and far end',
            className: 'whitespace-nowrap',
            cell: (i) => (
              <>
                {i.link_peer ? (
                  <div>
                    <Link to={paths.detail('dcim.cable', i.link_peer.cable_id)} className="text-sky-700 hover:underline" aria-label={`Cable to ${i.link_peer.device} › ${i.link_peer.interface}`}>
                      Cable
                    </Link>{' '}
                    to{' '}
                    <Link to={paths.detail(i.link_peer.parent_type, i.link_peer.device_id)} className="text-sky-700 hover:underline">
                      {i.link_peer.device}
                    </Link>
                    {' › '}
                    <Link to={paths.detail(i.link_peer.object_type, i.link_peer.interface_id)} className="text-sky-700 hover:underline">
                      {i.link_peer.interface}
                    </Link>
                    {PEER_KIND[i.link_peer.object_type] ? <span className="ml-1 text-xs text-slate-500">({PEER_KIND[i.link_peer.object_type]})</span> : null}
                  </div>
                ) : (
                  <span className="text-slate-400">Not connected</span>
                )}
                {/* Through patch panels the far end is not the cable's other end: show where the path arrives. */}
                {i.connected_endpoint && i.link_peer && i.connected_endpoint.id !== i.link_peer.interface_id ? (
                  <div data-far-end>
                    <span className="text-slate-600">Far end </span>
                    {i.connected_endpoint.device ? (
                      <>
                        <Link to={paths.detail('dcim.device', i.connected_endpoint.device.id)} className="text-sky-700 hover:underline">
                          {i.connected_endpoint.device.display}
                        </Link>
                        {' › '}
                      </>
                    ) : null}
                    <Link to={paths.detail(i.connected_endpoint.object_type, i.connected_endpoint.id)} className="text-sky-700 hover:underline">
                      {i.connected_endpoint.name}
                    </Link>{' '}
                    <Link to={paths.detail('dcim.interface', i.id)} search={{ tab: 'trace' }} className="text-xs text-slate-500 hover:underline" aria-label={`Trace ${i.name}`}>
                      (trace)
                    </Link>
                  </div>
                ) : null}
              </>
            ),
          },
          { key: 'description', header: 'Description', cell: (i) => i.description || <span className="text-slate-400">—</span> },
          {
            key: 'actions',
            header: <span className="sr-only">Actions</span>,
            className: 'text-right',
            cell: (i) => <InterfaceRowActions iface={{ id: i.id, name: i.name, device: object.display, cabled: Boolean(i.link_peer) }} />,
          },
        ]}
      />
      <InterfaceStateKey />
    </div>
  );
}
