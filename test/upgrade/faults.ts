// Fault injection at a step before resume (CAIRN_UPGRADE_FAIL_AT fails right after the step's work): the run
// must roll back to exactly the old release on an unchanged (or restored) database.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { listBackups } from '../../src/system/backup.ts';
import { readJournal, STEPS, type Journal, type StepName } from '../../src/upgrade/engine/journal.ts';
import { buildBundles, installRelease, type Bundles, type Install } from './install.ts';
import { snapshotCopiesOf, withServer } from '../helpers/pg-test-databases.ts';
import { expectConsistent } from './expect.ts';
import { releaseCacheDir } from '../../src/install/layout.ts';

export interface FaultFixture {
  bundles: Bundles;
  inst: Install;
  /** Devices of the demo data: every run must leave exactly these. */
  devices: number;
}

/**
 * The install a fault-test file runs its upgrades on: vN with demo data and web running, set up once before the
 * file's tests and removed after them. Each file has its own, so the files run side by side on two workers.
 * The fields are filled in by beforeAll: read them inside tests, not at collection time.
 */
export function useFaultInstall(): FaultFixture {
  const fixture = {} as FaultFixture;
  beforeAll(async () => {
    fixture.bundles = await buildBundles();
    fixture.inst = await installRelease(fixture.bundles.vN, fixture.bundles.versionN);
    const listed = await fixture.inst.api('/api/devices/?limit=1');
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    fixture.devices = (listed.body as { count: number }).count;
    expect(fixture.devices).toBeGreaterThan(0);
  }, 900_000);
  afterAll(async () => {
    await fixture.inst?.close();
  }, 120_000);
  return fixture;
}

const NOTHING_STOPPED: StepName[] = ['preflight', 'backup', 'prepare'];

/**
 * `serveReads`: the run keeps the site readable (CAIRN_UPGRADE_SERVE_READS=1; PostgreSQL only): from quiesce the web
 * answers reads and refuses changes, and a failure before the migration leaves that same web running, taking changes
 * again, rather than restarting it. A failure after it (the migration only adds, so that web answered reads through
 * it) restores the snapshot, a dump, and restarts web.
 */
export async function failAt(inst: Install, bundles: Bundles, step: StepName, devices: number, opts: { serveReads?: boolean } = {}): Promise<void> {
  const webBefore = inst.host.pidOf('web');
  const run = await inst.cairn(['upgrade', 'bundle', bundles.vN1], { CAIRN_UPGRADE_FAIL_AT: step, ...(opts.serveReads ? { CAIRN_UPGRADE_SERVE_READS: '1' } : {}) });
  expect(run.code, run.out).toBe(1);
  expect(run.out).toContain(`Failed at ${step}: fault injected after the ${step} step's work`);
  const journal = readJournal(inst.layout.journalFile)!;
  expect(journal).toMatchObject({ state: 'failed', failedStep: step, versionTo: bundles.versionN1 });
  // Progress on the terminal as it happened, and which release's engine ran each step: vN's up to prepare,
  // the new release's own stage from quiesce on.
  const ran = journal.steps.map((s) => s.name);
  for (const [i, name] of ran.entries()) expect(run.out).toContain(`[${i + 1}/13] ${name} …`);
  expect(run.out).toContain(`      ${step} failed (`);
  const handedOver = ran.includes('quiesce');
  expect(journal.steps.map((s) => `${s.name}:${s.engine}`)).toEqual(
    journal.steps.map((s) => `${s.name}:${handedOver && STEPS.indexOf(s.name) >= STEPS.indexOf('quiesce') ? bundles.versionN1 : bundles.versionN}`),
  );
  if (handedOver) {
    expect(run.out).toContain(`The upgrade stage of ${bundles.versionN1} takes over (protocol 1).`);
    expect(journal.context.stage).toMatchObject({ release: bundles.versionN1, protocol: 1 });
  }
  const migrated = journal.context.migrateStarted;
  expect(journal.outcome).toEqual({
    code: NOTHING_STOPPED.includes(step) ? 'unchanged' : 'restored',
    database: migrated ? 'restored' : 'unchanged',
    services: 'running',
  });
  await expectConsistent(inst, bundles.versionN, devices);
  if (opts.serveReads) {
    expect(journal.steps.find((s) => s.name === 'quiesce')!.detail).toContain('web answers reads and refuses changes');
    expect(journal.warnings).toEqual([]);
    if (migrated) {
      // The run never took the port from that web before the migration (takePort would have cleared this).
      expect(journal.context.webReadOnly).toBe(true);
      expect(journal.steps.find((s) => s.name === 'snapshot')!.detail).toMatch(/a dump taken while the site answered reads$/);
      expect(run.out).toContain('rollback: restoring the database from the snapshot');
      expect(inst.host.pidOf('web')).not.toBe(webBefore);
    } else {
      expect(run.out).toContain('rollback: web takes changes again');
      expect(inst.host.pidOf('web')).toBe(webBefore);
    }
  }
  if (inst.databaseUrl) {
    // PostgreSQL: a rollback after migrating restored from the server's copy of the database (a dump when the site
    // was kept readable), and the copy went with the run (none is left for a run that ended).
    if (migrated && !opts.serveReads) expect(journal.steps.find((s) => s.name === 'snapshot')!.detail).toMatch(/^database snapshot: a copy of the database made by the server/);
    expect(await withServer(inst.databaseUrl, (c) => snapshotCopiesOf(c, new URL(inst.databaseUrl!).pathname.slice(1)))).toEqual([]);
  }
  expect(existsSync(join(inst.layout.releases, bundles.versionN1))).toBe(false);
  expect(existsSync(releaseCacheDir(inst.layout, bundles.versionN1))).toBe(false);
  expect(existsSync(journal.context.workDir)).toBe(false);
  const card = (await inst.api('/api/system/upgrade/')).body as { last_upgrade: { failed_step: string; error: string } };
  expect(card.last_upgrade.failed_step).toBe(step);
  // Listed as a job on both databases: the steps before the failing one done, failed with the step's error.
  await expectUpgradeJob(inst, journal, { status: 'failed', progress: { done: STEPS.indexOf(step), total: STEPS.length } });
  expect((await upgradeJob(inst, journal)).error).toMatch(new RegExp(`^${step}: fault injected`));
}

interface JobAnswer {
  id: string;
  kind: string;
  status: string;
  tenant: string | null;
  started_by: string;
  started: string | null;
  progress: { done: number; total: number | null };
  result: string;
  error: string;
}

/** The run's job record (kind 'upgrade', the id the journal keeps) as /api/jobs/ shows it. */
export async function upgradeJob(inst: Install, journal: Journal): Promise<JobAnswer> {
  expect(journal.context.jobId, 'the run recorded no job').toMatch(/^[0-9a-f-]{36}$/);
  const listed = (await inst.api('/api/jobs/?kind=upgrade&limit=100')).body as { results: JobAnswer[] };
  const job = listed.results.find((j) => j.id === journal.context.jobId);
  expect(job, `job ${journal.context.jobId} is not listed on /api/jobs/`).toBeDefined();
  return job!;
}

export async function expectUpgradeJob(inst: Install, journal: Journal, expected: Partial<JobAnswer>): Promise<void> {
  const job = await upgradeJob(inst, journal);
  expect(job).toMatchObject({ kind: 'upgrade', tenant: null, ...expected });
  // Started when the run started, even where the record could only be written later.
  expect(Date.parse(job.started!)).toBe(Date.parse(journal.startedAt));
}

export async function expectBackupsPruned(inst: Install): Promise<void> {
  const backups = await listBackups(inst.layout.backupsDir);
  expect(backups).toHaveLength(3);
  expect(backups.every((b) => b.kind === 'pre-upgrade')).toBe(true);
}
