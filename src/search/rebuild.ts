// A full rebuild as a recorded job: `cairn rebuild` and the nightly schedule both run this. Two rebuilds at once
// would only repeat work, so a second one waits for the first's transaction lock (the index rewrite is one
// transaction) rather than fail.
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { createJob, finishJob, reportJobProgress } from '../jobs/record.ts';
import { rebuildSearchIndex, type RebuildReport } from './indexer.ts';

export async function runSearchRebuild(
  db: Kysely<DB>,
  startedBy: string,
  onProgress?: (done: number, total: number, model: string) => void,
): Promise<RebuildReport> {
  const jobId = await createJob(db, { kind: 'search.rebuild', tenantId: null, startedBy, status: 'running' });
  try {
    const report = await rebuildSearchIndex(db, {
      onProgress: async (done, total, model) => {
        onProgress?.(done, total, model);
        await reportJobProgress(db, jobId, done, total);
      },
    });
    const missing = [!report.extensions.pg_trgm && 'pg_trgm', !report.extensions.unaccent && 'unaccent'].filter(Boolean);
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
