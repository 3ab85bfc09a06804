// The count of an unfiltered list without counting the table: statement triggers on every tenant-scoped model's
// table keep rows per tenant in row_counts (migration 0031's cairn_count_rows), whatever writes them (the write
// service, cascades, bulk loads). Installed from the registry after every migration run, as the search
// triggers are, so a model added by a release is counted from its first start.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../../db/types.ts';
import { runAfterMigrations } from '../../db/migrator.ts';
import { allModels } from '../registry.ts';

const INSERT_TRIGGER = 'cairn_row_count_insert';
const DELETE_TRIGGER = 'cairn_row_count_delete';

/** Adds the counting triggers to tenant-scoped tables that lack them, and counts those tables' rows once. */
export async function syncRowCountTriggers(db: Kysely<DB>): Promise<string[]> {
  const tables = [...new Set(allModels().filter((m) => m.tenantScoped).map((m) => m.table))];
  const { rows } = await sql<{ table: string }>`SELECT c.relname AS table FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    WHERE t.tgname = ${INSERT_TRIGGER}`.execute(db);
  const counted = new Set(rows.map((r) => r.table));
  const added = tables.filter((t) => !counted.has(t));
  for (const table of added) {
    // One transaction per table: CREATE TRIGGER locks out writers until the seed count commits with it, so no
    // row is counted twice or missed.
    await db.transaction().execute(async (tx) => {
      await sql`${sql.raw(`CREATE TRIGGER ${INSERT_TRIGGER} AFTER INSERT ON ${table} REFERENCING NEW TABLE AS new_rows
          FOR EACH STATEMENT EXECUTE FUNCTION cairn_count_rows();
        CREATE TRIGGER ${DELETE_TRIGGER} AFTER DELETE ON ${table} REFERENCING OLD TABLE AS old_rows
          FOR EACH STATEMENT EXECUTE FUNCTION cairn_count_rows()`)}`.execute(tx);
      await sql`DELETE FROM row_counts WHERE table_name = ${table}`.execute(tx);
      await sql`INSERT INTO row_counts (table_name, tenant_id, n)
        SELECT ${table}, tenant_id, count(*) FROM ${sql.table(table)} WHERE tenant_id IS NOT NULL GROUP BY tenant_id`.execute(tx);
    });
  }
  return added;
}

runAfterMigrations(async (db) => {
  await syncRowCountTriggers(db);
});

/** Delta rows a count may gather before a read folds them into one. */
const FOLD_AFTER = 64;

/**
 * The kept count of a table in one tenant, as an expression a statement can carry: "n/parts", the sum of its delta
 * rows (one indexed range read) and how many there are, for keptCountOf.
 */
export function keptCountSql(table: string, tenantId: string): RawBuilder<string> {
  return sql<string>`(SELECT coalesce(sum(n), 0)::text || '/' || count(*) FROM row_counts WHERE table_name = ${table} AND tenant_id = ${tenantId})`;
}

/**
 * The count keptCountSql read. When the delta rows have piled up, it folds them into one, in one statement that
 * concurrent writers do not wait on.
 */
export async function keptCountOf(db: Kysely<DB>, table: string, tenantId: string, kept: string): Promise<number> {
  const [n, parts] = kept.split('/');
  if (Number(parts) > FOLD_AFTER) await foldRowCounts(db, table, tenantId);
  return Number(n);
}

/**
 * Replaces a table's delta rows in one tenant by their sum. Readers see the rows before or the row after, never
 * both; a concurrent fold skips the rows this one took.
 */
export async function foldRowCounts(db: Kysely<DB>, table: string, tenantId: string): Promise<void> {
  await fold(db, sql`table_name = ${table} AND tenant_id = ${tenantId}`);
}

/**
 * Folds the delta rows of every table and tenant that has more than one: the deltas of a table no one lists
 * unfiltered (the change log, say) are never folded by a read, and would grow with every write. Returns how many
 * delta rows it took.
 */
export function foldAllRowCounts(db: Kysely<DB>): Promise<number> {
  return fold(db, sql`(table_name, tenant_id) IN (SELECT table_name, tenant_id FROM row_counts GROUP BY table_name, tenant_id HAVING count(*) > 1)`);
}

/** Replaces the delta rows `which` selects by one row per table and tenant, in one statement; returns how many it took. */
async function fold(db: Kysely<DB>, which: RawBuilder<unknown>): Promise<number> {
  const { rows } = await sql<{ n: number }>`WITH gone AS (DELETE FROM row_counts WHERE ${which} RETURNING table_name, tenant_id, n),
      kept AS (INSERT INTO row_counts (table_name, tenant_id, n) SELECT table_name, tenant_id, sum(n) FROM gone GROUP BY table_name, tenant_id)
    SELECT count(*)::int AS n FROM gone`.execute(db);
  return rows[0]?.n ?? 0;
}
