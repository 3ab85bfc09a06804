// A fresh, migrated database per test file: a copy of the migrated PGlite template, or a new database on the
// PostgreSQL server named by TEST_DATABASE_URL.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { openPGlite, openPostgres, type Database } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';

export interface TestDatabase extends Database {
  /** Where the embedded data lives (null on PostgreSQL). */
  dataDir: string | null;
}

export async function openTestDatabase(): Promise<TestDatabase> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    // PostgreSQL deployments must bring their own key for secrets at rest; tests use a fixed throw-away one.
    process.env.CAIRN_SECRET_KEY ??= 'a'.repeat(64);
    const name = `cairn_t_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const dbUrl = new URL(url);
    dbUrl.pathname = `/${name}`;
    const database = await openPostgres(dbUrl.toString(), 4);
    await migrateToLatest(database.db);
    return {
      ...database,
      dataDir: null,
      close: async () => {
        await database.close();
        const drop = new pg.Client({ connectionString: url });
        await drop.connect();
        await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => drop.query(`DROP DATABASE IF EXISTS ${name}`));
        await drop.end();
      },
    };
  }
  const template = inject('pgliteTemplate');
  const dir = mkdtempSync(join(tmpdir(), 'cairn-test-'));
  if (template) cpSync(template, dir, { recursive: true });
  const database = await openPGlite(dir);
  await migrateToLatest(database.db);
  return {
    ...database,
    dataDir: dir,
    close: async () => {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
