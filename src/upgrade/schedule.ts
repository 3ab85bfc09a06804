// The daily release check (UPGRADE_CHECK_SCHEDULE, 04:50 server time by default), where background work runs:
// the embedded worker of `cairn serve` or `cairn worker` processes. It fetches the feed unless the install is
// airgapped and starts an automatic update when the rules of auto-update.ts say so. Two processes firing at
// once are harmless: the engine's lock lets one run start and the other is answered 'already running'.
import { VERSION } from '../version.ts';
import { scheduledUpgradeCheck } from './auto-update.ts';
import { detectRoot, layoutFor } from '../install/layout.ts';
import { defineSchedule } from '../jobs/registry.ts';

export const UPGRADE_CHECK_SCHEDULE = process.env.CAIRN_UPGRADE_CHECK_CRON ?? '50 4 * * *';

defineSchedule({
  name: 'upgrade-check',
  kind: 'upgrade.check',
  description: 'Check the release feed (unless airgapped) and start an automatic update when enabled.',
  schedule: UPGRADE_CHECK_SCHEDULE,
  setting: 'CAIRN_UPGRADE_CHECK_CRON',
  scope: 'deployment',
  run: async (db) => {
    const root = detectRoot();
    const status = await scheduledUpgradeCheck(db, { running: VERSION, layout: root ? layoutFor(root) : null });
    if (status.error) console.error(`release check: ${status.error}`);
  },
});
