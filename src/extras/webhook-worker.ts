// The outbound worker: pg-boss queues for webhook deliveries, deploy-run status reads and end-of-life catalog
// refreshes, run wherever background work runs (the embedded worker of `cairn serve`, or `cairn worker`). A croner
// tick enqueues one dispatch job (stately: at most one waiting); the dispatcher claims committed outbox rows, due
// runs and a queued refresh and turns each into a job of its own queue, so any number of worker processes share
// the work and never do one item twice.
import type { Database } from '../db/database.ts';
import { startTickedBoss, type TickedBoss } from '../jobs/ticked-boss.ts';
import { attemptDelivery, webhookSettings, type WebhookSettings } from './webhook-delivery.ts';
import { claimDueDeliveries } from './webhook-outbox.ts';
import { claimDueRuns, deploySettings, pollDeployRun, type DeploySettings } from '../automation/deploy.ts';
import { claimQueuedJob } from '../jobs/claim.ts';
import { EOL_REFRESH_KIND, runClaimedRefresh } from '../lifecycle/service.ts';

export const OUTBOUND_DISPATCH_QUEUE = 'outbound-dispatch';
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-delivery';
export const DEPLOY_POLL_QUEUE = 'deploy-poll';
export const EOL_REFRESH_QUEUE = 'eol-refresh';

export interface OutboundSettings {
  /** Cron pattern (seconds field) of the dispatch tick. */
  tick: string;
  webhooks: WebhookSettings;
  deploys: DeploySettings;
}

export function outboundSettings(env: NodeJS.ProcessEnv = process.env): OutboundSettings {
  return { tick: env.CAIRN_OUTBOUND_TICK ?? '* * * * * *', webhooks: webhookSettings(env), deploys: deploySettings(env) };
}

/** A failed item (a database error) leaves its row claimed; the lease runs out and another dispatch retries it. */
function reportFailures(what: string, outcomes: PromiseSettledResult<unknown>[]): void {
  for (const o of outcomes) if (o.status === 'rejected') console.error(`outbound worker: ${what} failed: ${(o.reason as Error)?.message ?? String(o.reason)}`);
}

export class OutboundWorker {
  private running: TickedBoss | null = null;

  constructor(
    private readonly database: Database,
    private readonly settings: OutboundSettings = outboundSettings(),
  ) {}

  async start(): Promise<void> {
    if (this.running) return;
    const db = this.database.db;
    this.running = await startTickedBoss(this.database.pool, {
      label: 'outbound worker',
      dispatchQueue: OUTBOUND_DISPATCH_QUEUE,
      tick: this.settings.tick,
      setup: async (boss) => {
        // Retries are ours (webhook_outbox.next_attempt_at, deploy_runs.next_poll_at), so every attempt is recorded.
        await boss.createQueue(WEBHOOK_DELIVERY_QUEUE, { name: WEBHOOK_DELIVERY_QUEUE, retryLimit: 0, expireInSeconds: 120 });
        await boss.createQueue(DEPLOY_POLL_QUEUE, { name: DEPLOY_POLL_QUEUE, retryLimit: 0, expireInSeconds: 120 });
        // A refresh of several large catalogs can take minutes; its state and job record carry the outcome.
        await boss.createQueue(EOL_REFRESH_QUEUE, { name: EOL_REFRESH_QUEUE, retryLimit: 0, expireInSeconds: 1800 });

        await boss.work(OUTBOUND_DISPATCH_QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async () => {
          const deliveries = await claimDueDeliveries(db);
          const runs = await claimDueRuns(db);
          const refresh = await claimQueuedJob(db, EOL_REFRESH_KIND);
          const jobs = [
            ...deliveries.map((id) => ({ name: WEBHOOK_DELIVERY_QUEUE, data: { outboxId: id } })),
            ...runs.map((id) => ({ name: DEPLOY_POLL_QUEUE, data: { runId: id } })),
            ...(refresh ? [{ name: EOL_REFRESH_QUEUE, data: { jobId: refresh } }] : []),
          ];
          if (jobs.length) await boss.insert(jobs);
        });
        await boss.work<{ outboxId: string }>(WEBHOOK_DELIVERY_QUEUE, { batchSize: 10, pollingIntervalSeconds: 0.5 }, async (jobs) => {
          // One receiver being slow must not hold up the others of the batch.
          reportFailures('webhook delivery', await Promise.allSettled(jobs.map((job) => attemptDelivery(db, job.data.outboxId, this.settings.webhooks))));
        });
        await boss.work<{ runId: string }>(DEPLOY_POLL_QUEUE, { batchSize: 10, pollingIntervalSeconds: 0.5 }, async (jobs) => {
          reportFailures('deploy status read', await Promise.allSettled(jobs.map((job) => pollDeployRun(db, job.data.runId, this.settings.deploys))));
        });
        await boss.work<{ jobId: string }>(EOL_REFRESH_QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => {
          if (job) await runClaimedRefresh(db, job.data.jobId);
        });
      },
    });
  }

  async stop(): Promise<void> {
    const running = this.running;
    this.running = null;
    await running?.stop();
  }
}

/** Starts the outbound worker on a database; returns how to stop it (for process.ts's worker hosts). */
export async function startOutboundWorker(database: Database): Promise<() => Promise<void>> {
  const worker = new OutboundWorker(database);
  await worker.start();
  return () => worker.stop();
}
