// The daily release check (UPGRADE_CHECK_SCHEDULE, 04:50 server time by default), where background work runs:
// the embedded worker of `cairn serve` or `cairn worker` processes. It fetches the feed unless the install is
// airgapped and starts an automatic update when the rules of auto-update.ts say so. Two processes firing at
// once are harmless: the engine's lock lets one run start and the other is answered 'already running'.
import { Cron } from 'croner';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { VERSION } from '../version.ts';
import { scheduledUpgradeCheck } from './auto-update.ts';
import { detectRoot, layoutFor } from './engine/layout.ts';

export const UPGRADE_CHECK_SCHEDULE = process.env.CAIRN_UPGRADE_CHECK_CRON ?? '50 4 * * *';

export function startUpgradeCheckSchedule(db: Kysely<DB>): () => void {
  const job = new Cron(UPGRADE_CHECK_SCHEDULE, { protect: true }, async () => {
    try {
      const root = detectRoot();
      const status = await scheduledUpgradeCheck(db, { running: VERSION, layout: root ? layoutFor(root) : null });
      if (status.error) console.error(`release check: ${status.error}`);
    } catch (err) {
      console.error(`release check schedule: ${(err as Error).message}`);
    }
  });
  return () => job.stop();
}
