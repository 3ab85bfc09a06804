import { sql, type Kysely } from 'kysely';

// Rows per tenant per table, kept by statement triggers (src/core/crud/row-counts.ts installs them on every
// tenant-scoped model's table): an unfiltered list reads its count here instead of counting the table, so its
// page costs the same at 300,000 rows as at 3,000. Each writing statement adds a delta row (+n or -n) rather than
// updating one counter row: an update would hold that row's lock until commit, serialising every writer of a
// table and deadlocking two transactions that write two tables in opposite orders. Readers sum the deltas and
// fold them into one row when they have piled up.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE row_counts (
      table_name text NOT NULL,
      tenant_id uuid NOT NULL,
      n bigint NOT NULL
    );
    CREATE INDEX row_counts_table_tenant ON row_counts (table_name, tenant_id);
    CREATE FUNCTION cairn_count_rows() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO row_counts (table_name, tenant_id, n)
          SELECT TG_TABLE_NAME, tenant_id, count(*) FROM new_rows WHERE tenant_id IS NOT NULL GROUP BY tenant_id;
      ELSE
        INSERT INTO row_counts (table_name, tenant_id, n)
          SELECT TG_TABLE_NAME, tenant_id, -count(*) FROM old_rows WHERE tenant_id IS NOT NULL GROUP BY tenant_id;
      END IF;
      RETURN NULL;
    END $$;
  `.execute(db);
}
