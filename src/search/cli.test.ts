// `cairn status` and `cairn rebuild` as real processes: a missing search extension is named with the statement
// to run, the rebuild creates it where permitted, indexes every tenant, and leaves a job record.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { openPGlite, openPostgres, type Database } from '../db/database.ts';
import { seedMigratedDataDir } from '../../test/helpers/cairn-process.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin', 'cairn.mjs');
const serverUrl = process.env.TEST_DATABASE_URL;
let tmp: string;
let dbUrl: string | null = null;
const dbName = `cairn_cli_${process.pid}`;

function cairn(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', CAIRN_DATA_DIR: join(tmp, 'data'), CAIRN_SECRET_KEY: 'b'.repeat(64) };
    delete env.DATABASE_URL;
    if (dbUrl) env.DATABASE_URL = dbUrl;
    const child = spawn(process.execPath, [BIN, ...args], { cwd: tmp, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** Opens the database the CLI uses (only while no cairn process holds it). */
async function open(): Promise<Database> {
  return dbUrl ? openPostgres(dbUrl, 1) : openPGlite(join(tmp, 'data'));
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cairn-search-cli-'));
  if (serverUrl) {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    // The run's migrated template: this file is about status and rebuild, not about migrating.
    await admin.query(`CREATE DATABASE ${dbName} TEMPLATE ${inject('pgTemplate')}`);
    await admin.end();
    const u = new URL(serverUrl);
    u.pathname = `/${dbName}`;
    dbUrl = u.toString();
  } else {
    seedMigratedDataDir(join(tmp, 'data'));
  }
});
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  if (serverUrl) {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
});

it('status names a missing extension; rebuild creates it, indexes, and records a job', async () => {
  const migrated = await cairn(['createsuperuser', '--username', 'root', '--password', 'root-password-1']);
  expect(migrated.code, migrated.stderr).toBe(0);
  let database = await open();
  await sql`DROP EXTENSION unaccent`.execute(database.db);
  await database.close();

  const status = await cairn(['status']);
  expect(status.code, status.stderr).toBe(0);
  expect(status.stdout).toContain('Missing database extension unaccent');
  expect(status.stdout).toContain('A superuser must run: CREATE EXTENSION IF NOT EXISTS unaccent;');
  const json = JSON.parse((await cairn(['status', '--json'])).stdout);
  expect(json.missing_extensions.map((m: { name: string }) => m.name)).toEqual(['unaccent']);

  const rebuild = await cairn(['rebuild']);
  expect(rebuild.code, rebuild.stderr).toBe(0);
  expect(rebuild.stdout).toMatch(/search index: dcim\.device \(\d+\/\d+\)/);
  expect(rebuild.stdout).toMatch(/Search index: [\d,]+ entries over \d+ models\./);
  expect(JSON.parse((await cairn(['status', '--json'])).stdout).missing_extensions).toEqual([]);

  database = await open();
  try {
    const { rows } = await sql<{ kind: string; status: string; result: string; done: number; total: number }>`
      SELECT kind, status, result, done, total FROM jobs WHERE kind = 'search.rebuild'`.execute(database.db);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'succeeded' });
    expect(rows[0]!.done).toBe(rows[0]!.total);
    // The normaliser was redefined on the recreated extension: accent-blind again.
    const { rows: norm } = await sql<{ n: string }>`SELECT cairn_search_norm('Zürich') AS n`.execute(database.db);
    expect(norm[0]!.n).toBe('zurich');
  } finally {
    await database.close();
  }
}, 180_000);
