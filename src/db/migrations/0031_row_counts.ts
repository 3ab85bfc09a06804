import { sql, type Kysely } from 'kysely';

// Rows per tenant per table, kept by statement triggers (src/core/crud/row-counts.ts installs them on every
// tenant-scoped model's table): an unfiltered list reads its count here instead of counting the table, so its
// page costs the same at 300,000 rows as at 3,000.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE row_counts (
      table_name text NOT NULL,
      tenant_id uuid NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (table_name, tenant_id)
    );
    CREATE FUNCTION cairn_count_rows() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO row_counts AS c (table_name, tenant_id, n)
          SELECT TG_TABLE_NAME, tenant_id, count(*) FROM new_rows WHERE tenant_id IS NOT NULL GROUP BY tenant_id
          ON CONFLICT (table_name, tenant_id) DO UPDATE SET n = c.n + EXCLUDED.n;
      ELSE
        UPDATE row_counts c SET n = c.n - d.k
          FROM (SELECT tenant_id, count(*) AS k FROM old_rows WHERE tenant_id IS NOT NULL GROUP BY tenant_id) d
          WHERE c.table_name = TG_TABLE_NAME AND c.tenant_id = d.tenant_id;
      END IF;
      RETURN NULL;
    END $$;
  `.execute(db);
}
