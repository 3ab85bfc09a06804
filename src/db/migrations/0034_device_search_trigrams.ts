import { sql, type Kysely } from 'kysely';
import { quoteIdent } from '../quote.ts';

// `q` on the device list is `ILIKE '%…%'` over name, serial, asset tag and comments (as NetBox's): without an
// index it read the tenant's every device, 13 ms a page at 20,000 and 78 ms under load, the one list whose page
// cost still grew with its table. A trigram index on the four answers each arm of the OR (0.6 ms at 52,500
// devices). Only where pg_trgm exists (see 0011); `cairn search rebuild` creates it once the extension does
// (src/search/support.ts keeps today's definition; this one is frozen as it was).
const DEVICE_TRIGRAM_INDEX = 'devices_q_trgm';

function deviceTrigramIndexSql(trgmSchema: string): string {
  const ops = `${quoteIdent(trgmSchema)}.gin_trgm_ops`;
  return `CREATE INDEX IF NOT EXISTS ${DEVICE_TRIGRAM_INDEX} ON devices USING gin (name ${ops}, serial ${ops}, asset_tag ${ops}, comments ${ops})
    WITH (gin_pending_list_limit = 256)`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ schema: string }>`SELECT extnamespace::regnamespace::text AS schema FROM pg_extension WHERE extname = 'pg_trgm'`.execute(db);
  if (rows[0]) await sql`${sql.raw(deviceTrigramIndexSql(rows[0].schema))}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`${sql.raw(`DROP INDEX IF EXISTS ${DEVICE_TRIGRAM_INDEX}`)}`.execute(db);
}
