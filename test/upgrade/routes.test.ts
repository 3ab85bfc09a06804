// /api/system/upgrade/ (the last upgrade card), the stale-lock clearing, and the engine's resume call, on an
// install root made by hand (journal and lock files as the engine writes them).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { layoutFor, type InstallLayout } from '../../src/install/layout.ts';
import { writeJournal, readJournal, type Journal } from '../../src/upgrade/engine/journal.ts';
import { acquireLock, processStartTime, UpgradeBusyError } from '../../src/install/lock.ts';
import { holdSite } from '../../src/upgrade/engine/hold.ts';
import { readMaintenance } from '../../src/system/maintenance.ts';
import { createHash } from 'node:crypto';
import { createJob, finishJob } from '../../src/jobs/record.ts';
import { sql } from 'kysely';

let h: Harness;
let layout: InstallLayout;
const savedRoot = process.env.CAIRN_ROOT;

function journal(over: Partial<Journal> = {}): Journal {
  return {
    id: 'run-1', state: 'failed', trigger: 'bundle', startedBy: 'cli:ops', versionFrom: '1.0.0', versionTo: '1.1.0', bundle: '/x.tar.gz',
    pid: 1, startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:01:00.000Z', step: 'migrate',
    steps: [
      { name: 'preflight', status: 'ok', started: '2026-01-01T00:00:00.000Z', ended: '2026-01-01T00:00:02.500Z', detail: 'fine' },
      { name: 'migrate', status: 'failed', started: '2026-01-01T00:00:03.000Z', ended: '2026-01-01T00:00:04.000Z', detail: 'boom' },
    ],
    outcome: { code: 'restored', database: 'restored', services: 'running' }, failedStep: 'migrate', error: 'cairn migrate failed (exit 1): boom',
    errorTail: 'line 1\nboom', warnings: [],
    context: { workDir: '/tmp/none', previousRelease: null, newRelease: null, servicesBefore: null, timersBefore: null, envCopy: null, swapped: false,
      pendingMigrations: null, snapshotFile: null, migrateStarted: false, holdToken: null, backupId: null, jobId: null, child: null },
    ...over,
  };
}

/** A process that is alive for the test and that we stop ourselves. */
function sleeper() {
  return spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((r) => child.on('exit', r));
  return child.pid!;
}

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
  if (savedRoot === undefined) delete process.env.CAIRN_ROOT;
  else process.env.CAIRN_ROOT = savedRoot;
});
beforeEach(() => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-up-routes-'));
  process.env.CAIRN_ROOT = root;
  layout = layoutFor(root);
  mkdirSync(layout.upgradeDir, { recursive: true });
});

describe('GET /api/system/upgrade/', () => {
  it('needs users.manage', async () => {
    expect((await h.as('alice').get('/api/system/upgrade/')).statusCode).toBe(403);
    expect((await h.as('anonymous').get('/api/system/upgrade/')).statusCode).toBe(401);
  });

  it('shows the running version and no card before any upgrade', async () => {
    const res = await h.as('admin').get('/api/system/upgrade/');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ running_version: h.app.cairnVersion, installed: true, last_upgrade: null });
  });

  it('says whether an upgrade would keep answering reads: the setting on, on PostgreSQL, as the engine decides it', async () => {
    const readsDuringUpgrade = async (envFile: string) => {
      writeFileSync(layout.envFile, envFile);
      return (await h.as('admin').get('/api/system/upgrade/')).json().reads_during_upgrade;
    };
    expect(await readsDuringUpgrade('DATABASE_URL=\n')).toBe(false);
    expect(await readsDuringUpgrade('CAIRN_UPGRADE_SERVE_READS=1\nDATABASE_URL=postgres://db.example/cairn\n')).toBe(true);
    // The embedded database: the engine keeps it to itself from deps on, so the setting changes nothing.
    expect(await readsDuringUpgrade('CAIRN_UPGRADE_SERVE_READS=1\nDATABASE_URL=\n')).toBe(false);
    // Neither 1 nor 0: the engine warns and shows the maintenance page.
    expect(await readsDuringUpgrade('CAIRN_UPGRADE_SERVE_READS=yes\nDATABASE_URL=postgres://db.example/cairn\n')).toBe(false);
  });

  it('shows the last upgrade card: who, how, outcome, failed step, output excerpt, step timings', async () => {
    writeJournal(layout.journalFile, journal());
    const card = (await h.as('admin').get('/api/system/upgrade/')).json().last_upgrade;
    expect(card).toMatchObject({
      version_from: '1.0.0', version_to: '1.1.0', started_by: 'cli:ops', trigger: 'bundle', state: 'failed',
      outcome: { code: 'restored' }, failed_step: 'migrate', output_excerpt: 'line 1\nboom',
    });
    expect(card.steps[0]).toMatchObject({ name: 'preflight', status: 'ok', seconds: 2.5 });
  });
});

describe('POST /api/system/upgrade/cancel/', () => {
  it('needs users.manage and takes no body fields', async () => {
    expect((await h.as('alice').post('/api/system/upgrade/cancel/')).statusCode).toBe(403);
    const bad = await h.as('admin').post('/api/system/upgrade/cancel/', { force: true });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toHaveProperty('force');
  });

  it('clears a stale lock (its owner is dead)', async () => {
    mkdirSync(layout.upgradeDir, { recursive: true });
    writeFileSync(layout.lockFile, JSON.stringify({ pid: await deadPid(), pidStart: null, acquiredAt: new Date().toISOString(), purpose: 'upgrade', tokenSha256: null }));
    const res = await h.as('admin').post('/api/system/upgrade/cancel/');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ cleared: true, had_lock: true });
    expect(existsSync(layout.lockFile)).toBe(false);
  });

  it('refuses while the owner is alive, and leaves the lock', async () => {
    const child = sleeper();
    try {
      await new Promise((r) => setTimeout(r, 100));
      writeFileSync(layout.lockFile, JSON.stringify({ pid: child.pid, pidStart: processStartTime(child.pid!), acquiredAt: new Date().toISOString(), purpose: 'upgrade', tokenSha256: null }));
      const res = await h.as('admin').post('/api/system/upgrade/cancel/');
      expect(res.statusCode).toBe(409);
      expect(res.json().detail).toBe('An upgrade is already running.');
      expect(existsSync(layout.lockFile)).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('refuses while an interrupted run waits for recovery', async () => {
    writeJournal(layout.journalFile, journal({ state: 'running', finishedAt: null, outcome: null }));
    const res = await h.as('admin').post('/api/system/upgrade/cancel/');
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toMatch(/^An upgrade is already running\. .*cairn upgrade recover/);
    expect(readJournal(layout.journalFile)?.state).toBe('running');
  });

  it('answers 404 on a deployment that is not an installed release', async () => {
    delete process.env.CAIRN_ROOT;
    const res = await h.as('admin').post('/api/system/upgrade/cancel/');
    expect(res.statusCode).toBe(404);
  });
});

describe('the upgrade lock', () => {
  it('admits one owner; a dead owner is taken over', async () => {
    const child = sleeper();
    try {
      await new Promise((r) => setTimeout(r, 100));
      writeFileSync(layout.lockFile, JSON.stringify({ pid: child.pid, pidStart: processStartTime(child.pid!), acquiredAt: '', purpose: 'upgrade', tokenSha256: null }));
      expect(() => acquireLock(layout.lockFile, 'upgrade')).toThrow(UpgradeBusyError);
      expect(() => acquireLock(layout.lockFile, 'upgrade')).toThrow('An upgrade is already running.');
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.on('exit', r));
    }
    const release = acquireLock(layout.lockFile, 'upgrade');
    release();
    expect(existsSync(layout.lockFile)).toBe(false);
  });
});

describe('POST /api/system/upgrade/resume/ (engine only)', () => {
  it('opens the site only with the hold token', async () => {
    const token = 'the-one-time-token';
    await holdSite(h.database.db, createHash('sha256').update(token).digest('hex'));
    expect((await readMaintenance(h.database.db, true)).active).toBe(true);
    // Everything else is held meanwhile.
    expect((await h.as('admin').get('/api/system/upgrade/')).statusCode).toBe(503);
    const wrong = await h.app.inject({ method: 'POST', url: '/api/system/upgrade/resume/', headers: { 'x-cairn-upgrade-token': 'guess' } });
    expect(wrong.statusCode).toBe(403);
    const none = await h.app.inject({ method: 'POST', url: '/api/system/upgrade/resume/' });
    expect(none.statusCode).toBe(403);
    expect((await readMaintenance(h.database.db, true)).active).toBe(true);
    const right = await h.app.inject({ method: 'POST', url: '/api/system/upgrade/resume/', headers: { 'x-cairn-upgrade-token': token } });
    expect(right.statusCode).toBe(200);
    expect((await readMaintenance(h.database.db, true)).active).toBe(false);
    // One time only.
    const again = await h.app.inject({ method: 'POST', url: '/api/system/upgrade/resume/', headers: { 'x-cairn-upgrade-token': token } });
    expect(again.statusCode).toBe(403);
  });

  it('a hold that answers reads (the site was kept readable) lets reads through and holds changes', async () => {
    const token = 'the-readable-hold-token';
    await holdSite(h.database.db, createHash('sha256').update(token).digest('hex'), true);
    try {
      expect((await readMaintenance(h.database.db, true)).reads).toBe(true);
      expect((await h.as('admin').get('/api/tags/')).statusCode).toBe(200);
      const held = await h.as('admin').post('/api/tags/', { name: 'Held', slug: 'held' });
      expect(held.statusCode).toBe(503);
      expect(held.json()).toMatchObject({ maintenance: true });
      expect(Number(held.headers['retry-after'])).toBeGreaterThan(0);
      expect((await h.app.inject({ method: 'GET', url: '/api/health/' })).json()).toMatchObject({ maintenance: true });
    } finally {
      const right = await h.app.inject({ method: 'POST', url: '/api/system/upgrade/resume/', headers: { 'x-cairn-upgrade-token': token } });
      expect(right.statusCode).toBe(200);
    }
    expect((await readMaintenance(h.database.db, true)).reads).toBeUndefined();
  });

  it('the running-jobs call is refused without the live lock owner secret, and answers the run that holds it', async () => {
    expect((await h.app.inject({ method: 'GET', url: '/api/system/upgrade/running-jobs/' })).statusCode).toBe(403);
    const token = 'engine-secret';
    // The route trusts a lock held by another live process (the engine), never one of its own.
    const engine = sleeper();
    const jobId = await createJob(h.database.db, { kind: 'eol.refresh', tenantId: null, startedBy: 'schedule:eol-refresh', status: 'running' });
    await createJob(h.database.db, { kind: 'deploy.run', tenantId: null, startedBy: 'user:alice', status: 'running' });
    try {
      writeFileSync(layout.lockFile, JSON.stringify({ pid: engine.pid, pidStart: processStartTime(engine.pid!), acquiredAt: new Date().toISOString(), purpose: 'upgrade', tokenSha256: createHash('sha256').update(token).digest('hex') }));
      expect((await h.app.inject({ method: 'GET', url: '/api/system/upgrade/running-jobs/', headers: { 'x-cairn-upgrade-token': 'wrong' } })).statusCode).toBe(403);
      const ok = await h.app.inject({ method: 'GET', url: '/api/system/upgrade/running-jobs/', headers: { 'x-cairn-upgrade-token': token } });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ running: [{ kind: 'eol.refresh', started_by: 'schedule:eol-refresh' }] });
    } finally {
      engine.kill();
      await finishJob(h.database.db, jobId, { status: 'succeeded', result: 'done' });
    }
  });

  it("the job-record call is refused without the live lock owner secret, refuses bad input, and writes the run's job", async () => {
    const url = '/api/system/upgrade/job/';
    const token = 'engine-job-secret';
    const body = { job_id: null, started_by: 'user:admin', started_at: '2026-01-01T00:00:00.000Z', done: 2, total: 13, status: 'running', result: null, error: null };
    expect((await h.app.inject({ method: 'POST', url, payload: body })).statusCode).toBe(403);
    const engine = sleeper();
    try {
      writeFileSync(layout.lockFile, JSON.stringify({ pid: engine.pid, pidStart: processStartTime(engine.pid!), acquiredAt: new Date().toISOString(), purpose: 'upgrade', tokenSha256: createHash('sha256').update(token).digest('hex') }));
      expect((await h.app.inject({ method: 'POST', url, payload: body, headers: { 'x-cairn-upgrade-token': 'wrong' } })).statusCode).toBe(403);
      const headers = { 'x-cairn-upgrade-token': token };
      const bad = await h.app.inject({ method: 'POST', url, payload: { ...body, done: -1, status: 'half' }, headers });
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain('done');
      expect(bad.body).toContain('status');
      const before = await sql<{ n: string }>`SELECT count(*) AS n FROM jobs WHERE kind = 'upgrade'`.execute(h.database.db);
      expect(Number(before.rows[0]!.n)).toBe(0);

      const created = await h.app.inject({ method: 'POST', url, payload: body, headers });
      expect(created.statusCode, created.body).toBe(200);
      const id = (created.json() as { id: string }).id;
      const row = async () => (await sql<Record<string, unknown>>`SELECT * FROM jobs WHERE id = ${id}`.execute(h.database.db)).rows[0]!;
      expect(await row()).toMatchObject({ kind: 'upgrade', tenant_id: null, status: 'running', started_by: 'user:admin', done: 2, total: 13 });
      expect(new Date((await row()).started as string).toISOString()).toBe(body.started_at);

      const failed = await h.app.inject({ method: 'POST', url, payload: { ...body, job_id: id, done: 9, status: 'failed', error: 'verify: boom (restored)' }, headers });
      expect(failed.json()).toEqual({ id });
      expect(await row()).toMatchObject({ status: 'failed', done: 9, error: 'verify: boom (restored)' });
      // A finished record keeps its first ending.
      await h.app.inject({ method: 'POST', url, payload: { ...body, job_id: id, done: 13, status: 'succeeded', result: '1.0.0 → 1.1.0' }, headers });
      expect(await row()).toMatchObject({ status: 'failed', done: 9, result: '' });
    } finally {
      engine.kill();
    }
  });

  it('the read-only call is refused without the live lock owner secret; with it the site answers reads and refuses changes while the run lives', async () => {
    const url = '/api/system/upgrade/read-only/';
    expect((await h.app.inject({ method: 'POST', url, payload: {} })).statusCode).toBe(403);
    const token = 'engine-read-only-secret';
    const engine = sleeper();
    try {
      writeFileSync(layout.lockFile, JSON.stringify({ pid: engine.pid, pidStart: processStartTime(engine.pid!), acquiredAt: new Date().toISOString(), purpose: 'upgrade', tokenSha256: createHash('sha256').update(token).digest('hex') }));
      const headers = { 'x-cairn-upgrade-token': token };
      expect((await h.app.inject({ method: 'POST', url, payload: {}, headers: { 'x-cairn-upgrade-token': 'wrong' } })).statusCode).toBe(403);
      const answer = await h.app.inject({ method: 'POST', url, payload: {}, headers });
      if (h.database.backend === 'pglite') {
        // The embedded database is this process's own: the run stops it instead, and nothing is refused.
        expect(answer.statusCode).toBe(409);
        expect(answer.json().detail).toContain('The embedded database is held by this process');
        expect(h.app.writeGate.readOnly).toBe(false);
        return;
      }
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json()).toEqual({ read_only: true, waited_ms: expect.any(Number), through_recovery: false });
      expect((await h.as('admin').get('/api/tags/')).statusCode).toBe(200);
      const refused = await h.as('admin').post('/api/tags/', { name: 'Refused', slug: 'refused' });
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('30');
      expect((await h.app.inject({ method: 'GET', url: '/api/health/' })).json()).toMatchObject({ maintenance: true, read_only: true });
      // A run that rolls back before its migration opens the site again (engine only).
      expect((await h.app.inject({ method: 'DELETE', url, headers: { 'x-cairn-upgrade-token': 'wrong' } })).statusCode).toBe(403);
      expect((await h.as('admin').post('/api/tags/', { name: 'Refused', slug: 'refused' })).statusCode).toBe(503);
      const reopened = await h.app.inject({ method: 'DELETE', url, headers });
      expect(reopened.statusCode, reopened.body).toBe(200);
      expect(reopened.json()).toEqual({ read_only: false });
      expect((await h.as('admin').post('/api/tags/', { name: 'Reopened', slug: 'reopened' })).statusCode).toBe(201);
      // The hand-over to the new release's web: engine only, and only from a web that refuses changes, started by
      // `cairn serve` (this one was built in process: it says so, and serves on).
      const handOver = '/api/system/upgrade/hand-over/';
      expect((await h.app.inject({ method: 'POST', url: handOver, payload: {}, headers: { 'x-cairn-upgrade-token': 'wrong' } })).statusCode).toBe(403);
      const takesChanges = await h.app.inject({ method: 'POST', url: handOver, payload: {}, headers });
      expect(takesChanges.statusCode).toBe(409);
      expect(takesChanges.json().detail).toContain('This web takes changes');
      expect((await h.app.inject({ method: 'POST', url, payload: {}, headers })).statusCode).toBe(200);
      const notServe = await h.app.inject({ method: 'POST', url: handOver, payload: {}, headers });
      expect(notServe.statusCode).toBe(409);
      expect(notServe.json().detail).toBe('this web was not started by `cairn serve` in an install: it cannot start another; this web serves on.');
      expect((await h.app.inject({ method: 'POST', url: handOver, payload: { pid: 1 }, headers })).statusCode).toBe(400);
      // The run dies: its gate opens by itself.
      engine.kill();
      await new Promise((r) => engine.once('exit', r));
      expect((await h.as('admin').post('/api/tags/', { name: 'Taken', slug: 'taken' })).statusCode).toBe(201);
      expect((await h.app.inject({ method: 'GET', url: '/api/health/' })).json()).toMatchObject({ maintenance: false });
    } finally {
      engine.kill();
      await h.app.writeGate.open();
    }
  });

  it('read-only through the recovery (the run migrates): a dead run leaves the site read-only', async () => {
    if (h.database.backend === 'pglite') return; // the call answers 409 there (above)
    const url = '/api/system/upgrade/read-only/';
    const token = 'engine-migrating-secret';
    const engine = sleeper();
    try {
      writeFileSync(layout.lockFile, JSON.stringify({ pid: engine.pid, pidStart: processStartTime(engine.pid!), acquiredAt: new Date().toISOString(), purpose: 'upgrade', tokenSha256: createHash('sha256').update(token).digest('hex') }));
      const headers = { 'x-cairn-upgrade-token': token };
      expect((await h.app.inject({ method: 'POST', url, payload: { through_recovery: 'yes' }, headers })).statusCode).toBe(400);
      expect(h.app.writeGate.readOnly).toBe(false);
      expect((await h.app.inject({ method: 'POST', url, payload: {}, headers })).json()).toMatchObject({ through_recovery: false });
      const sealed = await h.app.inject({ method: 'POST', url, payload: { through_recovery: true }, headers });
      expect(sealed.statusCode, sealed.body).toBe(200);
      expect(sealed.json()).toEqual({ read_only: true, waited_ms: expect.any(Number), through_recovery: true });
      engine.kill();
      await new Promise((r) => engine.once('exit', r));
      expect((await h.as('admin').post('/api/tags/', { name: 'Not taken', slug: 'not-taken' })).statusCode).toBe(503);
      expect((await h.as('admin').get('/api/tags/')).statusCode).toBe(200);
      expect((await h.app.inject({ method: 'GET', url: '/api/health/' })).json()).toMatchObject({ maintenance: true, read_only: true });
    } finally {
      engine.kill();
      await h.app.writeGate.open();
    }
  });

  it('the backup call is refused without the live lock owner secret', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/api/system/upgrade/backup/', headers: { 'x-cairn-upgrade-token': 'x' } });
    expect(res.statusCode).toBe(403);
  });
});
