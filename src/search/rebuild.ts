// A full rebuild as a recorded job: `cairn rebuild`, `cairn demo-data`, the nightly schedule, and the rebuild an
// upgrade queues (`cairn migrate` only queues it, so the upgrade's downtime does not grow with the inventory;
// the worker runs it when it starts). Progress is recorded between the per-model transactions, so it is live on
// both backends.
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { createJob, finishJob, reportJobProgress } from '../jobs/record.ts';
import { claimQueuedJob, queuedJobOf } from '../jobs/claim.ts';
import { rebuildSearchIndex, type RebuildReport } from './indexer.ts';

export const REBUILD_KIND = 'search.rebuild';

export interface RebuildOptions {
  startedBy: string;
  /** One tenant's entries only (demo data loaded into it); default every tenant. */
  tenantId?: string | null;
  onProgress?: (done: number, total: number, model: string) => void;
}

export function missingExtensions(report: RebuildReport): string[] {
  return (['pg_trgm', 'unaccent'] as const).filter((name) => !report.extensions[name]);
}

/** Runs the rebuild under an existing running job record. */
async function rebuildUnder(db: Kysely<DB>, jobId: string, options: Omit<RebuildOptions, 'startedBy'>): Promise<RebuildReport> {
  try {
    const report = await rebuildSearchIndex(db, {
      tenantId: options.tenantId ?? null,
      onProgress: async (done, total, model) => {
        options.onProgress?.(done, total, model);
        await reportJobProgress(db, jobId, done, total);
      },
    });
    const missing = missingExtensions(report);
    await finishJob(db, jobId, {
      status: 'succeeded',
      result: `${report.entries} entries over ${report.models} models${missing.length ? `; missing extensions: ${missing.join(', ')}` : ''}`,
    });
    return report;
  } catch (err) {
    await finishJob(db, jobId, { status: 'failed', error: (err as Error).message }).catch(() => undefined);
    throw err;
  }
}

export async function runSearchRebuild(db: Kysely<DB>, options: RebuildOptions): Promise<RebuildReport> {
  const tenantId = options.tenantId ?? null;
  const jobId = await createJob(db, { kind: REBUILD_KIND, tenantId, startedBy: options.startedBy, status: 'running' });
  return rebuildUnder(db, jobId, options);
}

/** Queues a full rebuild for the next worker start (after migrations); joins one already queued. */
export async function queueSearchRebuild(db: Kysely<DB>, startedBy: string): Promise<string> {
  return (await queuedJobOf(db, REBUILD_KIND)) ?? createJob(db, { kind: REBUILD_KIND, tenantId: null, startedBy });
}

/** Runs a queued rebuild if one waits (under its record); null when none waits. */
export async function runQueuedSearchRebuild(db: Kysely<DB>, onProgress?: RebuildOptions['onProgress']): Promise<RebuildReport | null> {
  const jobId = await claimQueuedJob(db, REBUILD_KIND);
  return jobId ? rebuildUnder(db, jobId, { onProgress }) : null;
}
