// A failure injected at every step before resume: each run rolls back to vN, one consistent version, no row lost;
// from the snapshot on, the database is restored because migrations ran. One install takes every run in turn (a
// rollback leaves it as it was), so the backups are also pruned to three. Then the outcomes and waits that need
// no second install: a failed database restore, the host's package updates, a restore holding the site, a
// container, and a running scheduled job.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepName } from '../../src/upgrade/engine/journal.ts';
import { buildBundles, installRelease, withInstallDatabase, type Bundles, type Install } from './install.ts';
import { expectBackupsPruned, failAt } from './faults.ts';
import { expectConsistent } from './expect.ts';
import { readJournal } from '../../src/upgrade/engine/journal.ts';
import { upgradeStatus } from '../../src/upgrade/records.ts';
import { restoreHoldFile } from '../../src/upgrade/restore-hold.ts';
import { processStartTime } from '../../src/upgrade/engine/lock.ts';
import { PACKAGE_UPDATES_FILE } from '../../src/upgrade/host/local.ts';
import { createJob } from '../../src/jobs/record.ts';

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

  it('a failed database restore stops the services, records it, alerts, and waits for `cairn upgrade recover`', async () => {
    const run = await inst.cairn(['upgrade', 'bundle', bundles.vN1], { CAIRN_UPGRADE_FAIL_AT: 'verify,restore' });
    expect(run.code, run.out).toBe(1);
    expect(run.out).toContain('rollback: the database restore failed (fault injected into the database restore');
    expect(readJournal(inst.layout.journalFile)).toMatchObject({
      state: 'restore_failed',
      failedStep: 'verify',
      outcome: { code: 'restore_failed', database: 'restore_failed', services: 'stopped' },
    });
    expect(inst.host.pidOf('web')).toBeNull();
    expect(inst.host.pidOf('responder')).toBeNull();
    await expect(inst.api('/api/health/')).rejects.toThrow(/ECONNREFUSED/);
    expect(readFileSync(join(inst.layout.upgradeDir, 'alerts.log'), 'utf8')).toMatch(/database restore failed: fault injected/);
    expect(upgradeStatus(inst.layout).last_upgrade?.warnings.join('\n')).toContain('Services are stopped; run `cairn upgrade recover` to retry.');
    // Nothing else runs on a database in an unknown state.
    const again = await inst.cairn(['upgrade', 'bundle', bundles.vN1]);
    expect(again.out).toContain('An interrupted upgrade must be recovered first');

    const recovered = await inst.cairn(['upgrade', 'recover']);
    expect(recovered.code, recovered.out).toBe(0);
    expect(recovered.out).toContain('rollback: restoring the database from the snapshot');
    expect(readJournal(inst.layout.journalFile)).toMatchObject({ state: 'failed', outcome: { code: 'restored', database: 'restored', services: 'running' } });
    await expectConsistent(inst, bundles.versionN, devices);
  }, 900_000);

  it('quiesce waits for the host\'s package updates, then stops, retryable, with nothing stopped', async () => {
    const busy = join(inst.layout.runDir, PACKAGE_UPDATES_FILE);
    writeFileSync(busy, 'apt stand-in\n');
    try {
      const run = await inst.cairn(['upgrade', 'bundle', bundles.vN1], { CAIRN_UPGRADE_PACKAGE_WAIT_MS: '1500' });
      expect(run.code, run.out).toBe(1);
      expect(run.out).toContain('the host is installing its own package updates: waiting up to 2 s');
      expect(run.out).toContain('Failed at quiesce: the host was still installing package updates after 2 s; nothing was stopped: try again once they are done');
      expect(readJournal(inst.layout.journalFile)).toMatchObject({ failedStep: 'quiesce', retryable: true, outcome: { code: 'unchanged', database: 'unchanged', services: 'running' } });
      expect(readJournal(inst.layout.journalFile)!.context.servicesBefore).toBeNull();
    } finally {
      rmSync(busy, { force: true });
    }
    await expectConsistent(inst, bundles.versionN, devices);
  }, 600_000);

  it('preflight refuses while a restore holds the site, and in a container deployment', async () => {
    const hold = restoreHoldFile(inst.layout.backupsDir);
    writeFileSync(hold, JSON.stringify({ backupId: 'b-live', pid: process.pid, pidStart: processStartTime(process.pid), since: '2026-01-01T00:00:00Z' }));
    try {
      const live = await inst.cairn(['upgrade', 'bundle', bundles.vN1]);
      expect(live.code).toBe(1);
      expect(live.out).toContain('Failed at preflight: A restore is in progress (backup b-live');
      expect(readJournal(inst.layout.journalFile)).toMatchObject({ failedStep: 'preflight', retryable: true, outcome: { code: 'unchanged' } });
      writeFileSync(hold, JSON.stringify({ backupId: 'b-dead', pid: 2 ** 22 + 1, pidStart: null, since: '2026-01-01T00:00:00Z' }));
      const dead = await inst.cairn(['upgrade', 'bundle', bundles.vN1]);
      expect(dead.out).toContain('A restore of backup b-dead did not finish');
    } finally {
      rmSync(hold, { force: true });
    }
    const container = await inst.cairn(['upgrade', 'bundle', bundles.vN1], { CAIRN_CONTAINER: '1' });
    expect(container.code).toBe(1);
    expect(container.out).toContain('This is a container deployment');
    await expectConsistent(inst, bundles.versionN, devices);
  }, 300_000);

  it('keeps only the newest three pre-upgrade backups', async () => {
    await expectBackupsPruned(inst);
  });

  it('quiesce lets a running scheduled job finish (up to its limit) before the workers stop', async () => {
    // The embedded database is the web process's: write the job row while web is down.
    await inst.host.stop('web');
    await withInstallDatabase(inst, (db) => createJob(db, { kind: 'eol.refresh', tenantId: null, startedBy: 'schedule:eol-refresh', status: 'running' }));
    await inst.host.start('web');
    await inst.waitHealthy(bundles.versionN);
    const run = await inst.cairn(['upgrade', 'bundle', bundles.vN1], { CAIRN_UPGRADE_JOB_WAIT_MS: '1500', CAIRN_UPGRADE_FAIL_AT: 'quiesce' });
    expect(run.code, run.out).toBe(1);
    expect(run.out).toContain('waiting up to 2 s for 1 running scheduled job(s): eol.refresh (schedule:eol-refresh)');
    const journal = readJournal(inst.layout.journalFile)!;
    // The wait came before the workers and web stopped: the rollback had services to start again.
    expect(journal).toMatchObject({ failedStep: 'quiesce', outcome: { code: 'restored', services: 'running' } });
    expect(journal.warnings.join('\n')).toContain('quiesce: eol.refresh (schedule:eol-refresh) still ran after 2 s; stopping the workers cut it short');
    await expectConsistent(inst, bundles.versionN, devices);
  }, 600_000);
});
