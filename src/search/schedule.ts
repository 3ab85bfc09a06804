// The nightly search-index rebuild (SEARCH_REBUILD_SCHEDULE, 03:40 server time by default). Writes keep the
// index current; the rebuild repairs whatever reached the tables past the registry (domain SQL, restores) and
// picks up text extensions created since. Recorded as a deployment-wide job.
import { Cron } from 'croner';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { runSearchRebuild } from './rebuild.ts';

export const SEARCH_REBUILD_SCHEDULE = process.env.CAIRN_SEARCH_REBUILD_CRON ?? '40 3 * * *';

export function startSearchRebuildSchedule(db: Kysely<DB>): () => void {
  const job = new Cron(SEARCH_REBUILD_SCHEDULE, { protect: true }, async () => {
    try {
      await runSearchRebuild(db, { startedBy: 'schedule:search-rebuild' });
    } catch (err) {
      console.error(`search rebuild schedule: ${(err as Error).message}`);
    }
  });
  return () => job.stop();
}
