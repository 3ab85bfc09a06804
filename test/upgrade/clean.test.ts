// A clean upgrade vN → vN+1 with real processes (started through POST /api/system/upgrade/ {version} from a release
// feed stand-in, run by the installed release's `cairn upgrade bundle` outside the web service, which runs under
// the local supervisor), a poller that must never meet a refused connection, and the version refusals.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listBackups } from '../../src/system/backup.ts';
import { releaseCacheDir } from '../../src/install/layout.ts';
import { readJournal } from '../../src/upgrade/engine/journal.ts';
import { buildBundles, installRelease, startPoller, upgradeFigures, type Bundles, type Install, readLog } from './install.ts';
import { snapshotCopiesOf, withServer } from '../helpers/pg-test-databases.ts';
import { call, pollRun, startReleaseFeed } from './online.ts';
import { expectUpgradeJob, upgradeJob } from './faults.ts';
import { startSmtpStandin } from '../helpers/smtp.ts';

let bundles: Bundles;
let inst: Install;

beforeAll(async () => {
  bundles = await buildBundles();
  // On PostgreSQL the run keeps the site readable until its migration (serve-reads.ts); the embedded pass, and the
  // fault files on both, run SPEC's maintenance page from quiesce.
  inst = await installRelease(bundles.vN, bundles.versionN, { serveReads: Boolean(process.env.TEST_DATABASE_URL) });
}, 900_000);

afterAll(async () => {
  await inst?.close();
}, 120_000);

function count(body: unknown): number {
  return (body as { count: number }).count;
}

/** A bundle holding only a manifest: enough for the version check, which comes before any unpacking. */
function manifestOnlyBundle(version: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-fake-bundle-'));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ name: 'cairn', version, created: new Date().toISOString(), sha256: { 'bin/cairn.mjs': '0'.repeat(64) }, migrations: [] }));
  const file = join(dir, `cairn-${version}.tar.gz`);
  execFileSync('tar', ['-czf', file, '-C', dir, 'manifest.json']);
  return file;
}

describe('upgrade vN → vN+1', () => {
  it('upgrades with backup, migration and health gate; clients only ever see 200 or 503 + Retry-After', async () => {
    const devicesBefore = count((await inst.api('/api/devices/?limit=1')).body);
    expect(devicesBefore).toBeGreaterThan(0);

    // Started the way the Updates page starts it: vN+1 from a release feed, POST {version}, then polling the card.
    const feed = await startReleaseFeed([{ version: bundles.versionN1, bundle: bundles.vN1 }]);
    try {
      expect((await call(inst.port, inst.adminToken, 'PATCH', '/api/eol/settings/', { ssrf_allowlist: ['127.0.0.1'] })).status).toBe(200);
      expect((await call(inst.port, inst.adminToken, 'PATCH', '/api/system/upgrade/settings/', { feed_url: feed.url })).status).toBe(200);
      const available = await call(inst.port, inst.adminToken, 'POST', '/api/system/upgrade/check/');
      expect(available.body).toMatchObject({ running_version: bundles.versionN, update_available: true, latest: { version: bundles.versionN1 }, error: null });
    } catch (err) {
      await feed.close();
      throw err;
    }
    const poller = startPoller(inst.port, inst.adminToken);
    const started = await call(inst.port, inst.adminToken, 'POST', '/api/system/upgrade/', { version: bundles.versionN1 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const runId = (started.body as { run_id: string }).run_id;
    expect(started.body).toMatchObject({ version: bundles.versionN1, trigger: 'online', via: 'process', poll: '/api/system/upgrade/' });
    // A second start while the run is alive is refused with the engine's words.
    const second = await call(inst.port, inst.adminToken, 'POST', '/api/system/upgrade/', { version: bundles.versionN1 });
    expect([409, 503]).toContain(second.status);
    if (second.status === 409) expect(second.body).toEqual({ detail: 'An upgrade is already running.' });
    const { card: ended, stepsSeen, maintenanceSteps, strangerStatuses } = await pollRun(inst.port, inst.adminToken, runId);
    await new Promise((r) => setTimeout(r, 500));
    const polled = await poller.stop();
    await feed.close();
    expect(feed.requests).toContain(`/cairn-${bundles.versionN1}.tar.gz`);
    expect(ended).toMatchObject({ state: 'done', current_step: null, trigger: 'online', started_by: 'user:admin' });
    expect(stepsSeen.length).toBeGreaterThan(0);
    expect(polled.errors).toEqual([]);
    expect(polled.other, polled.other.length ? readLog(inst.layout) : '').toEqual([]);
    expect(polled.ok).toBeGreaterThan(0);
    if (inst.databaseUrl) {
      // Keeping the site readable, with a migration that only adds: no read met a 503, and no responder ran (the
      // old web answered the card until the new one, started on its socket, did).
      expect(polled.maintenance, `first 503 at ${polled.maintenanceFirstAt}`).toBe(0);
      expect(polled.readOnlyFirstAt).not.toBeNull();
      expect(maintenanceSteps, `steps seen: ${stepsSeen.join(', ')}`).toEqual([]);
    } else {
      // Between quiesce and resume the maintenance responder served the admin the card with the running step
      // (from the journal on disk), and a wrong token only the 503 everyone else gets.
      const windowSteps = ['quiesce', 'swap', 'deps', 'snapshot', 'migrate', 'static', 'verify', 'start', 'resume'];
      expect(maintenanceSteps.length, `steps seen: ${stepsSeen.join(', ')}`).toBeGreaterThan(0);
      for (const step of maintenanceSteps) expect(windowSteps).toContain(step);
      expect(strangerStatuses.length).toBeGreaterThan(0);
      expect(new Set(strangerStatuses)).toEqual(new Set([503]));
      expect(polled.maintenance).toBeGreaterThan(0); // the window was seen, and it answered 503
    }

    const health = (await inst.api('/api/health/')).body;
    expect(health).toMatchObject({ status: 'ok', version: bundles.versionN1, maintenance: false, db_behind_code: [], code_behind_db: [] });
    expect(readlinkSync(inst.layout.current)).toBe(`releases/${bundles.versionN1}`);
    expect(count((await inst.api('/api/devices/?limit=1')).body)).toBe(devicesBefore);
    // Each release's processes keep V8's code cache of its compiled server beside the install's files: vN's engine
    // (`cairn upgrade bundle`) and vN+1's stage (`cairn upgrade stage`) each kept theirs as they exited.
    for (const version of [bundles.versionN, bundles.versionN1]) {
      expect(readdirSync(releaseCacheDir(inst.layout, version)).filter((f) => f.endsWith('.upgrade.code-cache')), version).toHaveLength(1);
    }

    const backups = await listBackups(inst.layout.backupsDir);
    expect(backups).toHaveLength(1);
    expect(backups[0]).toMatchObject({ kind: 'pre-upgrade', version: bundles.versionN });

    const card = (await inst.api('/api/system/upgrade/')).body as Record<string, unknown>;
    expect(card).toMatchObject({
      running_version: bundles.versionN1,
      // What the Updates page's start dialog says the next upgrade will do, as this one did.
      reads_during_upgrade: Boolean(inst.databaseUrl),
      last_upgrade: { version_from: bundles.versionN, version_to: bundles.versionN1, state: 'done', outcome: { code: 'new', database: 'migrated', services: 'running' }, failed_step: null },
    });
    const steps = (card.last_upgrade as { steps: { name: string; status: string }[] }).steps;
    expect(steps.map((s) => s.name)).toEqual(['preflight', 'backup', 'prepare', 'quiesce', 'swap', 'deps', 'snapshot', 'migrate', 'static', 'verify', 'start', 'resume', 'done']);
    expect(steps.find((s) => s.name === 'migrate')!.status).toBe('ok');
    // vN's engine ran up to prepare; vN+1's own stage ran quiesce to done (SPEC "Versioning" 4).
    const journal = readJournal(inst.layout.journalFile)!;
    expect(journal.steps.map((s) => s.engine)).toEqual([...Array(3).fill(bundles.versionN), ...Array(10).fill(bundles.versionN1)]);
    expect(journal.context.stage).toMatchObject({ release: bundles.versionN1, protocol: 1 });
    const step = (name: string) => journal.steps.find((s) => s.name === name)!;
    // The figures `npm run bench -- upgrade` prints of its run, here of this one (the bench smoke only imports that
    // bench: this is its install and its upgrade, started through the API rather than `cairn upgrade bundle`).
    const figures = upgradeFigures(journal, polled, { serveReads: Boolean(inst.databaseUrl), loadAverage: 0 }).join('\n');
    expect(figures).toMatch(/^ {2}preflight +\d+\.\d\d s {2}\S/);
    if (inst.databaseUrl) {
      expect(figures).toMatch(/upgrade \S+ → \S+ \(reads served throughout\): total [\d.]+ s, quiesce → resume [\d.]+ s/);
      expect(figures).toMatch(/a client polling a list and health saw 503 for none \(first to last\), \d+ answers 200, 0 503 \+ Retry-After, 0 other, 0 connection errors/);
      expect(figures).toMatch(/health said read-only \(the old web: reads answered, changes refused\) for [\d.]+ s/);
    } else {
      expect(figures).toMatch(/upgrade \S+ → \S+ \(maintenance page from quiesce\): total [\d.]+ s, quiesce → resume [\d.]+ s/);
      expect(figures).toMatch(/a client polling a list and health saw 503 for [\d.]+ s \(first to last\), \d+ answers 200, [1-9]\d* 503 \+ Retry-After, 0 other, 0 connection errors/);
    }
    if (inst.databaseUrl) {
      // PostgreSQL, keeping the site readable: the web refused changes at quiesce and answered reads through the
      // migration (it only adds a table); the snapshot was a dump (the server's copy needs every other session
      // gone); that web started the new one on its port.
      expect(journal.warnings).toEqual([]);
      expect(step('quiesce').detail).toContain('web answers reads and refuses changes');
      expect(step('snapshot').detail).toMatch(/^database snapshot: \d+ KB, a dump taken while the site answered reads$/);
      expect(step('migrate').detail).toContain(`; the web of ${bundles.versionN} answered reads throughout`);
      expect(step('start').detail).toContain(`started by the web of ${bundles.versionN} on its port (reads answered)`);
      expect(await withServer(inst.databaseUrl, (c) => snapshotCopiesOf(c, new URL(inst.databaseUrl!).pathname.slice(1)))).toEqual([]);
    } else {
      expect(step('quiesce').detail).toContain('web stopped behind the maintenance responder');
      expect(polled.maintenanceFirstAt).toBeGreaterThanOrEqual(Date.parse(step('quiesce').started));
    }
    // Listed as a job on both databases (embedded: written through the running web, brought up to date by the new one).
    await expectUpgradeJob(inst, journal, { status: 'succeeded', started_by: 'user:admin', progress: { done: 13, total: 13 }, error: '' });
    expect((await upgradeJob(inst, journal)).result).toContain(`${bundles.versionN} → ${bundles.versionN1}`);
  }, 900_000);

  it('refuses the same version and a downgrade, changing nothing', async () => {
    for (const [bundle, message] of [
      [bundles.vN1, `Release ${bundles.versionN1} is already running.`],
      [bundles.vN, `Release ${bundles.versionN} is older than the running ${bundles.versionN1}: downgrades are refused.`],
    ] as const) {
      const run = await inst.cairn(['upgrade', 'bundle', bundle]);
      expect(run.code).toBe(1);
      expect(run.out).toContain(message);
      const j = readJournal(inst.layout.journalFile)!;
      expect(j).toMatchObject({ state: 'failed', failedStep: 'preflight', outcome: { code: 'unchanged' } });
      expect((await inst.api('/api/health/')).body).toMatchObject({ status: 'ok', version: bundles.versionN1, maintenance: false });
    }
    expect(readlinkSync(inst.layout.current)).toBe(`releases/${bundles.versionN1}`);
    expect(await listBackups(inst.layout.backupsDir)).toHaveLength(1);
  }, 300_000);

  it('orders pre-releases: older than their own final, newer than the release before', async () => {
    const rcOfRunning = await inst.cairn(['upgrade', 'bundle', manifestOnlyBundle(`${bundles.versionN1}-rc.1`)]);
    expect(rcOfRunning.code).toBe(1);
    expect(rcOfRunning.out).toContain(`Release ${bundles.versionN1}-rc.1 is older than the running ${bundles.versionN1}`);

    const devOfOlder = await inst.cairn(['upgrade', 'bundle', manifestOnlyBundle(`${bundles.versionN}-dev1`)]);
    expect(devOfOlder.out).toContain('downgrades are refused');

    // A pre-release of the next version passes the version check; this fake bundle then fails verification.
    const v = bundles.versionN1.split('.').map(Number);
    const next = `${v[0]}.${v[1]}.${v[2]! + 1}-rc.1`;
    const rcOfNext = await inst.cairn(['upgrade', 'bundle', manifestOnlyBundle(next)]);
    expect(rcOfNext.code).toBe(1);
    expect(rcOfNext.out).not.toContain('downgrades are refused');
    expect(rcOfNext.out).toMatch(/bundle file .* (missing|does not match)/);
    expect(readJournal(inst.layout.journalFile)).toMatchObject({ versionTo: null, outcome: { code: 'unchanged' } });
    expect((await inst.api('/api/health/')).body).toMatchObject({ status: 'ok', version: bundles.versionN1 });
  }, 300_000);

  it('automatic updates: the daily check in the web service starts the newest release, started_by automatic; its failure is mailed', async () => {
    // The check runs every two seconds for this test (CAIRN_UPGRADE_CHECK_CRON in the install's env file).
    const envBefore = readFileSync(inst.layout.envFile, 'utf8');
    const restartWeb = async () => {
      await inst.host.stop('web');
      await inst.host.start('web');
      await inst.waitHealthy(bundles.versionN1);
    };
    const v = bundles.versionN1.split('.').map(Number);
    const next = `${v[0]}.${v[1]}.${v[2]! + 1}`;
    // A bundle with only a manifest: it passes every check before the run and fails the run's own verification.
    const feed = await startReleaseFeed([{ version: next, bundle: manifestOnlyBundle(next) }]);
    const smtp = await startSmtpStandin();
    try {
      writeFileSync(inst.layout.envFile, `${envBefore}CAIRN_UPGRADE_CHECK_CRON=*/2 * * * * *\n`);
      await restartWeb();
      const saved = await call(inst.port, inst.adminToken, 'PATCH', '/api/system/upgrade/settings/', {
        feed_url: feed.url, channel: 'stable', automatic_updates: true,
        smtp_host: '127.0.0.1', smtp_port: smtp.port, smtp_tls: 'none', mail_from: 'cairn@example.com', digest_recipients: ['ops@example.com'],
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      const [mail] = await smtp.waitFor(1, 240_000);
      await call(inst.port, inst.adminToken, 'PATCH', '/api/system/upgrade/settings/', { automatic_updates: false });
      expect(mail!.to).toEqual(['ops@example.com']);
      expect(mail!.data).toContain(`Automatic upgrade of Cairn from ${bundles.versionN1} to ${next} failed before anything was changed`);
      expect(mail!.data).toContain('Started by: automatic (auto)');
      const card = (await call(inst.port, inst.adminToken, 'GET', '/api/system/upgrade/')).body as { last_upgrade: Record<string, unknown> };
      // version_to stays null: the engine records it once the bundle verified, and this one never did (the mail names it).
      expect(card.last_upgrade).toMatchObject({ trigger: 'auto', started_by: 'automatic', version_to: null, state: 'failed', failed_step: 'preflight', outcome: { code: 'unchanged' } });
      const available = (await call(inst.port, inst.adminToken, 'GET', '/api/system/upgrade/available/')).body as Record<string, unknown>;
      expect(available).toMatchObject({ update_available: true, latest: { version: next } });
      // Failed before anything stopped: the schedule waits an hour before attempt 2 instead of trying again now.
      expect(smtp.received).toHaveLength(1);
    } finally {
      await call(inst.port, inst.adminToken, 'PATCH', '/api/system/upgrade/settings/', { automatic_updates: false }).catch(() => {});
      writeFileSync(inst.layout.envFile, envBefore);
      await restartWeb();
      await smtp.close();
      await feed.close();
    }
    expect((await inst.api('/api/health/')).body).toMatchObject({ status: 'ok', version: bundles.versionN1, maintenance: false });
  }, 600_000);

  it('deploy/install.sh: refuses a downgrade always, a git checkout and a live upgrade unless --force; exit codes', async () => {
    const older = await inst.installer([bundles.vN]);
    expect(older.code).toBe(1);
    expect(older.out).toContain('downgrades are refused');
    expect((await inst.installer(['--force', bundles.vN])).code).toBe(1);

    mkdirSync(join(inst.layout.root, '.git'));
    const git = await inst.installer([bundles.vN1]);
    expect(git.code).toBe(1);
    expect(git.out).toContain('is a git checkout');
    rmSync(join(inst.layout.root, '.git'), { recursive: true });

    // A newer pre-release passes the installer's own checks; the engine then fails it (a fake bundle): exit 1.
    const v = bundles.versionN1.split('.').map(Number);
    const failed = await inst.installer([manifestOnlyBundle(`${v[0]}.${v[1]}.${v[2]! + 1}-rc.1`)]);
    expect(failed.code).toBe(1);
    expect(failed.out).toContain('the upgrade did not complete');

    const same = await inst.installer(['--no-nginx', bundles.vN1]);
    expect(same.code, same.out).toBe(0);
    expect(same.out).toContain('already installed');
    expect((await inst.installer(['--host-only', '--no-nginx'])).code).toBe(0);
    expect((await inst.installer(['--bogus'])).code).toBe(1);
    expect((await inst.api('/api/health/')).body).toMatchObject({ status: 'ok', version: bundles.versionN1 });
  }, 300_000);
});
