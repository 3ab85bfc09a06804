// /system/updates (deployment admins): the running version and whether a newer release is available, starting an
// upgrade (online or from an uploaded bundle), the run's live step progress, and the after-upgrade steps with
// Acknowledge one / all. The run stops the web service: the maintenance responder still answers the card to admins
// (from the journal), and polling goes on through 503s and refused connections otherwise. Endpoints this server
// does not offer (404) are said to be unavailable rather than shown as errors.
import { useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { ApiError, get, post } from '../../api/client.ts';
import { Empty, Loading } from '../../components/states.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { Badge, Button, PageHeader } from '../../components/ui.tsx';
import { formatDateTime } from '../../components/Value.tsx';
import { UnavailableOr } from './Unavailable.tsx';
import { UpgradeStart } from './UpgradeStart.tsx';
import { AVAILABLE_KEY, checkNow, fetchAvailable, fetchStatus, runInProgress, siteAway, STATUS_KEY, type Availability, type UpgradeOutcome, type UpgradeRun, type UpgradeStatus } from './upgrade-api.ts';

interface StepNote {
  id: string;
  release: string;
  title: string;
  body: string;
  snippet: string;
  docs: string;
  detectable: boolean;
}

interface StepNotes {
  version: string;
  pending: StepNote[];
  acknowledged: Array<{ id: string; acknowledged_by: string; acknowledged_at: string }>;
  completed: string[];
}

const stepTone = (s: string) => (s === 'ok' || s === 'done' || s === 'succeeded' ? 'green' : s === 'failed' || s === 'restore_failed' ? 'red' : s === 'running' ? 'sky' : 'slate');

const POLL_MS = 2000;

function AvailabilityLine({ available }: { available: Availability }) {
  if (available.airgapped) return <p className="text-slate-600">This install is airgapped: upgrade it by uploading a release bundle.</p>;
  if (!available.feed_url) {
    return (
      <p className="text-slate-600">
        No release feed is configured (<Link to="/settings/updates" className="text-sky-700 hover:underline">Settings → Updates</Link>).
      </p>
    );
  }
  return (
    <p className="text-slate-600">
      {available.latest ? `Newest ${available.channel === 'stable' ? 'stable ' : ''}release: ${available.latest.version}. ` : ''}
      {available.checked_at ? `Checked ${formatDateTime(available.checked_at)}.` : 'Not checked yet.'}
      {available.latest?.notes_url ? (
        <>
          {' '}
          <a className="text-sky-700 hover:underline" href={available.latest.notes_url} target="_blank" rel="noreferrer">
            Release notes
          </a>
        </>
      ) : null}
    </p>
  );
}

function VersionSection({ status, inProgress, onStarted }: { status: UpgradeStatus; inProgress: boolean; onStarted: (runId: string, version: string) => void }) {
  const client = useQueryClient();
  const toast = useToast();
  const available = useQuery({ queryKey: AVAILABLE_KEY, queryFn: fetchAvailable, retry: false });
  const check = useMutation({
    mutationFn: checkNow,
    onSuccess: (a) => client.setQueryData(AVAILABLE_KEY, a),
    onError: (err) => toast.show({ message: err.message, tone: 'error' }),
  });
  const a = available.data;
  return (
    <section aria-labelledby="version-heading" className="space-y-3 rounded-lg border border-slate-200 bg-white p-4 text-sm">
      <h2 id="version-heading" className="text-lg font-semibold">
        Version
      </h2>
      <p className="flex flex-wrap items-center gap-2">
        <span>
          Running <strong data-testid="running-version">{status.running_version}</strong>
        </span>
        {a?.update_available && a.latest ? <Badge tone="amber">Update available: {a.latest.version}</Badge> : null}
        {a && !a.update_available && !a.error && a.checked_at ? <Badge tone="green">Up to date</Badge> : null}
        {inProgress ? <Badge tone="sky">Upgrade in progress</Badge> : null}
      </p>
      {available.isLoading ? <Loading label="Checking for updates…" /> : null}
      {available.error ? <UnavailableOr error={available.error} what="The release check" retry={() => void available.refetch()} /> : null}
      {a ? <AvailabilityLine available={a} /> : null}
      {a?.error ? (
        <p role="alert" className="text-red-700">
          The last release check failed: {a.error}
        </p>
      ) : null}
      {a && !a.airgapped && a.feed_url ? (
        <Button onClick={() => check.mutate()} disabled={check.isPending}>
          {check.isPending ? 'Checking…' : 'Check now'}
        </Button>
      ) : null}
      {status.installed ? (
        <div className="border-t border-slate-200 pt-3">
          <UpgradeStart
            target={a?.update_available && a.latest ? a.latest.version : null}
            disabled={inProgress}
            keepsReads={status.reads_during_upgrade}
            onStarted={(run) => {
              toast.show({ message: `Upgrade to ${run.version} started.`, tone: 'success' });
              onStarted(run.run_id, run.version);
            }}
          />
        </div>
      ) : (
        <p className="text-slate-600">This server does not run from an installed release (a development checkout), so it cannot upgrade itself.</p>
      )}
    </section>
  );
}

function RunCard({ run, away, maintenance, waitingFor }: { run: UpgradeRun | null; away: boolean; maintenance: boolean; waitingFor: string | null }) {
  return (
    <section aria-labelledby="run-heading" aria-live="polite" className="space-y-2 rounded-lg border border-slate-200 bg-white p-4 text-sm">
      <h2 id="run-heading" className="text-lg font-semibold">
        {waitingFor || run?.state === 'running' ? 'Upgrade in progress' : 'Last upgrade'}
      </h2>
      {away ? (
        <p role="status" className="rounded bg-amber-50 p-2 text-amber-900">
          The site is away while the upgrade runs; this page checks again every few seconds.
        </p>
      ) : null}
      {maintenance && !away ? (
        <p role="status" className="rounded bg-sky-50 p-2 text-sky-900">
          The site is in maintenance while the upgrade runs; this card is read from the upgrade's journal.
        </p>
      ) : null}
      {waitingFor ? <p className="text-slate-600">Waiting for the upgrade to {waitingFor} to start…</p> : null}
      {run && !waitingFor ? (
        <>
          <h3 className="font-medium">
            {run.version_from} → {run.version_to ?? '?'} <Badge tone={outcomeTone(run.outcome)}>{run.outcome ? OUTCOME_TEXT[run.outcome.code] : run.state}</Badge>
          </h3>
          <p className="text-slate-600">
            Started {formatDateTime(run.started_at)} by {run.started_by}
            {run.finished_at ? `, finished ${formatDateTime(run.finished_at)}` : ''}
          </p>
          {run.current_step ? (
            <p>
              Now: <strong data-testid="current-step">{run.current_step}</strong>
            </p>
          ) : null}
          {run.error ? (
            <p className="text-red-700">
              {run.failed_step ? `${run.failed_step}: ` : ''}
              {run.error}
            </p>
          ) : null}
          {run.output_excerpt ? <pre className="max-h-48 overflow-auto rounded bg-slate-50 p-2 font-mono text-xs">{run.output_excerpt}</pre> : null}
          {run.warnings.map((w) => (
            <p key={w} className="text-amber-800">
              {w}
            </p>
          ))}
          <ol className="space-y-1" aria-label="Upgrade steps">
            {run.steps.map((s) => (
              <li key={s.name} className="flex flex-wrap items-center gap-2">
                <Badge tone={stepTone(s.status)}>{s.status}</Badge>
                <span className="font-medium">{s.name}</span>
                {s.seconds !== null ? <span className="text-slate-500">{s.seconds} s</span> : null}
                {s.detail ? <span className="text-slate-500">{s.detail}</span> : null}
              </li>
            ))}
          </ol>
        </>
      ) : null}
      {!run && !waitingFor ? <p className="text-slate-500">No upgrade has run on this install.</p> : null}
    </section>
  );
}

function StepNotesSection() {
  const client = useQueryClient();
  const toast = useToast();
  const notes = useQuery({ queryKey: ['step-notes'], queryFn: () => get<StepNotes>('/api/system/step-notes/'), retry: false });
  const ack = useMutation({
    mutationFn: (body: { ids: string[] } | { all: true }) => post<StepNotes & { newly_acknowledged: string[] }>('/api/system/step-notes/ack/', body),
    onSuccess: (r) => {
      client.setQueryData(['step-notes'], r);
      toast.show({ message: `Acknowledged ${r.newly_acknowledged.length} ${r.newly_acknowledged.length === 1 ? 'step' : 'steps'}.`, tone: 'success' });
    },
    onError: (err) => toast.show({ message: err.message, tone: 'error' }),
  });
  return (
    <section aria-labelledby="steps-heading" className="space-y-3">
      <div className="flex items-center justify-between">
        <h2 id="steps-heading" className="text-lg font-semibold">
          After-upgrade steps
        </h2>
        {notes.data?.pending.length ? (
          <Button onClick={() => ack.mutate({ all: true })} disabled={ack.isPending}>
            Acknowledge all
          </Button>
        ) : null}
      </div>
      {notes.isLoading ? <Loading /> : null}
      {notes.error ? <UnavailableOr error={notes.error} what="After-upgrade steps are" /> : null}
      {notes.data && notes.data.pending.length === 0 ? <Empty title="Nothing to do">No after-upgrade steps are waiting for version {notes.data.version}.</Empty> : null}
      {notes.data?.pending.map((n) => (
        <article key={n.id} className="space-y-2 rounded-lg border border-slate-200 bg-white p-4 text-sm" aria-label={n.title}>
          <div className="flex flex-wrap items-start justify-between gap-2">
            <h3 className="font-medium">
              {n.title} <span className="text-slate-500">({n.release})</span>
            </h3>
            <Button onClick={() => ack.mutate({ ids: [n.id] })} disabled={ack.isPending} aria-label={`Acknowledge ${n.title}`}>
              Acknowledge
            </Button>
          </div>
          <p className="whitespace-pre-line text-slate-700">{n.body}</p>
          {n.snippet ? <pre className="overflow-auto rounded bg-slate-50 p-2 font-mono text-xs">{n.snippet}</pre> : null}
          {n.docs ? (
            <a className="text-sky-700 hover:underline" href={n.docs} target="_blank" rel="noreferrer">
              Documentation
            </a>
          ) : null}
          {n.detectable ? <p className="text-xs text-slate-500">Disappears by itself once done.</p> : null}
        </article>
      ))}
    </section>
  );
}

export default function UpdatesPage() {
  const client = useQueryClient();
  // The run started from this tab, until the card shows it (the journal is written a moment after the 202).
  const [following, setFollowing] = useState<{ id: string; version: string } | null>(null);
  const upgrade = useQuery({
    queryKey: STATUS_KEY,
    queryFn: fetchStatus,
    retry: false,
    refetchInterval: (q) => (runInProgress(q.state.data, following?.id ?? null) || siteAway(q.state.error) ? POLL_MS : false),
    refetchIntervalInBackground: true,
  });
  const status = upgrade.data;
  const away = siteAway(upgrade.error);
  const waiting = following && status?.last_upgrade?.id !== following.id ? following.version : null;
  const inProgress = runInProgress(status, following?.id ?? null);
  const ended = following !== null && status?.last_upgrade?.id === following.id && status.last_upgrade.state !== 'running';
  useEffect(() => {
    if (!ended) return;
    // The run ended: forget it, and ask again what is available now that the version may have changed.
    setFollowing(null);
    void client.invalidateQueries({ queryKey: AVAILABLE_KEY });
  }, [ended, client]);
  return (
    <div className="max-w-4xl space-y-6">
      <PageHeader title="Updates" />
      {upgrade.isLoading ? <Loading /> : null}
      {upgrade.error && !status && !away ? <UnavailableOr error={upgrade.error} what="Upgrade status" retry={() => void upgrade.refetch()} /> : null}
      {upgrade.error instanceof ApiError && !status && away ? <p role="status">The site is away (perhaps for an upgrade); this page checks again every few seconds.</p> : null}
      {status ? (
        <>
          <VersionSection status={status} inProgress={inProgress} onStarted={(id, version) => setFollowing({ id, version })} />
          <RunCard run={status.last_upgrade} away={away} maintenance={status.maintenance === true} waitingFor={waiting} />
        </>
      ) : null}
      <StepNotesSection />
    </div>
  );
}

const OUTCOME_TEXT: Record<UpgradeOutcome['code'], string> = {
  new: 'Upgraded',
  unchanged: 'Failed: nothing was changed',
  restored: 'Failed: rolled back',
  restore_failed: 'Service stopped: database restore failed',
};

function outcomeTone(outcome: UpgradeOutcome | null): 'green' | 'red' | 'amber' | 'sky' {
  if (!outcome) return 'sky';
  if (outcome.code !== 'new') return 'red';
  return outcome.services === 'running' ? 'green' : 'amber';
}
