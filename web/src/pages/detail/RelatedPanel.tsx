// "Related objects" beside an object's fields: what points at it (a site's racks and devices, a VRF's prefixes),
// each count a link to that list filtered to this object. Kinds with none are listed after, without a link.
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { get } from '../../api/client.ts';
import type { paths as api } from '../../api/schema.gen.ts';
import type { ApiObject, ModelInfo } from '../../api/types.ts';
import { paths } from '../../app/paths.ts';
import { ErrorState } from '../../components/states.tsx';

type Related = api['/api/sites/{id}/related/']['get']['responses'][200]['content']['application/json'];

export function RelatedPanel({ model, object }: { model: ModelInfo; object: ApiObject }) {
  const related = useQuery({ queryKey: ['related', model.path, object.id], queryFn: () => get<Related>(`${model.path}${object.id}/related/`) });
  const some = related.data?.results.filter((r) => r.count > 0) ?? [];
  const none = related.data?.results.filter((r) => r.count === 0) ?? [];
  return (
    <section aria-labelledby="overview-related" className="self-start rounded-lg border border-slate-200 bg-white">
      <h2 id="overview-related" className="border-b border-slate-200 px-4 py-2 font-semibold">
        Related objects
      </h2>
      {related.isLoading ? (
        <p className="px-4 py-2 text-sm text-slate-500">Counting…</p>
      ) : related.error ? (
        <ErrorState error={related.error} retry={() => void related.refetch()} />
      ) : (
        <>
          {some.length ? (
            <ul className="divide-y divide-slate-100">
              {some.map((r) => (
                <li key={`${r.model}.${r.field}`} className="flex items-center justify-between px-4 py-2 text-sm">
                  <Link to={paths.list(r.model)} search={{ [r.field]: object.id }} className="text-sky-700 hover:underline">
                    {r.label}
                  </Link>
                  <span className="rounded-full bg-slate-100 px-2 text-xs font-medium text-slate-700" aria-label={`${r.count} ${r.label}`}>
                    {r.count}
                  </span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="px-4 py-2 text-sm text-slate-500">
              {/* No kind listed at all: the caller may view none of the models that could refer to it. */}
              {related.data?.results.length ? `Nothing refers to this ${model.label} yet.` : `Nothing you may view refers to this ${model.label}.`}
            </p>
          )}
          {none.length ? <p className="border-t border-slate-100 px-4 py-2 text-xs text-slate-500">None: {none.map((r) => r.label).join(', ')}.</p> : null}
        </>
      )}
    </section>
  );
}
