// Nightly compliance evaluation. Rules are re-checked on every change already; this run catches what moves with
// the calendar alone (a platform whose support ends inside the warning window today). Runs where background work
// runs, after the 05:35 end-of-life refresh.
import { evaluateRules, evaluationSummary } from './service.ts';
import { runRecordedJob } from '../jobs/run.ts';
import { defineSchedule } from '../jobs/registry.ts';

export const COMPLIANCE_SCHEDULE = process.env.CAIRN_COMPLIANCE_CRON ?? '15 6 * * *';

defineSchedule({
  name: 'compliance',
  kind: 'compliance.evaluate',
  description: 'Evaluate every compliance rule of every tenant.',
  schedule: COMPLIANCE_SCHEDULE,
  setting: 'CAIRN_COMPLIANCE_CRON',
  scope: 'deployment',
  run: async (db) => {
    await runRecordedJob(db, { kind: 'compliance.evaluate', tenantId: null, startedBy: 'schedule:compliance' }, () => evaluateRules(db, null), evaluationSummary);
  },
});
