// Several processes run the same schedules (two `cairn serve` behind a load balancer, `cairn worker`s): each
// planned run of a schedule is claimed here first, and only the process whose claim lands runs it.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE schedule_claims (
    name text NOT NULL,
    planned timestamptz NOT NULL,
    claimed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (name, planned)
  )`.execute(db);
}
