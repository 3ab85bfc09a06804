// Global search over /api/search/. While a server has no search endpoint (404), the same text is run as the
// `q` filter of a few main lists instead, and the page says so.
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { ApiError, get } from '../api/client.ts';
import { useModelLabels, useModels } from '../api/hooks.ts';
import type { ModelInfo, Page } from '../api/types.ts';
import { searchRoute } from '../app/routes.ts';
import { paths } from '../app/paths.ts';
import { Empty, ErrorState, Loading } from '../components/states.tsx';
import { Badge, PageHeader } from '../components/ui.tsx';

interface SearchHit {
  object_type: string;
  id: string;
  display: string;
  matched_field?: string;
  matched_label?: string;
  score?: number;
  /** What the hit is in (a VLAN's group or site): five sites' `servers (10)` told apart. */
  context?: string;
}

const FALLBACK_MODELS = ['dcim.device', 'organization.site', 'ipam.prefix', 'ipam.ipaddress', 'ipam.vlan', 'virtualization.virtualmachine'];

async function fallbackSearch(q: string, models: ModelInfo[]): Promise<SearchHit[]> {
  const targets = models.filter((m) => FALLBACK_MODELS.includes(m.model));
  const pages = await Promise.all(
    targets.map((m) =>
      get<Page>(m.path, { q, limit: 10, brief: true })
        .then((p) => p.results.map((r) => ({ object_type: m.model, id: r.id, display: r.display })))
        .catch(() => [] as SearchHit[]),
    ),
  );
  return pages.flat();
}

export default function SearchPage() {
  const { q = '' } = searchRoute.useSearch();
  const models = useModels();
  const search = useQuery({
    queryKey: ['search', q],
    enabled: q.length > 0 && !!models.data,
    queryFn: async () => {
      try {
        const r = await get<{ results: SearchHit[] }>('/api/search/', { q, limit: 50 });
        return { hits: r.results, fallback: false };
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return { hits: await fallbackSearch(q, models.data ?? []), fallback: true };
        throw err;
      }
    },
  });
  const labelOf = useModelLabels();
  return (
    <div>
      <PageHeader title="Search" subtitle={q ? `Results for “${q}”` : 'Type in the search box at the top.'} />
      {!q ? null : search.isLoading || models.isLoading ? (
        <Loading label="Searching…" />
      ) : search.error ? (
        <ErrorState error={search.error} retry={() => void search.refetch()} />
      ) : (
        <>
          {search.data?.fallback ? <p className="mb-3 text-sm text-amber-800">Global search is not available on this server yet; these results come from the main lists.</p> : null}
          {search.data?.hits.length ? (
            <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white">
              {search.data.hits.map((hit) => (
                <li key={`${hit.object_type}:${hit.id}`} className="flex items-center gap-3 px-4 py-2">
                  <Badge>{labelOf(hit.object_type)}</Badge>
                  <Link to={paths.detail(hit.object_type, hit.id)} className="font-medium text-sky-700 hover:underline">
                    {hit.display}
                  </Link>
                  {hit.context ? <span className="text-sm text-slate-600">in {hit.context}</span> : null}
                  {hit.matched_field ? <span className="text-xs text-slate-500">matched {hit.matched_label ?? hit.matched_field}</span> : null}
                </li>
              ))}
            </ul>
          ) : (
            <Empty title="Nothing found">Try fewer letters, or another spelling.</Empty>
          )}
        </>
      )}
    </div>
  );
}
