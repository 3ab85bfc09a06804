// The demo data a browser test starts its server on, made once per run and size and then copied: loading it cost
// each browser file a `cairn demo-data` process (3-5 s of CPU; on PostgreSQL the migrations too), and twenty files
// load one of five sizes. The copy is the same data the process writes: on the embedded database its data
// directory, on PostgreSQL a database used as a template (CREATE DATABASE … TEMPLATE). The first file to ask for a
// size loads it as before and leaves the copy; two files racing keep the first copy made.
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { testTablespaceClause } from '../helpers/pg-test-databases.ts';
import { copyDataDir } from '../helpers/data-dir-copy.ts';

type LoadDemo = () => Promise<void>;

/** Where this run keeps its copies: the run's temporary directory (test/runner/tmpdir.ts), else none. */
function cacheRoot(): string | null {
  return process.env.CAIRN_TEST_RUN_TMPDIR ?? null;
}

/** Embedded: fills `dataDir` with N demo devices, from this run's copy when there is one. */
export async function demoDataDir(devices: number, dataDir: string, load: LoadDemo): Promise<void> {
  const root = cacheRoot();
  const cached = root && join(root, `demo-data-${devices}`);
  if (cached && existsSync(cached)) {
    rmSync(dataDir, { recursive: true, force: true });
    copyDataDir(cached, dataDir);
    return;
  }
  await load();
  if (!cached) return;
  const partial = `${cached}.${process.pid}.partial`;
  copyDataDir(dataDir, partial);
  try {
    renameSync(partial, cached);
  } catch {
    rmSync(partial, { recursive: true, force: true }); // another file made it first
  }
}

// Two files making the same copy at once: PostgreSQL says 42P04, or 23505 when both got past its own check.
const ALREADY_MADE = ['42P04', '23505'];

/**
 * PostgreSQL: creates database `name` holding N demo devices, from this run's template of that size when there is
 * one (named after the run's migrated template, so the run's teardown drops it with the rest), else from the
 * migrated template, loads the data, and keeps a template of it.
 */
export async function demoDatabase(serverUrl: string, name: string, migratedTemplate: string, devices: number | undefined, load: LoadDemo): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const cached = migratedTemplate && devices ? `${migratedTemplate}_demo_${devices}` : null;
    if (cached) {
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [cached]);
      if (rowCount) {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${cached}`);
        return;
      }
    }
    await admin.query(`CREATE DATABASE ${name}${migratedTemplate ? ` TEMPLATE ${migratedTemplate}` : testTablespaceClause()}`);
    if (!devices) return;
    await load();
    if (!cached) return;
    await admin.query(`CREATE DATABASE ${cached} TEMPLATE ${name}`).catch((e: { code?: string }) => {
      if (!ALREADY_MADE.includes(e.code ?? '')) throw e;
    });
  } finally {
    await admin.end();
  }
}
