// Which database a request's statements go to when `cairn serve` has read replicas (src/db/replicas.ts). Without
// replicas nothing here runs: no hook is added and no statement is sent.
//
// Authentication and everything before it run on the primary (a token created or a session opened a moment ago
// must be found, and a failed check is a write). Once the caller is known, a GET or HEAD is given a replica, unless
// its token or session wrote something the replica has not replayed yet (read-your-writes), and the handler runs
// with that route. Every other method stays on the primary and, once answered, records its token's or session's
// write mark: the primary's WAL position after the write.
//
// Why the mark is kept in the database (write_marks, unlogged, on the primary) rather than in this process or in a
// cookie: the writer's next read may reach another `cairn serve` process behind the load balancer, and an API
// client (pynetbox, Ansible, curl) sends no cookie back. A session's mark is read by the statement that already
// checks the session on every request, so it costs nothing; a token's check is cached per process
// (credentials.ts), which would hide a newer mark, so a token's read looks its mark up: one primary-key read of a
// small table on the primary, skipped for read-only tokens (they never write) and when no replica is serving.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type pg from 'pg';
import type { ReadRoute } from '../db/replicas.ts';
import type { ResolvedCredentials } from './auth/credentials.ts';
import type { RequestContext } from './context.ts';
import { SAFE_METHODS } from './safe-methods.ts';

const READS = new Set(['GET', 'HEAD']);

interface RequestRoute {
  route: ReadRoute;
  /** The write mark's key: the token's id or the session's id. */
  markKey: string | null;
}

const routes = new WeakMap<FastifyRequest, RequestRoute>();

export function registerReadRouting(app: FastifyInstance): void {
  const replicas = app.database.replicas;
  if (!replicas) return;
  // preHandler, the last step before the handler: the route is set by then, and the handler and everything it
  // starts run inside it. Callback style, so the handler is called inside run() itself.
  app.addHook('preHandler', (req, _reply, done) => {
    const r = routes.get(req);
    if (!r?.route.replica) return done();
    replicas.run(r.route, done);
  });
  // Before the answer leaves, so the writer's next request (on any process) finds the mark.
  app.addHook('onSend', async (req, _reply, payload) => {
    const r = routes.get(req);
    if (r?.markKey && (!SAFE_METHODS.has(req.method) || r.route.wrote)) {
      try {
        await markWrite(app.database.pool, r.markKey);
      } catch (err) {
        // The write itself is done; only its next read may come from a replica that has not replayed it yet.
        req.log.warn({ err }, 'could not record the write mark for read-your-writes');
      }
    }
    return payload;
  });
  // Work a read request left running after its answer (nothing should) goes to the primary from now on.
  app.addHook('onResponse', async (req) => {
    const r = routes.get(req);
    if (r) r.route.replica = null;
  });
}

/**
 * How long a write mark is kept. A mark older than the lag limit is replayed by every replica that is used, so it
 * decides nothing any more; the limit is at most half of this (config.ts REPLICA_DEFAULTS.maxLagLimitMs).
 */
export const WRITE_MARKS_KEPT_SECONDS = 600;

/** Deletes the write marks no read needs any more (src/system/write-mark-schedule.ts runs it). */
export async function sweepWriteMarks(db: Kysely<DB>): Promise<void> {
  await sql`DELETE FROM write_marks WHERE marked_at < now() - make_interval(secs => ${WRITE_MARKS_KEPT_SECONDS})`.execute(db);
}

/** Called by the authentication hook once the caller is known: chooses where the request's statements go. */
export async function routeRequest(app: FastifyInstance, req: FastifyRequest, via: RequestContext['via'], creds: ResolvedCredentials): Promise<void> {
  const replicas = app.database.replicas;
  if (!replicas) return;
  const r: RequestRoute = { route: { replica: null, wrote: false }, markKey: via === 'token' ? creds.tokenId : creds.sessionId };
  routes.set(req, r);
  if (!READS.has(req.method) || !replicas.replicas.some((x) => x.state === 'serving')) return;
  const mark = via === 'session' ? creds.writeMark : creds.readOnly || !r.markKey ? null : await markOf(app.database.pool, r.markKey);
  r.route.replica = await replicas.choose(mark);
}

/** The WAL position recorded after the last write of `key` (a token's id or a session's id), on the primary. */
async function markOf(primary: pg.Pool, key: string): Promise<string | null> {
  const { rows } = await primary.query<{ lsn: string }>('SELECT lsn::text AS lsn FROM write_marks WHERE key = $1', [key]);
  return rows[0]?.lsn ?? null;
}

/**
 * Records that `key` has just written, on the primary. The WAL insert position is at or past the end of every
 * commit made before this statement, whatever synchronous_commit says (the write position may not be yet).
 */
async function markWrite(primary: pg.Pool, key: string): Promise<void> {
  await primary.query(
    `INSERT INTO write_marks (key, lsn, marked_at) VALUES ($1, pg_current_wal_insert_lsn(), now())
     ON CONFLICT (key) DO UPDATE SET lsn = GREATEST(write_marks.lsn, EXCLUDED.lsn), marked_at = EXCLUDED.marked_at`,
    [key],
  );
}
