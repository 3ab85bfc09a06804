// Failed sign-ins and token checks, counted per username and per address (core/auth/throttle.ts), in the database
// so every process of a deployment throttles as one; and on each user, the count and the block an administrator sees.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE sign_in_failures (
      key varchar(300) PRIMARY KEY,
      failures integer NOT NULL,
      last_failure timestamptz NOT NULL,
      blocked_until timestamptz
    )`.execute(db);
  await sql`ALTER TABLE users ADD COLUMN failed_sign_ins integer NOT NULL DEFAULT 0, ADD COLUMN sign_in_blocked_until timestamptz`.execute(db);
}
