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
  const th = 'px-3 py-2';
  const td = 'px-3 py-2 align-top';
  const table = (title: string, count: number, head: string[], rows: React.ReactNode) => (
    <section className="space-y-2">
      <h2 className="text-base font-semibold text-slate-800">
        {title} ({count})
      </h2>
      <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
        <table className="w-full text-sm" aria-label={title}>
          <thead className="bg-slate-50 text-left text-slate-600">
            <tr>
              {head.map((h) => (
                <th key={h} className={th}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>{rows}</tbody>
        </table>
      </div>
    </section>
  );
  const firstConsole = consoles!.find((c) => c.connected_endpoint);
  return (
    <div className="space-y-6">
      {firstConsole?.connected_endpoint ? (
        <p className="text-sm text-slate-700" role="status" data-console-line>
          Console on <EndpointCell c={firstConsole} />
          {firstConsole.speed ? <span className="text-slate-500"> at {firstConsole.speed.toLocaleString('en-US')} bps</span> : null}
        </p>
      ) : null}
      {consoles!.length
        ? table('Console ports', consoles!.length, ['Name', 'Type', 'Speed', 'Cable and far end', 'Console server line'], consoles!.map((c) => (
            <tr key={c.id} className="border-t border-slate-100" data-port={c.name}>
              <td className={td}><Name model="dcim.consoleport" c={c} /></td>
              <td className={td}>{typeLabel('console_port_types', c.type)}</td>
              <td className={td}>{c.speed ? `${c.speed.toLocaleString('en-US')} bps` : '—'}</td>
              <td className={td}><PeerCell c={c} /></td>
              <td className={td}><EndpointCell c={c} /></td>
            </tr>
          )))
        : null}
      {lines!.length
        ? table('Console server ports', lines!.length, ['Name', 'Type', 'Speed', 'Cable and far end', 'Device console'], lines!.map((c) => (
            <tr key={c.id} className="border-t border-slate-100" data-port={c.name}>
              <td className={td}><Name model="dcim.consoleserverport" c={c} /></td>
              <td className={td}>{typeLabel('console_port_types', c.type)}</td>
              <td className={td}>{c.speed ? `${c.speed.toLocaleString('en-US')} bps` : '—'}</td>
              <td className={td}><PeerCell c={c} /></td>
              <td className={td}><EndpointCell c={c} /></td>
            </tr>
          )))
        : null}
      {power!.length
        ? table('Power ports', power!.length, ['Name', 'Type', 'Draw (allocated / maximum)', 'Cable and far end', 'Fed from (panel › feed)'], power!.map((c) => (
            <tr key={c.id} className="border-t border-slate-100" data-port={c.name}>
              <td className={td}><Name model="dcim.powerport" c={c} /></td>
              <td className={td}>{typeLabel('power_port_types', c.type)}</td>
              <td className={`${td} whitespace-nowrap tabular-nums`}>{watts(c.allocated_draw)} / {watts(c.maximum_draw)}</td>
              <td className={td}><PeerCell c={c} /></td>
              <td className={td}><EndpointCell c={c} /></td>
            </tr>
          )))
        : null}
      {outlets!.length
        ? table('Power outlets', outlets!.length, ['Name', 'Type', 'Power port', 'Feed leg', 'Cable and far end'], outlets!.map((c) => (
            <tr key={c.id} className="border-t border-slate-100" data-port={c.name}>
              <td className={td}><Name model="dcim.poweroutlet" c={c} /></td>
              <td className={td}>{typeLabel('power_outlet_types', c.type)}</td>
              <td className={td}>{c.power_port ? <ObjectLink model="dcim.powerport" id={c.power_port.id}>{String(c.power_port.name ?? c.power_port.display)}</ObjectLink> : '—'}</td>
              <td className={td}>{c.feed_leg ?? '—'}</td>
              <td className={td}><PeerCell c={c} /></td>
            </tr>
          )))
        : null}
    </div>
  );
}
