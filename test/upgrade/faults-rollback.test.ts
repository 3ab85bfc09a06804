// A failure injected at every step from preflight to migrate: each run rolls back to vN, one consistent version, no
// row lost; after migrate the database is restored from the snapshot. One install takes every run in turn (a
// rollback leaves it as it was), so the backups are also pruned to three. The later steps (static, verify, start)
// and the outcomes and waits are in faults-outcomes.test.ts, on an install of its own: the two files take about as
// long and run in parallel.
import { describe, it } from 'vitest';
import type { StepName } from '../../src/upgrade/engine/journal.ts';
import { expectBackupsPruned, failAt, useFaultInstall } from './faults.ts';

const fx = useFaultInstall();

describe('a failing step rolls back', () => {
  const steps: StepName[] = ['preflight', 'backup', 'prepare', 'quiesce', 'swap', 'deps', 'snapshot', 'migrate'];
  // On PostgreSQL two of them keep the site readable (serve-reads.ts): the web answers reads from quiesce, the
  // snapshot is a dump, and the rollback leaves that web running. The migrate case keeps the server's copy, and
  // runs once more keeping the site readable: the web answered reads through the migration, the dump is restored.
  const readable: StepName[] = process.env.TEST_DATABASE_URL ? ['deps', 'snapshot'] : [];
  for (const step of steps) {
    it(`at ${step}${readable.includes(step) ? ', the site kept readable' : ''}`, async () => {
      await failAt(fx.inst, fx.bundles, step, fx.devices, { serveReads: readable.includes(step) });
    }, 600_000);
  }
  it.runIf(process.env.TEST_DATABASE_URL)('at migrate, the site kept readable through it', async () => {
    await failAt(fx.inst, fx.bundles, 'migrate', fx.devices, { serveReads: true });
  }, 600_000);

  it('keeps only the newest three pre-upgrade backups', async () => {
    await expectBackupsPruned(fx.inst);
  });
});
