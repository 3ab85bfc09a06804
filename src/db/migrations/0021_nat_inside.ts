// NetBox's NAT pairing of addresses: an outside address names its inside one (nat_inside); the inside address
// lists its outside ones (nat_outside, derived).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE ip_addresses ADD COLUMN nat_inside_id uuid REFERENCES ip_addresses(id) ON DELETE SET NULL`.execute(db);
  await sql`CREATE INDEX ip_addresses_nat_inside_id_idx ON ip_addresses (nat_inside_id) WHERE nat_inside_id IS NOT NULL`.execute(db);
}
