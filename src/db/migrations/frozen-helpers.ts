// What migrations share, frozen: a migration is run years after it was written, on databases of its own time, so
// it must not change when today's code does. Migrations import from src/db only (test/import-cycles.test.ts);
// never change what a function here does: add a new one for a new need.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

/** A time-ordered UUID v7, as the application writes them (core/ids.ts is the fast one). */
export function migrationUuidv7(): string {
  const hex = Date.now().toString(16).padStart(12, '0') + randomBytes(10).toString('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Reserves `count` object numbers for rows of `table` in `scope` (a tenant id, or 'global'); returns the first. */
export async function migrationAllocateNumids(db: Kysely<unknown>, scope: string, table: string, count: number): Promise<number> {
  const { rows } = await sql<{ last: number }>`INSERT INTO numid_counters (scope, table_name, last) VALUES (${scope}, ${table}, ${count})
    ON CONFLICT (scope, table_name) DO UPDATE SET last = numid_counters.last + ${count}
    RETURNING last`.execute(db);
  return Number(rows[0]!.last) - count + 1;
}
