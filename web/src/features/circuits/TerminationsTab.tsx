// The Terminations tab of a circuit: side A and side Z, each with what it ends on (a site, a location or a
// provider network), its port speed and cross-connect, and its cable with the far end. One list call.
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { get } from '../../api/client.ts';
import type { ApiObject, Brief, Page } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';
import { ErrorState, Loading } from '../../components/states.tsx';

interface Peer {
  object_type: string;
  device: string;
  device_id: string;
  parent_type: string;
  name: string;
  interface_id: string;
  cable_id: string;
}

interface Termination extends ApiObject {
  term_side: 'A' | 'Z';
  termination_type: string;
  site: Brief | null;
  location: Brief | null;
  provider_network: Brief | null;
  port_speed: number | null;
  upstream_speed: number | null;
  xconnect_id: string;
  pp_info: string;
  description: string;
  mark_connected: boolean;
  link_peer: Peer | null;
}

const KIND: Record<string, { label: string; model: string; key: 'site' | 'location' | 'provider_network' }> = {
  'dcim.site': { label: 'Site', model: 'organization.site', key: 'site' },
  'dcim.location': { label: 'Location', model: 'dcim.location', key: 'location' },
  'circuits.providernetwork': { label: 'Provider network', model: 'circuits.providernetwork', key: 'provider_network' },
};

/** 10000000 Kbps → "10 Gbps". */
function speed(kbps: number | null): string {
  if (kbps === null) return '—';
  if (kbps >= 1_000_000 && kbps % 1_000_000 === 0) return `${kbps / 1_000_000} Gbps`;
  if (kbps >= 1000 && kbps % 1000 === 0) return `${kbps / 1000} Mbps`;
  return `${kbps} Kbps`;
}

function Side({ side, t }: { side: 'A' | 'Z'; t: Termination | undefined }) {
  const row = 'grid grid-cols-[10rem_1fr] gap-2 border-t border-slate-100 px-4 py-2 text-sm';
  return (
    <section className="rounded-lg border border-slate-200 bg-white" aria-label={`Termination ${side}`} data-side={side}>
      <h2 className="flex items-center justify-between px-4 py-3 text-base font-semibold text-slate-800">
        <span>Side {side}</span>
        {t ? (
          <span className="space-x-3 text-sm font-normal">
            <Link to={paths.detail('circuits.circuittermination', t.id)} search={{ tab: 'trace' }} className="text-sky-700 hover:underline">Trace</Link>
            <Link to={paths.edit('circuits.circuittermination', t.id)} className="text-sky-700 hover:underline">Edit</Link>
          </span>
        ) : null}
      </h2>
      {!t ? (
        <p className="border-t border-slate-100 px-4 py-3 text-sm text-slate-500">
          No termination.{' '}
          <Link to={paths.create('circuits.circuittermination')} className="text-sky-700 hover:underline">Add one</Link>
        </p>
      ) : (
        <div>
          <div className={row}>
            <span className="text-slate-500">Termination point</span>
            <span>
              {(() => {
                const kind = KIND[t.termination_type];
                const target = kind ? t[kind.key] : null;
                if (!kind || !target) return <span className="text-slate-400">—</span>;
                return (
                  <>
                    <span className="text-slate-500">{kind.label}: </span>
                    <Link to={paths.detail(kind.model, target.id)} className="text-sky-700 hover:underline">{target.display}</Link>
                  </>
                );
              })()}
            </span>
          </div>
          <div className={row}>
            <span className="text-slate-500">Cable and far end</span>
            <span data-testid={`peer-${side}`}>
              {t.link_peer ? (
                <>
                  <Link to={paths.detail('dcim.cable', t.link_peer.cable_id)} className="text-sky-700 hover:underline">Cable</Link> to{' '}
                  <Link to={paths.detail(t.link_peer.parent_type, t.link_peer.device_id)} className="text-sky-700 hover:underline">{t.link_peer.device}</Link>
                  {' › '}
                  <Link to={paths.detail(t.link_peer.object_type, t.link_peer.interface_id)} className="text-sky-700 hover:underline">{t.link_peer.name}</Link>
                </>
              ) : t.termination_type === 'circuits.providernetwork' ? (
                <span className="text-slate-500">Ends in the provider's network</span>
              ) : t.mark_connected ? (
                <span className="text-slate-600">Marked connected</span>
              ) : (
                <span className="text-slate-400">Not connected</span>
              )}
            </span>
          </div>
          <div className={row}>
            <span className="text-slate-500">Speed</span>
            <span>
              {speed(t.port_speed)}
              {t.upstream_speed !== null ? ` (upstream ${speed(t.upstream_speed)})` : ''}
            </span>
          </div>
          <div className={row}>
            <span className="text-slate-500">Cross-connect</span>
            <span>{t.xconnect_id || <span className="text-slate-400">—</span>}</span>
          </div>
          <div className={row}>
            <span className="text-slate-500">Patch panel / port</span>
            <span>{t.pp_info || <span className="text-slate-400">—</span>}</span>
          </div>
          {t.description ? (
            <div className={row}>
              <span className="text-slate-500">Description</span>
              <span>{t.description}</span>
            </div>
          ) : null}
        </div>
      )}
    </section>
  );
}

export default function TerminationsTab({ object }: DetailTabProps) {
  const query = { circuit_id: object.id, limit: 10 };
  const list = useQuery({ queryKey: ['list', '/api/circuit-terminations/', query], queryFn: () => get<Page<Termination>>('/api/circuit-terminations/', query) });
  if (list.isLoading) return <Loading label="Loading terminations…" />;
  if (list.error) return <ErrorState error={list.error} retry={() => void list.refetch()} />;
  const bySide = (s: 'A' | 'Z') => list.data!.results.find((t) => t.term_side === s);
  return (
    <div className="grid gap-4 lg:grid-cols-2">
      <Side side="A" t={bySide('A')} />
      <Side side="Z" t={bySide('Z')} />
    </div>
  );
}
