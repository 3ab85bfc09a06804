// NetBox's enforce_unique: a VRF refuses duplicate addresses and prefixes unless it is turned off (the global
// table follows the deployment's CAIRN_ENFORCE_GLOBAL_UNIQUE). Existing duplicates stay; the next write that
// moves one of them is refused.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE vrfs ADD COLUMN enforce_unique boolean NOT NULL DEFAULT true`.execute(db);
  // The duplicate checks look up an address's host and a prefix within a tenant and VRF.
  await sql`CREATE INDEX ip_addresses_host ON ip_addresses (tenant_id, vrf_id, host(address))`.execute(db);
}
