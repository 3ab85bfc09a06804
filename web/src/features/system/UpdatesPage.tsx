// /system/updates (deployment admins): the running version, the last upgrade card with its steps (polled while an
// upgrade holds the lock), and the after-upgrade steps with Acknowledge one / all. Endpoints that this server
// does not offer (404) are said to be unavailable rather than shown as errors.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { get, post } from '../../api/client.ts';
import { Empty, Loading } from '../../components/states.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { Badge, Button, PageHeader } from '../../components/ui.tsx';
import { formatDateTime } from '../../components/Value.tsx';
import { UnavailableOr } from './Unavailable.tsx';

interface UpgradeStep {
  name: string;
  status: string;
  started: string;
  ended: string | null;
  seconds: number | null;
  detail: string;
}

interface UpgradeAnswer {
  running_version: string;
  installed: boolean;
  update_available?: boolean;
  latest_version?: string;
  last_upgrade: null | {
    version_from: string;
    version_to: string | null;
    started_by: string;
    started_at: string;
    finished_at: string | null;
    state: string;
    outcome: string | null;
    failed_step: string | null;
    error: string | null;
    warnings: string[];
    steps: UpgradeStep[];
  };
  lock: { held: boolean; owner_alive: boolean; unfinished_run: boolean };
}

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

const stepTone = (s: string) => (s === 'ok' || s === 'done' || s === 'succeeded' ? 'green' : s === 'failed' ? 'red' : s === 'running' ? 'sky' : 'slate');

function UpgradeCard({ data }: { data: UpgradeAnswer }) {
  const u = data.last_upgrade;
  return (
    <section aria-labelledby="upgrade-heading" className="space-y-3 rounded-lg border border-slate-200 bg-white p-4 text-sm">
      <h2 id="upgrade-heading" className="text-lg font-semibold">
        Version
      </h2>
      <p>
        Running <strong data-testid="running-version">{data.running_version}</strong>{' '}
        {data.update_available ? <Badge tone="amber">Update available{data.latest_version ? `: ${data.latest_version}` : ''}</Badge> : null}
        {data.lock.held ? <Badge tone="sky">Upgrade in progress</Badge> : null}
      </p>
      {!data.installed ? <p className="text-slate-600">This server does not run from an installed release (a development checkout), so it cannot upgrade itself.</p> : null}
      <p className="text-slate-600">
        Upgrades run on the server with <code className="rounded bg-slate-100 px-1">cairn upgrade</code> (online, or from a downloaded bundle); this page follows them.
      </p>
      {u ? (
        <div className="space-y-2 border-t border-slate-200 pt-3">
          <h3 className="font-medium">
            Last upgrade: {u.version_from} → {u.version_to ?? '?'} <Badge tone={u.outcome === 'succeeded' ? 'green' : u.outcome ? 'red' : 'sky'}>{u.outcome ?? u.state}</Badge>
          </h3>
          <p className="text-slate-600">
            Started {formatDateTime(u.started_at)} by {u.started_by}
            {u.finished_at ? `, finished ${formatDateTime(u.finished_at)}` : ''}
          </p>
          {u.error ? <p className="text-red-700">{u.failed_step ? `${u.failed_step}: ` : ''}{u.error}</p> : null}
          {u.warnings.map((w) => (
            <p key={w} className="text-amber-800">
              {w}
            </p>
          ))}
          <ol className="space-y-1" aria-label="Upgrade steps">
            {u.steps.map((s) => (
              <li key={s.name} className="flex flex-wrap items-center gap-2">
                <Badge tone={stepTone(s.status)}>{s.status}</Badge>
                <span className="font-medium">{s.name}</span>
                {s.seconds !== null ? <span className="text-slate-500">{s.seconds} s</span> : null}
                {s.detail ? <span className="text-slate-500">{s.detail}</span> : null}
              </li>
            ))}
          </ol>
        </div>
      ) : (
        <p className="text-slate-500">No upgrade has run on this install.</p>
      )}
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
  const upgrade = useQuery({
    queryKey: ['system-upgrade'],
    queryFn: () => get<UpgradeAnswer>('/api/system/upgrade/'),
    retry: false,
    // Live step progress while an upgrade holds the lock.
    refetchInterval: (q) => (q.state.data?.lock.held ? 2000 : false),
  });
  return (
    <div className="max-w-4xl space-y-6">
      <PageHeader title="Updates" />
      {upgrade.isLoading ? <Loading /> : null}
      {upgrade.error ? <UnavailableOr error={upgrade.error} what="Upgrade status" retry={() => void upgrade.refetch()} /> : null}
      {upgrade.data ? <UpgradeCard data={upgrade.data} /> : null}
      <StepNotesSection />
    </div>
  );
}
