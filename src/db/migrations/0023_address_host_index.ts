// An address's host as a stored column (10.0.0.1/24 and 10.0.0.1/32 are one host), indexed by space: available-
// ips walks the used hosts of a prefix in index order without computing host() per row, and utilisation and
// duplicate checks compare hosts directly.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE ip_addresses ADD COLUMN host inet GENERATED ALWAYS AS (host(address)::inet) STORED`.execute(db);
  await sql`CREATE INDEX ip_addresses_tenant_vrf_host_idx ON ip_addresses (tenant_id, vrf_id, host)`.execute(db);
}
