// Backups against a real database: embedded PGlite by default, PostgreSQL when TEST_DATABASE_URL is set.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { openPGlite, openPostgres, type Database } from '../db/database.ts';
import { migrateToLatest } from '../db/migrator.ts';
import { createTenant } from '../core/accounts.ts';
import { snapshotCopiesOf, testTablespaceClause } from '../../test/helpers/pg-test-databases.ts';
import { BackupError, createBackup, discardSnapshot, listBackups, pruneBackups, restoreBackup, restoreSnapshot, snapshotDatabase, type BackupTarget } from './backup.ts';
import { copyDataDir } from '../../test/helpers/data-dir-copy.ts';

const pgUrl = process.env.TEST_DATABASE_URL ?? null;
const root = mkdtempSync(join(tmpdir(), 'cairn-backup-test-'));
const dataDir = join(root, 'data');
const envFile = join(root, '.env');
let databaseUrl: string | null = null;
let dropDatabase: (() => Promise<void>) | null = null;

const target = (version = '1.4.0'): BackupTarget => ({ databaseUrl, dataDir, envFile, backupsDir: join(root, 'backups'), version });

async function open(): Promise<Database> {
  return databaseUrl ? openPostgres(databaseUrl, 2) : openPGlite(dataDir);
}

/** Runs work on an open database and closes it again (embedded backups need the data directory free). */
async function withDb<T>(work: (db: Database) => Promise<T>): Promise<T> {
  const database = await open();
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

async function tenantSlugs(): Promise<string[]> {
  return withDb(async (d) => (await sql<{ slug: string }>`SELECT slug FROM tenants ORDER BY slug`.execute(d.db)).rows.map((r) => r.slug));
}

async function tableExists(name: string): Promise<boolean> {
  return withDb(async (d) => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = ${name}`.execute(d.db)).rows[0]!.n === 1);
}

async function databaseExists(name: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: pgUrl! });
  await c.connect();
  try {
    return (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  if (pgUrl) {
    const name = `cairn_backup_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}${testTablespaceClause()}`);
    await admin.end();
    const u = new URL(pgUrl);
    u.pathname = `/${name}`;
    databaseUrl = u.toString();
    dropDatabase = async () => {
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      // And a snapshot's copy a failed test left behind.
      for (const copy of await snapshotCopiesOf(c, name)) await c.query(`DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`);
      await c.end();
    };
  } else {
    const template = inject('pgliteTemplate');
    if (template) copyDataDir(template, dataDir);
  }
  await withDb(async (d) => {
    await migrateToLatest(d.db);
    await createTenant(d.db, 'Before', 'before');
  });
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, 'secret.key'), 'key-before\n');
  writeFileSync(envFile, 'CAIRN_SECRET_KEY=before\n');
}, 120_000);

afterAll(async () => {
  await dropDatabase?.();
  rmSync(root, { recursive: true, force: true });
});

describe(`backups (${pgUrl ? 'PostgreSQL' : 'embedded PGlite'})`, () => {
  let firstId = '';

  it('creates a backup of database, data and config and lists it', async () => {
    const info = await createBackup(target(), 'manual');
    firstId = info.id;
    expect(info.kind).toBe('manual');
    expect(info.version).toBe('1.4.0');
    expect(info.size).toBeGreaterThan(1000);
    // It holds secret.key and the environment file: the service user's eyes only.
    expect(statSync(info.file).mode & 0o777).toBe(0o600);
    expect(statSync(target().backupsDir).mode & 0o777).toBe(0o700);
    const listed = await listBackups(target().backupsDir);
    expect(listed).toEqual([info]);
  }, 60_000);

  it('refuses to restore onto another version, naming both, and changes nothing', async () => {
    await withDb(async (d) => {
      await createTenant(d.db, 'After', 'after');
      // What a later release's migration would add: a restore must take it away again.
      await sql`CREATE TABLE upgrade_added (x int)`.execute(d.db);
    });
    writeFileSync(join(dataDir, 'secret.key'), 'key-after\n');
    writeFileSync(envFile, 'CAIRN_SECRET_KEY=after\n');

    const err = await restoreBackup(target('1.5.0-rc.1'), firstId).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackupError);
    expect((err as Error).message).toContain('1.4.0');
    expect((err as Error).message).toContain('1.5.0-rc.1');
    expect(await tenantSlugs()).toContain('after');
    expect(readFileSync(envFile, 'utf8')).toBe('CAIRN_SECRET_KEY=after\n');
  }, 60_000);

  it('refuses an id that is not a backup', async () => {
    await expect(restoreBackup(target(), '../../etc/passwd')).rejects.toThrow(/is not a backup id/);
    await expect(restoreBackup(target(), '20990101T000000Z-manual-abcdef')).rejects.toThrow(/no backup 20990101T000000Z-manual-abcdef/);
  });

  it('restores database, data and config onto the same version', async () => {
    await restoreBackup(target(), firstId);
    const slugs = await tenantSlugs();
    expect(slugs).toContain('before');
    expect(slugs).not.toContain('after');
    expect(await tableExists('upgrade_added')).toBe(false);
    expect(readFileSync(join(dataDir, 'secret.key'), 'utf8')).toBe('key-before\n');
    expect(readFileSync(envFile, 'utf8')).toBe('CAIRN_SECRET_KEY=before\n');
    // The restored database still takes writes (sequences, constraints came back).
    await withDb((d) => createTenant(d.db, 'After restore', 'after-restore'));
    expect(await tenantSlugs()).toContain('after-restore');
  }, 60_000);

  it('keeps the newest three', async () => {
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await createBackup(target(), 'pre-upgrade')).id);
    const listed = await listBackups(target().backupsDir);
    expect(listed.map((b) => b.id)).toEqual([...made].reverse());
    expect(listed.every((b) => b.kind === 'pre-upgrade')).toBe(true);
    expect(existsSync(join(target().backupsDir, `${firstId}.tar.gz`))).toBe(false);
    expect(await pruneBackups(target().backupsDir, 1)).toEqual([made[1], made[0]]);
    expect((await listBackups(target().backupsDir)).map((b) => b.id)).toEqual([made[2]]);
  }, 120_000);

  it('snapshots and restores the database alone', async () => {
    const file = join(root, 'snapshot.db');
    // PostgreSQL: nobody else is connected and the role may create databases, so the server copies it (from any size).
    const taken = await snapshotDatabase(target(), file, 0);
    const copy = pgUrl ? /made by the server \((\w+)\)/.exec(taken)?.[1] : undefined;
    if (pgUrl) expect(copy, taken).toBeTruthy();
    await withDb(async (d) => {
      await createTenant(d.db, 'Mid upgrade', 'mid-upgrade');
      await sql`CREATE TABLE upgrade_added (x int)`.execute(d.db);
    });
    writeFileSync(join(dataDir, 'secret.key'), 'key-untouched\n');
    await restoreSnapshot(target(), file);
    expect(await tenantSlugs()).not.toContain('mid-upgrade');
    expect(await tenantSlugs()).toContain('after-restore');
    expect(await tableExists('upgrade_added')).toBe(false);
    // Database only: the rest of the data directory is not the snapshot's business.
    expect(readFileSync(join(dataDir, 'secret.key'), 'utf8')).toBe('key-untouched\n');
    // Discarded, the copy is gone with the file.
    if (copy) expect(await databaseExists(copy)).toBe(true);
    await discardSnapshot(target(), file);
    expect(existsSync(file)).toBe(false);
    if (copy) expect(await databaseExists(copy)).toBe(false);
  }, 60_000);

  it.runIf(pgUrl)('waits a moment for a session that is going away (a process that just exited), then copies', async () => {
    const file = join(root, 'snapshot-leaving.db');
    const other = new pg.Client({ connectionString: databaseUrl! });
    await other.connect();
    const leaving = new Promise((r) => setTimeout(r, 300)).then(() => other.end());
    const taken = await snapshotDatabase(target(), file, 0);
    await leaving;
    expect(taken).toMatch(/^a copy of the database made by the server \(/);
    await discardSnapshot(target(), file);
  }, 60_000);

  it.runIf(pgUrl)('dumps a small database: under 256 MB a dump is quicker than the copy', async () => {
    const file = join(root, 'snapshot-small.db');
    const taken = await snapshotDatabase(target(), file);
    expect(taken).toMatch(/^a dump of \d+ KB \(no copy by the server: the database is \d+ MB, under 256 MB a dump is quicker\)$/);
    expect(readFileSync(file, 'utf8')).toContain('CREATE TABLE public.tenants');
    await discardSnapshot(target(), file);
  }, 60_000);

  it.runIf(pgUrl)('dumps instead when another session is on the database, and says why', async () => {
    const file = join(root, 'snapshot-busy.db');
    const other = new pg.Client({ connectionString: databaseUrl! });
    await other.connect();
    let taken: string;
    try {
      taken = await snapshotDatabase(target(), file, 0);
    } finally {
      await other.end();
    }
    expect(taken).toMatch(/^a dump of \d+ KB \(no copy by the server: 1 other session is connected to the database\)$/);
    expect(readFileSync(file, 'utf8')).toContain('CREATE TABLE public.tenants');
    await withDb((d) => createTenant(d.db, 'After dump', 'after-dump'));
    await restoreSnapshot(target(), file);
    expect(await tenantSlugs()).not.toContain('after-dump');
    await discardSnapshot(target(), file);
    expect(existsSync(file)).toBe(false);
  }, 60_000);

  it.runIf(pgUrl)('stops with an install hint when pg_dump is missing', async () => {
    const path = process.env.PATH;
    process.env.PATH = join(root, 'no-tools');
    try {
      await expect(createBackup(target(), 'manual')).rejects.toThrow('pg_dump was not found on PATH; install postgresql-client');
    } finally {
      process.env.PATH = path;
    }
  });

  it.runIf(!pgUrl)('refuses to copy an embedded database another live process holds', async () => {
    // A real second process stands in for a running `cairn serve` that holds the data directory.
    const holder: ChildProcess = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      writeFileSync(join(dataDir, 'cairn.lock'), String(holder.pid));
      const err = await createBackup(target(), 'manual').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BackupError);
      expect((err as Error).message).toContain(`pid ${holder.pid}`);
    } finally {
      holder.kill();
      rmSync(join(dataDir, 'cairn.lock'), { force: true });
    }
  });

  it.runIf(!pgUrl)('backs up an embedded database this process has open', async () => {
    const database = await open();
    try {
      await createTenant(database.db, 'Open', 'open');
      const info = await createBackup({ ...target(), database }, 'manual');
      expect((await listBackups(target().backupsDir))[0]!.id).toBe(info.id);
      await createTenant(database.db, 'Later', 'later');
    } finally {
      await database.close();
    }
    const newest = (await listBackups(target().backupsDir))[0]!;
    await restoreBackup(target(), newest.id);
    const slugs = await tenantSlugs();
    expect(slugs).toContain('open');
    expect(slugs).not.toContain('later');
  }, 60_000);
});
