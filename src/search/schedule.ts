// The nightly search-index rebuild (SEARCH_REBUILD_SCHEDULE, 03:40 server time by default), and the rebuild an
// upgrade queued, run once when background work starts. Writes keep the index current; the rebuild repairs
// whatever reached the tables past the registry (domain SQL, restores) and picks up text extensions created
// since. Each run is a deployment-wide job record.
import { runQueuedSearchRebuild, runSearchRebuild } from './rebuild.ts';
import { defineSchedule } from '../jobs/registry.ts';

export const SEARCH_REBUILD_SCHEDULE = process.env.CAIRN_SEARCH_REBUILD_CRON ?? '40 3 * * *';

defineSchedule({
  name: 'search-rebuild',
  kind: 'search.rebuild',
  description: 'Rebuild the search index of every tenant.',
  schedule: SEARCH_REBUILD_SCHEDULE,
  setting: 'CAIRN_SEARCH_REBUILD_CRON',
  scope: 'deployment',
  run: async (db) => {
    await runSearchRebuild(db, { startedBy: 'schedule:search-rebuild' });
  },
  // A rebuild an admin asked for (or an upgrade left queued) before this process started.
  resume: async (db) => {
    await runQueuedSearchRebuild(db);
  },
});
