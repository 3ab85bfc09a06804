// A cable may now end on any kind of object registered as a cable end (console and power ports, power feeds,
// circuit terminations…, see dcim/cable-ends.ts), so cable_terminations no longer lists the three kinds of 0027 in a
// CHECK: the cable's write path accepts only registered kinds. The primary key (termination_type, termination_id)
// still keeps each object on one cable.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE cable_terminations DROP CONSTRAINT IF EXISTS cable_terminations_termination_type_check`.execute(db);
}
