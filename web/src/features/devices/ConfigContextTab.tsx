// The Config context tab of a device or virtual machine: the contexts that apply to it in merge order (a later one
// wins), every value of the merged context with the context it came from and those it overrode, and the merged
// JSON as a template reads it (`config_context`). Reads <object>/config-context/sources/ (src/extras/routes.ts).
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { get } from '../../api/client.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { Empty, ErrorState, Loading } from '../../components/states.tsx';
import { Button } from '../../components/ui.tsx';

interface ContextSource {
  id: string;
  display: string;
  name: string;
  weight: number;
}

interface Sources {
  rendered: Record<string, unknown>;
  contexts: ContextSource[];
  keys: Array<{ path: string[]; value: unknown; source: ContextSource; overridden: ContextSource[] }>;
}

function ContextLink({ c }: { c: ContextSource }) {
  return (
    <Link className="text-sky-700 hover:underline" to={paths.detail('extras.configcontext', c.id)}>
      {c.name}
    </Link>
  );
}

/** A value as JSON writes it, short values on one line. */
function json(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

export default function ConfigContextTab({ model, object }: DetailTabProps) {
  const sources = useQuery({ queryKey: ['config-context-sources', model.path, object.id], queryFn: () => get<Sources>(`${model.path}${object.id}/config-context/sources/`) });
  const [view, setView] = useState<'keys' | 'json'>('keys');
  if (sources.isLoading) return <Loading label="Merging config contexts…" />;
  if (sources.error) return <ErrorState error={sources.error} retry={() => void sources.refetch()} />;
  const data = sources.data!;
  if (data.contexts.length === 0) {
    return (
      <Empty title={`No config context applies to this ${model.label}`}>
        A config context applies by region, site, role and platform.{' '}
        <Link className="text-sky-700 hover:underline" to={paths.list('extras.configcontext')}>
          See the config contexts
        </Link>
        .
      </Empty>
    );
  }
  return (
    <div className="space-y-4">
      <section aria-labelledby="cc-applied" className="rounded-lg border border-slate-200 bg-white p-4 text-sm">
        <h2 id="cc-applied" className="mb-1 font-semibold">
          Applied contexts
        </h2>
        <p className="mb-2 text-slate-600">Merged in this order, by weight then name: a later context's value replaces an earlier one's, mappings merge key by key.</p>
        <ol className="flex flex-wrap gap-x-2 gap-y-1" aria-label="Applied contexts in merge order">
          {data.contexts.map((c, n) => (
            <li key={c.id} className="inline-flex items-center gap-1">
              {n ? <span className="text-slate-400" aria-hidden="true">→</span> : null}
              <ContextLink c={c} />
              <span className="text-xs text-slate-500">(weight {c.weight})</span>
            </li>
          ))}
        </ol>
      </section>
      <div className="flex gap-2" role="group" aria-label="View">
        <Button aria-pressed={view === 'keys'} variant={view === 'keys' ? 'primary' : 'secondary'} onClick={() => setView('keys')}>
          Keys and sources
        </Button>
        <Button aria-pressed={view === 'json'} variant={view === 'json' ? 'primary' : 'secondary'} onClick={() => setView('json')}>
          Merged JSON
        </Button>
      </div>
      {view === 'keys' ? (
        <DataTable
          caption="Config context keys and their sources"
          rows={data.keys}
          rowKey={(k) => k.path.join('\u0000')}
          rowProps={(k) => ({ 'data-key': k.path.join('.') })}
          empty="The applied contexts hold no data"
          columns={[
            { key: 'key', header: 'Key', cell: (k) => k.path.join('.'), className: 'font-mono whitespace-nowrap' },
            { key: 'value', header: 'Value', cell: (k) => json(k.value), className: 'max-w-md font-mono text-xs break-all' },
            {
              key: 'from',
              header: 'From',
              cell: (k) => (
                <div data-source={k.source.name}>
                  <ContextLink c={k.source} />
                  {k.overridden.length ? (
                    <div className="text-xs text-slate-500">
                      overrides{' '}
                      {k.overridden.map((o, n) => (
                        <span key={o.id}>
                          {n ? ', ' : ''}
                          <ContextLink c={o} />
                        </span>
                      ))}
                    </div>
                  ) : null}
                </div>
              ),
            },
          ]}
        />
      ) : (
        <pre className="max-h-[32rem] overflow-auto rounded border border-slate-200 bg-slate-50 p-3 font-mono text-[12px] leading-5" aria-label="Merged config context">
          {JSON.stringify(data.rendered, null, 2)}
        </pre>
      )}
    </div>
  );
}
