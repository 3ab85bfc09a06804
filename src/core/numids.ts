// Per-tenant sequential numbers for humans (`numid`), allocated in blocks so bulk inserts take one query.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';

/** Reserves `count` numbers for rows of `table` in `scope` (a tenant id, or 'global'); returns the first. */
export async function allocateNumids(tx: Kysely<DB>, scope: string, table: string, count: number): Promise<number> {
  const { rows } = await sql<{ last: number }>`
    INSERT INTO numid_counters (scope, table_name, last) VALUES (${scope}, ${table}, ${count})
    ON CONFLICT (scope, table_name) DO UPDATE SET last = numid_counters.last + ${count}
    RETURNING last`.execute(tx);
  return rows[0]!.last - count + 1;
}
