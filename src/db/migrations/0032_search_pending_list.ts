import { sql, type Kysely } from 'kysely';

// The trigram index's pending list (GIN's fast update) is read in full by every search: after a load it held
// 414 pages and made a fragment search ten times slower (3.6 ms instead of 0.3) until a vacuum merged it.
// Capped at 256 kB, it is merged into the index as it fills and a search reads at most 32 pages of it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DO $$ BEGIN
    IF to_regclass('search_index_trgm_idx') IS NOT NULL THEN
      ALTER INDEX search_index_trgm_idx SET (gin_pending_list_limit = 256);
    END IF;
  END $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DO $$ BEGIN
    IF to_regclass('search_index_trgm_idx') IS NOT NULL THEN
      ALTER INDEX search_index_trgm_idx RESET (gin_pending_list_limit);
    END IF;
  END $$`.execute(db);
}
