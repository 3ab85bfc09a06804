// The Console/Power tab of a device: where its console port leads ("Console on ams1-cs1 › Port 3"), its console
// server lines, its power supplies with the outlet each is plugged into and the feed and panel that powers it, and
// its outlets (a PDU) with what is plugged into them. Four list calls for the whole device.
import { useQueries } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { get } from '../../api/client.ts';
import { useChoices } from '../../api/hooks.ts';
import type { ApiObject, Page } from '../../api/types.ts';
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

interface Endpoint {
  id: string;
  object_type: string;
  display: string;
  name: string;
  parent: { object_type: string; id: string; display: string } | null;
}

interface Component extends ApiObject {
  name: string;
  label: string;
  type: string | null;
  description: string;
  link_peer: Peer | null;
  connected_endpoint: Endpoint | null;
  mark_connected: boolean;
  speed?: number | null;
  maximum_draw?: number | null;
  allocated_draw?: number | null;
  feed_leg?: string | null;
  power_port?: { id: string; display: string; name?: string } | null;
}

const PAGE = 1000;
const KINDS = [
  { key: 'console', path: '/api/console-ports/', model: 'dcim.consoleport', title: 'Console ports', vocabulary: 'console_port_types' },
  { key: 'lines', path: '/api/console-server-ports/', model: 'dcim.consoleserverport', title: 'Console server ports', vocabulary: 'console_port_types' },
  { key: 'power', path: '/api/power-ports/', model: 'dcim.powerport', title: 'Power ports', vocabulary: 'power_port_types' },
  { key: 'outlets', path: '/api/power-outlets/', model: 'dcim.poweroutlet', title: 'Power outlets', vocabulary: 'power_outlet_types' },
] as const;

function ObjectLink({ model, id, children }: { model: string; id: string; children: React.ReactNode }) {
  return (
    <Link to={paths.detail(model, id)} className="text-sky-700 hover:underline">
      {children}
    </Link>
  );
}

/** "Cable to pdu-a › Outlet 3", or how it is connected without a cable. */
function PeerCell({ c }: { c: Component }) {
  const peer = c.link_peer;
  if (!peer) return <span className="text-slate-400">{c.mark_connected ? 'Marked connected' : 'Not connected'}</span>;
  return (
    <span>
      <ObjectLink model="dcim.cable" id={peer.cable_id}>Cable</ObjectLink> to <ObjectLink model={peer.parent_type} id={peer.device_id}>{peer.device}</ObjectLink>
      {' › '}
      <ObjectLink model={peer.object_type} id={peer.interface_id}>{peer.name}</ObjectLink>
    </span>
  );
}

/** The far end of the whole path: the console server line, or the power feed and its panel. */
function EndpointCell({ c }: { c: Component }) {
  const e = c.connected_endpoint;
  if (!e) return <span className="text-slate-400">—</span>;
  return (
    <span>
      {e.parent ? (
        <>
          <ObjectLink model={e.parent.object_type} id={e.parent.id}>{e.parent.display}</ObjectLink>
          {' › '}
        </>
      ) : null}
      <ObjectLink model={e.object_type} id={e.id}>{e.name}</ObjectLink>
    </span>
  );
}

function Name({ model, c }: { model: string; c: Component }) {
  return (
    <span className="whitespace-nowrap">
      <ObjectLink model={model} id={c.id}>
        <span className="font-medium">{c.name}</span>
      </ObjectLink>
      {c.label ? <span className="text-slate-500"> ({c.label})</span> : null}{' '}
      <Link to={paths.detail(model, c.id)} search={{ tab: 'trace' }} className="text-xs text-slate-500 hover:underline" aria-label={`Trace ${c.name}`}>
        trace
      </Link>
    </span>
  );
}

const watts = (n: number | null | undefined) => (typeof n === 'number' ? `${n.toLocaleString('en-US')} W` : '—');

export default function ConsolePowerTab({ object }: DetailTabProps) {
  const query = { device_id: object.id, limit: PAGE };
  const lists = useQueries({ queries: KINDS.map((k) => ({ queryKey: ['list', k.path, query], queryFn: () => get<Page<Component>>(k.path, query) })) });
  const choices = useChoices();
  const typeLabel = (vocabulary: string, value: string | null) => (value ? (choices.data?.[vocabulary]?.find((o) => o.value === value)?.label ?? value) : '—');
  if (lists.some((l) => l.isLoading)) return <Loading label="Loading console and power ports…" />;
  const failed = lists.find((l) => l.error);
  if (failed) return <ErrorState error={failed.error} retry={() => void Promise.all(lists.map((l) => l.refetch()))} />;
  const [consoles, lines, power, outlets] = lists.map((l) => l.data!.results);
  if (!consoles!.length && !lines!.length && !power!.length && !outlets!.length) {
    return <Empty title="No console or power ports">Give the device type console and power port templates, or add the ports to this device.</Empty>;
  }
  const table = (title: string, rows: Component[], columns: Array<DataColumn<Component>>) => (
    <section className="space-y-2">
      <h2 className="text-base font-semibold text-slate-800">
        {title} ({rows.length})
      </h2>
      <DataTable caption={title} rows={rows} rowKey={(c) => c.id} rowProps={(c) => ({ 'data-port': c.name })} empty={null} columns={columns} />
    </section>
  );
  const name = (model: string): DataColumn<Component> => ({ key: 'name', header: 'Name', cell: (c) => <Name model={model} c={c} /> });
  const type = (vocabulary: string): DataColumn<Component> => ({ key: 'type', header: 'Type', cell: (c) => typeLabel(vocabulary, c.type) });
  const speed: DataColumn<Component> = { key: 'speed', header: 'Speed', cell: (c) => (c.speed ? `${c.speed.toLocaleString('en-US')} bps` : '—') };
  const peer: DataColumn<Component> = { key: 'peer', header: 'Cable and far end', cell: (c) => <PeerCell c={c} /> };
  const endpoint = (header: string): DataColumn<Component> => ({ key: 'endpoint', header, cell: (c) => <EndpointCell c={c} /> });
  const firstConsole = consoles!.find((c) => c.connected_endpoint);
  return (
    <div className="space-y-6">
      {firstConsole?.connected_endpoint ? (
        <p className="text-sm text-slate-700" role="status" data-console-line>
          Console on <EndpointCell c={firstConsole} />
          {firstConsole.speed ? <span className="text-slate-500"> at {firstConsole.speed.toLocaleString('en-US')} bps</span> : null}
        </p>
      ) : null}
      {consoles!.length ? table('Console ports', consoles!, [name('dcim.consoleport'), type('console_port_types'), speed, peer, endpoint('Console server line')]) : null}
      {lines!.length ? table('Console server ports', lines!, [name('dcim.consoleserverport'), type('console_port_types'), speed, peer, endpoint('Device console')]) : null}
      {power!.length
        ? table('Power ports', power!, [
            name('dcim.powerport'),
            type('power_port_types'),
            { key: 'draw', header: 'Draw (allocated / maximum)', cell: (c) => `${watts(c.allocated_draw)} / ${watts(c.maximum_draw)}`, className: 'whitespace-nowrap tabular-nums' },
            peer,
            endpoint('Fed from (panel › feed)'),
          ])
        : null}
      {outlets!.length
        ? table('Power outlets', outlets!, [
            name('dcim.poweroutlet'),
            type('power_outlet_types'),
            {
              key: 'power-port',
              header: 'Power port',
              cell: (c) => (c.power_port ? <ObjectLink model="dcim.powerport" id={c.power_port.id}>{String(c.power_port.name ?? c.power_port.display)}</ObjectLink> : '—'),
            },
            { key: 'leg', header: 'Feed leg', cell: (c) => c.feed_leg ?? '—' },
            peer,
          ])
        : null}
    </div>
  );
}
