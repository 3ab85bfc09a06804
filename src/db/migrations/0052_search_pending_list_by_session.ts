// The trigram search index's pending-list cap (256 kB, migration 0032) moves from the index to each session
// (PENDING_LIST_KB in db/database.ts): a setting on the index overrides every session's, so a bulk load could not
// raise it without locking the index against every search, and merging a 256 kB list at a time cost a bulk load
// 7-9 µs for each entry written (1.5 million entries for 50,000 devices). A bulk load now raises the cap for its
// own transaction and merges what it wrote before it ends; other writers keep 256 kB.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DO $$ BEGIN
    IF to_regclass('search_index_trgm_idx') IS NOT NULL THEN
      ALTER INDEX search_index_trgm_idx RESET (gin_pending_list_limit);
    END IF;
  END $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DO $$ BEGIN
    IF to_regclass('search_index_trgm_idx') IS NOT NULL THEN
      ALTER INDEX search_index_trgm_idx SET (gin_pending_list_limit = 256);
    END IF;
  END $$`.execute(db);
}
