// Streaming read replicas (CAIRN_DATABASE_REPLICA_URLS). Kysely is given a pool whose connect() looks at the
// request it is called for (an AsyncLocalStorage route that src/core/read-routing.ts sets on GET and HEAD requests):
// without a route, or with one that has no replica, it is the primary's pool.connect() unchanged; with a replica it
// hands out a client that picks its database at its first statement. So no call site changes, and everything that
// does not run inside a read request (writes, background jobs, migrations, the upgrade machinery, the auth lookups
// that run before the route is chosen) stays on the primary by default rather than by someone remembering to.
//
// A replica never causes an error a client sees: a statement it refuses (a write, SQLSTATE 25006) or fails in any
// way but a timeout (a dropped connection, a conflict with recovery, a table a migration added that it has not
// replayed yet) runs again on the primary, and the rest of that request stays there.
//
// Read-your-writes: after a write request the primary's WAL insert position is recorded for its token or session
// (write_marks, on the primary: migration 0053, src/core/read-routing.ts); a read by that token or session is given
// a replica by choose() only once the replica has replayed that far, waiting up to waitMs, else the primary.
import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';

export interface ReplicaOptions {
  urls: string[];
  /** A replica further behind than this (by the primary's clock of WAL positions) is skipped. */
  maxLagMs: number;
  /** How long a writer's read waits for a replica to replay its write (0: straight to the primary). */
  waitMs: number;
}

/** Where one request's statements go: set by src/core/read-routing.ts, read by each connect() of the request. */
export interface ReadRoute {
  replica: Replica | null;
  /** A statement of this request wrote: a replica refused it and the primary ran it. */
  wrote: boolean;
}

export type ReplicaState = 'starting' | 'serving' | 'lagging' | 'down' | 'not_a_standby';

export interface ReplicaStatus {
  /** host:port/database, without credentials. */
  name: string;
  state: ReplicaState;
  /** How far behind the primary it was at its last check (null: unknown, or down). */
  lag_ms: number | null;
  /** Statements it answered since this process started. */
  statements: number;
  /** Why it is not serving, when a statement or a check failed. */
  error: string | null;
}

/** A pg_lsn (`16/B374D848`) as one number, so positions compare. */
export function parseLsn(text: string): bigint {
  const slash = text.indexOf('/');
  return (BigInt(`0x${text.slice(0, slash)}`) << 32n) + BigInt(`0x${text.slice(slash + 1)}`);
}

/** One primary WAL position and when it was read: the lag of a replica is judged against these. */
interface Sample {
  at: number;
  lsn: bigint;
}

/**
 * How far behind a replica that has replayed up to `replayed` is, from the primary's positions in `samples` (oldest
 * first). Caught up with the newest sample: 0. Otherwise it lacks something the primary had written when the
 * oldest sample it has not reached was taken, so it is at least that old. Null when it has reached no sample at
 * all: how far behind it is cannot be told (a standby just started, still catching up), and it is not used.
 */
export function lagOf(samples: readonly Sample[], replayed: bigint, now: number): number | null {
  const newest = samples[samples.length - 1];
  if (!newest) return null;
  if (replayed >= newest.lsn) return 0;
  const oldestMissed = samples.findIndex((s) => s.lsn > replayed);
  return oldestMissed === 0 ? null : Math.max(0, now - samples[oldestMissed]!.at);
}

/** Errors after which the replica is not asked again until its next check: it cannot be reached. */
function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (typeof e.code === 'string' && (e.code.startsWith('08') || e.code.startsWith('57P') || /^E[A-Z]+$/.test(e.code))) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error/i.test(e.message ?? '');
}

/** A statement cancelled by statement_timeout would be as slow on the primary: retrying it only doubles the wait. */
function isCancelled(err: unknown): boolean {
  return (err as { code?: string }).code === '57014';
}

const CHECK_MIN_MS = 100;
const CHECK_MAX_MS = 1_000;

export class Replica {
  state: ReplicaState = 'starting';
  lagMs: number | null = null;
  /** The WAL position it had replayed when last asked (by a check, or by a read-your-writes poll). */
  replayed = 0n;
  statements = 0;
  error: string | null = null;

  constructor(
    readonly name: string,
    /** The connections statements use. */
    readonly pool: pg.Pool,
    /** One connection of its own for the checks and the read-your-writes polls, which busy statements never delay. */
    readonly probe: pg.Pool,
  ) {}

  /** A poll's answer: it can only be further along than the last check found (unless it stopped being a standby). */
  observe(replayedText: string | null): void {
    if (replayedText === null) return;
    const lsn = parseLsn(replayedText);
    if (lsn > this.replayed) this.replayed = lsn;
  }

  /** Unreachable: skipped until its next check finds it again. */
  down(err: unknown): void {
    this.state = 'down';
    this.lagMs = null;
    this.error = (err as Error).message ?? String(err);
  }

  busy(): number {
    return this.pool.totalCount - this.pool.idleCount + this.pool.waitingCount;
  }

  saturated(): boolean {
    return this.pool.idleCount === 0 && this.pool.totalCount >= (this.pool.options.max ?? 10);
  }
}

export class ReplicaSet {
  readonly replicas: Replica[];
  readonly #primary: pg.Pool;
  readonly #primaryProbe: pg.Pool;
  readonly #opts: ReplicaOptions;
  readonly #als = new AsyncLocalStorage<ReadRoute>();
  readonly #checkMs: number;
  #samples: Sample[] = [];
  #timer: NodeJS.Timeout | null = null;
  #checking: Promise<void> | null = null;
  #closed = false;
  #turn = 0;

  constructor(primary: { pool: pg.Pool; probe: pg.Pool }, replicas: Array<{ name: string; pool: pg.Pool; probe: pg.Pool }>, opts: ReplicaOptions) {
    this.#primary = primary.pool;
    this.#primaryProbe = primary.probe;
    this.#opts = opts;
    this.replicas = replicas.map((r) => new Replica(r.name, r.pool, r.probe));
    // Often enough that a replica is skipped soon after it passes the limit; never more than once per 100 ms.
    this.#checkMs = Math.min(CHECK_MAX_MS, Math.max(CHECK_MIN_MS, Math.floor(opts.maxLagMs / 3)));
  }

  /** The pool Kysely is given (see the top of this file). */
  readonly pool = {
    connect: (): Promise<pg.PoolClient> => {
      const route = this.#als.getStore();
      if (!route?.replica) return this.#primary.connect();
      return Promise.resolve(new RoutedClient(this, route, this.#primary) as unknown as pg.PoolClient);
    },
    end: () => this.close(),
  };

  /** Runs `fn` (and everything it starts) with `route` deciding where its statements go. */
  run<T>(route: ReadRoute, fn: () => T): T {
    return this.#als.run(route, fn);
  }

  /** Starts the periodic checks; the first runs now (reads go to the primary until it has). */
  start(): void {
    const tick = () => {
      this.#checking = this.check().finally(() => {
        this.#checking = null;
        if (!this.#closed) this.#timer = setTimeout(tick, this.#checkMs).unref();
      });
    };
    tick();
  }

  /**
   * Reads the primary's WAL position, then each replica's replayed position: one short statement each, once per
   * check interval and process rather than per request, each on a connection of its own (a process keeps one more
   * connection to the primary and to each replica). A failure marks that replica down; it is tried again at the
   * next check.
   */
  async check(): Promise<void> {
    const at = Date.now();
    try {
      const { rows } = await this.#primaryProbe.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      const lsn = parseLsn(rows[0]!.lsn);
      // A position seen before keeps the time it was first seen: the primary has had that data since then.
      if (!this.#samples.length || lsn > this.#samples[this.#samples.length - 1]!.lsn) this.#samples.push({ at, lsn });
    } catch {
      /* the primary is unreachable: replicas are judged on the positions read before */
    }
    // Only samples that can still tell a replica within the limit from one past it are kept.
    const keepAfter = at - this.#opts.maxLagMs - 3 * this.#checkMs;
    while (this.#samples.length > 1 && this.#samples[1]!.at < keepAfter) this.#samples.shift();
    await Promise.all(this.replicas.map((r) => this.#checkReplica(r)));
  }

  async #checkReplica(replica: Replica): Promise<void> {
    try {
      const { rows } = await replica.probe.query<{ standby: boolean; replayed: string | null }>(
        'SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed',
      );
      const row = rows[0]!;
      if (!row.standby || row.replayed === null) {
        // A server that is not a standby (a promoted one, or the primary named twice) may diverge: never read from it.
        replica.state = 'not_a_standby';
        replica.lagMs = null;
        replica.error = 'not a streaming standby (pg_is_in_recovery() is false)';
        return;
      }
      // Taken as it is, not as the furthest seen: a standby rebuilt from an older base backup starts again lower.
      replica.replayed = parseLsn(row.replayed);
      const lag = lagOf(this.#samples, replica.replayed, Date.now());
      replica.lagMs = lag;
      replica.state = lag !== null && lag <= this.#opts.maxLagMs ? 'serving' : 'lagging';
      replica.error = null;
    } catch (err) {
      replica.down(err);
    }
  }

  /**
   * The replica a read request uses, or null for the primary. `mark` is the WAL position after the last write of
   * the request's token or session (null: none recorded): a replica that has not replayed it is waited for up to
   * waitMs, polling its position, then given up for the primary.
   */
  async choose(mark: string | null): Promise<Replica | null> {
    const serving = this.replicas.filter((r) => r.state === 'serving');
    if (!serving.length) return null;
    const needed = mark === null ? 0n : parseLsn(mark);
    const ready = serving.filter((r) => r.replayed >= needed);
    if (ready.length) return this.#leastBusy(ready);
    if (this.#opts.waitMs === 0) return null;
    // The one furthest along is the likeliest to get there first.
    const replica = serving.reduce((a, b) => (b.replayed > a.replayed ? b : a));
    const deadline = Date.now() + this.#opts.waitMs;
    for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
      try {
        const { rows } = await replica.probe.query<{ replayed: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS replayed');
        replica.observe(rows[0]!.replayed);
      } catch (err) {
        replica.down(err);
        return null;
      }
      if (replica.replayed >= needed) return replica;
      const left = deadline - Date.now();
      if (left <= 0) return null;
      await new Promise((r) => setTimeout(r, Math.min(pause, left)));
    }
  }

  #leastBusy(candidates: Replica[]): Replica {
    // Round robin among the least busy, so equal replicas share the reads.
    const start = this.#turn++ % candidates.length;
    let best = candidates[start]!;
    for (let i = 1; i < candidates.length; i++) {
      const r = candidates[(start + i) % candidates.length]!;
      if (r.busy() < best.busy()) best = r;
    }
    return best;
  }

  /** A statement on `replica` failed: the rest of the request goes to the primary, and an unreachable replica is skipped. */
  fellBack(replica: Replica, route: ReadRoute, err: unknown): void {
    route.replica = null;
    if ((err as { code?: string }).code === '25006') route.wrote = true;
    else if (isConnectionError(err)) replica.down(err);
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((r) => ({ name: r.name, state: r.state, lag_ms: r.lagMs, statements: r.statements, error: r.state === 'serving' ? null : r.error }));
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#checking?.catch(() => {});
    await Promise.all([
      this.#primary.end(),
      this.#primaryProbe.end().catch(() => {}),
      ...this.replicas.flatMap((r) => [r.pool.end().catch(() => {}), r.probe.end().catch(() => {})]),
    ]);
  }
}

/**
 * A client of a read request with a replica: its first statement decides where it runs. A transaction (Kysely
 * begins one with BEGIN or START TRANSACTION) and an advisory lock (a replica's locks exclude nobody on the
 * primary) go to the primary; any other statement to the replica, and to the primary after the replica failed it.
 */
class RoutedClient {
  #client: pg.PoolClient | null = null;
  #replica: Replica | null = null;

  constructor(
    private readonly set: ReplicaSet,
    private readonly route: ReadRoute,
    private readonly primary: pg.Pool,
  ) {}

  async query(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    if (!this.#client) await this.#bind(text);
    const replica = this.#replica;
    if (!replica) return this.#client!.query(text, values);
    try {
      const result = await this.#client!.query(text, values);
      replica.statements++;
      return result;
    } catch (err) {
      if (isCancelled(err)) throw err;
      this.set.fellBack(replica, this.route, err);
      // A broken connection is destroyed rather than returned to the pool.
      this.release(isConnectionError(err) ? (err as Error) : undefined);
      this.#client = await this.primary.connect();
      return this.#client.query(text, values);
    }
  }

  async #bind(text: string): Promise<void> {
    const replica = this.route.replica;
    // A replica whose connections are all in use passes the statement to the primary rather than queue it; and so a
    // connection it fails to open means it cannot be reached (not that it is busy).
    if (replica && replica.state === 'serving' && !replica.saturated() && !/^\s*(begin|start\s+transaction)\b/i.test(text) && !/advisory/i.test(text)) {
      try {
        this.#client = await replica.pool.connect();
        this.#replica = replica;
        return;
      } catch (err) {
        this.set.fellBack(replica, this.route, err);
      }
    }
    this.#client = await this.primary.connect();
  }

  release(err?: Error | boolean): void {
    const client = this.#client;
    this.#client = null;
    this.#replica = null;
    client?.release(err);
  }
}
