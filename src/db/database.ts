// One `pg` pool on both backends (PostgreSQL, or embedded PGlite through its node-postgres adapter), one Kysely.
import './heap-settings.ts';
import { mkdirSync, accessSync, constants } from 'node:fs';
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { DB } from './types.ts';
import { lockDataDir } from './lock.ts';
import { StatementNames, isStalePlan } from './statement-names.ts';
import { parseTimestamptz } from './timestamptz.ts';
import { ReplicaSet, type ReplicaOptions } from './replicas.ts';
import { checkChannel, listenPostgres, type Unlisten } from './listen.ts';

export type Backend = 'postgres' | 'pglite';

export interface Database {
  db: Kysely<DB>;
  pool: pg.Pool;
  backend: Backend;
  /** The embedded database's data directory (where secret.key lives); absent on PostgreSQL. */
  dataDir?: string | null;
  /** Embedded only: a consistent tar of the open data directory (backups while this process holds it). */
  dumpDataDir?: () => Promise<Blob>;
  /** Number of queries sent since start: tests assert constant query counts with it. */
  queryCount(): number;
  /** PostgreSQL read replicas, when `cairn serve` was given some (src/db/replicas.ts); `db` routes through them. */
  replicas?: ReplicaSet;
  /**
   * Calls `onNotify` with the payload whenever a committed transaction ran pg_notify on `channel`, in commit order
   * (src/db/listen.ts): a wake-up, not a delivery guarantee. Until the returned function is called.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<Unlisten>;
  close(): Promise<void>;
}

export class DatabaseOpenError extends Error {}

// int8 (count(*), numid) as JS numbers: our counts stay far below 2^53.
pg.types.setTypeParser(20, (v: string) => Number(v));
// numeric stays a string (exact decimals); dates as ISO strings rather than JS Dates at local midnight.
pg.types.setTypeParser(1082, (v: string) => v);
// timestamptz without a regular expression (the same Dates: see timestamptz.ts).
pg.types.setTypeParser(1184, parseTimestamptz);

/** Sends a query text as a named statement where `names` names it (see statement-names.ts). */
type QueryFn = (...args: unknown[]) => unknown;
function namingQuery(q: QueryFn, names: StatementNames): QueryFn {
  let inTransaction = false;
  return (...args: unknown[]) => {
    const [text, values] = args;
    // Only Kysely's form (text, values) → promise; callbacks, cursors and config objects pass through.
    if (typeof text !== 'string' || args.length > 2 || (values !== undefined && !Array.isArray(values))) return q(...args);
    if (/^\s*(begin|start transaction)\b/i.test(text)) inTransaction = true;
    else if (/^\s*(commit|rollback)\s*$/i.test(text)) inTransaction = false;
    const name = names.nameOf(text);
    if (name === undefined) return q(...args);
    const sent = q({ text, values, name }) as Promise<unknown>;
    return sent.catch((err: unknown) => {
      if (!isStalePlan(err)) throw err;
      // DDL changed what the statement returns: every name is given up (each connection prepares anew), and outside
      // a transaction this one is sent again unnamed. Inside one, the transaction has failed: its caller gets a 503.
      names.forgetAll();
      if (inTransaction) throw err;
      return q(text, values);
    });
  };
}

/**
 * `sharedSession`: every client of the pool is a new connection object on one and the same session (PGlite's): the
 * statements an earlier client prepared are still there under names the new one does not know it has.
 */
function countingPool(pool: pg.Pool, names: StatementNames | null = null, counter = { n: 0 }, sharedSession = false): { pool: pg.Pool; count: () => number } {
  const original = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  // Kysely acquires a client and calls client.query; count there too.
  pool.on('connect', (client: pg.PoolClient) => {
    // A connection lost while a client is checked out (PostgreSQL restarted, a failover, an administrator's
    // pg_terminate_backend) is emitted as 'error' on the client; the pool listens only while it is idle, and an
    // unheard 'error' ends the process. The query that used the client fails on its own (a 503 to the caller),
    // and the pool discards a client that can no longer query when it is released.
    client.on('error', () => {});
    const bound = client.query.bind(client) as QueryFn;
    if (names && sharedSession) {
      // Queued before anything the pool's caller sends. New names as well, should the session refuse (a transaction
      // an earlier client left failed): a name is never prepared twice.
      names.forgetAll();
      (bound('DEALLOCATE ALL') as Promise<unknown>).catch(() => {});
    }
    const q = names ? namingQuery(bound, names) : bound;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      counter.n++;
      return q(...args);
    };
  });
  (pool as { query: unknown }).query = (...args: unknown[]) => {
    counter.n++;
    return original(...args);
  };
  return { pool, count: () => counter.n };
}

export interface PostgresOptions {
  /** Statements running longer are cancelled by the server (0: no limit). */
  statementTimeoutMs?: number;
  /** How long a query waits for a free connection before it fails (default POOL_WAIT_MS). */
  poolWaitMs?: number;
  /** Repeated statements are prepared once per connection (default true; see statement-names.ts). */
  namedStatements?: boolean;
  /** Streaming standbys that answer the reads of read requests (src/db/replicas.ts). */
  replicas?: ReplicaOptions;
}

/**
 * The pending list (in kB) after which an insert merges a GIN index's pending entries into the index: every search
 * of the trigram index reads the whole list, and after a load that left 414 pages a fragment search took 3.6 ms
 * instead of 0.3 (migration 0032). Set per session rather than on the index, so a bulk load can raise it for its
 * own transaction (migration 0052).
 */
export const PENDING_LIST_KB = 256;

/** How long a request waits for a free connection before it is answered 503 (the pool is exhausted). */
export const POOL_WAIT_MS = 5_000;

function postgresPool(url: string, max: number, opts: PostgresOptions, extra: pg.PoolConfig = {}): pg.Pool {
  const raw = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: opts.poolWaitMs ?? POOL_WAIT_MS,
    // No JIT compilation: Cairn's statements are short, and one whose row estimate was far off (a cable trace's
    // 46 ports estimated at 83,703) spent 119 ms compiling for a 0.2 ms run.
    // Random reads priced as on SSD or from cache (PostgreSQL's default of 4 prices a spinning disk): a source of
    // truth's tables fit in memory. With the default, a device search of 2,000 devices scanned every row with four
    // ILIKEs (7 ms) rather than use its trigram index (0.24 ms), because an ILIKE costs the planner next to nothing.
    // A GIN index's pending list (fast update) is merged once it passes 256 kB, so a search reads little of it
    // (PENDING_LIST_KB); a bulk load raises it for its own transaction (core/crud/bulk-load.ts).
    options: `-c jit=off -c random_page_cost=1.1 -c gin_pending_list_limit=${PENDING_LIST_KB}`,
    ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
    ...extra,
  });
  raw.on('error', () => {
    /* an idle client lost its connection: the pool drops it and the next query opens another */
  });
  return raw;
}

/** A replica that does not answer a connection within this is skipped for the primary (a request must not wait 5 s). */
const REPLICA_CONNECT_MS = 1_000;

export async function openPostgres(url: string, max = 10, opts: PostgresOptions = {}): Promise<Database> {
  const raw = postgresPool(url, max, opts);
  const counter = { n: 0 };
  const { pool, count } = countingPool(raw, opts.namedStatements === false ? null : new StatementNames(), counter);
  try {
    const client = await pool.connect();
    client.release();
  } catch (err) {
    await raw.end().catch(() => {});
    throw new DatabaseOpenError(`Cannot connect to PostgreSQL: ${(err as Error).message}`);
  }
  // On the primary, whatever the replicas: notifications are sent at its commits.
  const listen: Database['listen'] = (channel, onNotify) => listenPostgres(url, channel, onNotify);
  if (!opts.replicas?.urls.length) {
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return { db, pool, backend: 'postgres', queryCount: count, listen, close: () => db.destroy() };
  }
  // Not connected to now: a replica that is down must not keep the server from starting (its checks find it later).
  const replicaPools = opts.replicas.urls.map((replicaUrl) => {
    const replicaOpts: pg.PoolConfig = {
      connectionTimeoutMillis: Math.min(REPLICA_CONNECT_MS, opts.poolWaitMs ?? POOL_WAIT_MS),
      // A replica that stops answering mid-statement (a host gone, not a server stopped) gives the statement back
      // to the primary rather than holding it until TCP gives up.
      query_timeout: (opts.statementTimeoutMs || 30_000) + 2_000,
      keepAlive: true,
    };
    return {
      name: replicaName(replicaUrl),
      pool: countingPool(postgresPool(replicaUrl, max, opts, replicaOpts), opts.namedStatements === false ? null : new StatementNames(), counter).pool,
      probe: postgresPool(replicaUrl, 1, opts, replicaOpts),
    };
  });
  const replicas = new ReplicaSet({ pool, probe: postgresPool(url, 1, opts) }, replicaPools, opts.replicas);
  replicas.start();
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: replicas.pool }) });
  return { db, pool, backend: 'postgres', queryCount: count, replicas, listen, close: () => db.destroy() };
}

/** host:port/database of a replica's URL: what health reports, never its password. */
function replicaName(url: string): string {
  const u = new URL(url);
  return `${u.hostname || u.searchParams.get('host')}:${u.port || '5432'}${u.pathname}`;
}

/**
 * The embedded database's WebAssembly memory from the start: PGlite's default (128 MB) grows to about 190 MB while
 * the server starts, and V8 answers each growth of external memory with collections of the whole JavaScript heap.
 * In a process holding the app ten opens took 42 full collections and about 1.0 CPU-s each; with the memory there
 * from the start, 24 and 0.6-0.7. Fourteen small test files in one worker (a database each): 54-56 CPU-s instead of
 * 57-61 (four runs, alternating). Pages never touched cost no memory.
 */
const PGLITE_INITIAL_MEMORY = 256 * 1024 * 1024;

export interface PGliteOptions {
  /**
   * Repeated statements are prepared once (default true; see statement-names.ts). The session parses and plans
   * them once instead of per request: 500 API reads of five kinds cost 0.9-1.1 CPU-s of the process instead of 1.7-2.4
   * (rounds after the first).
   */
  namedStatements?: boolean;
  /** Its buffer cache in MB (PostgreSQL's shared_buffers; default PostgreSQL's 128, src/config.ts says more). */
  sharedBuffersMb?: number;
}

export async function openPGlite(dataDir: string, opts: PGliteOptions = {}): Promise<Database> {
  try {
    mkdirSync(dataDir, { recursive: true });
    accessSync(dataDir, constants.W_OK);
  } catch (err) {
    throw new DatabaseOpenError(`Cannot write the data directory ${dataDir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const release = lockDataDir(dataDir);
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
    const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
    const { unaccent } = await import('@electric-sql/pglite/contrib/unaccent');
    const { btree_gist } = await import('@electric-sql/pglite/contrib/btree_gist');
    const startParams = opts.sharedBuffersMb === undefined ? {} : { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${opts.sharedBuffersMb}MB`] };
    const pglite = await PGlite.create(`${dataDir}/pgdata`, { extensions: { pg_trgm, unaccent, btree_gist }, initialMemory: PGLITE_INITIAL_MEMORY, ...startParams });
    // PGlite's one session, as every PostgreSQL connection above.
    await pglite.exec(`SET gin_pending_list_limit = ${PENDING_LIST_KB}`);
    // A fresh connection object per client: sharing one breaks after the first SQL error (stack-notes P5).
    class PGliteClient extends pg.Client {
      constructor() {
        super(createPgConfig(pglite) as pg.ClientConfig);
      }
    }
    // max 1: every client shares PGlite's single session (stack-notes P5).
    const names = opts.namedStatements === false ? null : new StatementNames();
    const { pool, count } = countingPool(new pg.Pool({ Client: PGliteClient, max: 1 }), names, undefined, true);
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    /** Listeners of each channel in this process (see listen). */
    const listening = new Map<string, number>();
    return {
      db,
      pool,
      backend: 'pglite',
      dataDir,
      dumpDataDir: () => pglite.dumpDataDir('none'),
      queryCount: count,
      // PGlite's one session hears what its own transactions announce, once they commit. LISTEN goes through the
      // pool, after whatever transaction holds the session (pglite.listen would send it into that transaction).
      // The session listens once per channel, however many listen on it here (one's UNLISTEN must not deafen another).
      listen: async (channel, onNotify) => {
        checkChannel(channel);
        const off = pglite.onNotification((heard, payload) => {
          if (heard === channel) onNotify(payload);
        });
        const listeners = (listening.get(channel) ?? 0) + 1;
        listening.set(channel, listeners);
        try {
          if (listeners === 1) await pool.query(`LISTEN ${channel}`);
        } catch (err) {
          off();
          listening.set(channel, listening.get(channel)! - 1);
          throw err;
        }
        let done = false;
        return async () => {
          if (done) return;
          done = true;
          off();
          const left = listening.get(channel)! - 1;
          listening.set(channel, left);
          if (left === 0) await pool.query(`UNLISTEN ${channel}`).catch(() => {});
        };
      },
      close: async () => {
        await db.destroy();
        await pglite.close();
        release();
      },
    };
  } catch (err) {
    release();
    throw new DatabaseOpenError(`Cannot open the embedded database in ${dataDir}: ${(err as Error).message}`);
  }
}
