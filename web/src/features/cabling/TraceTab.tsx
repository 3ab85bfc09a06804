// The Trace tab of an interface or a front/rear port: its cable path drawn top to bottom, each hop a link:
// interface › cable › front port ⇢ rear port › cable › rear port ⇢ front port › cable › far interface.
// Within a panel the step from a front port to its rear port (or back) is drawn dashed: no cable, the panel; so is
// the step across a circuit from one termination to the other.
import { Fragment } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { get } from '../../api/client.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';
import { ErrorState, Loading } from '../../components/states.tsx';

interface TraceObject {
  id: string;
  object_type: string;
  display: string;
  name: string;
  device: { id: string; display: string } | null;
  /** What it belongs to: its device, or a power panel, a circuit… */
  parent: { object_type: string; id: string; display: string } | null;
}

interface Trace {
  origin: TraceObject;
  segments: Array<{ near_end: TraceObject; cable: TraceObject | null; far_end: TraceObject | null }>;
  destination: TraceObject | null;
  ended: 'interface' | 'endpoint' | 'no_cable' | 'open_port' | 'ambiguous' | 'loop' | 'too_long';
}

const KIND: Record<string, string> = {
  'dcim.interface': 'Interface',
  'dcim.frontport': 'Front port',
  'dcim.rearport': 'Rear port',
  'dcim.consoleport': 'Console port',
  'dcim.consoleserverport': 'Console server port',
  'dcim.powerport': 'Power port',
  'dcim.poweroutlet': 'Power outlet',
  'dcim.powerfeed': 'Power feed',
  'circuits.circuittermination': 'Circuit termination',
};

const ENDED: Record<Trace['ended'], string> = {
  interface: 'The path ends at the interface above.',
  endpoint: 'The path ends at the object above.',
  no_cable: 'The path ends here: no cable is connected.',
  open_port: 'The path ends here: the port on the far end leads nowhere (no mapped port or no cable).',
  ambiguous: 'The path ends here: a rear port with several positions, entered without a position, could lead to any of its front ports.',
  loop: 'The path ends here: it comes back to a port it already passed (a patching loop).',
  too_long: 'The path was cut after 32 cables.',
};

function Node({ node, far }: { node: TraceObject; far?: boolean }) {
  return (
    <div className={`w-80 rounded-md border bg-white px-3 py-2 text-sm shadow-sm ${far ? 'border-green-600' : 'border-slate-300'}`} data-trace-node={node.display}>
      <div className="text-xs text-slate-500">{KIND[node.object_type] ?? node.object_type}</div>
      {node.parent ? (
        <Link to={paths.detail(node.parent.object_type, node.parent.id)} className="text-sky-700 hover:underline">
          {node.parent.display}
        </Link>
      ) : null}
      {node.parent ? ' › ' : null}
      <Link to={paths.detail(node.object_type, node.id)} className="font-medium text-sky-700 hover:underline">
        {node.name}
      </Link>
    </div>
  );
}

/** What a path crosses without a cable, named by where it enters: a PDU from an outlet to its inlet, a panel… */
const CROSSING: Record<string, string> = {
  'dcim.poweroutlet': 'through the PDU (the inlet feeding this outlet)',
  'circuits.circuittermination': 'through the circuit',
};

function Wire({ cable, from }: { cable: TraceObject | null; from?: string }) {
  return (
    <div className="flex items-stretch" aria-hidden={cable ? undefined : true}>
      <div className="flex w-80 justify-center">
        <div className={`w-1 ${cable ? 'min-h-12 bg-sky-600' : 'min-h-6 border-l-2 border-dashed border-slate-400'}`} />
      </div>
      {cable ? (
        <div className="flex items-center pl-2 text-sm" data-trace-cable={cable.display}>
          <span className="text-slate-500">Cable&nbsp;</span>
          <Link to={paths.detail('dcim.cable', cable.id)} className="text-sky-700 hover:underline">
            {cable.display}
          </Link>
        </div>
      ) : (
        <div className="flex items-center pl-2 text-xs text-slate-500">{(from && CROSSING[from]) ?? 'through the panel'}</div>
      )}
    </div>
  );
}

export default function TraceTab({ model, object }: DetailTabProps) {
  const path = `${model.path}${object.id}/trace/`;
  const trace = useQuery({ queryKey: ['trace', path], queryFn: () => get<Trace>(path) });
  if (trace.isLoading) return <Loading label="Tracing the cable path…" />;
  if (trace.error) return <ErrorState error={trace.error} retry={() => void trace.refetch()} />;
  const t = trace.data!;
  return (
    <div className="space-y-4">
      <p className="text-sm text-slate-700" role="status">
        {t.destination ? (
          <>
            Connected to{' '}
            <Link to={paths.detail(t.destination.object_type, t.destination.id)} className="font-medium text-sky-700 hover:underline">
              {t.destination.display}
            </Link>{' '}
            through {t.segments.length} cable{t.segments.length === 1 ? '' : 's'}.
          </>
        ) : (
          ENDED[t.ended]
        )}
      </p>
      <ol className="flex flex-col" aria-label="Cable path">
        {t.segments.map((s, i) => (
          <Fragment key={i}>
            {/* The step inside a panel, from the previous far end to this near end. */}
            {i > 0 ? <li className="list-none"><Wire cable={null} from={t.segments[i - 1]!.far_end?.object_type} /></li> : null}
            <li className="list-none"><Node node={s.near_end} /></li>
            {s.cable ? (
              <li className="list-none"><Wire cable={s.cable} /></li>
            ) : null}
            {s.far_end ? <li className="list-none"><Node node={s.far_end} far={i === t.segments.length - 1 && (t.ended === 'interface' || t.ended === 'endpoint')} /></li> : null}
          </Fragment>
        ))}
      </ol>
    </div>
  );
}
