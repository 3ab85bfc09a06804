import { sql, type Kysely } from 'kysely';

// The device list's trigram index is written straight into the index, with no pending list (GIN's fast update).
// The planner prices every pending page into each arm of q's OR: after 2,000 devices were added it priced the
// index at 140 an arm and read the tenant's every device instead (four ILIKEs a row, 2.4–5 ms a search), where
// the index answers in 0.1 ms once the list is merged. Devices are written a few at a time, so the cost moves to
// their inserts, where it is small; the search index (written on every change) keeps its capped pending list.

// Inlined: a DO block's body takes no parameters.
const INDEX = sql.lit('devices_q_trgm');

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DO $$ BEGIN
    IF to_regclass(${INDEX}) IS NOT NULL THEN
      EXECUTE format('ALTER INDEX %I SET (fastupdate = off)', ${INDEX}::text);
      -- Turning fast update off keeps what is pending; merge it now.
      PERFORM gin_clean_pending_list(to_regclass(${INDEX}));
    END IF;
  END $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DO $$ BEGIN
    IF to_regclass(${INDEX}) IS NOT NULL THEN
      EXECUTE format('ALTER INDEX %I RESET (fastupdate)', ${INDEX}::text);
    END IF;
  END $$`.execute(db);
}
