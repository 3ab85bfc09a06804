// Change log: who changed the object, when, and which fields went from what to what.
import { useQuery } from '@tanstack/react-query';
import { get } from '../../api/client.ts';
import type { Page } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { Empty, ErrorState, Loading } from '../../components/states.tsx';
import { Badge } from '../../components/ui.tsx';
import { formatDateTime } from '../../components/Value.tsx';

type Snapshot = Record<string, unknown> | null;

function show(v: unknown): string {
  if (v === null || v === undefined) return '—';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function changedKeys(before: Snapshot, after: Snapshot): string[] {
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  return [...keys].filter((k) => k !== 'last_updated' && JSON.stringify(before?.[k]) !== JSON.stringify(after?.[k])).sort();
}

export function ChangeLogTab({ model, object }: DetailTabProps) {
  const changes = useQuery({
    queryKey: ['changes', model.model, object.id],
    queryFn: () => get<Page>('/api/changes/', { object_type: model.model, object_id: object.id, ordering: '-time', limit: 100 }),
  });
  if (changes.isLoading) return <Loading />;
  if (changes.error) return <ErrorState error={changes.error} retry={() => void changes.refetch()} />;
  if (!changes.data?.results.length) return <Empty title="No recorded changes" />;
  return (
    <ol className="space-y-3">
      {changes.data.results.map((c) => {
        const before = (c.before ?? null) as Snapshot;
        const after = (c.after ?? null) as Snapshot;
        const keys = c.action === 'update' ? changedKeys(before, after) : [];
        return (
          <li key={c.id} className="rounded-lg border border-slate-200 bg-white p-3 text-sm">
            <div className="flex flex-wrap items-center gap-2">
              <Badge tone={c.action === 'delete' ? 'red' : c.action === 'create' ? 'green' : 'sky'}>{String(c.action)}</Badge>
              <span className="font-medium">{String(c.username ?? 'system')}</span>
              <time className="text-slate-500" dateTime={String(c.time)}>
                {formatDateTime(String(c.time))}
              </time>
            </div>
            {keys.length ? (
              <table className="mt-2 w-full text-xs">
                <thead className="text-left text-slate-500">
                  <tr>
                    <th scope="col" className="py-1 pr-2 font-medium">Field</th>
                    <th scope="col" className="py-1 pr-2 font-medium">Before</th>
                    <th scope="col" className="py-1 font-medium">After</th>
                  </tr>
                </thead>
                <tbody>
                  {keys.map((k) => (
                    <tr key={k} className="border-t border-slate-100 align-top">
                      <td className="py-1 pr-2 font-mono">{k}</td>
                      <td className="py-1 pr-2 break-all text-red-800">{show(before?.[k])}</td>
                      <td className="py-1 break-all text-green-800">{show(after?.[k])}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : null}
          </li>
        );
      })}
    </ol>
  );
}
