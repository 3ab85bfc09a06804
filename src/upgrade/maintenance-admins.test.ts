// The maintenance responder's one exception, over real HTTP: the web's snapshot of admin credentials (taken from a
// real database) lets an admin's token or session cookie read the upgrade card from the journal on disk; anyone
// else, an expired credential, and a snapshot of another run get the 503 every other request gets.
import { readFileSync, rmSync, statSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { createSession } from '../core/auth/credentials.ts';
import { writeJournal, type Journal } from './engine/journal.ts';
import { layoutFor, type InstallLayout } from '../install/layout.ts';
import { maintenanceAnswer } from './engine/maintenance-answer.ts';
import { adminSnapshotFile, currentAdminSnapshot, isSnapshotAdmin, removeAdminSnapshot, writeAdminSnapshot } from './maintenance-admins.ts';

let h: Harness;
let layout: InstallLayout;
let server: Server;
let base: string;

function writeLock(acquiredAt: string): void {
  writeFileSync(layout.lockFile, JSON.stringify({ pid: process.pid, pidStart: null, acquiredAt, purpose: 'upgrade', tokenSha256: null }));
}

const journal: Journal = {
  id: 'run-1', state: 'running', trigger: 'bundle', startedBy: 'user:admin', versionFrom: '1.0.0', versionTo: '1.0.1', bundle: '/x.tar.gz', pid: 1,
  startedAt: '2026-01-01T00:00:00.000Z', finishedAt: null, step: 'migrate',
  steps: [
    { name: 'preflight', status: 'ok', started: '2026-01-01T00:00:00.000Z', ended: '2026-01-01T00:00:01.000Z', detail: '' },
    { name: 'migrate', status: 'running', started: '2026-01-01T00:00:05.000Z', ended: null, detail: '' },
  ],
  outcome: null, failedStep: null, error: null, errorTail: null, warnings: [],
  context: { workDir: '', previousRelease: null, newRelease: null, servicesBefore: null, timersBefore: null, envCopy: null, swapped: false, pendingMigrations: null, snapshotFile: null, migrateStarted: false, holdToken: null, backupId: null, jobId: null, child: null },
};

async function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown>; retryAfter: string | null }> {
  const res = await fetch(`${base}${path}`, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, retryAfter: res.headers.get('retry-after') };
}

async function userId(username: string): Promise<string> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM users WHERE username = ${username}`.execute(h.database.db);
  return rows[0]!.id;
}

beforeAll(async () => {
  h = await startHarness();
  layout = layoutFor(mkdtempSync(join(tmpdir(), 'cairn-responder-card-')));
  writeJournal(layout.journalFile, journal);
  writeLock('2026-01-01T00:00:00.000Z');
  server = createServer(maintenanceAnswer(layout, '1.0.0'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await h?.close();
  rmSync(layout.root, { recursive: true, force: true });
});

describe('maintenance responder: the upgrade card for admins only', () => {
  it('serves nobody the card before the web left a snapshot', async () => {
    const res = await get('/api/system/upgrade/', { authorization: `Token ${h.tokens.admin}` });
    expect(res.status).toBe(503);
    expect(res.retryAfter).toBe('30');
  });

  it('snapshots hashes of admin credentials only, readable by the service user only', async () => {
    expect(await writeAdminSnapshot(h.database.db, layout)).toBe(true);
    const file = adminSnapshotFile(layout);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(h.tokens.admin);
    // admin and adminB are the superuser's tokens; alice, bob, viewer and nobody lack users.manage.
    expect(currentAdminSnapshot(layout)!.tokens).toHaveLength(2);
  });

  it('answers an admin token and an admin session cookie with the card from the journal', async () => {
    const byToken = await get('/api/system/upgrade/', { authorization: `Token ${h.tokens.admin}` });
    expect(byToken.status).toBe(200);
    expect(byToken.body).toMatchObject({
      running_version: '1.0.0', installed: true, reads_during_upgrade: false, maintenance: true,
      last_upgrade: { id: 'run-1', state: 'running', current_step: 'migrate', version_from: '1.0.0', version_to: '1.0.1', steps: [{ name: 'preflight', status: 'ok' }, { name: 'migrate', status: 'running' }] },
    });

    const session = await createSession(h.database.db, await userId('admin'));
    await writeAdminSnapshot(h.database.db, layout);
    const byCookie = await get('/api/system/upgrade', { cookie: `theme=dark; cairn_session=${session.cookieValue}` });
    expect(byCookie.status).toBe(200);
    expect((byCookie.body.last_upgrade as { id: string }).id).toBe('run-1');
  });

  it('answers everyone else, and every other path, 503 with Retry-After', async () => {
    const alice = await createSession(h.database.db, await userId('alice'));
    await writeAdminSnapshot(h.database.db, layout);
    const strangers: Record<string, string>[] = [{}, { authorization: `Token ${h.tokens.alice}` }, { authorization: 'Token nope' }, { authorization: `Bearer ${h.tokens.admin}` }, { cookie: `cairn_session=${alice.cookieValue}` }];
    for (const headers of strangers) {
      const res = await get('/api/system/upgrade/', headers);
      expect(res.status, JSON.stringify(headers)).toBe(503);
      expect(res.body).toEqual({ detail: 'Cairn is being upgraded. Try again shortly.', maintenance: true });
    }
    const devices = await get('/api/devices/', { authorization: `Token ${h.tokens.admin}` });
    expect(devices.status).toBe(503);
    const health = await get('/api/health/', { authorization: `Token ${h.tokens.admin}` });
    expect(health).toMatchObject({ status: 503, body: { maintenance: true, version: '1.0.0' } });
    const post = await fetch(`${base}/api/system/upgrade/`, { method: 'POST', headers: { authorization: `Token ${h.tokens.admin}` } });
    expect(post.status).toBe(503);
  });

  it('refuses a credential once it expired', () => {
    const snapshot = currentAdminSnapshot(layout)!;
    const expires = Date.parse('2026-06-01T00:00:00.000Z');
    // Every admin token expiring at one instant: accepted just before, refused from then on.
    const expiring = { ...snapshot, tokens: snapshot.tokens.map((t) => ({ ...t, expires: new Date(expires).toISOString() })) };
    expect(isSnapshotAdmin(expiring, { authorization: `Token ${h.tokens.admin}` }, expires - 1)).toBe(true);
    expect(isSnapshotAdmin(expiring, { authorization: `Token ${h.tokens.admin}` }, expires)).toBe(false);
  });

  it('ignores a snapshot of another run, and one that was removed', async () => {
    writeLock('2026-02-02T00:00:00.000Z');
    expect((await get('/api/system/upgrade/', { authorization: `Token ${h.tokens.admin}` })).status).toBe(503);
    await writeAdminSnapshot(h.database.db, layout);
    expect((await get('/api/system/upgrade/', { authorization: `Token ${h.tokens.admin}` })).status).toBe(200);
    removeAdminSnapshot(layout);
    expect((await get('/api/system/upgrade/', { authorization: `Token ${h.tokens.admin}` })).status).toBe(503);
  });
});
