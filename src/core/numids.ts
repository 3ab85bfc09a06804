// Per-tenant sequential numbers for humans (`numid`), allocated in blocks so bulk inserts take one query.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';

/**
 * The statement that reserves `count` numbers for rows of `table` in `scope` (a tenant id, or 'global'), returning
 * `last`, the last of them: to run inside another statement as a CTE (a single create takes its number so).
 */
export function numidCounterStep(scope: string, table: string, count: number): RawBuilder<{ last: number }> {
  return sql<{ last: number }>`INSERT INTO numid_counters (scope, table_name, last) VALUES (${scope}, ${table}, ${count})
    ON CONFLICT (scope, table_name) DO UPDATE SET last = numid_counters.last + ${count}
    RETURNING last`;
}

/**
 * Moves the counter of `table` in `scope` up to `last` (never down): rows written with numbers of their own (an
 * import keeping another system's ids) and the numbers given after them do not meet.
 */
export async function raiseNumidCounter(tx: Kysely<DB>, scope: string, table: string, last: number): Promise<void> {
  await sql`INSERT INTO numid_counters (scope, table_name, last) VALUES (${scope}, ${table}, ${last})
    ON CONFLICT (scope, table_name) DO UPDATE SET last = EXCLUDED.last WHERE numid_counters.last < EXCLUDED.last`.execute(tx);
}

/** Reserves `count` numbers for rows of `table` in `scope` (a tenant id, or 'global'); returns the first. */
export async function allocateNumids(tx: Kysely<DB>, scope: string, table: string, count: number): Promise<number> {
  const { rows } = await numidCounterStep(scope, table, count).execute(tx);
  return rows[0]!.last - count + 1;
}
