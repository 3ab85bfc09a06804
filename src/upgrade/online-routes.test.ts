// The upgrade API the Updates page uses: settings (bad input named, nothing changed), the release feed check
// against a real HTTPS stand-in through the SSRF guard, update availability for deployment admins only, and
// every refusal of POST /api/system/upgrade/ that is answered before a run starts.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { startStandin, type Standin } from '../../test/helpers/outbound.ts';
import { VERSION } from '../version.ts';
import { layoutFor } from '../install/layout.ts';
import { processStartTime } from '../install/lock.ts';
import { parseVersion } from '../install/version.ts';
import { scheduledUpgradeCheck } from './auto-update.ts';

let h: Harness;
let feed: Standin;
let served: unknown = { releases: [] };
const dir = mkdtempSync(join(tmpdir(), 'cairn-upgrade-api-'));

const v = parseVersion(VERSION)!;
const NEXT = `${v.major}.${v.minor}.${v.patch + 1}`;
const NEXT_RC = `${v.major}.${v.minor + 1}.0-rc.1`;
const OLDER = v.patch > 0 ? `${v.major}.${v.minor}.${v.patch - 1}` : `${v.major}.${v.minor}.0-dev1`;
const sha = (c: string) => c.repeat(64);

beforeAll(async () => {
  h = await startHarness();
  feed = await startStandin((req) => {
    if (req.url === '/feed.json') return { status: 200, json: served };
    if (req.url === '/broken.json') return { status: 500, json: { detail: 'down' } };
    if (req.url?.startsWith('/bundles/')) return { status: 200, json: { not: 'the bundle the feed promised' } };
    return { status: 404, json: {} };
  });
  expect((await h.as('admin').patch('/api/eol/settings/', { ssrf_allowlist: ['127.0.0.1'] })).statusCode).toBe(200);
}, 120_000);

afterAll(async () => {
  await feed?.close();
  await h?.close();
  delete process.env.CAIRN_ROOT;
  rmSync(dir, { recursive: true, force: true });
});

function release(version: string, prerelease = version.includes('-'), checksum = sha('a')) {
  return { version, bundle_url: `${feed.url}/bundles/cairn-${version}.tar.gz`, sha256: checksum, prerelease };
}

describe('GET/PATCH /api/system/upgrade/settings/', () => {
  it('deployment admins only', async () => {
    expect((await h.as('anonymous').get('/api/system/upgrade/settings/')).statusCode).toBe(401);
    for (const who of ['alice', 'viewer', 'nobody'] as const) {
      expect((await h.as(who).get('/api/system/upgrade/settings/')).statusCode).toBe(403);
      expect((await h.as(who).patch('/api/system/upgrade/settings/', { airgapped: true })).statusCode).toBe(403);
    }
  });

  it('answers the defaults, never the password', async () => {
    const res = await h.as('admin').get('/api/system/upgrade/settings/');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ feed_url: '', channel: 'stable', automatic_updates: false, airgapped: false, smtp_host: '', smtp_port: 587, smtp_tls: 'starttls', smtp_user: '', mail_from: '', digest_recipients: [], smtp_password_set: false });
  });

  it.each<[unknown, string]>([
    [{ channel: 'beta' }, 'channel'],
    [{ automatic_updates: 'yes' }, 'automatic_updates'],
    [{ airgapped: 1 }, 'airgapped'],
    [{ smtp_port: 0 }, 'smtp_port'],
    [{ smtp_port: '25' }, 'smtp_port'],
    [{ smtp_tls: 'ssl' }, 'smtp_tls'],
    [{ smtp_host: 'bad host!' }, 'smtp_host'],
    [{ mail_from: 'not-an-address' }, 'mail_from'],
    [{ smtp_host: 'smtp.example.com' }, 'mail_from'],
    [{ digest_recipients: 'ops@example.com' }, 'digest_recipients'],
    [{ digest_recipients: ['ops@example.com', 'nope'] }, 'digest_recipients'],
    [{ feed_url: 'ftp://releases.example.com/feed.json' }, 'feed_url'],
    [{ feed_url: 'http://releases.example.com/feed.json' }, 'feed_url'],
    [{ feed_url: 'https://10.0.0.1/feed.json' }, 'feed_url'],
    [{ feed_url: 'https://user:pw@releases.example.com/feed.json' }, 'feed_url'],
    [{ smtp_user: 'a\nb' }, 'smtp_user'],
    [{ smtp_password: 5 }, 'smtp_password'],
    [{ bogus: true }, 'bogus'],
    [[], 'non_field_errors'],
  ])('%j is a 400 naming %s, and nothing changes', async (body, field) => {
    const before = (await h.as('admin').get('/api/system/upgrade/settings/')).json();
    const res = await h.as('admin').patch('/api/system/upgrade/settings/', body);
    expect(res.statusCode, res.body).toBe(400);
    expect(Object.keys(res.json())).toContain(field);
    expect((await h.as('admin').get('/api/system/upgrade/settings/')).json()).toEqual(before);
  });

  it('saves what is sent; the password is write-only and the change log masks it', async () => {
    const res = await h.as('admin').patch('/api/system/upgrade/settings/', {
      channel: 'any', smtp_host: 'smtp.example.com', smtp_port: 465, smtp_tls: 'tls', smtp_user: 'relay', smtp_password: 'hunter2-secret',
      mail_from: 'cairn@example.com', digest_recipients: ['ops@example.com', ' ops@example.com', 'lead@example.com'],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ channel: 'any', smtp_port: 465, smtp_tls: 'tls', digest_recipients: ['ops@example.com', 'lead@example.com'], smtp_password_set: true });
    expect(res.body).not.toContain('hunter2');
    const { rows } = await sql<{ value: { smtp_password: string } }>`SELECT value FROM system_state WHERE key = 'upgrade_settings'`.execute(h.database.db);
    expect(rows[0]!.value.smtp_password).toMatch(/^v1:/);
    const changes = await sql<{ after: unknown }>`SELECT after FROM object_changes WHERE object_type = 'system.upgradesettings'`.execute(h.database.db);
    expect(changes.rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(changes.rows)).not.toContain('hunter2');
    expect((await h.as('admin').patch('/api/system/upgrade/settings/', { smtp_password: '' })).json().smtp_password_set).toBe(false);
    await h.as('admin').patch('/api/system/upgrade/settings/', { channel: 'stable', smtp_host: '', mail_from: '', digest_recipients: [] });
  });
});

describe('release feed and update availability', () => {
  it('users without users.manage never see it', async () => {
    expect((await h.as('anonymous').get('/api/system/upgrade/available/')).statusCode).toBe(401);
    for (const who of ['alice', 'viewer', 'nobody', 'aliceRO'] as const) {
      expect((await h.as(who).get('/api/system/upgrade/available/')).statusCode).toBe(403);
      expect((await h.as(who).post('/api/system/upgrade/check/')).statusCode).toBe(403);
    }
  });

  it('checks the feed through the SSRF guard and picks the newest release of the channel', async () => {
    served = { releases: [release(OLDER), release(NEXT), release(NEXT_RC)] };
    expect((await h.as('admin').patch('/api/system/upgrade/settings/', { feed_url: `${feed.url}/feed.json`, channel: 'stable' })).statusCode).toBe(200);
    const before = (await h.as('admin').get('/api/system/upgrade/available/')).json();
    expect(before).toMatchObject({ running_version: VERSION, update_available: false, checked_at: null, error: null, latest: null });

    const stable = await h.as('admin').post('/api/system/upgrade/check/');
    expect(stable.statusCode, stable.body).toBe(200);
    expect(stable.json()).toMatchObject({ running_version: VERSION, channel: 'stable', update_available: true, latest: { version: NEXT, prerelease: false }, error: null });
    expect(stable.json().checked_at).not.toBeNull();
    expect(feed.received.some((r) => r.url === '/feed.json')).toBe(true);

    await h.as('admin').patch('/api/system/upgrade/settings/', { channel: 'any' });
    // The last check is re-read against the new channel without fetching again.
    expect((await h.as('admin').get('/api/system/upgrade/available/')).json()).toMatchObject({ channel: 'any', update_available: true, latest: { version: NEXT_RC } });
    await h.as('admin').patch('/api/system/upgrade/settings/', { channel: 'stable' });
  });

  it('a bad feed is a recorded error, not a crash; the last good releases stay known', async () => {
    served = { releases: [{ ...release(NEXT), sha256: 'xyz' }] };
    const bad = await h.as('admin').post('/api/system/upgrade/check/');
    expect(bad.statusCode).toBe(200);
    expect(bad.json().error).toMatch(/sha256: expected 64 hexadecimal characters/);
    expect(bad.json()).toMatchObject({ update_available: true, latest: { version: NEXT } });
    await h.as('admin').patch('/api/system/upgrade/settings/', { feed_url: `${feed.url}/broken.json` });
    const down = await h.as('admin').post('/api/system/upgrade/check/');
    expect(down.json()).toMatchObject({ error: 'The release feed answered HTTP 500.', update_available: false });
    served = { releases: [release(OLDER), release(NEXT), release(NEXT_RC)] };
    await h.as('admin').patch('/api/system/upgrade/settings/', { feed_url: `${feed.url}/feed.json` });
  });

  it('the guard refuses the feed once 127.0.0.1 is no longer allow-listed', async () => {
    await h.as('admin').patch('/api/eol/settings/', { ssrf_allowlist: [] });
    try {
      const res = await h.as('admin').post('/api/system/upgrade/check/');
      expect(res.json().error).toMatch(/non-public address/);
    } finally {
      await h.as('admin').patch('/api/eol/settings/', { ssrf_allowlist: ['127.0.0.1'] });
    }
  });

  it('airgapped: no check, nothing available, and the check is refused', async () => {
    await h.as('admin').patch('/api/system/upgrade/settings/', { airgapped: true, automatic_updates: true });
    try {
      expect((await h.as('admin').get('/api/system/upgrade/available/')).json()).toMatchObject({ airgapped: true, automatic_updates: false, update_available: false, latest: null });
      const res = await h.as('admin').post('/api/system/upgrade/check/');
      expect(res.statusCode).toBe(400);
      expect(res.json()).toHaveProperty('airgapped');
    } finally {
      await h.as('admin').patch('/api/system/upgrade/settings/', { airgapped: false, automatic_updates: false });
    }
  });
});

/** A bundle holding only a manifest: enough for the checks made before a run starts. */
function manifestOnlyBundle(version: string): Buffer {
  const d = mkdtempSync(join(dir, 'bundle-'));
  writeFileSync(join(d, 'manifest.json'), JSON.stringify({ name: 'cairn', version, created: new Date().toISOString(), sha256: {}, migrations: [] }));
  execFileSync('tar', ['-czf', join(d, 'b.tar.gz'), '-C', d, 'manifest.json']);
  return execFileSync('cat', [join(d, 'b.tar.gz')]);
}

function multipart(bytes: Buffer, field = 'bundle', filename = 'cairn.tar.gz'): { payload: Buffer; headers: Record<string, string> } {
  const boundary = '----cairn-test-boundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: application/gzip\r\n\r\n`);
  return { payload: Buffer.concat([head, bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('POST /api/system/upgrade/: refusals before anything runs', () => {
  const layout = layoutFor(join(dir, 'root'));
  let sleeper: ChildProcess | null = null;

  const upload = (bytes: Buffer, field?: string, filename?: string) => {
    const { payload, headers } = multipart(bytes, field, filename);
    return h.app.inject({ method: 'POST', url: '/api/system/upgrade/', payload, headers: { ...headers, authorization: `Token ${h.tokens.admin}` } });
  };

  beforeAll(() => {
    mkdirSync(join(layout.releases, VERSION), { recursive: true });
    writeFileSync(join(layout.releases, VERSION, 'package.json'), JSON.stringify({ name: 'cairn', version: VERSION }));
    symlinkSync(`releases/${VERSION}`, layout.current);
  });
  afterAll(() => {
    sleeper?.kill('SIGKILL');
    delete process.env.CAIRN_ROOT;
  });

  it('outside an installed release it is refused, and only deployment admins may ask', async () => {
    delete process.env.CAIRN_ROOT;
    const res = await h.as('admin').post('/api/system/upgrade/', { version: NEXT });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toMatch(/not an installed release/);
    expect((await h.as('alice').post('/api/system/upgrade/', { version: NEXT })).statusCode).toBe(403);
    expect((await h.as('anonymous').post('/api/system/upgrade/', { version: NEXT })).statusCode).toBe(401);
    process.env.CAIRN_ROOT = layout.root;
  });

  it.each<[unknown, string]>([
    [{}, 'version'],
    [{ version: 5 }, 'version'],
    [{ version: NEXT, force: true }, 'force'],
    [{ version: 'latest' }, 'version'],
  ])('a bad body %j is a 400 naming %s', async (body, field) => {
    process.env.CAIRN_ROOT = layout.root;
    const res = await h.as('admin').post('/api/system/upgrade/', body);
    expect(res.statusCode, res.body).toBe(400);
    expect(Object.keys(res.json())).toContain(field);
  });

  it('by version: unknown (404), the same or an older release (400, the engine\'s words), airgapped (400)', async () => {
    process.env.CAIRN_ROOT = layout.root;
    served = { releases: [release(OLDER), release(NEXT), release(VERSION)] };
    const unknown = await h.as('admin').post('/api/system/upgrade/', { version: '99.0.0' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().version[0]).toBe('The release feed does not list version 99.0.0.');
    const same = await h.as('admin').post('/api/system/upgrade/', { version: VERSION });
    expect(same.statusCode).toBe(400);
    expect(same.json().version[0]).toBe(`Release ${VERSION} is already running.`);
    const older = await h.as('admin').post('/api/system/upgrade/', { version: OLDER });
    expect(older.statusCode).toBe(400);
    expect(older.json().version[0]).toBe(`Release ${OLDER} is older than the running ${VERSION}: downgrades are refused.`);
    await h.as('admin').patch('/api/system/upgrade/settings/', { airgapped: true });
    try {
      const air = await h.as('admin').post('/api/system/upgrade/', { version: NEXT });
      expect(air.statusCode).toBe(400);
      expect(air.json().version[0]).toMatch(/airgapped: upgrade by uploading a bundle/);
    } finally {
      await h.as('admin').patch('/api/system/upgrade/settings/', { airgapped: false });
    }
    expect(existsSync(layout.journalFile)).toBe(false);
  });

  it('a download that does not match the feed\'s SHA-256 is a 422 and leaves nothing behind', async () => {
    process.env.CAIRN_ROOT = layout.root;
    served = { releases: [release(NEXT)] };
    const res = await h.as('admin').post('/api/system/upgrade/', { version: NEXT });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().version[0]).toMatch(new RegExp(`The download of ${NEXT.replace(/\./g, '\\.')} does not match the feed's SHA-256`));
    const downloads = join(layout.upgradeDir, 'downloads');
    expect(existsSync(downloads) ? readdirSync(downloads) : []).toEqual([]);
    expect(existsSync(layout.journalFile)).toBe(false);
  });

  it('uploads: not a bundle, the wrong field, an older release: 400 naming bundle; nothing kept', async () => {
    process.env.CAIRN_ROOT = layout.root;
    const junk = await upload(Buffer.from('not a tarball'));
    expect(junk.statusCode, junk.body).toBe(400);
    expect(junk.json().bundle[0]).toMatch(/not a Cairn release bundle/);
    expect((await upload(manifestOnlyBundle(NEXT), 'file')).json()).toHaveProperty('bundle');
    expect((await upload(manifestOnlyBundle(NEXT), 'bundle', 'cairn.zip')).json()).toHaveProperty('bundle');
    const older = await upload(manifestOnlyBundle(OLDER));
    expect(older.statusCode).toBe(400);
    expect(older.json().bundle[0]).toBe(`Release ${OLDER} is older than the running ${VERSION}: downgrades are refused.`);
    const uploads = join(layout.upgradeDir, 'uploads');
    expect(existsSync(uploads) ? readdirSync(uploads) : []).toEqual([]);
  });

  it("while another upgrade process is alive: 409 'An upgrade is already running.' for a version and for an upload", async () => {
    process.env.CAIRN_ROOT = layout.root;
    served = { releases: [release(NEXT)] };
    sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    mkdirSync(layout.upgradeDir, { recursive: true });
    writeFileSync(layout.lockFile, JSON.stringify({ pid: sleeper.pid, pidStart: processStartTime(sleeper.pid!), acquiredAt: new Date().toISOString(), purpose: 'upgrade', tokenSha256: null }));
    const byVersion = await h.as('admin').post('/api/system/upgrade/', { version: NEXT });
    expect(byVersion.statusCode).toBe(409);
    expect(byVersion.json()).toEqual({ detail: 'An upgrade is already running.' });
    const byUpload = await upload(manifestOnlyBundle(NEXT));
    expect(byUpload.statusCode).toBe(409);
    expect(byUpload.json()).toEqual({ detail: 'An upgrade is already running.' });
    sleeper.kill('SIGKILL');
    rmSync(layout.lockFile);
  });
});

describe('the scheduled check and automatic updates (up to the launch)', () => {
  const layout = layoutFor(join(dir, 'auto-root'));

  beforeAll(async () => {
    mkdirSync(join(layout.releases, VERSION), { recursive: true });
    writeFileSync(join(layout.releases, VERSION, 'package.json'), JSON.stringify({ name: 'cairn', version: VERSION }));
    symlinkSync(`releases/${VERSION}`, layout.current);
    served = { releases: [release(NEXT)] };
    await h.as('admin').patch('/api/system/upgrade/settings/', { feed_url: `${feed.url}/feed.json`, channel: 'stable', airgapped: false, automatic_updates: false });
  });

  it('off: checks the feed and starts nothing; airgapped: does not even fetch', async () => {
    const status = await scheduledUpgradeCheck(h.database.db, { running: VERSION, layout, env: {} });
    expect(status.decision).toEqual({ action: 'skip', reason: 'disabled' });
    expect((await h.as('admin').get('/api/system/upgrade/available/')).json()).toMatchObject({ update_available: true, automatic: { decision: { reason: 'disabled' } } });
    await h.as('admin').patch('/api/system/upgrade/settings/', { airgapped: true, automatic_updates: true });
    const fetched = feed.received.length;
    expect((await scheduledUpgradeCheck(h.database.db, { running: VERSION, layout, env: {} })).decision).toEqual({ action: 'skip', reason: 'airgapped' });
    expect(feed.received.length).toBe(fetched);
    await h.as('admin').patch('/api/system/upgrade/settings/', { airgapped: false });
    expect((await scheduledUpgradeCheck(h.database.db, { running: VERSION, layout, env: { CAIRN_CONTAINER: '1' } })).decision).toEqual({ action: 'skip', reason: 'containerized' });
  });

  it('on: a download that fails its checksum is an attempt, retried only after an hour', async () => {
    const now = new Date();
    const first = await scheduledUpgradeCheck(h.database.db, { running: VERSION, layout, env: {}, now });
    expect(first.decision).toEqual({ action: 'start', version: NEXT, attempt: 1 });
    expect(first.error).toMatch(/does not match the feed's SHA-256/);
    expect(existsSync(layout.journalFile)).toBe(false);
    const soon = await scheduledUpgradeCheck(h.database.db, { running: VERSION, layout, env: {}, now: new Date(now.getTime() + 30 * 60_000) });
    expect(soon.decision).toMatchObject({ action: 'skip', reason: 'retry_later' });
    const later = await scheduledUpgradeCheck(h.database.db, { running: VERSION, layout, env: {}, now: new Date(Date.now() + 61 * 60_000) });
    expect(later.decision).toEqual({ action: 'start', version: NEXT, attempt: 2 });
    await h.as('admin').patch('/api/system/upgrade/settings/', { automatic_updates: false });
  });
});

describe('after-upgrade steps at /api/system/upgrade/steps/ (the old /api/system/step-notes/ answers the same)', () => {
  it('lists, acknowledges all, and is for deployment admins only', async () => {
    const res = await h.as('admin').get('/api/system/upgrade/steps/');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual((await h.as('admin').get('/api/system/step-notes/')).json());
    expect((await h.as('alice').get('/api/system/upgrade/steps/')).statusCode).toBe(403);
    expect((await h.as('alice').post('/api/system/upgrade/steps/ack/', { all: true })).statusCode).toBe(403);
    const bad = await h.as('admin').post('/api/system/upgrade/steps/ack/', { ids: ['no-such-step'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toHaveProperty('ids');
    const all = await h.as('admin').post('/api/system/upgrade/steps/ack/', { all: true });
    expect(all.statusCode).toBe(200);
    expect(all.json().pending.filter((p: { detectable: boolean }) => !p.detectable)).toEqual([]);
  });
});
