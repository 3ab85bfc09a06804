// pg-boss on the application's pool, fed by a croner tick: the start and stop the background workers share
// (monitoring checks, outbound deliveries). Each tick enqueues one job on a stately dispatch queue (at most one
// waiting), so with several processes the work is pulled by whichever is free. The workers own their queues'
// handlers; this owns the boss, the tick and the dispatch queue's worker.
import PgBoss from 'pg-boss';
import { Cron } from 'croner';
import type pg from 'pg';

/**
 * How often a worker of this process looks for jobs no one told it about (another process's dispatch, a job left
 * when a process stopped). Jobs this process queues wake its own worker at once (`boss.notifyWorker`), so polling
 * is only the fallback. Each queue's worker polling every half second (a second for monitoring), an idle `cairn serve`
 * on the embedded database spent 0.89-1.04 CPU-s in 20 s on empty fetches; 0.25-0.31 with this (none at all with
 * CAIRN_EMBEDDED_WORKER=0).
 */
export const FALLBACK_POLL_SECONDS = 10;

export interface TickedBossOptions {
  /** Prefix of the errors pg-boss reports ("monitoring worker"). */
  label: string;
  /** The stately queue each tick sends one job to. */
  dispatchQueue: string;
  /** Cron pattern (seconds field) of the tick. */
  tick: string;
  /** Creates the worker's other queues and registers their handlers, before the first tick. */
  setup?(boss: PgBoss): Promise<void>;
  /** Runs once per dispatch job: the work of a tick. */
  dispatch(boss: PgBoss): Promise<void>;
}

export interface TickedBoss {
  readonly boss: PgBoss;
  /** A tick now, between the cron's: the dispatch runs at once (several calls before it runs make one). */
  nudge(): void;
  /** Stops the tick, then pg-boss (waiting for running handlers); the pool stays open. */
  stop(): Promise<void>;
}

export async function startTickedBoss(pool: pg.Pool, options: TickedBossOptions): Promise<TickedBoss> {
  // The application's pool: PGlite has a single connection, and pg-boss must queue behind our own queries.
  const boss = new PgBoss({
    db: { executeSql: async (text: string, values: unknown[]) => pool.query(text, values) },
    supervise: true,
    schedule: false,
  });
  boss.on('error', (err: Error) => console.error(`${options.label}: ${err.message}`));
  await boss.start();
  await boss.createQueue(options.dispatchQueue, { name: options.dispatchQueue, policy: 'stately', retryLimit: 0, expireInSeconds: 300 });
  await options.setup?.(boss);
  const dispatcher = await boss.work(options.dispatchQueue, { batchSize: 1, pollingIntervalSeconds: FALLBACK_POLL_SECONDS }, () => options.dispatch(boss));
  const tick = async () => {
    await boss.send(options.dispatchQueue, {}).catch(() => null);
    // Whether this tick's job went in or one was already waiting (stately), there is one to take now.
    boss.notifyWorker(dispatcher);
  };
  const cron = new Cron(options.tick, { protect: true }, tick);
  let nudged: NodeJS.Immediate | null = null;
  let stopped = false;
  return {
    boss,
    nudge: () => {
      if (nudged || stopped) return;
      nudged = setImmediate(() => {
        nudged = null;
        void tick();
      });
    },
    stop: async () => {
      stopped = true;
      if (nudged) clearImmediate(nudged);
      cron.stop();
      // close: false keeps the shared pool open for the web process.
      await boss.stop({ graceful: true, wait: true, close: false, timeout: 10_000 });
    },
  };
}
