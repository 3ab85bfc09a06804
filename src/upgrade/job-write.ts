// An upgrade run's job record (kind 'upgrade', deployment-wide), written whole each time: the state the journal
// says the run is in, not a delta. A write that could not land (the web service was stopped, the database was
// restored from the snapshot) is therefore made good by the next one. Used by the engine directly on PostgreSQL
// and, on the embedded database that the web process holds, by the web's engine-only route (routes.ts).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { createJob, finishJob, reportJobProgress } from '../jobs/record.ts';
import { STEPS, type Journal } from './engine/journal.ts';

export interface UpgradeJobWrite {
  /** The record written before, or null: it is created now (started at `started_at`). */
  job_id: string | null;
  started_by: string;
  started_at: string;
  done: number;
  total: number;
  status: 'running' | 'succeeded' | 'failed';
  result: string | null;
  error: string | null;
}

export const UPGRADE_JOB_WRITE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['job_id', 'started_by', 'started_at', 'done', 'total', 'status', 'result', 'error'],
  properties: {
    job_id: { type: 'string', nullable: true, format: 'uuid' },
    started_by: { type: 'string', minLength: 1, maxLength: 200 },
    started_at: { type: 'string', format: 'date-time' },
    done: { type: 'integer', minimum: 0, maximum: 1000 },
    total: { type: 'integer', minimum: 1, maximum: 1000 },
    status: { type: 'string', enum: ['running', 'succeeded', 'failed'] },
    result: { type: 'string', nullable: true, maxLength: 10_000 },
    error: { type: 'string', nullable: true, maxLength: 10_000 },
  },
} as const;

/** The record as the journal has it now. */
export function upgradeJobWrite(journal: Journal): UpgradeJobWrite {
  const done = journal.steps.filter((s) => s.status === 'ok' || s.status === 'skipped').length;
  const finished = journal.state === 'done' || journal.state === 'failed' || journal.state === 'restore_failed';
  const to = journal.versionTo ?? '?';
  return {
    job_id: journal.context.jobId,
    started_by: journal.startedBy.startsWith('user:') ? journal.startedBy : 'system',
    started_at: journal.startedAt,
    done,
    total: STEPS.length,
    status: !finished ? 'running' : journal.state === 'done' ? 'succeeded' : 'failed',
    result: journal.state === 'done' ? `${journal.versionFrom} → ${to}${journal.warnings.length ? ` with ${journal.warnings.length} warning(s)` : ''}` : null,
    error: finished && journal.state !== 'done' ? `${journal.failedStep ?? '?'}: ${journal.error ?? ''} (${journal.outcome?.code ?? 'unknown'})` : null,
  };
}

/** Creates the record when it has none yet, then brings it to `write`; returns its id. */
export async function applyUpgradeJobWrite(db: Kysely<DB>, write: UpgradeJobWrite): Promise<string> {
  let id = write.job_id;
  if (!id) {
    id = await createJob(db, { kind: 'upgrade', tenantId: null, startedBy: write.started_by, status: 'running', total: write.total });
    await sql`UPDATE jobs SET started = ${write.started_at}::timestamptz WHERE id = ${id}`.execute(db);
  }
  // A finished record keeps its first ending (finishJob); progress only moves while it runs.
  await reportJobProgress(db, id, write.done, write.total);
  if (write.status !== 'running') {
    await finishJob(db, id, write.status === 'succeeded' ? { status: 'succeeded', result: write.result ?? '' } : { status: 'failed', error: write.error ?? '' });
  }
  return id;
}
