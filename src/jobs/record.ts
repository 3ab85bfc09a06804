// The user-visible record of background work. pg-boss (or a CLI command, or a schedule) executes the work; this
// table is what /api/jobs/ shows: who started it, where it is, how it ended. Producers call these functions at
// the edges of their work; none of them throws for a job id that is gone (a tenant deleted mid-run), because a
// lost progress line must never fail the work itself.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { NOW, recordTable } from '../core/records.ts';

const jobs = recordTable('jobs', { numbered: false });

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface NewJob {
  kind: string; // e.g. 'webhook.delivery', 'deploy.run', 'upgrade', 'eol.refresh', 'demo-data', 'monitoring.reconcile'
  tenantId: string | null; // null = deployment-wide (visible to users.manage only)
  startedBy: string; // 'user:<username>', 'schedule:<name>' or 'system'
  status?: 'queued' | 'running'; // default 'queued'
  total?: number | null; // progress denominator when known
  cancellable?: boolean; // default false
  subject?: { objectType: string; objectId: string } | null; // what the job is about, e.g. the device of a deploy run
}

/** Result summaries and error excerpts are cut here: a stack trace or a whole HTTP body is not a summary. */
export const JOB_TEXT_LIMIT = 2000;

function excerpt(text: string | undefined): string {
  if (!text) return '';
  return text.length > JOB_TEXT_LIMIT ? `${text.slice(0, JOB_TEXT_LIMIT - 1)}…` : text;
}

function count(value: number | null | undefined, what: string): number | null {
  if (value === null || value === undefined) return null;
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`job ${what} must be a non-negative integer, got ${value}`);
  return value;
}

export async function createJob(db: Kysely<DB>, job: NewJob): Promise<string> {
  const status = job.status ?? 'queued';
  const [created] = await jobs.append(db, job.tenantId, [
    {
      kind: job.kind,
      status,
      started_by: job.startedBy,
      total: count(job.total, 'total'),
      cancellable: job.cancellable ?? false,
      subject_type: job.subject?.objectType ?? null,
      subject_id: job.subject?.objectId ?? null,
      started: status === 'running' ? NOW : null,
    },
  ]);
  return String(created!.id);
}

export async function markJobRunning(db: Kysely<DB>, id: string): Promise<void> {
  // Only a queued job starts: a job cancelled while it waited stays cancelled.
  await sql`UPDATE jobs SET status = 'running', started = coalesce(started, now()) WHERE id = ${id} AND status = 'queued'`.execute(db);
}

export async function reportJobProgress(db: Kysely<DB>, id: string, done: number, total?: number): Promise<void> {
  const d = count(done, 'progress')!;
  const t = total === undefined ? null : count(total, 'total');
  await sql`UPDATE jobs SET done = ${d}, total = coalesce(${t}::bigint, total)
    WHERE id = ${id} AND status IN ('queued', 'running')`.execute(db);
}

export async function finishJob(
  db: Kysely<DB>,
  id: string,
  outcome: { status: 'succeeded' | 'failed' | 'cancelled'; result?: string; error?: string },
): Promise<void> {
  // A finished job keeps its first ending: a late "succeeded" from a worker cannot overwrite a cancellation.
  await sql`UPDATE jobs SET status = ${outcome.status}, result = ${excerpt(outcome.result)}, error = ${excerpt(outcome.error)},
      finished = now(), started = coalesce(started, now())
    WHERE id = ${id} AND status IN ('queued', 'running')`.execute(db);
}

export async function jobCancelRequested(db: Kysely<DB>, id: string): Promise<boolean> {
  const { rows } = await sql<{ cancel_requested: boolean; status: JobStatus }>`
    SELECT cancel_requested, status FROM jobs WHERE id = ${id}`.execute(db);
  const row = rows[0];
  // A job whose record is gone has nobody left to report to: stopping is the right answer.
  return !row || row.cancel_requested || row.status === 'cancelled';
}
