// The verify step, run by the NEW release on the migrated database before it serves anyone: nothing pending,
// nothing applied that this code does not ship, one row of every table readable, and a few list endpoints
// answering without a server error.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { Config } from '../../config.ts';
import { migrationState } from '../../db/migrator.ts';
import type { FastifyInstance } from 'fastify';
import { allModels } from '../../core/registry.ts';
import { createToken } from '../../core/accounts.ts';

const LIST_ENDPOINTS = 5;

export class VerifyError extends Error {}

/** Builds the HTTP app the check calls (src/app.ts's buildApp, handed in by the command line: the upgrade domain does not import the app). */
export type AppBuilder = (opts: { database: Database; config: Config }) => Promise<FastifyInstance>;

export async function verifyRelease(database: Database, config: Config, buildApp: AppBuilder): Promise<string> {
  const { db } = database;
  const state = await migrationState(db);
  if (state.dbBehindCode.length) throw new VerifyError(`migrations not applied: ${state.dbBehindCode.join(', ')}`);
  if (state.codeBehindDb.length) throw new VerifyError(`the database has migrations this code does not ship: ${state.codeBehindDb.join(', ')}`);

  const tables = (await sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`.execute(db)).rows;
  for (const { name } of tables) {
    try {
      await sql`SELECT * FROM ${sql.table(name)} LIMIT 1`.execute(db);
    } catch (err) {
      throw new VerifyError(`table ${name} cannot be read: ${(err as Error).message}`);
    }
  }

  // A short-lived token of a superuser, removed again whatever happens.
  const admin = (await sql<{ username: string }>`SELECT username FROM users WHERE is_superuser AND is_active ORDER BY username LIMIT 1`.execute(db)).rows[0];
  const paths = allModels().filter((m) => m.tenantScoped).slice(0, LIST_ENDPOINTS).map((m) => m.path);
  if (!admin) return `read ${tables.length} tables; no superuser yet, list endpoints not tried`;
  const marker = `cairn upgrade verify ${randomBytes(6).toString('hex')}`;
  const app = await buildApp({ database, config });
  try {
    const key = await createToken(db, { username: admin.username, description: marker, expiresDays: 1 });
    for (const path of paths) {
      const res = await app.inject({ method: 'GET', url: `${path}?limit=5`, headers: { authorization: `Token ${key}` } });
      if (res.statusCode >= 500) throw new VerifyError(`GET ${path} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
    }
  } finally {
    await sql`DELETE FROM tokens WHERE description = ${marker}`.execute(db);
    await app.close();
  }
  return `read ${tables.length} tables; ${paths.length} list endpoints answered`;
}
