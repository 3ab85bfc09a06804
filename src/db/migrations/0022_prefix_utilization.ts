// A prefix's utilisation as a column kept by the write path (src/ipam/utilization.ts), so a list page reads it
// instead of counting addresses per row. Existing rows are filled here with the same rules.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE prefixes ADD COLUMN utilization double precision NOT NULL DEFAULT 0`.execute(db);
  await sql`UPDATE prefixes t SET utilization = x.pct FROM (
    SELECT p.id, round(least(100, 100 * (CASE WHEN s.slug = 'container' THEN
        (SELECT coalesce(sum(power(2::numeric, (CASE family(c.prefix) WHEN 4 THEN 32 ELSE 128 END) - masklen(c.prefix))), 0) FROM prefixes c
          WHERE c.tenant_id = p.tenant_id AND (p.vrf_id IS NULL OR c.vrf_id IS NOT DISTINCT FROM p.vrf_id) AND c.prefix << p.prefix
            AND NOT EXISTS (SELECT 1 FROM prefixes m WHERE m.tenant_id = p.tenant_id AND (p.vrf_id IS NULL OR m.vrf_id IS NOT DISTINCT FROM p.vrf_id)
              AND m.prefix << p.prefix AND m.prefix >> c.prefix))
      ELSE
        (SELECT count(DISTINCT host(a.address))::numeric FROM ip_addresses a
          WHERE a.tenant_id = p.tenant_id AND a.vrf_id IS NOT DISTINCT FROM p.vrf_id AND a.address && p.prefix AND host(a.address)::inet <<= p.prefix
            AND NOT EXISTS (SELECT 1 FROM ip_ranges r WHERE r.tenant_id = p.tenant_id AND r.vrf_id IS NOT DISTINCT FROM p.vrf_id AND r.mark_utilized
              AND host(a.address)::inet BETWEEN host(r.start_address)::inet AND host(r.end_address)::inet))
        + (SELECT coalesce(sum(CASE WHEN family(r.start_address) = 4 OR host(r.end_address)::inet < host(r.start_address)::inet + 4611686018427387904
              THEN (host(r.end_address)::inet - host(r.start_address)::inet + 1)::numeric ELSE power(2::numeric, 62) END), 0) FROM ip_ranges r
            WHERE r.tenant_id = p.tenant_id AND r.vrf_id IS NOT DISTINCT FROM p.vrf_id AND r.mark_utilized
              AND host(r.start_address)::inet <<= p.prefix AND host(r.end_address)::inet <<= p.prefix)
      END) / greatest(1, power(2::numeric, (CASE family(p.prefix) WHEN 4 THEN 32 ELSE 128 END) - masklen(p.prefix))
        - CASE WHEN family(p.prefix) = 4 AND masklen(p.prefix) < 31 AND NOT p.is_pool AND coalesce(s.slug, '') <> 'container' THEN 2 ELSE 0 END)), 1)::float8 AS pct
    FROM prefixes p LEFT JOIN statuses s ON s.id = p.status_id) x
    WHERE t.id = x.id`.execute(db);
}
