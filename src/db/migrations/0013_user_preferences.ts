// Per-user UI preferences (list columns, page sizes): one JSON document per user, written by
// /api/users/me/preferences/. The primary key is the foreign-key index. PostgreSQL 13 compatible.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE user_preferences (
      user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
      data jsonb NOT NULL DEFAULT '{}',
      last_updated timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
}
