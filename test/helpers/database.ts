// A fresh, migrated database per test file: a copy of the migrated PGlite template, or a copy of the run's
// template database on the PostgreSQL server named by TEST_DATABASE_URL (dropped when the run ends).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { openPGlite, openPostgres, type Database } from '../../src/db/database.ts';
import { embeddedSharedBuffersMb } from '../../src/config.ts';
import { bringDerivedInLine, migrateToLatest } from '../../src/db/migrator.ts';
import { copyStrategyClause, withServer } from './pg-test-databases.ts';
import { copyDataDir } from './data-dir-copy.ts';

export interface TestDatabase extends Database {
  /** Where the embedded data lives (null on PostgreSQL). */
  dataDir: string | null;
}

/**
 * `embeddedTemplate`: on the embedded database, the data directory to copy instead of the run's migrated template
 * (one made from a copy of it, as test/helpers/harness.ts makes its cast's); ignored on PostgreSQL.
 */
export async function openTestDatabase(embeddedTemplate?: string): Promise<TestDatabase> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    // PostgreSQL deployments must bring their own key for secrets at rest; tests use a fixed throw-away one.
    process.env.CAIRN_SECRET_KEY ??= 'a'.repeat(64);
    const template = inject('pgTemplate');
    // Named after the run (the template's name carries its pid), so the run's teardown finds and drops it.
    const name = `${template.replace(/template$/, '')}${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    await withServer(url, async (c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}${await copyStrategyClause(c)}`));
    const dbUrl = new URL(url);
    dbUrl.pathname = `/${name}`;
    const database = await openPostgres(dbUrl.toString(), 4);
    // The template is this run's, migrated by this code: only what the code derives is checked again (running
    // Kysely's migrator over a migrated copy cost 0.15 s of CPU per file).
    await bringDerivedInLine(database.db);
    return { ...database, dataDir: null };
  }
  const template = embeddedTemplate ?? inject('pgliteTemplate');
  const database = await openPGliteCopy(template || null, 'cairn-test-');
  await (template ? bringDerivedInLine(database.db) : migrateToLatest(database.db));
  return database;
}

/**
 * An embedded database as PGlite's initdb leaves it, no migration run, in a temporary directory removed on close:
 * for a test of what one migration does to the data of an older release. A copy of the run's (test/global-setup.ts).
 */
export function openUnmigratedPGlite(prefix: string): Promise<TestDatabase> {
  const empty = inject('pgliteEmptyTemplate');
  return openPGliteCopy(empty && existsSync(empty) ? empty : null, prefix);
}

/** PGlite in a new temporary directory (a copy of `template`, else empty: initdb), removed when it closes. */
async function openPGliteCopy(template: string | null, prefix: string): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (template) copyDataDir(template, dir);
  const database = await openPGlite(dir, { sharedBuffersMb: embeddedSharedBuffersMb() });
  return {
    ...database,
    dataDir: dir,
    close: async () => {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
