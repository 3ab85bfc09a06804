// /jobs: background jobs with live status and progress (polled while any is unfinished), cancel where the job
// supports it, and the recurring schedules with their next run.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { get, post } from '../../api/client.ts';
import type { paths } from '../../api/schema.gen.ts';
import { Empty } from '../../components/states.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { Badge, Button, PageHeader, inputClass } from '../../components/ui.tsx';
import { formatDateTime } from '../../components/Value.tsx';
import { UnavailableOr } from './Unavailable.tsx';

type Job = paths['/api/jobs/']['get']['responses'][200]['content']['application/json']['results'][number];
type Schedule = paths['/api/jobs/schedules/']['get']['responses'][200]['content']['application/json']['results'][number];

/** What each kind of job is called; a kind not listed (a newer server's) is shown from its code. */
const KIND_LABELS: Record<string, string> = {
  'compliance.evaluate': 'Compliance evaluation',
  'demo-data': 'Demo data',
  'deploy.run': 'Deploy',
  'eol.refresh': 'End-of-life refresh',
  'housekeeping.row-counts': 'List count upkeep',
  'monitoring.run-checks': 'Service checks',
  'search.rebuild': 'Search index rebuild',
  upgrade: 'Upgrade',
  'upgrade.check': 'Update check',
  'webhook.delivery': 'Webhook delivery',
};

export function jobKindLabel(kind: string): string {
  const known = KIND_LABELS[kind];
  if (known) return known;
  const words = kind.replace(/[._-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Who started a job, in words: `user:alice` is alice, `schedule:compliance` the compliance schedule. */
export function startedByLabel(startedBy: string): string {
  const [how, ...rest] = startedBy.split(':');
  const who = rest.join(':');
  if (how === 'user' && who) return who;
  if (how === 'schedule' && who) return `Schedule (${who})`;
  if (how === 'cli' && who) return `Command line (${who})`;
  if (startedBy === 'system') return 'System';
  return startedBy;
}

const STATUS_LABELS: Record<Job['status'], string> = { queued: 'Queued', running: 'Running', succeeded: 'Succeeded', failed: 'Failed', cancelled: 'Cancelled' };

const TONE = { queued: 'slate', running: 'sky', succeeded: 'green', failed: 'red', cancelled: 'amber' } as const;
const STATUSES = Object.keys(STATUS_LABELS) as Array<Job['status']>;
const PAGE = 50;

function Progress({ p }: { p: Job['progress'] }) {
  if (p.total) {
    const pct = Math.min(100, Math.round((p.done / p.total) * 100));
    return (
      <div className="flex items-center gap-2">
        <progress className="h-2 w-24" value={p.done} max={p.total} aria-label={`${pct}% done`} />
        <span className="text-xs text-slate-500">
          {p.done}/{p.total}
        </span>
      </div>
    );
  }
  return p.done ? <span className="text-xs text-slate-500">{p.done} done</span> : null;
}

export default function JobsPage() {
  const client = useQueryClient();
  const toast = useToast();
  const [status, setStatus] = useState('');
  const [offset, setOffset] = useState(0);
  const query = { status: status || undefined, limit: PAGE, offset };
  const jobs = useQuery({
    queryKey: ['jobs', query],
    queryFn: () => get<{ count: number; results: Job[] }>('/api/jobs/', query),
    retry: false,
    refetchInterval: (q) => (q.state.data?.results.some((j) => j.status === 'queued' || j.status === 'running') ? 2000 : 15_000),
  });
  const schedules = useQuery({ queryKey: ['job-schedules'], queryFn: () => get<{ results: Schedule[] }>('/api/jobs/schedules/'), retry: false });
  const cancel = useMutation({
    mutationFn: (id: string) => post<Job>(`/api/jobs/${id}/cancel/`),
    onSuccess: (j) => {
      void client.invalidateQueries({ queryKey: ['jobs'] });
      toast.show({ message: j.status === 'cancelled' ? 'Job cancelled.' : 'Cancel requested: the job stops at its next step.', tone: 'success' });
    },
    onError: (err) => toast.show({ message: err.message, tone: 'error' }),
  });
  const count = jobs.data?.count ?? 0;
  return (
    <div className="space-y-6">
      <PageHeader title="Jobs" subtitle="Background work and recurring schedules" />
      <section aria-labelledby="jobs-heading" className="space-y-3">
        <div className="flex flex-wrap items-end justify-between gap-3">
          <h2 id="jobs-heading" className="text-lg font-semibold">
            Background jobs
          </h2>
          <div>
            <label htmlFor="job-status" className="block text-sm font-medium">
              Status
            </label>
            <select id="job-status" className={`${inputClass} w-40`} value={status} onChange={(e) => (setStatus(e.target.value), setOffset(0))}>
              <option value="">Any</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {STATUS_LABELS[s]}
                </option>
              ))}
            </select>
          </div>
        </div>
        <DataTable
          caption="Background jobs"
          rows={jobs.data?.results}
          rowKey={(j) => j.id}
          rowProps={(j) => ({ 'data-job': j.kind })}
          loading={jobs.isLoading}
          error={jobs.error}
          renderError={(error) => <UnavailableOr error={error} what="The jobs list" retry={() => void jobs.refetch()} />}
          empty={<Empty title="No jobs">Imports, refreshes, evaluations and deploys appear here while they run.</Empty>}
          pager={{ offset, pageSize: PAGE, count, onOffset: setOffset }}
          columns={[
            { key: 'kind', header: 'Kind', cell: (j) => jobKindLabel(j.kind) },
            {
              key: 'status',
              header: 'Status',
              cell: (j) => (
                <>
                  <Badge tone={TONE[j.status]}>{STATUS_LABELS[j.status]}</Badge>
                  {j.cancel_requested && j.status === 'running' ? <span className="ml-1 text-xs text-amber-800">stopping…</span> : null}
                </>
              ),
            },
            { key: 'progress', header: 'Progress', cell: (j) => <Progress p={j.progress} /> },
            { key: 'started_by', header: 'Started by', cell: (j) => startedByLabel(j.started_by) },
            { key: 'created', header: 'Created', cell: (j) => formatDateTime(j.created), className: 'whitespace-nowrap' },
            { key: 'result', header: 'Result', cell: (j) => (j.error ? <span className="text-red-700">{j.error}</span> : j.result), className: 'max-w-xs break-words' },
            {
              key: 'actions',
              header: <span className="sr-only">Actions</span>,
              cell: (j) =>
                j.cancellable && !j.cancel_requested ? (
                  <Button onClick={() => cancel.mutate(j.id)} disabled={cancel.isPending} aria-label={`Cancel ${jobKindLabel(j.kind)}`}>
                    Cancel
                  </Button>
                ) : null,
            },
          ]}
        />
      </section>
      <section aria-labelledby="schedules-heading" className="space-y-3">
        <h2 id="schedules-heading" className="text-lg font-semibold">
          Schedules
        </h2>
        <DataTable
          caption="Schedules"
          rows={schedules.data?.results}
          rowKey={(s) => s.name}
          loading={schedules.isLoading}
          error={schedules.error}
          renderError={(error) => <UnavailableOr error={error} what="The schedule list" />}
          empty="No schedules"
          columns={[
            {
              key: 'job',
              header: 'Job',
              cell: (s) => (
                <>
                  <p className="font-medium">{jobKindLabel(s.kind)}</p>
                  <p className="text-xs text-slate-500">{s.description}</p>
                </>
              ),
            },
            {
              key: 'schedule',
              header: 'Schedule',
              cell: (s) => (
                <>
                  <span className="font-mono text-xs">{s.schedule || 'off'}</span>
                  {s.setting ? <p className="text-xs text-slate-500">set by {s.setting}</p> : null}
                </>
              ),
            },
            { key: 'next', header: 'Next run', cell: (s) => (s.schedule_error ? <span className="text-red-700">{s.schedule_error}</span> : s.next_run ? formatDateTime(s.next_run) : '—') },
          ]}
        />
      </section>
    </div>
  );
}
