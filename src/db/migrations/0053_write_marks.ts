// Read-your-writes with read replicas (src/db/replicas.ts): for each token or session that wrote, the primary's WAL
// position after its last write. A read by that token or session goes to a replica only once the replica has
// replayed that far. Unlogged: a mark is written after every write request, and writing it must cost no WAL and no
// fsync; a crash that empties the table costs only reads from a replica a few milliseconds behind. Standbys cannot
// read unlogged tables, and need not: marks are read on the primary only.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE UNLOGGED TABLE write_marks (
      key varchar(100) PRIMARY KEY,
      lsn pg_lsn NOT NULL,
      marked_at timestamptz NOT NULL
    )`.execute(db);
}
