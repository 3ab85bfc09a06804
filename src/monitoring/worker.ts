// The monitoring worker: a pg-boss queue on the application database, fed by a croner tick. Each tick enqueues
// one "run due checks" job (stately queue: at most one waiting), so with several processes the work is pulled
// by whichever is free, and the claim in CheckRunner keeps a check from running twice.
import type { Database } from '../db/database.ts';
import { startTickedBoss, type TickedBoss } from '../jobs/ticked-boss.ts';
import { CheckRunner, pruneCheckResults } from './runner.ts';
import type { ManagedWorker, WorkerInfo } from './supervisor.ts';

export const MONITORING_QUEUE = 'monitoring-run-checks';

export interface MonitoringSettings {
  concurrency: number;
  retentionDays: number;
  /** Cron pattern (seconds field) of the dispatch tick. */
  tick: string;
}

function positiveInt(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of at least 1 (got "${text}").`);
  return n;
}

export function monitoringSettings(env: NodeJS.ProcessEnv = process.env): MonitoringSettings {
  return {
    concurrency: positiveInt(env.CAIRN_CHECK_CONCURRENCY, 200, 'CAIRN_CHECK_CONCURRENCY'),
    retentionDays: positiveInt(env.CAIRN_CHECK_RETENTION_DAYS, 7, 'CAIRN_CHECK_RETENTION_DAYS'),
    tick: env.CAIRN_CHECK_TICK ?? '*/5 * * * * *',
  };
}

export class MonitoringWorker implements ManagedWorker {
  readonly key: string;
  private running: TickedBoss | null = null;
  private lastPrune = 0;
  private lastRun: { at: string; checks: number } | null = null;
  readonly runner: CheckRunner;

  constructor(
    private readonly database: Database,
    private readonly settings: MonitoringSettings,
    key = 'monitoring',
  ) {
    this.key = key;
    this.runner = new CheckRunner(database.db, { concurrency: settings.concurrency });
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = await startTickedBoss(this.database.pool, {
      label: 'monitoring worker',
      dispatchQueue: MONITORING_QUEUE,
      tick: this.settings.tick,
      dispatch: async () => {
        const checks = await this.runner.runUntilIdle();
        this.lastRun = { at: new Date().toISOString(), checks };
        if (Date.now() - this.lastPrune > 3_600_000) {
          this.lastPrune = Date.now();
          await pruneCheckResults(this.database.db, this.settings.retentionDays);
        }
      },
    });
  }

  async stop(): Promise<void> {
    const running = this.running;
    this.running = null;
    await running?.stop();
  }

  async describe(): Promise<Omit<WorkerInfo, 'key' | 'kind'>> {
    const queued = this.running ? await this.running.boss.getQueueSize(MONITORING_QUEUE).catch(() => null) : null;
    const last = this.lastRun ? `last run ${this.lastRun.at}: ${this.lastRun.checks} checks` : 'no run yet';
    return { running: this.running !== null, detail: `concurrency ${this.settings.concurrency}; ${last}`, queues: [{ name: MONITORING_QUEUE, queued }] };
  }
}
