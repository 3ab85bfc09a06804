// A failure injected at every step before resume: each run rolls back to vN, one consistent version, no row lost;
// from the snapshot on, the database is restored because migrations ran. One install takes every run in turn (a
// rollback leaves it as it was), so the backups are also pruned to three.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepName } from '../../src/upgrade/engine/journal.ts';
import { buildBundles, installRelease, type Bundles, type Install } from './install.ts';
import { expectBackupsPruned, failAt } from './faults.ts';

let bundles: Bundles;
let inst: Install;
let devices: number;

beforeAll(async () => {
  bundles = await buildBundles();
  inst = await installRelease(bundles.vN, bundles.versionN);
  devices = ((await inst.api('/api/devices/?limit=1')).body as { count: number }).count;
  expect(devices).toBeGreaterThan(0);
}, 900_000);

afterAll(async () => {
  await inst?.close();
}, 120_000);

describe('a failing step rolls back', () => {
  const steps: StepName[] = ['preflight', 'backup', 'prepare', 'quiesce', 'swap', 'deps', 'snapshot', 'migrate', 'static', 'verify', 'start'];
  for (const step of steps) {
    it(`at ${step}`, async () => {
      await failAt(inst, bundles, step, devices);
    }, 600_000);
  }
  it('keeps only the newest three pre-upgrade backups', async () => {
    await expectBackupsPruned(inst);
  });
});
