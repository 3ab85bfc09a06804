// The nightly search-index rebuild (SEARCH_REBUILD_SCHEDULE, 03:40 server time by default), and the rebuild an
// upgrade queued, run once when background work starts. Writes keep the index current; the rebuild repairs
// whatever reached the tables past the registry (domain SQL, restores) and picks up text extensions created
// since. Each run is a deployment-wide job record.
import { Cron } from 'croner';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { runQueuedSearchRebuild, runSearchRebuild } from './rebuild.ts';

export const SEARCH_REBUILD_SCHEDULE = process.env.CAIRN_SEARCH_REBUILD_CRON ?? '40 3 * * *';

export function startSearchRebuildSchedule(db: Kysely<DB>): () => void {
  const job = new Cron(SEARCH_REBUILD_SCHEDULE, { protect: true }, async () => {
    try {
      await runSearchRebuild(db, { startedBy: 'schedule:search-rebuild' });
    } catch (err) {
      console.error(`search rebuild schedule: ${(err as Error).message}`);
    }
  });
  // After the answer to whoever started us: the queued rebuild must not delay the start.
  const pending = setImmediate(() => {
    runQueuedSearchRebuild(db).catch((err: Error) => console.error(`queued search rebuild: ${err.message}`));
  });
  return () => {
    clearImmediate(pending);
    job.stop();
  };
}
