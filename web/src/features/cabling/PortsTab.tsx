// The Front/Rear ports tab of a device (a patch panel, a cassette): its rear ports with their positions and
// its front ports with the rear port position each maps to, and what each one's cable reaches. Two list calls
// for the whole device, whatever its port count.
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { get } from '../../api/client.ts';
import { useChoices } from '../../api/hooks.ts';
import type { ApiObject, Brief, Page } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';
import { DataTable, type DataColumn } from '../../components/DataTable.tsx';
import { Empty, ErrorState, Loading } from '../../components/states.tsx';

interface Peer {
  object_type: string;
  device: string;
  device_id: string;
  parent_type: string;
  name: string;
  interface_id: string;
  cable_id: string;
}

interface Port extends ApiObject {
  name: string;
  type: string;
  description: string;
  link_peer: Peer | null;
}

interface RearPort extends Port {
  positions: number;
}

interface FrontPort extends Port {
  rear_port: Brief | null;
  rear_port_position: number;
}

const PAGE = 1000;

function PeerCell({ peer }: { peer: Peer | null }) {
  if (!peer) return <span className="text-slate-400">Not connected</span>;
  return (
    <span>
      <Link to={paths.detail('dcim.cable', peer.cable_id)} className="text-sky-700 hover:underline" aria-label={`Cable to ${peer.device} › ${peer.name}`}>
        Cable
      </Link>{' '}
      to{' '}
      <Link to={paths.detail(peer.parent_type, peer.device_id)} className="text-sky-700 hover:underline">
        {peer.device}
      </Link>
      {' › '}
      <Link to={paths.detail(peer.object_type, peer.interface_id)} className="text-sky-700 hover:underline">
        {peer.name}
      </Link>
    </span>
  );
}

function PortName({ model, port }: { model: string; port: Port }) {
  return (
    <span className="whitespace-nowrap">
      <Link to={paths.detail(model, port.id)} className="font-medium text-sky-700 hover:underline">
        {port.name}
      </Link>{' '}
      <Link to={paths.detail(model, port.id)} search={{ tab: 'trace' }} className="text-xs text-slate-500 hover:underline" aria-label={`Trace ${port.name}`}>
        trace
      </Link>
    </span>
  );
}

export default function PortsTab({ object }: DetailTabProps) {
  const query = { device_id: object.id, limit: PAGE };
  const rears = useQuery({ queryKey: ['list', '/api/rear-ports/', query], queryFn: () => get<Page<RearPort>>('/api/rear-ports/', query) });
  const fronts = useQuery({ queryKey: ['list', '/api/front-ports/', query], queryFn: () => get<Page<FrontPort>>('/api/front-ports/', query) });
  const choices = useChoices();
  const label = (value: string) => choices.data?.port_types?.find((c) => c.value === value)?.label ?? value;

  if (rears.isLoading || fronts.isLoading) return <Loading label="Loading ports…" />;
  if (rears.error || fronts.error) {
    return <ErrorState error={rears.error ?? fronts.error} retry={() => void Promise.all([rears.refetch(), fronts.refetch()])} />;
  }
  const rearList = rears.data!.results;
  const frontList = fronts.data!.results;
  if (rearList.length === 0 && frontList.length === 0) {
    return <Empty title="No front or rear ports">Patch panels have them: add rear ports and the front ports that map to them, or give the device type port templates.</Empty>;
  }
  const name = (model: string): DataColumn<Port> => ({ key: 'name', header: 'Name', cell: (p) => <PortName model={model} port={p} /> });
  const type: DataColumn<Port> = { key: 'type', header: 'Type', cell: (p) => label(p.type) };
  const peer: DataColumn<Port> = { key: 'peer', header: 'Cable and far end', cell: (p) => <PeerCell peer={p.link_peer} />, className: 'whitespace-nowrap' };
  const description: DataColumn<Port> = { key: 'description', header: 'Description', cell: (p) => p.description || <span className="text-slate-400">—</span> };
  const portRow = (p: Port) => ({ 'data-port': p.name });
  return (
    <div className="space-y-6">
      <section className="space-y-2">
        <h2 className="text-base font-semibold text-slate-800">Front ports ({fronts.data!.count})</h2>
        <DataTable<FrontPort>
          caption="Front ports"
          rows={frontList}
          rowKey={(p) => p.id}
          rowProps={portRow}
          empty="No front ports"
          columns={[
            name('dcim.frontport'),
            type,
            {
              key: 'rear',
              header: 'Rear port and position',
              className: 'whitespace-nowrap',
              cell: (p) => (
                <>
                  {p.rear_port ? (
                    <Link to={paths.detail('dcim.rearport', p.rear_port.id)} className="text-sky-700 hover:underline">
                      {String(p.rear_port.name ?? p.rear_port.display)}
                    </Link>
                  ) : null}{' '}
                  <span className="text-slate-600">position {p.rear_port_position}</span>
                </>
              ),
            },
            peer,
            description,
          ]}
        />
      </section>
      <section className="space-y-2">
        <h2 className="text-base font-semibold text-slate-800">Rear ports ({rears.data!.count})</h2>
        <DataTable<RearPort>
          caption="Rear ports"
          rows={rearList}
          rowKey={(p) => p.id}
          rowProps={portRow}
          empty="No rear ports"
          columns={[name('dcim.rearport'), type, { key: 'positions', header: 'Positions', cell: (p) => p.positions }, peer, description]}
        />
      </section>
    </div>
  );
}
