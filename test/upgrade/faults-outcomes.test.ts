// A failure injected at the last steps before resume (static, verify, start: the database is restored from the
// snapshot), then the outcomes and waits of a run: a failed database restore (and its recovery), the host's
// package updates, a restore holding the site, a container, and a running scheduled job. The earlier steps are in
// faults-rollback.test.ts, on an install of its own: the two files take about as long and run in parallel.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withInstallDatabase } from './install.ts';
import { expectUpgradeJob, failAt, upgradeJob, useFaultInstall } from './faults.ts';
import { expectConsistent } from './expect.ts';
import { readJournal, type StepName } from '../../src/upgrade/engine/journal.ts';
import { upgradeStatus } from '../../src/upgrade/records.ts';
import { restoreHoldFile } from '../../src/system/restore-hold.ts';
import { processStartTime } from '../../src/install/lock.ts';
import { PACKAGE_UPDATES_FILE } from '../../src/upgrade/host/local.ts';
import { createJob } from '../../src/jobs/record.ts';

const fx = useFaultInstall();

describe('a failing late step rolls back', () => {
  const steps: StepName[] = ['static', 'verify', 'start'];
  for (const step of steps) {
    it(`at ${step}`, async () => {
      await failAt(fx.inst, fx.bundles, step, fx.devices);
    }, 600_000);
  }
});

describe('outcomes and waits of a run', () => {
  it('a failed database restore stops the services, records it, alerts, and waits for `cairn upgrade recover`', async () => {
    const run = await fx.inst.cairn(['upgrade', 'bundle', fx.bundles.vN1], { CAIRN_UPGRADE_FAIL_AT: 'verify,restore' });
    expect(run.code, run.out).toBe(1);
    expect(run.out).toContain('rollback: the database restore failed (fault injected into the database restore');
    expect(readJournal(fx.inst.layout.journalFile)).toMatchObject({
      state: 'restore_failed',
      failedStep: 'verify',
      outcome: { code: 'restore_failed', database: 'restore_failed', services: 'stopped' },
    });
    expect(fx.inst.host.pidOf('web')).toBeNull();
    expect(fx.inst.host.pidOf('responder')).toBeNull();
    await expect(fx.inst.api('/api/health/')).rejects.toThrow(/ECONNREFUSED/);
    expect(readFileSync(join(fx.inst.layout.upgradeDir, 'alerts.log'), 'utf8')).toMatch(/database restore failed: fault injected/);
    expect(upgradeStatus(fx.inst.layout).last_upgrade?.warnings.join('\n')).toContain('Services are stopped; run `cairn upgrade recover` to retry.');
    // Nothing else runs on a database in an unknown state.
    const again = await fx.inst.cairn(['upgrade', 'bundle', fx.bundles.vN1]);
    expect(again.out).toContain('An interrupted upgrade must be recovered first');

    const recovered = await fx.inst.cairn(['upgrade', 'recover']);
    expect(recovered.code, recovered.out).toBe(0);
    expect(recovered.out).toContain('rollback: restoring the database from the snapshot');
    const journal = readJournal(fx.inst.layout.journalFile)!;
    expect(journal).toMatchObject({ state: 'failed', outcome: { code: 'restored', database: 'restored', services: 'running' } });
    await expectConsistent(fx.inst, fx.bundles.versionN, fx.devices);
    // The job record ends failed at verify once a web serves again (on the embedded database, the one recover started).
    await expectUpgradeJob(fx.inst, journal, { status: 'failed', progress: { done: 9, total: 13 } });
    expect((await upgradeJob(fx.inst, journal)).error).toMatch(/^verify: fault injected/);
  }, 900_000);

  it('quiesce waits for the host\'s package updates, then stops, retryable, with nothing stopped', async () => {
    const busy = join(fx.inst.layout.runDir, PACKAGE_UPDATES_FILE);
    writeFileSync(busy, 'apt stand-in\n');
    try {
      const run = await fx.inst.cairn(['upgrade', 'bundle', fx.bundles.vN1], { CAIRN_UPGRADE_PACKAGE_WAIT_MS: '1500' });
      expect(run.code, run.out).toBe(1);
      expect(run.out).toContain('the host is installing its own package updates: waiting up to 2 s');
      expect(run.out).toContain('Failed at quiesce: the host was still installing package updates after 2 s; nothing was stopped: try again once they are done');
      expect(readJournal(fx.inst.layout.journalFile)).toMatchObject({ failedStep: 'quiesce', retryable: true, outcome: { code: 'unchanged', database: 'unchanged', services: 'running' } });
      expect(readJournal(fx.inst.layout.journalFile)!.context.servicesBefore).toBeNull();
    } finally {
      rmSync(busy, { force: true });
    }
    await expectConsistent(fx.inst, fx.bundles.versionN, fx.devices);
  }, 600_000);

  it('preflight refuses while a restore holds the site, and in a container deployment', async () => {
    const hold = restoreHoldFile(fx.inst.layout.backupsDir);
    writeFileSync(hold, JSON.stringify({ backupId: 'b-live', pid: process.pid, pidStart: processStartTime(process.pid), since: '2026-01-01T00:00:00Z' }));
    try {
      const live = await fx.inst.cairn(['upgrade', 'bundle', fx.bundles.vN1]);
      expect(live.code).toBe(1);
      expect(live.out).toContain('Failed at preflight: A restore is in progress (backup b-live');
      expect(readJournal(fx.inst.layout.journalFile)).toMatchObject({ failedStep: 'preflight', retryable: true, outcome: { code: 'unchanged' } });
      writeFileSync(hold, JSON.stringify({ backupId: 'b-dead', pid: 2 ** 22 + 1, pidStart: null, since: '2026-01-01T00:00:00Z' }));
      const dead = await fx.inst.cairn(['upgrade', 'bundle', fx.bundles.vN1]);
      expect(dead.out).toContain('A restore of backup b-dead did not finish');
    } finally {
      rmSync(hold, { force: true });
    }
    const container = await fx.inst.cairn(['upgrade', 'bundle', fx.bundles.vN1], { CAIRN_CONTAINER: '1' });
    expect(container.code).toBe(1);
    expect(container.out).toContain('This is a container deployment');
    await expectConsistent(fx.inst, fx.bundles.versionN, fx.devices);
  }, 300_000);

  it('quiesce lets a running scheduled job finish (up to its limit) before the workers stop', async () => {
    // The embedded database is the web process's: write the job row while web is down.
    await fx.inst.host.stop('web');
    await withInstallDatabase(fx.inst, (db) => createJob(db, { kind: 'eol.refresh', tenantId: null, startedBy: 'schedule:eol-refresh', status: 'running' }));
    await fx.inst.host.start('web');
    await fx.inst.waitHealthy(fx.bundles.versionN);
    const run = await fx.inst.cairn(['upgrade', 'bundle', fx.bundles.vN1], { CAIRN_UPGRADE_JOB_WAIT_MS: '1500', CAIRN_UPGRADE_FAIL_AT: 'quiesce' });
    expect(run.code, run.out).toBe(1);
    expect(run.out).toContain('waiting up to 2 s for 1 running scheduled job(s): eol.refresh (schedule:eol-refresh)');
    const journal = readJournal(fx.inst.layout.journalFile)!;
    // The wait came before the workers and web stopped: the rollback had services to start again.
    expect(journal).toMatchObject({ failedStep: 'quiesce', outcome: { code: 'restored', services: 'running' } });
    expect(journal.warnings.join('\n')).toContain('quiesce: eol.refresh (schedule:eol-refresh) still ran after 2 s; stopping the workers cut it short');
    await expectConsistent(fx.inst, fx.bundles.versionN, fx.devices);
  }, 600_000);
});
