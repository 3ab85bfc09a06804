// Nightly compliance evaluation. Rules are re-checked on every change already; this run catches what moves with
// the calendar alone (a platform whose support ends inside the warning window today). Runs where background work
// runs, after the 05:35 end-of-life refresh.
import { Cron } from 'croner';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { evaluateRules } from './service.ts';
import { runRecordedJob } from '../jobs/run.ts';

export const COMPLIANCE_SCHEDULE = process.env.CAIRN_COMPLIANCE_CRON ?? '15 6 * * *';

export function startComplianceSchedule(db: Kysely<DB>): () => void {
  const job = new Cron(COMPLIANCE_SCHEDULE, { protect: true }, async () => {
    try {
      await runRecordedJob(db, { kind: 'compliance.evaluate', tenantId: null, startedBy: 'schedule:compliance' }, () => evaluateRules(db, null), (r) => `${r.rules} rules evaluated, ${r.violations} violations`);
    } catch (err) {
      console.error(`compliance schedule: ${(err as Error).message}`);
    }
  });
  return () => job.stop();
}
