// GET /api/health/: answers without authentication, during maintenance too. The migration comparison is
// cached for 60 s; the database probe is not, so an outage shows at once.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { migrationState, type MigrationState } from '../db/migrator.ts';
import { readMaintenance } from './maintenance.ts';

const MIGRATION_CACHE_MS = 60_000;

export function registerHealthRoutes(app: FastifyInstance): void {
  let migrations: { state: MigrationState; at: number } | null = null;

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
        if (!migrations || age > MIGRATION_CACHE_MS || age < 0) migrations = { state: await migrationState(db), at: Date.now() };
        maintenance = (await readMaintenance(db)).active;
      } catch {
        database = false;
      }
      const codeBehindDb = database ? migrations!.state.codeBehindDb : [];
      const dbBehindCode = database ? migrations!.state.dbBehindCode : [];
      const ok = database && codeBehindDb.length === 0 && dbBehindCode.length === 0;
      reply.code(database ? 200 : 503);
      return {
        status: ok ? 'ok' : database ? 'degraded' : 'unavailable',
        database,
        maintenance,
        version: app.cairnVersion,
        code_behind_db: codeBehindDb,
        db_behind_code: dbBehindCode,
      };
    },
  });
}

export const healthSchema = {
  $id: 'Health',
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok', 'degraded', 'unavailable'], description: '`ok` only when the database answers and code and database agree.' },
    database: { type: 'boolean' },
    maintenance: { type: 'boolean' },
    version: { type: 'string' },
    code_behind_db: { type: 'array', items: { type: 'string' }, description: 'Migrations applied in the database that this code does not ship.' },
    db_behind_code: { type: 'array', items: { type: 'string' }, description: 'Migrations this code ships that the database has not applied.' },
  },
  required: ['status', 'database', 'maintenance', 'version', 'code_behind_db', 'db_behind_code'],
};
