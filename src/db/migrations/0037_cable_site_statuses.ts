// Cables take NetBox's statuses: Connected (each tenant's default for new cables), Planned and Decommissioning
// (the device statuses of those names); sites take Active (their default), Planned and Decommissioning. Cables and
// sites made before keep the status they have, none included: the migration does not guess an existing one's state.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE statuses SET available_to = ARRAY(SELECT DISTINCT unnest(available_to || ARRAY['dcim.cable', 'organization.site']::text[]) ORDER BY 1)
    WHERE slug IN ('planned', 'decommissioning')`.execute(db);
  await sql`UPDATE statuses SET available_to = ARRAY(SELECT DISTINCT unnest(available_to || ARRAY['organization.site']::text[]) ORDER BY 1)
    WHERE slug = 'active'`.execute(db);
  // Active becomes the sites' default where the tenant has none of its own.
  await sql`UPDATE statuses SET default_for = ARRAY(SELECT DISTINCT unnest(default_for || ARRAY['organization.site']::text[]) ORDER BY 1)
    WHERE slug = 'active' AND NOT EXISTS (SELECT 1 FROM statuses o WHERE o.tenant_id = statuses.tenant_id AND 'organization.site' = ANY(o.default_for))`.execute(db);
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
