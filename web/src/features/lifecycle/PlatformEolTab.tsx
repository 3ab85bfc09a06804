// The End of life tab of a platform: its status badge and mapped cycle (with a Not in catalog marker when the
// catalog dropped it), and the mapping picker: suggested products first, the suggested cycle preselected.
import { useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, del, get, put } from '../../api/client.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { ErrorState, Loading } from '../../components/states.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { Button, inputClass } from '../../components/ui.tsx';
import { EolBadge } from '../devices/EolBadge.tsx';
import { isOff, type Cycle, type EolMapping, type Product, type Suggestion } from './api.ts';

const key = (p: { source: string; name: string }) => `${p.source}/${p.name}`;

export default function PlatformEolTab({ object, model, me }: DetailTabProps) {
  const client = useQueryClient();
  const toast = useToast();
  const path = `/api/eol/platforms/${object.id}/`;
  const mapping = useQuery({ queryKey: ['eol-mapping', object.id], queryFn: () => get<EolMapping>(path), retry: false });
  const [q, setQ] = useState('');
  const products = useQuery({
    queryKey: ['eol-products', object.id, q],
    queryFn: () => get<{ suggestions: Suggestion[]; results: Product[] }>('/api/eol/products/', { platform: object.id, q: q || undefined, limit: 200 }),
    enabled: mapping.isSuccess,
  });
  const suggestions = products.data?.suggestions ?? [];
  const [product, setProduct] = useState('');
  const [cycle, setCycle] = useState('');
  // Preselect: the current mapping, else the best suggestion and its cycle.
  useEffect(() => {
    if (product || !products.data) return;
    if (mapping.data?.product && mapping.data.source) {
      setProduct(`${mapping.data.source}/${mapping.data.product}`);
      setCycle(mapping.data.cycle ?? '');
    } else if (suggestions[0]) {
      setProduct(key(suggestions[0]));
      setCycle(suggestions[0].cycle);
    }
  }, [products.data, mapping.data, product, suggestions]);
  const [source, name] = product ? [product.slice(0, product.indexOf('/')), product.slice(product.indexOf('/') + 1)] : ['', ''];
  const detail = useQuery({
    queryKey: ['eol-product', product],
    queryFn: () => get<Product & { releases: Cycle[] }>(`/api/eol/products/${encodeURIComponent(source)}/${encodeURIComponent(name)}/`),
    enabled: !!product,
  });
  const save = useMutation({
    mutationFn: () => put<EolMapping>(path, { source, product: name, cycle }),
    onSuccess: (m) => {
      client.setQueryData(['eol-mapping', object.id], m);
      void client.invalidateQueries({ queryKey: ['object', model.path, object.id] });
      toast.show({ message: `Mapped to ${m.product} ${m.cycle}.`, tone: 'success' });
    },
  });
  const remove = useMutation({
    mutationFn: () => del(path),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['eol-mapping', object.id] });
      void client.invalidateQueries({ queryKey: ['object', model.path, object.id] });
      setProduct('');
      setCycle('');
      toast.show({ message: 'Mapping removed.', tone: 'success' });
    },
  });

  if (mapping.isLoading) return <Loading />;
  if (mapping.error) {
    if (isOff(mapping.error)) return <p className="text-sm text-slate-600">End-of-life data is off on this server{me.permissions.includes('*') || me.permissions.includes('users.manage') ? ' (turn it on under Settings → End of life)' : ''}.</p>;
    return <ErrorState error={mapping.error} retry={() => void mapping.refetch()} />;
  }
  const m = mapping.data!;
  const errors = save.error instanceof ApiError ? save.error.fieldErrors : {};
  const others = (products.data?.results ?? []).filter((p) => !suggestions.some((s) => key(s) === key(p)));
  return (
    <div className="grid gap-4 lg:grid-cols-2">
      <section aria-label="End-of-life status" className="space-y-2 rounded-lg border border-slate-200 bg-white p-4 text-sm">
        <p className="flex items-center gap-2">
          <EolBadge eol={m} />
          {m.product ? <span>{m.product} {m.cycle}</span> : <span className="text-slate-500">Not mapped to a catalog cycle.</span>}
        </p>
        {m.product ? (
          <dl className="grid grid-cols-2 gap-2">
            <dt className="text-slate-500">Released</dt>
            <dd>{m.release_date ?? '—'}</dd>
            <dt className="text-slate-500">Active support until</dt>
            <dd>{m.support_until ?? '—'}</dd>
            <dt className="text-slate-500">End of life</dt>
            <dd>{m.eol_date ?? (m.eol === true ? 'reached' : m.eol === false ? 'not yet' : '—')}</dd>
            <dt className="text-slate-500">Latest version</dt>
            <dd>{m.latest_version || '—'}</dd>
            <dt className="text-slate-500">Synced</dt>
            <dd>{m.synced_at ?? 'not yet'}</dd>
          </dl>
        ) : null}
        {m.missing ? <p className="text-amber-800">Not in catalog: the source no longer lists this product or cycle; the last known facts are kept.</p> : null}
      </section>
      {model.can.change && !me.read_only ? (
        <section aria-label="Map to a catalog cycle" className="space-y-3 rounded-lg border border-slate-200 bg-white p-4">
          <div>
            <label htmlFor="eol-search" className="block text-sm font-medium">
              Search the catalog
            </label>
            <input id="eol-search" className={inputClass} value={q} onChange={(e) => setQ(e.target.value)} placeholder="e.g. ubuntu, junos" />
          </div>
          <div>
            <label htmlFor="eol-product" className="block text-sm font-medium">
              Product
            </label>
            <select
              id="eol-product"
              className={inputClass}
              value={product}
              aria-invalid={!!errors.product || undefined}
              onChange={(e) => {
                setProduct(e.target.value);
                setCycle(suggestions.find((s) => key(s) === e.target.value)?.cycle ?? '');
              }}
            >
              <option value="">{products.isLoading ? 'Loading…' : '— pick a product —'}</option>
              {suggestions.length ? (
                <optgroup label="Suggested">
                  {suggestions.map((s) => (
                    <option key={key(s)} value={key(s)}>
                      {s.label} ({s.source})
                    </option>
                  ))}
                </optgroup>
              ) : null}
              <optgroup label="All products">
                {others.map((p) => (
                  <option key={key(p)} value={key(p)}>
                    {p.label} ({p.source})
                  </option>
                ))}
              </optgroup>
            </select>
            {errors.product ? <p role="alert" className="text-sm text-red-700">{errors.product.join(' ')}</p> : null}
          </div>
          <div>
            <label htmlFor="eol-cycle" className="block text-sm font-medium">
              Cycle
            </label>
            <select id="eol-cycle" className={inputClass} value={cycle} aria-invalid={!!errors.cycle || undefined} onChange={(e) => setCycle(e.target.value)} disabled={!detail.data}>
              <option value="">— pick a cycle —</option>
              {(detail.data?.releases ?? []).map((c) => (
                <option key={c.name} value={c.name}>
                  {c.label || c.name}
                  {c.eol_date ? ` (EOL ${c.eol_date})` : ''}
                  {c.lts ? ' LTS' : ''}
                </option>
              ))}
            </select>
            {errors.cycle ? <p role="alert" className="text-sm text-red-700">{errors.cycle.join(' ')}</p> : null}
          </div>
          {save.error && !Object.keys(errors).length ? <p role="alert" className="text-sm text-red-700">{save.error.message}</p> : null}
          <div className="flex gap-2">
            <Button variant="primary" disabled={!product || !cycle || save.isPending} onClick={() => save.mutate()}>
              Save mapping
            </Button>
            {m.product ? (
              <Button disabled={remove.isPending} onClick={() => remove.mutate()}>
                Remove mapping
              </Button>
            ) : null}
          </div>
        </section>
      ) : null}
    </div>
  );
}
