// Settings → End of life (deployment admins): turn the feature on, pick sources and their URLs, the warning window,
// Refresh now with the refresh's live status, and Import of a saved catalog document.
import { useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, get, patch, post } from '../../api/client.ts';
import { ErrorState, Loading } from '../../components/states.tsx';
import { FieldShell } from '../../components/fields/FieldInput.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { Badge, Button, PageHeader, inputClass } from '../../components/ui.tsx';
import { formatDateTime } from '../../components/Value.tsx';
import type { EolSettings } from './api.ts';

const KEY = ['eol-settings'];
const BUSY = new Set(['queued', 'running']);

export default function EolSettingsPage() {
  const client = useQueryClient();
  const toast = useToast();
  const settings = useQuery({
    queryKey: KEY,
    queryFn: () => get<EolSettings>('/api/eol/settings/'),
    // Follow a refresh while it is queued or running.
    refetchInterval: (q) => (BUSY.has(q.state.data?.last_refresh_status ?? '') ? 2000 : false),
  });
  const [draft, setDraft] = useState<{ enabled: boolean; sources: string[]; source_urls: Record<string, string>; warning_days: string } | null>(null);
  useEffect(() => {
    if (settings.data && !draft) {
      const s = settings.data;
      setDraft({ enabled: s.enabled, sources: s.sources ?? [], source_urls: s.source_urls ?? {}, warning_days: String(s.warning_days) });
    }
  }, [settings.data, draft]);
  const save = useMutation({
    mutationFn: () =>
      patch<EolSettings>('/api/eol/settings/', {
        enabled: draft!.enabled,
        sources: draft!.sources,
        source_urls: draft!.source_urls,
        warning_days: /^\d+$/.test(draft!.warning_days) ? Number(draft!.warning_days) : draft!.warning_days,
      }),
    onSuccess: (s) => {
      client.setQueryData(KEY, s);
      toast.show({ message: 'End-of-life settings saved.', tone: 'success' });
    },
  });
  const refresh = useMutation({ mutationFn: () => post<EolSettings>('/api/eol/refresh/'), onSuccess: (s) => client.setQueryData(KEY, s) });
  const [file, setFile] = useState<File | null>(null);
  const upload = useMutation({
    mutationFn: () => {
      const form = new FormData();
      form.append('file', file!);
      return post<Record<string, unknown>>('/api/eol/import/', form);
    },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: KEY });
      toast.show({ message: `Imported ${file?.name ?? 'the catalog'}.`, tone: 'success' });
    },
  });

  if (settings.isLoading || (settings.data && !draft)) return <Loading />;
  if (settings.error) return <ErrorState error={settings.error} retry={() => void settings.refetch()} />;
  const s = settings.data!;
  if (!s.can_manage) return <ErrorState error={new ApiError(403, { detail: 'End-of-life settings are for deployment admins (users.manage).' })} />;
  const d = draft!;
  const errors = save.error instanceof ApiError ? save.error.fieldErrors : {};
  const status = s.last_refresh_status ?? '';
  return (
    <div className="max-w-3xl space-y-6">
      <PageHeader title="End of life" subtitle={`${s.products ?? 0} catalog products, ${s.mappings ?? 0} mapped platforms`} />
      <form
        aria-label="End-of-life settings"
        className="space-y-4 rounded-lg border border-slate-200 bg-white p-4"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <label className="flex items-center gap-2 text-sm font-medium">
          <input type="checkbox" checked={d.enabled} onChange={(e) => setDraft({ ...d, enabled: e.target.checked })} />
          Enable end-of-life data
        </label>
        <fieldset className="space-y-2">
          <legend className="text-sm font-medium">Sources</legend>
          {(s.available_sources ?? []).map((src) => (
            <div key={src.key} className="space-y-1">
              <label className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  checked={d.sources.includes(src.key)}
                  onChange={(e) => setDraft({ ...d, sources: e.target.checked ? [...d.sources, src.key] : d.sources.filter((k) => k !== src.key) })}
                />
                {src.label}
              </label>
              <input
                aria-label={`${src.label} URL`}
                className={inputClass}
                placeholder={src.default_url}
                value={d.source_urls[src.key] ?? ''}
                onChange={(e) => setDraft({ ...d, source_urls: { ...d.source_urls, [src.key]: e.target.value } })}
              />
            </div>
          ))}
          {errors.sources || errors.source_urls ? <p role="alert" className="text-sm text-red-700">{[...(errors.sources ?? []), ...(errors.source_urls ?? [])].join(' ')}</p> : null}
          <p className="text-xs text-slate-500">Leave a URL blank for the public service; a mirror must be https://.</p>
        </fieldset>
        <FieldShell id="eol-warning" label="Warning days" hint="A cycle whose end of life is this close counts as ending." errors={errors.warning_days}>
          <input id="eol-warning" inputMode="numeric" className={`${inputClass} w-32`} value={d.warning_days} aria-invalid={!!errors.warning_days || undefined} onChange={(e) => setDraft({ ...d, warning_days: e.target.value })} />
        </FieldShell>
        {save.error && !Object.keys(errors).length ? <p role="alert" className="text-sm text-red-700">{save.error.message}</p> : null}
        <Button type="submit" variant="primary" disabled={save.isPending}>
          Save
        </Button>
      </form>
      <section aria-label="Refresh" className="space-y-2 rounded-lg border border-slate-200 bg-white p-4 text-sm">
        <h2 className="font-semibold">Refresh</h2>
        <p aria-live="polite" data-testid="eol-refresh-status">
          {status ? <Badge tone={status === 'ok' ? 'green' : status === 'failed' ? 'red' : 'sky'}>{status}</Badge> : <Badge>never refreshed</Badge>}{' '}
          {s.last_refresh_at ? `last ${formatDateTime(s.last_refresh_at)}` : ''}
          {s.last_refresh_via ? ` (${s.last_refresh_via})` : ''}
        </p>
        {s.last_refresh_error ? <p className="text-red-700">{s.last_refresh_error}</p> : null}
        <Button onClick={() => refresh.mutate()} disabled={refresh.isPending || BUSY.has(status) || !s.enabled}>
          Refresh now
        </Button>
        {!s.enabled ? <p className="text-xs text-slate-500">Enable end-of-life data first.</p> : null}
        {refresh.error ? <p role="alert" className="text-red-700">{refresh.error.message}</p> : null}
      </section>
      <section aria-label="Import" className="space-y-2 rounded-lg border border-slate-200 bg-white p-4 text-sm">
        <h2 className="font-semibold">Import a saved catalog</h2>
        <p className="text-slate-600">For servers without internet access: a saved endoflife.date /api/v1/products/full document (JSON, at most 64 MB).</p>
        <input aria-label="Catalog file" type="file" accept="application/json,.json" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        <div>
          <Button onClick={() => upload.mutate()} disabled={!file || upload.isPending}>
            {upload.isPending ? 'Importing…' : 'Import'}
          </Button>
        </div>
        {upload.error ? <p role="alert" className="text-red-700">{upload.error.message}</p> : null}
        {upload.data ? <pre className="overflow-auto rounded bg-slate-50 p-2 text-xs">{JSON.stringify(upload.data, null, 2)}</pre> : null}
      </section>
    </div>
  );
}
