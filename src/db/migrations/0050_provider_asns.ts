// A provider's autonomous systems (NetBox's Provider.asns), now that ASNs are objects (migration 0044).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE provider_asns (
      provider_id uuid NOT NULL REFERENCES providers(id) ON DELETE CASCADE,
      asn_id uuid NOT NULL REFERENCES asns(id) ON DELETE CASCADE,
      PRIMARY KEY (provider_id, asn_id)
    )`.execute(db);
  await sql`CREATE INDEX provider_asns_asn_idx ON provider_asns (asn_id)`.execute(db);
}
