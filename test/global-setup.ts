// Runs once before the suite: builds a migrated database to copy per test file. On the embedded database a
// data directory (a fresh PGlite initdb takes seconds; a copy takes a fraction of that); on PostgreSQL a template
// database (running every migration per file took 3-8 s; CREATE DATABASE … TEMPLATE takes well under one).
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TestProject } from 'vitest/node';
import { openPGlite, openPostgres } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
// The registry, so the template carries the search triggers derived from it (installing them per file costs ~1 s).
import '../src/models.ts';
import { dropTestDatabases, testDatabasePrefix, testTablespaceClause, withServer } from './helpers/pg-test-databases.ts';
import { copyDataDir } from './helpers/data-dir-copy.ts';
import { removeRunTmpdir } from './runner/tmpdir.ts';
import { sharedDir, sourceHash } from './runner/shared-cache.ts';

interface Templates {
  pgliteTemplate: string;
  pgliteEmptyTemplate: string;
  pgTemplate: string;
}

// vitest calls setup and teardown once per project (vitest.config.ts has two), each with this module loaded anew:
// the templates are made once per run (kept on globalThis of the main process) and removed after the last project.
interface RunState {
  templates: Promise<Templates> | null;
  projects: number;
}
const run: RunState = ((globalThis as { cairnTestRun?: RunState }).cairnTestRun ??= { templates: null, projects: 0 });

/**
 * Settings of every embedded database the suite copies from its templates (the files' own, and those of the `cairn`
 * processes and servers they start); the product keeps PostgreSQL's defaults. On the virtual machines CI runs on,
 * touching a page for the first time is dear, and the suite makes some hundreds of these databases:
 * - shared_buffers 16 MB instead of PGlite's 128: its WebAssembly build clears the whole pool as the server starts,
 *   half of an open (0.81-0.97 CPU-s of a slow machine per open; 0.30-0.45 with 16 MB). The databases hold a few MB.
 * - wal_recycle and wal_init_zero off: a WAL segment no longer needed is removed rather than kept for reuse, and a
 *   new one is made without writing its 16 MB of zeros first. Each copy of the migrated template carried initdb's
 *   segment, renamed for reuse (16 of its 65 MB); a new segment is now a sparse file that takes memory only as WAL is
 *   written to it (the copies are made sparse too: test/helpers/data-dir-copy.ts).
 */
const TEMPLATE_SETTINGS = { shared_buffers: '16MB', wal_recycle: 'off', wal_init_zero: 'off' };

/**
 * The embedded template: made once per source tree and shared (test/runner/shared-cache.ts) by both passes of CI,
 * which start side by side and each made one (9 CPU-s, while both compete for the cores), and by later runs. Beside
 * it, the data directory as PGlite's initdb left it, before any migration, for the tests of one migration's effect on
 * older data (an initdb is 2-5 CPU-s of a test worker; a copy a tenth of one).
 */
async function makePGliteTemplates(): Promise<{ migrated: string; empty: string }> {
  // What goes into it: the migrations, the registry (its search triggers), PGlite's version, its settings; not the tests.
  const key = sourceHash(resolve(import.meta.dirname, '..'), ['src', 'package-lock.json'], (rel) => rel.endsWith('.test.ts')) + `-${Object.values(TEMPLATE_SETTINGS).join('-')}`;
  const dir = await sharedDir('cairn-test-pglite-template-', key, async (d) => {
    const empty = await openPGlite(join(d, 'empty'));
    for (const [name, value] of Object.entries(TEMPLATE_SETTINGS)) await empty.pool.query(`ALTER SYSTEM SET ${name} = '${value}'`);
    await empty.close();
    copyDataDir(join(d, 'empty'), join(d, 'data'));
    const database = await openPGlite(join(d, 'data'));
    await migrateToLatest(database.db);
    await database.close();
  }, 'the embedded test template');
  return { migrated: join(dir, 'data'), empty: join(dir, 'empty') };
}

async function makePostgresTemplate(url: string): Promise<string> {
  await dropTestDatabases(url, { deadRunsOnly: true });
  const pgTemplate = `${testDatabasePrefix(process.pid)}template`;
  await withServer(url, (c) => c.query(`CREATE DATABASE ${pgTemplate}${testTablespaceClause()}`));
  const u = new URL(url);
  u.pathname = `/${pgTemplate}`;
  const database = await openPostgres(u.toString(), 1);
  await migrateToLatest(database.db);
  await database.close();
  return pgTemplate;
}

/**
 * The `cairn` command's compiled sources (bin/compiled-sources.mjs), made before the files start: on a fresh
 * checkout the first dozen `cairn` processes the files start at once would each compile them (1-2 CPU-s each).
 */
async function compileCairn(): Promise<void> {
  const compiled = (await import(pathToFileURL(resolve(import.meta.dirname, '../bin/compiled-sources.mjs')).href)) as { compiledMain(): Promise<string | null> };
  await compiled.compiledMain();
}

// The embedded template is made on PostgreSQL runs too: files there start `cairn` processes on an embedded data
// directory of their own (src/search/cli.test.ts, test/cli-progress.test.ts) from a copy of it, and a migration's
// test opens an embedded copy whatever the pass the domains' split gives it.
async function makeTemplates(): Promise<Templates> {
  const url = process.env.TEST_DATABASE_URL;
  const [pglite, pgTemplate] = await Promise.all([makePGliteTemplates(), url ? makePostgresTemplate(url) : Promise.resolve(''), compileCairn()]);
  return { pgliteTemplate: pglite.migrated, pgliteEmptyTemplate: pglite.empty, pgTemplate };
}

export async function setup(project: TestProject): Promise<void> {
  run.projects++;
  run.templates ??= makeTemplates();
  const made = await run.templates;
  project.provide('pgliteTemplate', made.pgliteTemplate);
  project.provide('pgliteEmptyTemplate', made.pgliteEmptyTemplate);
  project.provide('pgTemplate', made.pgTemplate);
}

export async function teardown(): Promise<void> {
  if (--run.projects > 0 || !run.templates) return;
  const made = await run.templates;
  // The embedded template stays for the other pass and later runs (test/runner/shared-cache.ts prunes it).
  // The per-file databases are dropped here, in one go, rather than by each file on its way out.
  if (process.env.TEST_DATABASE_URL) await dropTestDatabases(process.env.TEST_DATABASE_URL, { run: process.pid });
  // Last: everything the run's processes wrote to their temporary directory (vitest.config.ts chose it).
  removeRunTmpdir(process.env.CAIRN_TEST_RUN_TMPDIR ?? null);
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    /** Embedded: a data directory just made by PGlite's initdb, no migration run (missing in a template an older run made). */
    pgliteEmptyTemplate: string;
    /** PostgreSQL: the migrated template database each file's database is created from. */
    pgTemplate: string;
  }
}
