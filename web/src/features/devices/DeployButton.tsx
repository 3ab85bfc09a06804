// The Deploy button of a device: pick an automation target that applies to the device (and optionally a bundle),
// launch a run (POST /api/devices/<id>/deploy/), then follow the run's status from /api/deploy-runs/<id>/.
// Servers without deploys answer 404: the dialog then says the feature is not available here.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { ApiError, get, post } from '../../api/client.ts';
import type { ApiObject, Brief, Page } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';
import { Dialog, DialogActions } from '../../components/Dialog.tsx';
import { ErrorState, Loading } from '../../components/states.tsx';
import { Badge, Button, inputClass } from '../../components/ui.tsx';
import { formatDateTime } from '../../components/Value.tsx';
import { bundleChoices } from './bundle-choices.ts';

interface Target extends ApiObject {
  name: string;
  kind: string;
  enabled?: boolean;
  roles?: Brief[];
  platforms?: Brief[];
}

interface DeployRun extends ApiObject {
  target_name: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  status_detail: string;
  external_url: string;
  bundle: string;
  created?: string;
  finished: string | null;
}

const TONE = { queued: 'slate', running: 'sky', succeeded: 'green', failed: 'red' } as const;
const FINAL = new Set(['succeeded', 'failed']);

/** No roles and no platforms listed means every device; else the device's role or platform must be listed. */
function applies(target: Target, device: ApiObject): boolean {
  if (target.enabled === false) return false;
  const role = (device.role as Brief | null)?.id;
  const platform = (device.platform as Brief | null)?.id;
  if (target.roles?.length && !target.roles.some((r) => r.id === role)) return false;
  if (target.platforms?.length && !target.platforms.some((p) => p.id === platform)) return false;
  return true;
}

export function RunStatus({ runId }: { runId: string }) {
  const run = useQuery({
    queryKey: ['object', '/api/deploy-runs/', runId],
    queryFn: () => get<DeployRun>(`/api/deploy-runs/${runId}/`),
    refetchInterval: (q) => (q.state.data && FINAL.has(q.state.data.status) ? false : 3000),
  });
  if (run.isLoading) return <Loading label="Reading the run…" />;
  if (run.error) return <ErrorState error={run.error} />;
  const r = run.data!;
  return (
    <div className="space-y-1 text-sm" data-testid="deploy-run">
      <p>
        Run on <strong>{r.target_name}</strong>: <Badge tone={TONE[r.status]}>{r.status}</Badge>
        {r.bundle ? <span className="text-slate-500"> · bundle {r.bundle}</span> : null}
      </p>
      {r.status_detail ? <p className="text-slate-600">{r.status_detail}</p> : null}
      <p className="flex gap-3">
        <Link className="text-sky-700 hover:underline" to={paths.detail('automation.deployrun', r.id)}>
          Open the run
        </Link>
        {r.external_url ? (
          <a className="text-sky-700 hover:underline" href={r.external_url} target="_blank" rel="noreferrer">
            Job in the automation system
          </a>
        ) : null}
      </p>
    </div>
  );
}

function DeployDialog({ device, onClose }: { device: ApiObject; onClose: () => void }) {
  const client = useQueryClient();
  const targets = useQuery({ queryKey: ['list', '/api/automation-targets/', { limit: 500 }], queryFn: () => get<Page<Target>>('/api/automation-targets/', { limit: 500 }), retry: false });
  const bundles = useQuery({ queryKey: ['list', '/api/config-bundles/', { limit: 500 }], queryFn: () => get<Page>('/api/config-bundles/', { limit: 500 }) });
  const recent = useQuery({
    queryKey: ['list', '/api/deploy-runs/', { device_id: device.id, limit: 5 }],
    queryFn: () => get<Page<DeployRun>>('/api/deploy-runs/', { device_id: device.id, limit: 5 }),
    retry: false,
  });
  const usable = (targets.data?.results ?? []).filter((t) => applies(t, device));
  const { roleBundle, usable: usableBundles } = bundleChoices(device, bundles.data?.results);
  const [target, setTarget] = useState('');
  const [bundle, setBundle] = useState('');
  const [note, setNote] = useState('');
  const [runId, setRunId] = useState<string | null>(null);
  const launch = useMutation({
    mutationFn: () => post<DeployRun>(`/api/devices/${device.id}/deploy/`, { target: target || usable[0]?.id, ...(bundle ? { bundle } : {}), ...(note ? { note } : {}) }),
    onSuccess: (run) => {
      setRunId(run.id);
      void client.invalidateQueries({ queryKey: ['list', '/api/deploy-runs/'] });
    },
    onError: (err) => {
      // A 502 still recorded a (failed) run: show it.
      if (err instanceof ApiError && err.status === 502) {
        const run = err.body.deploy_run as DeployRun | undefined;
        if (run?.id) setRunId(run.id);
      }
    },
  });
  const missing = launch.error instanceof ApiError && launch.error.status === 404 && !launch.error.body.detail?.toString().includes('device');
  const fieldErrors = launch.error instanceof ApiError ? launch.error.fieldErrors : {};

  return (
    <Dialog
      open
      onClose={onClose}
      title={`Deploy ${device.display}`}
      footer={
<DialogActions onCancel={onClose} cancelLabel="Close" onConfirm={() => launch.mutate()} confirmLabel="Deploy" busyLabel="Starting…" pending={launch.isPending} disabled={usable.length === 0} />
      }
    >
      <div className="space-y-3">
        {targets.isLoading ? <Loading /> : null}
        {targets.error ? (
          targets.error instanceof ApiError && targets.error.status === 404 ? (
            <p>Automation targets are not available on this server.</p>
          ) : (
            <ErrorState error={targets.error} />
          )
        ) : null}
        {targets.data && usable.length === 0 ? <p className="text-sm text-slate-600">No enabled automation target applies to this device. Register one under Automation targets.</p> : null}
        {usable.length ? (
          <>
            <div>
              <label htmlFor="deploy-target" className="block text-sm font-medium">
                Automation target
              </label>
              <select id="deploy-target" className={inputClass} value={target || usable[0]!.id} onChange={(e) => setTarget(e.target.value)} aria-invalid={!!fieldErrors.target || undefined}>
                {usable.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name} ({t.kind})
                  </option>
                ))}
              </select>
              {fieldErrors.target ? <p role="alert" className="text-sm text-red-700">{fieldErrors.target.join(' ')}</p> : null}
            </div>
            <div>
              <label htmlFor="deploy-bundle" className="block text-sm font-medium">
                Bundle
              </label>
              <select id="deploy-bundle" className={inputClass} value={bundle} onChange={(e) => setBundle(e.target.value)} aria-invalid={!!fieldErrors.bundle || undefined}>
                <option value="">None</option>
                {roleBundle ? <option value="role">The bundle of its role ({roleBundle})</option> : null}
                {usableBundles.map((b) => (
                  <option key={b.id} value={String(b.name ?? b.display)}>
                    {String(b.name ?? b.display)}
                  </option>
                ))}
              </select>
              {fieldErrors.bundle ? <p role="alert" className="text-sm text-red-700">{fieldErrors.bundle.join(' ')}</p> : null}
            </div>
            <div>
              <label htmlFor="deploy-note" className="block text-sm font-medium">
                Note
              </label>
              <input id="deploy-note" className={inputClass} maxLength={255} value={note} onChange={(e) => setNote(e.target.value)} />
            </div>
          </>
        ) : null}
        {missing ? <p role="alert" className="text-sm text-red-700">Deploy is not available on this server.</p> : null}
        {launch.error && !missing && !Object.keys(fieldErrors).length ? <p role="alert" className="text-sm text-red-700">{launch.error.message}</p> : null}
        {runId ? <RunStatus runId={runId} /> : null}
        {recent.data?.results.length ? (
          <section aria-label="Recent deploy runs" className="border-t border-slate-200 pt-3 text-sm">
            <h3 className="mb-1 font-medium">Recent runs</h3>
            <ul className="space-y-1">
              {recent.data.results.map((r) => (
                <li key={r.id} className="flex items-center gap-2">
                  <Badge tone={TONE[r.status]}>{r.status}</Badge>
                  <Link className="text-sky-700 hover:underline" to={paths.detail('automation.deployrun', r.id)}>
                    {r.target_name}
                  </Link>
                  {r.created ? <span className="text-slate-500">{formatDateTime(r.created)}</span> : null}
                </li>
              ))}
            </ul>
          </section>
        ) : null}
      </div>
    </Dialog>
  );
}

export default function DeployButton({ object, me }: DetailTabProps) {
  const [open, setOpen] = useState(false);
  if (me.read_only) return null;
  return (
    <>
      <Button onClick={() => setOpen(true)}>Deploy</Button>
      {open ? <DeployDialog device={object} onClose={() => setOpen(false)} /> : null}
    </>
  );
}
