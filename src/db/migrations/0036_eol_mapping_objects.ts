import { sql, type Kysely } from 'kysely';

// End-of-life mappings become objects of the registry (lifecycle.eolmapping), written through the write service
// like any other: they take the per-tenant number every object carries (existing rows numbered in the order they
// were made, each tenant's counter moved past them), a label to be shown by (`cisco-ios-xe 17.9`, kept by the
// database from the product and cycle), and the index their list's default ordering reads.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE eol_mappings ADD COLUMN numid bigint;
    UPDATE eol_mappings m SET numid = x.n
      FROM (SELECT id, row_number() OVER (PARTITION BY tenant_id ORDER BY created, id) AS n FROM eol_mappings) x
      WHERE x.id = m.id;
    ALTER TABLE eol_mappings ALTER COLUMN numid SET NOT NULL;
    INSERT INTO numid_counters (scope, table_name, last)
      SELECT tenant_id::text, 'eol_mappings', max(numid) FROM eol_mappings GROUP BY tenant_id
      ON CONFLICT (scope, table_name) DO UPDATE SET last = greatest(numid_counters.last, excluded.last);
    ALTER TABLE eol_mappings ADD COLUMN label varchar(200) NOT NULL GENERATED ALWAYS AS (product || ' ' || cycle) STORED;
    CREATE INDEX eol_mappings_list_order ON eol_mappings (tenant_id, product, cycle, id);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX IF EXISTS eol_mappings_list_order;
    ALTER TABLE eol_mappings DROP COLUMN IF EXISTS label;
    ALTER TABLE eol_mappings DROP COLUMN IF EXISTS numid;
    DELETE FROM numid_counters WHERE table_name = 'eol_mappings';
  `.execute(db);
}
