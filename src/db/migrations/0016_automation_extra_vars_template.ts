// Extra variables as a template: rendered per deploy with the device's render context, so a run can be handed
// per-device facts (site, role, loopbacks) the automation system would otherwise look up itself.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE automation_targets ADD COLUMN extra_vars_template text NOT NULL DEFAULT ''`.execute(db);
}
