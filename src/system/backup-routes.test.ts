// Settings → Backups' API: POST /api/system/backups/ takes a real backup of the test database (real pg_dump on
// PostgreSQL, the open PGlite's dump on the embedded one), and POST /api/system/backups/<id>/restore/ restores one
// (PostgreSQL) or refuses with a 4xx naming the field and reason, changing nothing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { listBackups } from './backup.ts';
import { holdForRestore } from './restore-hold.ts';

let h: Harness;
const backupsDir = mkdtempSync(join(tmpdir(), 'cairn-backup-routes-'));
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

beforeAll(async () => {
  process.env.CAIRN_BACKUPS_DIR = backupsDir;
  h = await startHarness();
}, 120_000);

afterAll(async () => {
  await h?.close();
  delete process.env.CAIRN_BACKUPS_DIR;
  rmSync(backupsDir, { recursive: true, force: true });
});

async function tenantNames(): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`SELECT name FROM tenants ORDER BY name`.execute(h.database.db);
  return rows.map((r) => r.name);
}

interface Backup {
  id: string;
  file: string;
  version: string;
  kind: string;
  size: number;
}

describe(`POST /api/system/backups/ (${onPostgres ? 'PostgreSQL' : 'embedded'})`, () => {
  it('is for deployment admins only', async () => {
    expect((await h.as('anonymous').post('/api/system/backups/')).statusCode).toBe(401);
    expect((await h.as('alice').post('/api/system/backups/')).statusCode).toBe(403);
    expect((await h.as('viewer').post('/api/system/backups/20260101T000000Z-manual-aaaaaa/restore/', { confirm: '20260101T000000Z-manual-aaaaaa' })).statusCode).toBe(403);
    expect(await listBackups(backupsDir)).toEqual([]);
  });

  it('takes a manual backup of the running version and lists it', async () => {
    const res = await h.as('admin').post('/api/system/backups/');
    expect(res.statusCode, res.body).toBe(201);
    const made = res.json<Backup>();
    expect(made).toMatchObject({ kind: 'manual', version: h.app.cairnVersion, file: `${made.id}.tar.gz` });
    expect(made.size).toBeGreaterThan(0);
    const listed = (await h.as('admin').get('/api/system/backups/')).json<{ results: Backup[] }>().results;
    expect(listed.map((b) => b.id)).toEqual([made.id]);
  }, 120_000);

  it('refuses while a restore holds the site', async () => {
    const release = holdForRestore(backupsDir, '20260101T000000Z-manual-aaaaaa');
    try {
      const res = await h.as('admin').post('/api/system/backups/');
      expect(res.statusCode).toBe(409);
      expect(res.json<{ detail: string }>().detail).toContain('A restore is in progress');
    } finally {
      release();
    }
  });
});

describe('POST /api/system/backups/<id>/restore/', () => {
  it('refuses bad input with a 4xx naming the field, changing nothing', async () => {
    const [latest] = await listBackups(backupsDir);
    expect(latest).toBeDefined();
    const before = await tenantNames();
    await h.as('admin').post('/api/tenants/', { name: 'Made after the backup', slug: 'after-backup' });
    const after = await tenantNames();
    expect(after).toContain('Made after the backup');

    const badId = await h.as('admin').post('/api/system/backups/not-an-id/restore/', { confirm: 'not-an-id' });
    expect(badId.statusCode).toBe(400);
    expect(badId.json()).toHaveProperty('id');

    const unknown = await h.as('admin').post('/api/system/backups/20200101T000000Z-manual-abcdef/restore/', { confirm: '20200101T000000Z-manual-abcdef' });
    expect(unknown.statusCode).toBe(404);

    const noConfirm = await h.as('admin').post(`/api/system/backups/${latest!.id}/restore/`, {});
    expect(noConfirm.statusCode).toBe(400);
    const wrongConfirm = await h.as('admin').post(`/api/system/backups/${latest!.id}/restore/`, { confirm: 'yes' });
    expect(wrongConfirm.statusCode).toBe(400);
    expect(wrongConfirm.json()).toHaveProperty('confirm');

    // A backup of another version is never restored (SPEC: restore only onto the same version).
    const otherId = '20250101T000000Z-pre-upgrade-0a0b0c';
    writeFileSync(join(backupsDir, `${otherId}.tar.gz`), Buffer.alloc(10));
    writeFileSync(join(backupsDir, `${otherId}.json`), JSON.stringify({ id: otherId, version: '0.0.1', created: '2025-01-01T00:00:00.000Z', kind: 'pre-upgrade', backend: onPostgres ? 'postgres' : 'pglite' }));
    const other = await h.as('admin').post(`/api/system/backups/${otherId}/restore/`, { confirm: otherId });
    expect(other.statusCode).toBe(400);
    expect(other.json<{ id: string[] }>().id[0]).toContain('restored only onto the version that made it');
    rmSync(join(backupsDir, `${otherId}.json`));
    rmSync(join(backupsDir, `${otherId}.tar.gz`));

    expect(await tenantNames()).toEqual(after);
    expect(before).not.toContain('Made after the backup');
  });

  it.skipIf(onPostgres)('embedded database: refused, the web process holds it open (restore on the server)', async () => {
    const [latest] = await listBackups(backupsDir);
    const before = await tenantNames();
    const res = await h.as('admin').post(`/api/system/backups/${latest!.id}/restore/`, { confirm: latest!.id });
    expect(res.statusCode).toBe(409);
    expect(res.json<{ detail: string }>().detail).toContain(`cairn backup restore ${latest!.id} --yes`);
    expect(await tenantNames()).toEqual(before);
  });

  it.skipIf(!onPostgres)('PostgreSQL: puts the database back as the backup has it', async () => {
    const [latest] = await listBackups(backupsDir);
    expect(await tenantNames()).toContain('Made after the backup');
    const res = await h.as('admin').post(`/api/system/backups/${latest!.id}/restore/`, { confirm: latest!.id });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ restored: { id: latest!.id } });
    expect(await tenantNames()).not.toContain('Made after the backup');
    // The admin's token is in the backup too: the API still answers it.
    expect((await h.as('admin').get('/api/system/backups/')).statusCode).toBe(200);
  }, 120_000);
});
