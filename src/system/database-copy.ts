// PostgreSQL: a copy of a whole database made by the server itself (CREATE DATABASE … TEMPLATE), for the upgrade's
// snapshot. The server copies the database's files, where a dump reads every row out as text and writes it to a
// file: at 50,000 devices that dump was most of the time the site is down during an upgrade.
//
// A copy needs two things a dump does not: the right to create databases, and no other session on the database
// (the server refuses to copy a database in use). copyDatabase says which is missing, and the caller dumps instead.
import pg from 'pg';

export class DatabaseCopyError extends Error {}

const NAME_MAX = 63; // PostgreSQL's identifier length
const SESSIONS_GONE_MS = 1000;

/**
 * Below this size a dump is quicker: the server's copy costs about a second and a half whatever the size (its
 * checkpoints and file syncs), a dump about 0.16 GB a second. Measured on one machine: 28 MB dumped in 0.3 s and
 * copied in 1.6-1.9 s; 5.3 GB dumped in 32.9 s and copied in 10.4 s. They meet near 0.3 GB.
 */
export const COPY_FROM_BYTES = 256 * 1024 ** 2;

function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!name) throw new DatabaseCopyError('the database URL names no database');
  return name;
}

/** The same server and role, another database. */
export function urlOfDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
}

function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * A session on the server outside the database being copied or dropped (which the server requires): its
 * `postgres` database, else template1.
 */
async function withServer<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  let lastError: unknown;
  for (const other of ['postgres', 'template1']) {
    const client = new pg.Client({ connectionString: urlOfDatabase(url, other), connectionTimeoutMillis: 10_000 });
    // A server that goes away mid-statement must reject the statement, not crash the process.
    client.on('error', () => {});
    try {
      await client.connect();
    } catch (err) {
      lastError = err;
      await client.end().catch(() => {});
      continue;
    }
    try {
      return await work(client);
    } finally {
      await client.end().catch(() => {});
    }
  }
  throw new DatabaseCopyError(`no session outside the database could be opened (${lastError instanceof Error ? lastError.message : String(lastError)})`);
}

/** What a copy's name has after its database's: `<database>_snapshot_<time>`. */
export const COPY_NAME_INFIX = '_snapshot_';

/** A new name for a copy of the database of `url`: `<database>_snapshot_<time>`, within PostgreSQL's 63 bytes. */
export function copyName(url: string): string {
  const suffix = `${COPY_NAME_INFIX}${Date.now().toString(36)}`;
  return `${Buffer.from(databaseName(url)).subarray(0, NAME_MAX - suffix.length).toString('utf8').replace(/\uFFFD$/, '')}${suffix}`;
}

/**
 * The clause that makes CREATE DATABASE … TEMPLATE copy the files, for a server of this `server_version_num`: since
 * PostgreSQL 15 the default copy writes every page through the write-ahead log; FILE_COPY copies the files (the
 * only way before 15, which has no clause for it).
 */
export function fileCopyStrategy(serverVersionNum: number): string {
  return serverVersionNum >= 150000 ? ' STRATEGY = FILE_COPY' : '';
}

/**
 * Copies the database of `url` to a new database `copy` (copyName) on the same server, when it is at least
 * `fromBytes` large. Throws a DatabaseCopyError that says why when the copy is not made (nothing is left behind then).
 */
export async function copyDatabase(url: string, copy: string, fromBytes = COPY_FROM_BYTES): Promise<void> {
  const source = databaseName(url);
  await withServer(url, async (client) => {
    const { rows } = await client.query<{ may_create: boolean; version: number; bytes: string }>(
      `SELECT pg_database_size($1)::text AS bytes,
              (SELECT rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user) AS may_create,
              current_setting('server_version_num')::int AS version`,
      [source],
    );
    const { may_create, version, bytes } = rows[0]!;
    if (Number(bytes) < fromBytes) {
      throw new DatabaseCopyError(`the database is ${Math.round(Number(bytes) / 1024 ** 2)} MB, under ${Math.round(fromBytes / 1024 ** 2)} MB a dump is quicker`);
    }
    if (!may_create) throw new DatabaseCopyError('the database role may not create databases (CREATEDB)');
    // Client sessions only: the server stops an autovacuum worker on the database itself before copying.
    const sessions = async () =>
      (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'`, [source])).rows[0]!.n;
    // A process that has just exited (the upgrade's `cairn status`, the stopped web) leaves its session for a moment
    // after: up to a second for those to go. Asked rather than left to the server, which waits five.
    let others = await sessions();
    for (let waited = 0; others > 0 && waited < SESSIONS_GONE_MS; waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
      others = await sessions();
    }
    if (others > 0) throw new DatabaseCopyError(`${others} other session${others === 1 ? ' is' : 's are'} connected to the database`);
    const strategy = fileCopyStrategy(version);
    try {
      await client.query(`CREATE DATABASE ${ident(copy)} TEMPLATE ${ident(source)}${strategy}`);
    } catch (err) {
      await client.query(`DROP DATABASE IF EXISTS ${ident(copy)}`).catch(() => {});
      throw new DatabaseCopyError(`the server could not copy the database: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
}

/** Drops a copy made by copyDatabase (gone already is fine). */
export async function dropDatabaseCopy(url: string, copy: string): Promise<void> {
  await withServer(url, (client) => client.query(`DROP DATABASE IF EXISTS ${ident(copy)}`));
}

/** The size of the database of `url`, as the server counts its files (pg_database_size). */
export async function databaseBytes(url: string): Promise<number> {
  const name = databaseName(url);
  return withServer(url, async (client) => Number((await client.query<{ bytes: string }>(`SELECT pg_database_size($1)::text AS bytes`, [name])).rows[0]!.bytes));
}
