// A full rebuild as a recorded job: `cairn rebuild`, `cairn demo-data` and the nightly schedule run this.
// Progress is recorded between the per-model transactions, so it is live on both backends.
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { createJob, finishJob, reportJobProgress } from '../jobs/record.ts';
import { rebuildSearchIndex, type RebuildReport } from './indexer.ts';

export interface RebuildOptions {
  startedBy: string;
  /** One tenant's entries only (demo data loaded into it); default every tenant. */
  tenantId?: string | null;
  onProgress?: (done: number, total: number, model: string) => void;
}

export function missingExtensions(report: RebuildReport): string[] {
  return (['pg_trgm', 'unaccent'] as const).filter((name) => !report.extensions[name]);
}

export async function runSearchRebuild(db: Kysely<DB>, options: RebuildOptions): Promise<RebuildReport> {
  const tenantId = options.tenantId ?? null;
  const jobId = await createJob(db, { kind: 'search.rebuild', tenantId, startedBy: options.startedBy, status: 'running' });
  try {
    const report = await rebuildSearchIndex(db, {
      tenantId,
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
