// Cables take NetBox's statuses: Connected (each tenant's default for new cables), Planned and Decommissioning
// (the device statuses of those names). Cables made before keep the status they have, none included: the
// migration does not guess what an existing cable's state is.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE statuses SET available_to = ARRAY(SELECT DISTINCT unnest(available_to || ARRAY['dcim.cable']::text[]) ORDER BY 1)
    WHERE slug IN ('planned', 'decommissioning')`.execute(db);
  // A tenant that already defaults cables to a status of its own keeps it (Connected is then only available).
  await sql`WITH need AS (
      SELECT t.id, NOT EXISTS (SELECT 1 FROM statuses d WHERE d.tenant_id = t.id AND 'dcim.cable' = ANY(d.default_for)) AS as_default
      FROM tenants t WHERE NOT EXISTS (SELECT 1 FROM statuses s WHERE s.tenant_id = t.id AND (s.slug = 'connected' OR s.name = 'Connected'))
    ), numbered AS (
      INSERT INTO numid_counters (scope, table_name, last) SELECT id::text, 'statuses', 1 FROM need
      ON CONFLICT (scope, table_name) DO UPDATE SET last = numid_counters.last + 1 RETURNING scope, last
    )
    INSERT INTO statuses (id, numid, tenant_id, name, slug, color, available_to, default_for)
    SELECT gen_random_uuid(), n.last, n.scope::uuid, 'Connected', 'connected', '4caf50', ARRAY['dcim.cable']::text[],
      CASE WHEN need.as_default THEN ARRAY['dcim.cable']::text[] ELSE ARRAY[]::text[] END
    FROM numbered n JOIN need ON need.id::text = n.scope`.execute(db);
}
