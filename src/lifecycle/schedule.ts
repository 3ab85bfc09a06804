// The daily end-of-life refresh (REFRESH_SCHEDULE, 05:35 server time by default) and the queue that runs refreshes,
// declared to the job registry: they run where background work runs (the embedded worker of `cairn serve`, or
// `cairn worker` processes). Two processes firing at once are harmless: queueRefresh refuses a second refresh
// while one is queued or running.
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { ApiError } from '../core/errors.ts';
import { readSettings } from './settings.ts';
import { EOL_REFRESH_KIND, queueRefresh, REFRESH_SCHEDULE, runClaimedRefresh } from './service.ts';
import { defineQueue, defineSchedule } from '../jobs/registry.ts';
import { claimQueuedJob } from '../jobs/claim.ts';

/** Queues a refresh when the feature is on and has a source; answers what it did, for logs and tests. */
export async function scheduledRefresh(db: Kysely<DB>): Promise<'queued' | 'off' | 'busy'> {
  const settings = await readSettings(db);
  if (!settings.enabled || settings.sources.length === 0) return 'off';
  try {
    await queueRefresh(db, 'schedule:eol-refresh');
    return 'queued';
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) return 'busy';
    throw err;
  }
}

defineSchedule({
  name: 'eol-refresh',
  kind: EOL_REFRESH_KIND,
  description: 'Refresh end-of-life data from the selected catalog sources (when the feature is on).',
  schedule: REFRESH_SCHEDULE,
  setting: 'CAIRN_EOL_REFRESH_CRON',
  scope: 'deployment',
  run: async (db) => {
    await scheduledRefresh(db);
  },
});

// A queued refresh (from this schedule or from POST /api/eol/refresh/) is claimed by whichever worker process is
// free; a refresh of several large catalogs can take minutes, and its state and job record carry the outcome.
defineQueue<{ jobId: string }>({
  name: 'eol-refresh',
  expireInSeconds: 1800,
  batchSize: 1,
  claim: async (db) => {
    const jobId = await claimQueuedJob(db, EOL_REFRESH_KIND);
    return jobId ? [{ jobId }] : [];
  },
  work: async (db, items) => {
    for (const { jobId } of items) await runClaimedRefresh(db, jobId);
  },
});
