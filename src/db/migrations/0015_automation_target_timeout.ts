// How long a deploy launch (and a status read) may wait for the automation system, per target: a slow AWX behind
// a proxy needs more than the old fixed 30 s, a webhook receiver that should answer at once, less.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE automation_targets ADD COLUMN timeout_seconds integer NOT NULL DEFAULT 30`.execute(db);
}
