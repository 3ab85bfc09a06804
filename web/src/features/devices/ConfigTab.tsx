// The Config tab of a device: which template is bound and where the binding comes from, a bundle picker, and for
// each rendered file its path, SHA-256, push state (Matches last push / Changed since last push / Never pushed),
// a diff against the last push and the rendered text, which copies to the clipboard or downloads as a file; a bundle
// downloads as a tarball (src/templating/render-routes.ts). The role's bundle is offered only when the role has
// exactly one (what `bundle=role` resolves), and only bundles that apply to the device's role are listed.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { get, withQuery } from '../../api/client.ts';
import type { ApiObject, Brief, Page } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';
import { Empty, ErrorState, Loading } from '../../components/states.tsx';
import { Badge, Button, inputClass } from '../../components/ui.tsx';
import { formatDateTime } from '../../components/Value.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { bundleChoices } from './bundle-choices.ts';

interface PushState {
  sha256: string;
  at: string;
  by: string;
  source: string;
  note: string;
  has_output: boolean;
}

interface FileEntry {
  path: string;
  template: string;
  template_id: string;
  output?: string;
  sha256: string;
  pushed: PushState | null;
  drift: boolean | null;
  diff?: string;
}

interface Binding {
  own: { id: string; name: string } | null;
  resolved: { id: string; name: string } | null;
}

type RenderAnswer = FileEntry | { bundle: string; files: Record<string, FileEntry> };

const isBundle = (a: RenderAnswer): a is { bundle: string; files: Record<string, FileEntry> } => 'files' in a;

export function PushBadge({ entry }: { entry: FileEntry }) {
  if (entry.drift === null) return <Badge tone="slate">Never pushed</Badge>;
  if (entry.drift) return <Badge tone="amber">Changed since last push</Badge>;
  return <Badge tone="green">Matches last push</Badge>;
}

/** Where the resolved template comes from: the device itself, else its role, else its platform. */
function useBindingSource(device: ApiObject, binding: Binding | null) {
  const role = device.role as Brief | null;
  const platform = device.platform as Brief | null;
  const needLookup = !!binding?.resolved && !binding.own;
  const roleRow = useQuery({ queryKey: ['object', '/api/device-roles/', role?.id], queryFn: () => get<ApiObject>(`/api/device-roles/${role!.id}/`), enabled: needLookup && !!role });
  const platformRow = useQuery({ queryKey: ['object', '/api/platforms/', platform?.id], queryFn: () => get<ApiObject>(`/api/platforms/${platform!.id}/`), enabled: needLookup && !!platform });
  if (!binding?.resolved) return null;
  if (binding.own) return { label: 'this device', to: null };
  const bound = (row: ApiObject | undefined) => (row?.config_template as Brief | null | undefined)?.id === binding.resolved!.id;
  if (role && bound(roleRow.data)) return { label: `its role ${role.display}`, to: paths.detail('dcim.devicerole', role.id) };
  if (platform && bound(platformRow.data)) return { label: `its platform ${platform.display}`, to: paths.detail('dcim.platform', platform.id) };
  return roleRow.isLoading || platformRow.isLoading ? { label: '…', to: null } : { label: 'its role or platform', to: null };
}

function DiffView({ diff }: { diff: string }) {
  return (
    <pre className="max-h-96 overflow-auto rounded border border-slate-200 bg-slate-50 p-2 font-mono text-[12px] leading-5" aria-label="Diff against the last push">
      {diff.split('\n').map((line, i) => (
        <div key={i} className={line.startsWith('+') && !line.startsWith('+++') ? 'bg-green-50 text-green-800' : line.startsWith('-') && !line.startsWith('---') ? 'bg-red-50 text-red-800' : line.startsWith('@@') ? 'text-sky-700' : ''}>
          {line || '\u200b'}
        </div>
      ))}
    </pre>
  );
}

/** Puts text on the clipboard; over plain HTTP (no Clipboard API) through a selected text area instead. */
async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('The browser refused to copy.');
}

/** Lines of a text, a final newline ending the last line rather than starting another. */
function lineCount(text: string): number {
  return text === '' ? 0 : text.replace(/\n$/, '').split('\n').length;
}

/** Saves text as a file with `name`, without another request: it is the text on screen. */
function downloadText(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** `<device>-<last part of the path>`: frr.conf of ams1-leaf01 saves as ams1-leaf01-frr.conf. */
export function downloadName(device: string, path: string): string {
  const base = path.split('/').filter(Boolean).pop() ?? 'config.txt';
  return `${device}-${base}`.replace(/[^\w.@+-]+/g, '_');
}

function FileCard({ entry, device }: { entry: FileEntry; device: string }) {
  const [open, setOpen] = useState<'diff' | 'output' | null>(null);
  const toast = useToast();
  const canDiff = !!entry.diff;
  const output = entry.output ?? '';
  return (
    <li className="rounded-lg border border-slate-200 bg-white" data-config-file={entry.path}>
      <div className="flex flex-wrap items-center justify-between gap-2 px-4 py-2">
        <div className="min-w-0">
          <p className="font-mono text-sm font-medium">{entry.path}</p>
          <p className="text-xs text-slate-500">
            from{' '}
            <Link className="text-sky-700 hover:underline" to={paths.detail('extras.exporttemplate', entry.template_id)}>
              {entry.template}
            </Link>{' '}
            · SHA-256 <span className="font-mono" title={entry.sha256}>{entry.sha256.slice(0, 16)}…</span>
            {entry.pushed ? ` · last push ${formatDateTime(entry.pushed.at)}${entry.pushed.by ? ` by ${entry.pushed.by}` : ''}${entry.pushed.source ? ` (${entry.pushed.source})` : ''}` : ''}
          </p>
        </div>
        <div className="flex items-center gap-2">
          <PushBadge entry={entry} />
          {canDiff ? (
            <Button aria-expanded={open === 'diff'} onClick={() => setOpen(open === 'diff' ? null : 'diff')}>
              Diff
            </Button>
          ) : null}
          <Button aria-expanded={open === 'output'} onClick={() => setOpen(open === 'output' ? null : 'output')}>
            Output
          </Button>
          <Button
            aria-label={`Copy ${entry.path}`}
            onClick={() =>
              void copyText(output).then(
                () => toast.show({ message: `Copied ${entry.path} (${lineCount(output)} ${lineCount(output) === 1 ? 'line' : 'lines'}).`, tone: 'success' }),
                (err: unknown) => toast.show({ message: err instanceof Error ? err.message : 'Could not copy.', tone: 'error' }),
              )
            }
          >
            Copy
          </Button>
          <Button aria-label={`Download ${entry.path}`} onClick={() => downloadText(output, downloadName(device, entry.path))}>
            Download
          </Button>
        </div>
      </div>
      {entry.drift && !canDiff ? <p className="px-4 pb-2 text-xs text-slate-500">The last push recorded a hash only, so no diff can be shown.</p> : null}
      {open === 'diff' && entry.diff ? (
        <div className="px-4 pb-3">
          <DiffView diff={entry.diff} />
        </div>
      ) : null}
      {open === 'output' ? (
        <div className="px-4 pb-3">
          <pre className="max-h-96 overflow-auto rounded border border-slate-200 bg-slate-50 p-2 font-mono text-[12px] leading-5" aria-label={`Rendered ${entry.path}`}>
            {entry.output ?? ''}
          </pre>
        </div>
      ) : null}
    </li>
  );
}

export default function ConfigTab({ object }: DetailTabProps) {
  const binding = (object.config_template as Binding | undefined) ?? null;
  const source = useBindingSource(object, binding);
  const [bundle, setBundle] = useState('');
  const bundles = useQuery({ queryKey: ['list', '/api/config-bundles/', { limit: 500 }], queryFn: () => get<Page>('/api/config-bundles/', { limit: 500 }) });
  const { roleBundle, usable } = bundleChoices(object, bundles.data?.results);
  const renderPath = `/api/devices/${object.id}/render/`;
  const render = useQuery({
    queryKey: ['device-render', object.id, bundle],
    queryFn: () => get<RenderAnswer>(renderPath, { bundle: bundle || undefined }),
    retry: false,
    // Without a binding there is nothing to render until a bundle is picked.
    enabled: bundle !== '' || !!binding?.resolved,
  });
  const files = render.data ? (isBundle(render.data) ? Object.values(render.data.files) : [render.data]) : [];

  return (
    <div className="space-y-4">
      <section aria-label="Config template binding" className="rounded-lg border border-slate-200 bg-white p-4 text-sm">
        {binding?.resolved ? (
          <p>
            Bound template:{' '}
            <Link className="font-medium text-sky-700 hover:underline" to={paths.detail('extras.exporttemplate', binding.resolved.id)}>
              {binding.resolved.name}
            </Link>{' '}
            <span className="text-slate-500">
              (from {source?.to ? <Link className="hover:underline" to={source.to}>{source.label}</Link> : source?.label})
            </span>
          </p>
        ) : (
          <p className="text-slate-600">No config template is bound to this device, its role or its platform. Pick a bundle below, or set a config template on the device, its role or its platform.</p>
        )}
      </section>
      <div className="flex flex-wrap items-end gap-3">
        <div>
          <label htmlFor="config-bundle" className="block text-sm font-medium">
            Render
          </label>
          <select id="config-bundle" className={`${inputClass} w-72`} value={bundle} onChange={(e) => setBundle(e.target.value)}>
            <option value="">{binding?.resolved ? `Bound template (${binding.resolved.name})` : 'Bound template (none)'}</option>
            {roleBundle ? <option value="role">The bundle of its role ({roleBundle})</option> : null}
            {usable.map((b) => (
              <option key={b.id} value={String(b.name ?? b.display)}>
                Bundle: {String(b.name ?? b.display)}
              </option>
            ))}
          </select>
        </div>
        <Button onClick={() => void render.refetch()} disabled={render.isFetching || (bundle === '' && !binding?.resolved)}>
          {render.isFetching ? 'Rendering…' : 'Render again'}
        </Button>
        {bundle && render.data ? (
          <a href={withQuery(renderPath, { bundle, archive: 'tar' })} className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium hover:bg-slate-100" download>
            Download as tar
          </a>
        ) : null}
      </div>
      {render.isLoading ? <Loading label="Rendering…" /> : null}
      {render.error ? <ErrorState error={render.error} retry={() => void render.refetch()} /> : null}
      {!render.isLoading && !render.error && bundle === '' && !binding?.resolved ? <Empty title="Nothing to render">This device has no bound template.</Empty> : null}
      {render.data && files.length === 0 ? <Empty title="The bundle has no templates" /> : null}
      {files.length ? (
        <ul className="space-y-2" aria-label="Rendered files">
          {files.map((f) => (
            <FileCard key={f.path} entry={f} device={String(object.name ?? object.display)} />
          ))}
        </ul>
      ) : null}
    </div>
  );
}
