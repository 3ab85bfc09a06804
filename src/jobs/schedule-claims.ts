// One run per planned time of a schedule, however many processes run the schedules: each process's timer fires,
// and the first to claim (name, planned time) in the database runs it; the others see the claim and skip.
import { sql, type Kysely } from 'kysely';
import type { Cron } from 'croner';
import type { DB } from '../db/types.ts';

/** Claims kept this long: enough to read back what ran, small enough never to matter. */
const KEEP_DAYS = 30;

/**
 * The planned time of the run a timer just fired for: the pattern's latest occurrence up to now (a timer fires at
 * or just after it). Every process computes the same time from the same pattern, whatever its own delay.
 */
export function plannedRun(cron: Cron, now = new Date()): Date {
  return cron.previousRuns(1, new Date(now.getTime() + 1))[0] ?? now;
}

/** True for the one caller that claims this planned run; false for everyone after it. */
export async function claimScheduledRun(db: Kysely<DB>, name: string, planned: Date): Promise<boolean> {
  const { rows } = await sql<{ name: string }>`INSERT INTO schedule_claims (name, planned) VALUES (${name}, ${planned.toISOString()}::timestamptz)
    ON CONFLICT DO NOTHING RETURNING name`.execute(db);
  if (rows.length) await sql`DELETE FROM schedule_claims WHERE name = ${name} AND planned < now() - make_interval(days => ${KEEP_DAYS})`.execute(db);
  return rows.length === 1;
}
