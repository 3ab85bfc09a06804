// The daily end-of-life refresh (REFRESH_SCHEDULE, 05:35 server time by default). It runs where background work
// runs: the embedded worker of `cairn serve`, or `cairn worker` processes. Two processes firing at once are
// harmless: queueRefresh refuses a second refresh while one is queued or running.
import { Cron } from 'croner';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { ApiError } from '../core/errors.ts';
import { readSettings } from './settings.ts';
import { queueRefresh, REFRESH_SCHEDULE } from './service.ts';

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

export function startEolRefreshSchedule(db: Kysely<DB>): () => void {
  const job = new Cron(REFRESH_SCHEDULE, { protect: true }, async () => {
    try {
      await scheduledRefresh(db);
    } catch (err) {
      console.error(`end-of-life refresh schedule: ${(err as Error).message}`);
    }
  });
  return () => job.stop();
}
