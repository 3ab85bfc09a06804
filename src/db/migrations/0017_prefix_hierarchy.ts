// IPAM hierarchy: each prefix keeps its depth (containing prefixes in the same tenant and VRF) and its children
// (prefixes it contains), kept by the write path (src/ipam/hierarchy.ts) so a list page reads them as columns.
// Prefixes, VLANs and IP ranges get the statuses NetBox starts with (container, active, reserved, deprecated).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE prefixes ADD COLUMN depth integer NOT NULL DEFAULT 0, ADD COLUMN children integer NOT NULL DEFAULT 0`.execute(db);
  await sql`UPDATE prefixes p SET
      depth = (SELECT count(*) FROM prefixes q WHERE q.tenant_id = p.tenant_id AND q.vrf_id IS NOT DISTINCT FROM p.vrf_id AND q.prefix >> p.prefix),
      children = (SELECT count(*) FROM prefixes q WHERE q.tenant_id = p.tenant_id AND q.vrf_id IS NOT DISTINCT FROM p.vrf_id AND q.prefix << p.prefix)`.execute(db);
  // Existing tenants: the shared statuses become available to prefixes and VLANs, and each gets a Container.
  await sql`UPDATE statuses SET available_to = ARRAY(SELECT DISTINCT unnest(available_to || ARRAY['ipam.prefix', 'ipam.vlan']::text[]) ORDER BY 1)
    WHERE slug IN ('active', 'reserved', 'deprecated')`.execute(db);
  await sql`UPDATE statuses SET default_for = ARRAY(SELECT DISTINCT unnest(default_for || ARRAY['ipam.prefix', 'ipam.vlan']::text[]) ORDER BY 1)
    WHERE slug = 'active' AND NOT EXISTS (SELECT 1 FROM statuses o WHERE o.tenant_id = statuses.tenant_id AND o.id <> statuses.id
      AND ('ipam.prefix' = ANY(o.default_for) OR 'ipam.vlan' = ANY(o.default_for)))`.execute(db);
  await sql`WITH need AS (
      SELECT t.id FROM tenants t WHERE NOT EXISTS (SELECT 1 FROM statuses s WHERE s.tenant_id = t.id AND (s.slug = 'container' OR s.name = 'Container'))
    ), numbered AS (
      INSERT INTO numid_counters (scope, table_name, last) SELECT id::text, 'statuses', 1 FROM need
      ON CONFLICT (scope, table_name) DO UPDATE SET last = numid_counters.last + 1 RETURNING scope, last
    )
    INSERT INTO statuses (id, numid, tenant_id, name, slug, color, available_to, default_for)
    SELECT gen_random_uuid(), n.last, n.scope::uuid, 'Container', 'container', '9e9e9e', ARRAY['ipam.prefix']::text[], ARRAY[]::text[] FROM numbered n`.execute(db);
}
