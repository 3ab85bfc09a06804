// The outbound worker: pg-boss queues for webhook deliveries and deploy-run status reads, run wherever background
// work runs (the embedded worker of `cairn serve`, or `cairn worker`). A croner tick enqueues one dispatch job
// (stately: at most one waiting); the dispatcher claims committed outbox rows and due runs and turns each into a
// job of its own queue, so any number of worker processes share the work and never do one item twice.
import PgBoss from 'pg-boss';
import { Cron } from 'croner';
import type { Database } from '../db/database.ts';
import { attemptDelivery, webhookSettings, type WebhookSettings } from './webhook-delivery.ts';
import { claimDueDeliveries } from './webhook-outbox.ts';
import { claimDueRuns, deploySettings, pollDeployRun, type DeploySettings } from '../automation/deploy.ts';

export const OUTBOUND_DISPATCH_QUEUE = 'outbound-dispatch';
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-delivery';
export const DEPLOY_POLL_QUEUE = 'deploy-poll';

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
  private boss: PgBoss | null = null;
  private cron: Cron | null = null;

  constructor(
    private readonly database: Database,
    private readonly settings: OutboundSettings = outboundSettings(),
  ) {}

  async start(): Promise<void> {
    if (this.boss) return;
    const pool = this.database.pool;
    const db = this.database.db;
    // The application's pool: PGlite has a single connection, and pg-boss must queue behind our own queries.
    const boss = new PgBoss({ db: { executeSql: async (text: string, values: unknown[]) => pool.query(text, values) }, supervise: true, schedule: false });
    boss.on('error', (err: Error) => console.error(`outbound worker: ${err.message}`));
    await boss.start();
    await boss.createQueue(OUTBOUND_DISPATCH_QUEUE, { name: OUTBOUND_DISPATCH_QUEUE, policy: 'stately', retryLimit: 0, expireInSeconds: 300 });
    // Retries are ours (webhook_outbox.next_attempt_at, deploy_runs.next_poll_at), so every attempt is recorded.
    await boss.createQueue(WEBHOOK_DELIVERY_QUEUE, { name: WEBHOOK_DELIVERY_QUEUE, retryLimit: 0, expireInSeconds: 120 });
    await boss.createQueue(DEPLOY_POLL_QUEUE, { name: DEPLOY_POLL_QUEUE, retryLimit: 0, expireInSeconds: 120 });

    await boss.work(OUTBOUND_DISPATCH_QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async () => {
      const deliveries = await claimDueDeliveries(db);
      const runs = await claimDueRuns(db);
      const jobs = [
        ...deliveries.map((id) => ({ name: WEBHOOK_DELIVERY_QUEUE, data: { outboxId: id } })),
        ...runs.map((id) => ({ name: DEPLOY_POLL_QUEUE, data: { runId: id } })),
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
    this.boss = boss;
    this.cron = new Cron(this.settings.tick, { protect: true }, async () => {
      await boss.send(OUTBOUND_DISPATCH_QUEUE, {}).catch(() => null);
    });
  }

  async stop(): Promise<void> {
    this.cron?.stop();
    this.cron = null;
    const boss = this.boss;
    this.boss = null;
    // close: false keeps the shared pool open for the web process.
    if (boss) await boss.stop({ graceful: true, wait: true, close: false, timeout: 10_000 });
  }
}

/** Starts the outbound worker on a database; returns how to stop it (for process.ts's worker hosts). */
export async function startOutboundWorker(database: Database): Promise<() => Promise<void>> {
  const worker = new OutboundWorker(database);
  await worker.start();
  return () => worker.stop();
}
