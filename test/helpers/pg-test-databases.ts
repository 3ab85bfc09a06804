// The PostgreSQL databases of one test run: named cairn_t_<run pid>_…, created from the run's migrated template
// (test/global-setup.ts) and dropped together when the run ends. A run that was killed leaves its databases
// behind; the next run drops those whose run process is gone.
import pg from 'pg';
import { processAlive } from '../../src/db/lock.ts';
import { COPY_NAME_INFIX, fileCopyStrategy } from '../../src/system/database-copy.ts';

export function testDatabasePrefix(runPid: number): string {
  return `cairn_t_${runPid}_`;
}

/**
 * ` TABLESPACE <name>` for a CREATE DATABASE of the run when CAIRN_TEST_PG_TABLESPACE names one, else ''. .ci/run
 * makes one in memory (tmpfs) when the server is local. The suite creates and drops a database (about 1,400 files)
 * per test file, and on an ext4 disk without a journal the kernel finds each new file's inode past those deleted in
 * the last minutes (recently_deleted): 60 copies of the migrated template, each created, opened and dropped, took
 * 60 CPU-s there and 6.6 in memory; twenty small files of the PostgreSQL pass, 63-66 CPU-s of the machine instead of
 * 67-70 (two runs each, alternating). Databases copied from the run's template land in its tablespace without it.
 */
export function testTablespaceClause(): string {
  const name = process.env.CAIRN_TEST_PG_TABLESPACE;
  if (!name) return '';
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`CAIRN_TEST_PG_TABLESPACE "${name}" is not a plain tablespace name`);
  return ` TABLESPACE ${name}`;
}

/**
 * The run's server (TEST_DATABASE_URL): one connection per process, kept between calls. Each file's CREATE DATABASE
 * and the upgrade installs' CREATE and DROP used to connect anew: 163 of a run's 764 connections, each a backend
 * forked and set up, about 0.1 CPU-s of the machine. Kept only for that URL, the server's own database: a
 * connection left open to a database the tests use would stop CREATE DATABASE … TEMPLATE from copying it.
 */
let serverPool: { url: string; pool: pg.Pool } | null = null;

function poolFor(url: string): pg.Pool | null {
  if (url !== process.env.TEST_DATABASE_URL) return null;
  if (serverPool?.url !== url) {
    // An idle connection the server ended (a test that restarts it) is dropped by the pool, not thrown.
    const pool = new pg.Pool({ connectionString: url, max: 2, idleTimeoutMillis: 30_000, allowExitOnIdle: true });
    pool.on('error', () => {});
    serverPool = { url, pool };
  }
  return serverPool.pool;
}

/**
 * The files copied (src/system/database-copy.ts's fileCopyStrategy, as the upgrade's snapshot copies) for a test
 * file's copy of the run's template: WAL_LOG, the default since PostgreSQL 15, writes every page through the
 * write-ahead log, and dropping such a copy costs more too. Under .ci/run's server settings (fsync off, the
 * tablespace in memory), a copy of the migrated template created and dropped cost the server 0.054-0.058 CPU-s
 * instead of 0.10-0.12 (five of each, four rounds alternating), once for each file of the PostgreSQL pass that opens
 * a database; twenty-five of those files were too noisy to show it (99-120 CPU-s of the machine either way).
 */
export async function copyStrategyClause(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ version: number }>(`SELECT current_setting('server_version_num')::int AS version`);
  return fileCopyStrategy(rows[0]!.version);
}

export async function withServer<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const pool = poolFor(url);
  if (pool) {
    const client = await pool.connect();
    let failed: Error | undefined;
    try {
      return await work(client);
    } catch (err) {
      failed = err as Error;
      throw err;
    } finally {
      // After an error the connection is closed rather than kept: it may be in a state nobody checked.
      client.release(failed);
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Drops the databases of run `run`, or (deadRunsOnly) of every run whose process no longer exists. */
export async function dropTestDatabases(url: string, which: { run: number } | { deadRunsOnly: true }): Promise<void> {
  await withServer(url, async (client) => {
    const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname ~ '^cairn_t_[0-9]+_'`);
    for (const { datname } of rows) {
      const pid = Number(/^cairn_t_(\d+)_/.exec(datname)![1]);
      const drop = 'run' in which ? pid === which.run : !processAlive(pid);
      if (drop) await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }
  });
}

/** The copies an upgrade's snapshot made of `database` on the server (src/system/database-copy.ts names them). */
export async function snapshotCopiesOf(client: pg.Client, database: string): Promise<string[]> {
  const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname', [`${database}${COPY_NAME_INFIX}`]);
  return rows.map((r) => r.datname);
}
