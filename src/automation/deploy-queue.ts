// Deploy-run status reads as a queue of the job registry: the host's dispatch tick claims runs whose next read is
// due, and each becomes a pg-boss job. Retries are ours (deploy_runs.next_poll_at), so every read is recorded.
import { defineQueue } from '../jobs/registry.ts';
import { claimDueRuns, deploySettings, pollDeployRun } from './deploy.ts';

defineQueue<{ runId: string }>({
  name: 'deploy-poll',
  expireInSeconds: 120,
  batchSize: 10,
  claim: async (db) => (await claimDueRuns(db)).map((runId) => ({ runId })),
  work: async (db, items, env) => {
    const settings = deploySettings(env);
    const outcomes = await Promise.allSettled(items.map((i) => pollDeployRun(db, i.runId, settings)));
    for (const o of outcomes) if (o.status === 'rejected') console.error(`deploy status read failed: ${(o.reason as Error)?.message ?? String(o.reason)}`);
  },
});
