// The one place background work starts: every schedule, queue and worker the domains declared in the job
// registry, run inside `cairn serve` (unless CAIRN_EMBEDDED_WORKER=0) or by `cairn worker` processes.
import { Cron } from 'croner';
import type { Database } from '../db/database.ts';
import type { Unlisten } from '../db/listen.ts';
import { FALLBACK_POLL_SECONDS, startTickedBoss, type TickedBoss } from './ticked-boss.ts';
import { claimScheduledRun, plannedRun } from './schedule-claims.ts';
import { DISPATCH_CHANNEL, declaredQueues, declaredSchedules, declaredWorkers, recurringJobs, type QueueDef } from './registry.ts';
import { nextRun } from './schedules.ts';
import { ConfigError } from '../config.ts';

export const DISPATCH_QUEUE = 'outbound-dispatch';

/** Whether `cairn serve` runs the background work itself (the embedded default) or leaves it to `cairn worker`. */
export function backgroundWorkEmbedded(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CAIRN_EMBEDDED_WORKER !== '0';
}

/** Cron pattern (seconds field) of the tick that claims queued items. */
export function dispatchTick(env: NodeJS.ProcessEnv = process.env): string {
  return env.CAIRN_OUTBOUND_TICK ?? '* * * * * *';
}

/** A failed item (a database error) leaves its row claimed; the lease runs out and another dispatch retries it. */
function report(queue: string, err: unknown): void {
  console.error(`background work: ${queue} failed: ${(err as Error)?.message ?? String(err)}`);
}

/**
 * The declared queues on one pg-boss: a tick enqueues one dispatch job (stately: at most one waiting); the
 * dispatcher claims due items of every queue and turns each into a job of that queue.
 */
export class QueueDispatcher {
  private running: TickedBoss | null = null;
  private unlisten: Unlisten | null = null;

  constructor(
    private readonly database: Database,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly queues: readonly QueueDef[] = declaredQueues(),
  ) {}

  async start(): Promise<void> {
    if (this.running || this.queues.length === 0) return;
    const db = this.database.db;
    /** This process's worker of each queue, woken when the dispatch queues its jobs. */
    const workers = new Map<string, string>();
    this.running = await startTickedBoss(this.database.pool, {
      label: 'background work',
      dispatchQueue: DISPATCH_QUEUE,
      tick: dispatchTick(this.env),
      setup: async (boss) => {
        // Retries are the domains' own (recorded on their rows), so every attempt is recorded.
        for (const q of this.queues) await boss.createQueue(q.name, { name: q.name, retryLimit: 0, expireInSeconds: q.expireInSeconds });
        for (const q of this.queues) {
          const worker: string = await boss.work<{ item: object }>(q.name, { batchSize: q.batchSize, pollingIntervalSeconds: FALLBACK_POLL_SECONDS }, async (jobs) => {
            try {
              await q.work(db, jobs.map((j) => j.data.item), this.env);
            } catch (err) {
              report(q.name, err);
            }
            // A full batch may have more behind it: fetch again now rather than at the next poll.
            if (jobs.length >= q.batchSize) boss.notifyWorker(worker);
          });
          workers.set(q.name, worker);
        }
      },
      dispatch: async (boss) => {
        const jobs: Array<{ name: string; data: { item: object } }> = [];
        for (const q of this.queues) for (const item of await q.claim(db)) jobs.push({ name: q.name, data: { item } });
        if (!jobs.length) return;
        await boss.insert(jobs);
        for (const name of new Set(jobs.map((j) => j.name))) boss.notifyWorker(workers.get(name)!);
      },
    });
    // Work queued by a committed transaction, in this process or another (DISPATCH_CHANNEL), goes out now rather
    // than at the next tick; the tick still finds whatever a lost notification or a due retry leaves, so a database
    // that refuses LISTEN only leaves the work to the tick.
    this.unlisten = await this.database.listen(DISPATCH_CHANNEL, () => this.running?.nudge()).catch((err: Error) => {
      console.error(`background work: not woken at commit, only by the tick (${err.message})`);
      return null;
    });
  }

  async stop(): Promise<void> {
    const running = this.running;
    this.running = null;
    const unlisten = this.unlisten;
    this.unlisten = null;
    await unlisten?.();
    await running?.stop();
  }
}

/** The declared queues alone (tests of one domain's queue); returns how to stop them. */
export async function startQueueDispatcher(database: Database, env: NodeJS.ProcessEnv = process.env): Promise<() => Promise<void>> {
  const dispatcher = new QueueDispatcher(database, env);
  await dispatcher.start();
  return () => dispatcher.stop();
}

/**
 * Refuses a start whose schedule settings cannot run, naming the setting: croner's own message (`CronPattern:
 * invalid configuration format`) said neither which variable nor what it expects. Called before the database is
 * opened, so a typo costs nothing.
 */
export function checkScheduleSettings(env: NodeJS.ProcessEnv = process.env): void {
  for (const job of recurringJobs(env)) {
    const { error } = nextRun(job.schedule);
    if (error) {
      throw new ConfigError(
        `Invalid ${job.setting} "${job.schedule}" (the ${job.name} schedule): ${error.replace(/^CronPattern: /, '').replace(/\.$/, '')}. ` +
          'Expected a cron pattern: five fields (minute hour day-of-month month day-of-week), or six with seconds first.',
      );
    }
  }
}

/** Starts every declared schedule, queue and worker; returns one function stopping them all. */
export async function startBackgroundWork(database: Database, env: NodeJS.ProcessEnv = process.env): Promise<() => Promise<void>> {
  const stops: Array<() => Promise<void>> = [];
  for (const worker of declaredWorkers()) stops.push(await worker.start(database, env));
  for (const s of declaredSchedules()) {
    const cron = new Cron(s.schedule, { protect: true }, async (self: Cron) => {
      try {
        // Another process (a second `cairn serve`, a `cairn worker`) may have taken this run already.
        if (!(await claimScheduledRun(database.db, s.name, plannedRun(self)))) return;
        await s.run(database.db);
      } catch (err) {
        console.error(`${s.name} schedule: ${(err as Error).message}`);
      }
    });
    // After the answer to whoever started us: resumed work must not delay the start.
    const pending = s.resume
      ? setImmediate(() => {
          s.resume!(database.db).catch((err: Error) => console.error(`${s.name}: resuming queued work: ${err.message}`));
        })
      : null;
    stops.push(async () => {
      if (pending) clearImmediate(pending);
      cron.stop();
    });
  }
  const dispatcher = new QueueDispatcher(database, env);
  await dispatcher.start();
  stops.push(() => dispatcher.stop());
  return async () => {
    for (const stop of stops.reverse()) await stop();
  };
}
