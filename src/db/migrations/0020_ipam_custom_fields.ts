// Custom fields on the IPAM models NetBox offers them on: prefixes, addresses, ranges, VLANs, VRFs, aggregates.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['prefixes', 'ip_addresses', 'ip_ranges', 'vlans', 'vrfs', 'aggregates']) {
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN custom_fields jsonb NOT NULL DEFAULT '{}'::jsonb`.execute(db);
  }
}
