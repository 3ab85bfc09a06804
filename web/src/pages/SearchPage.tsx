// Global search over /api/search/: the hits counted per type (each count a filter), exact matches alone first and
// the similar ones below, each hit with the field and the text it matched, pages of 50. While a server has no
// search endpoint (404), the same text is run as the `q` filter of a few main lists instead, and the page says so.
import { useQuery, keepPreviousData } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
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
  /** The text the query was found in (a BGP session's description, a port's name). */
  matched_value?: string;
  exact?: boolean;
  score?: number;
  /** What the hit is in (a VLAN's group or site): five sites' `servers (10)` told apart. */
  context?: string;
}

interface TypeCount {
  object_type: string;
  label: string;
  count: number;
  exact: number;
}

interface SearchAnswer {
  hits: SearchHit[];
  count: number;
  exactCount: number;
  counts: TypeCount[];
  fallback: boolean;
}

const PAGE_SIZE = 50;
const FALLBACK_MODELS = ['dcim.device', 'organization.site', 'ipam.prefix', 'ipam.ipaddress', 'ipam.vlan', 'virtualization.virtualmachine'];

async function fallbackSearch(q: string, models: ModelInfo[]): Promise<SearchAnswer> {
  const targets = models.filter((m) => FALLBACK_MODELS.includes(m.model));
  const pages = await Promise.all(
    targets.map((m) =>
      get<Page>(m.path, { q, limit: 10, brief: true })
        .then((p) => p.results.map((r) => ({ object_type: m.model, id: r.id, display: r.display })))
        .catch(() => [] as SearchHit[]),
    ),
  );
  const hits = pages.flat();
  return { hits, count: hits.length, exactCount: 0, counts: [], fallback: true };
}

/** The matched text with the query marked in it (accents and case aside, as the server matched it). */
function Marked({ text, q }: { text: string; q: string }): ReactNode {
  const fold = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
  // Folding can change lengths (ß, ligatures): mark only when it did not, else show the text as it is.
  const folded = fold(text);
  const at = folded.length === text.length ? folded.indexOf(fold(q.trim())) : -1;
  if (at < 0 || !q.trim()) return text;
  const end = at + q.trim().length;
  return (
    <>
      {text.slice(0, at)}
      <mark className="rounded-sm bg-amber-100 px-0.5 text-inherit">{text.slice(at, end)}</mark>
      {text.slice(end)}
    </>
  );
}

function HitRow({ hit, q, labelOf }: { hit: SearchHit; q: string; labelOf: (name: string) => string }) {
  return (
    <li className="flex flex-wrap items-baseline gap-x-3 gap-y-1 px-4 py-2" data-hit={hit.exact ? 'exact' : 'similar'}>
      <Badge>{labelOf(hit.object_type)}</Badge>
      <Link to={paths.detail(hit.object_type, hit.id)} className="font-medium text-sky-700 hover:underline">
        {hit.display}
      </Link>
      {hit.context ? <span className="text-sm text-slate-600">in {hit.context}</span> : null}
      {hit.matched_field ? (
        <span className="text-xs text-slate-500" data-matched>
          matched {hit.matched_label ?? hit.matched_field}
          {hit.matched_value !== undefined ? (
            <>
              {': '}
              <span className="font-mono text-slate-700">
                <Marked text={hit.matched_value} q={q} />
              </span>
            </>
          ) : null}
        </span>
      ) : null}
    </li>
  );
}

function HitList({ title, hits, q, labelOf, id }: { title: string; hits: SearchHit[]; q: string; labelOf: (name: string) => string; id: string }) {
  return (
    <section aria-labelledby={id} className="space-y-1">
      <h2 id={id} className="text-sm font-semibold text-slate-700">
        {title}
      </h2>
      <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white">
        {hits.map((hit) => (
          <HitRow key={`${hit.object_type}:${hit.id}`} hit={hit} q={q} labelOf={labelOf} />
        ))}
      </ul>
    </section>
  );
}

const chip = (active: boolean) =>
  `inline-flex items-center gap-1 rounded-full px-3 py-1 text-sm ring-1 ring-inset ${active ? 'bg-sky-700 text-white ring-sky-700' : 'bg-white text-slate-700 ring-slate-300 hover:bg-slate-50'}`;

export default function SearchPage() {
  const { q = '', type, page = 1 } = searchRoute.useSearch();
  const models = useModels();
  const offset = (page - 1) * PAGE_SIZE;
  const search = useQuery({
    queryKey: ['search', q, type ?? '', offset],
    enabled: q.length > 0 && !!models.data,
    placeholderData: keepPreviousData,
    queryFn: async (): Promise<SearchAnswer> => {
      try {
        const r = await get<{ results: SearchHit[]; count: number; exact_count: number; counts: TypeCount[] }>('/api/search/', {
          q,
          limit: PAGE_SIZE,
          ...(offset ? { offset } : {}),
          ...(type ? { types: type } : {}),
        });
        return { hits: r.results, count: r.count, exactCount: r.exact_count ?? 0, counts: r.counts ?? [], fallback: false };
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return fallbackSearch(q, models.data ?? []);
        throw err;
      }
    },
  });
  const labelOf = useModelLabels();
  const data = search.data;
  const total = data ? data.counts.reduce((n, c) => n + c.count, 0) : 0;
  const typeLabel = type ? (data?.counts.find((c) => c.object_type === type)?.label ?? labelOf(type)) : null;
  const subtitle = !q ? 'Type in the search box at the top.' : data && !data.fallback ? `${data.count.toLocaleString()} ${data.count === 1 ? 'result' : 'results'} for “${q}”${typeLabel ? ` among ${typeLabel.toLowerCase()}` : ''}` : `Results for “${q}”`;
  const exact = data?.hits.filter((h) => h.exact) ?? [];
  const rest = data?.hits.filter((h) => !h.exact) ?? [];
  const first = offset + 1;
  const last = offset + (data?.hits.length ?? 0);
  return (
    <div>
      <PageHeader title="Search" subtitle={subtitle} />
      {!q ? null : search.isLoading || models.isLoading ? (
        <Loading label="Searching…" />
      ) : search.error ? (
        <ErrorState error={search.error} retry={() => void search.refetch()} />
      ) : data ? (
        <div className="space-y-4">
          {data.fallback ? <p className="text-sm text-amber-800">Global search is not available on this server yet; these results come from the main lists.</p> : null}
          {data.counts.length ? (
            <nav aria-label="Filter by type">
              <ul className="flex flex-wrap gap-2">
                <li>
                  <Link to="/search" search={{ q, ...(!type && page > 1 ? { page } : {}) }} activeOptions={{ exact: true }} className={chip(!type)}>
                    All <span className="tabular-nums">{total.toLocaleString()}</span>
                  </Link>
                </li>
                {data.counts.map((c) => (
                  <li key={c.object_type}>
                    <Link
                      to="/search"
                      search={{ q, type: c.object_type, ...(type === c.object_type && page > 1 ? { page } : {}) }}
                      activeOptions={{ exact: true }}
                      className={chip(type === c.object_type)}
                      data-type-count={c.object_type}
                    >
                      {c.label} <span className="tabular-nums">{c.count.toLocaleString()}</span>
                    </Link>
                  </li>
                ))}
                {type && !data.counts.some((c) => c.object_type === type) ? (
                  <li>
                    <span className={chip(true)} aria-current="true">
                      {labelOf(type)} <span className="tabular-nums">0</span>
                    </span>
                  </li>
                ) : null}
              </ul>
            </nav>
          ) : null}
          {data.hits.length ? (
            <>
              {exact.length ? <HitList id="search-exact" title={`Exact ${data.exactCount === 1 ? 'match' : 'matches'} (${data.exactCount.toLocaleString()})`} hits={exact} q={q} labelOf={labelOf} /> : null}
              {rest.length ? (
                <HitList
                  id="search-similar"
                  title={data.fallback ? 'Results' : data.exactCount > 0 ? `Similar (${(data.count - data.exactCount).toLocaleString()})` : `Matches (${data.count.toLocaleString()})`}
                  hits={rest}
                  q={q}
                  labelOf={labelOf}
                />
              ) : null}
              {!data.fallback && (data.count > data.hits.length || offset > 0) ? (
                <nav aria-label="Pages of results" className="flex items-center gap-3 text-sm">
                  <span className="text-slate-600">
                    {first.toLocaleString()}–{last.toLocaleString()} of {data.count.toLocaleString()}
                  </span>
                  {page > 1 ? (
                    <Link to="/search" search={{ q, ...(type ? { type } : {}), ...(page > 2 ? { page: page - 1 } : {}) }} className="rounded-md px-3 py-1.5 font-medium text-sky-700 ring-1 ring-inset ring-slate-300 hover:bg-slate-50">
                      Previous
                    </Link>
                  ) : null}
                  {last < data.count ? (
                    <Link to="/search" search={{ q, ...(type ? { type } : {}), page: page + 1 }} className="rounded-md px-3 py-1.5 font-medium text-sky-700 ring-1 ring-inset ring-slate-300 hover:bg-slate-50">
                      Next
                    </Link>
                  ) : null}
                </nav>
              ) : null}
            </>
          ) : (
            <Empty title="Nothing found">{type && total > 0 ? 'Nothing of this type: try All.' : 'Try fewer letters, or another spelling.'}</Empty>
          )}
        </div>
      ) : null}
    </div>
  );
}
