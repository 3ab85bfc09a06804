// GET /api/health/: answers without authentication, during maintenance too. The migration comparison is
// cached for 60 s; the database probe is not, so an outage shows at once.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { migrationState, type MigrationState } from '../db/migrator.ts';
import { readMaintenance } from './maintenance.ts';
import { extensionState, type MissingExtension } from '../search/support.ts';

const MIGRATION_CACHE_MS = 60_000;

export function registerHealthRoutes(app: FastifyInstance): void {
  let migrations: { state: MigrationState; missing: MissingExtension[]; at: number } | null = null;

  app.get('/api/health/', {
    schema: {
      tags: ['system'],
      summary: 'Health of this process and its database',
      security: [],
      response: {
        200: { $ref: 'Health#' },
        503: { $ref: 'Health#' },
      },
    },
    handler: async (_req, reply) => {
      const db = app.database.db;
      let database = true;
      let maintenance = false;
      try {
        await sql`SELECT 1`.execute(db);
        // A clock that stepped back (now < at) must not stretch the cache either.
        const age = migrations ? Date.now() - migrations.at : Infinity;
        if (!migrations || age > MIGRATION_CACHE_MS || age < 0) migrations = { state: await migrationState(db), missing: (await extensionState(db)).missing, at: Date.now() };
        maintenance = (await readMaintenance(db)).active;
      } catch {
        database = false;
      }
      const codeBehindDb = database ? migrations!.state.codeBehindDb : [];
      const dbBehindCode = database ? migrations!.state.dbBehindCode : [];
      const ok = database && codeBehindDb.length === 0 && dbBehindCode.length === 0;
      // An upgrade that keeps the site readable (core/write-gate.ts): reads are answered, changes are not.
      const readOnly = app.writeGate.readOnly;
      reply.code(database ? 200 : 503);
      // Unavailable is a state clients and load balancers wait out (a restart, an upgrade's window): say when to retry.
      if (!database) reply.header('Retry-After', '5');
      return {
        status: ok ? 'ok' : database ? 'degraded' : 'unavailable',
        database,
        maintenance: maintenance || readOnly,
        ...(readOnly ? { read_only: true } : {}),
        version: app.cairnVersion,
        code_behind_db: codeBehindDb,
        db_behind_code: dbBehindCode,
        // Only when search runs without one of its extensions, with the statement a superuser must run.
        ...(database && migrations!.missing.length ? { missing_extensions: migrations!.missing } : {}),
        // Only with read replicas: as this process sees them (each process checks them itself).
        ...(app.database.replicas ? { replicas: app.database.replicas.status() } : {}),
      };
    },
  });
}

/** Whether a request's URL is the health route's (with or without its trailing slash and a query). */
export function isHealthUrl(url: string): boolean {
  const path = url.split('?')[0];
  return path === '/api/health/' || path === '/api/health';
}

/**
 * What health answers while this process stops (a restart, an upgrade's stop step): the Health shape, so a poller
 * reads it like any other unavailable answer (the error envelope does not fit the route's 503 schema and would
 * fail to serialise into a 500).
 */
export function stoppingHealth(version: string): Record<string, unknown> {
  return { status: 'unavailable', database: false, maintenance: false, version, code_behind_db: [], db_behind_code: [], detail: 'Cairn is restarting. Try again shortly.' };
}

export const healthSchema = {
  $id: 'Health',
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok', 'degraded', 'unavailable'], description: '`ok` only when the database answers and code and database agree.' },
    database: { type: 'boolean' },
    maintenance: { type: 'boolean' },
    read_only: { type: 'boolean', description: 'Only while an upgrade keeps the site readable: true. Reads are answered; changes get 503 + Retry-After.' },
    version: { type: 'string' },
    code_behind_db: { type: 'array', items: { type: 'string' }, description: 'Migrations applied in the database that this code does not ship.' },
    db_behind_code: { type: 'array', items: { type: 'string' }, description: 'Migrations this code ships that the database has not applied.' },
    detail: { type: 'string', description: 'Present while this process stops: why it is unavailable.' },
    missing_extensions: {
      type: 'array',
      description: 'Present when search lacks a database extension (pg_trgm, unaccent): what is lost, and the statement a superuser must run.',
      items: { type: 'object', properties: { name: { type: 'string' }, statement: { type: 'string' }, effect: { type: 'string' } }, required: ['name', 'statement', 'effect'] },
    },
    replicas: {
      type: 'array',
      description:
        'Present with read replicas (CAIRN_DATABASE_REPLICA_URLS), as this process last checked them. Reads go only to `serving` ones; the others are skipped for the primary, which answers instead.',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'host:port/database' },
          state: { type: 'string', enum: ['starting', 'serving', 'lagging', 'down', 'not_a_standby'] },
          lag_ms: { type: ['integer', 'null'], description: 'How far behind the primary it was at its last check.' },
          statements: { type: 'integer', description: 'Statements it answered for this process since it started.' },
          error: { type: ['string', 'null'], description: 'Why it is not serving, when a check or a statement failed.' },
        },
        required: ['name', 'state', 'lag_ms', 'statements', 'error'],
      },
    },
  },
  required: ['status', 'database', 'maintenance', 'version', 'code_behind_db', 'db_behind_code'],
};
