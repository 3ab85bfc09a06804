// Deployment-wide state (settings, last checks, attempts) kept as one JSON document per key in system_state.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';

export async function readState<T>(db: Kysely<DB>, key: string): Promise<T | null> {
  const { rows } = await sql<{ value: T }>`SELECT value FROM system_state WHERE key = ${key}`.execute(db);
  return rows[0]?.value ?? null;
}

export async function writeState(db: Kysely<DB>, key: string, value: unknown): Promise<void> {
  await sql`INSERT INTO system_state (key, value) VALUES (${key}, ${JSON.stringify(value)}::jsonb)
    ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated = now()`.execute(db);
}

export async function deleteState(db: Kysely<DB>, key: string): Promise<void> {
  await sql`DELETE FROM system_state WHERE key = ${key}`.execute(db);
}
