// The job registry: each domain declares the background work it owns (recurring schedules, queues of claimed
// items, long-running workers) here, at import time, as it declares its models. One host (src/jobs/host.ts)
// starts all of it wherever background work runs; no domain starts another's timers, and this folder imports no
// domain. src/background.ts lists the domains' declarations.
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { Database } from '../db/database.ts';

/** What /api/jobs/schedules/ shows of a recurring job. */
export interface RecurringInfo {
  name: string;
  kind: string;
  description: string;
  /** Cron pattern (croner syntax, server time zone; six fields when seconds matter). */
  schedule: string;
  /** The environment variable that overrides the pattern. */
  setting: string;
  /** Deployment-wide work every tenant shares; tenant-level callers still see that it exists. */
  scope: 'deployment' | 'tenant';
}

/** A job the host runs on a cron pattern (croner, `protect`: a run still going skips the next tick). */
export interface ScheduleDef extends RecurringInfo {
  run(db: Kysely<DB>): Promise<void>;
  /** Work left queued by a previous process, picked up once after start (never delaying it). */
  resume?(db: Kysely<DB>): Promise<void>;
}

/**
 * Items claimed from the database (committed rows whose lease this claim takes) and worked on in pg-boss jobs
 * of the queue's own, so any number of worker processes share them and never do one twice. The host's dispatch
 * tick claims for every queue; `env` carries the settings of the process (tests pass their own).
 */
export interface QueueDef<T extends object = object> {
  name: string;
  /** pg-boss: how long one job may run before it is given up on. */
  expireInSeconds: number;
  batchSize: number;
  claim(db: Kysely<DB>): Promise<T[]>;
  work(db: Kysely<DB>, items: T[], env: NodeJS.ProcessEnv): Promise<void>;
}

/** A long-running worker of a domain (its own tick and queue), started and stopped by the host. */
export interface WorkerDef {
  name: string;
  /** Shown with the schedules when the worker runs on a tick of its own. */
  recurring?: (env: NodeJS.ProcessEnv) => RecurringInfo;
  start(database: Database, env: NodeJS.ProcessEnv): Promise<() => Promise<void>>;
}

interface Registered {
  schedules: ScheduleDef[];
  queues: QueueDef[];
  workers: WorkerDef[];
  order: Array<{ kind: 'schedule'; def: ScheduleDef } | { kind: 'worker'; def: WorkerDef }>;
}

const registered: Registered = { schedules: [], queues: [], workers: [], order: [] };

function unique(kind: string, name: string, taken: Array<{ name: string }>): void {
  if (taken.some((t) => t.name === name)) throw new Error(`The ${kind} ${name} is declared twice.`);
}

export function defineSchedule(def: ScheduleDef): ScheduleDef {
  unique('schedule', def.name, registered.schedules);
  registered.schedules.push(def);
  registered.order.push({ kind: 'schedule', def });
  return def;
}

/**
 * The channel on which a transaction that queued a declared queue's items announces them (`pg_notify`, heard once
 * it commits): the dispatcher of every process running background work claims them at once rather than at its
 * next tick (src/jobs/host.ts).
 */
export const DISPATCH_CHANNEL = 'cairn_dispatch';

export function defineQueue<T extends object>(def: QueueDef<T>): QueueDef<T> {
  unique('queue', def.name, registered.queues);
  // Stored type-erased: the host hands each queue back only the items its own claim returned.
  registered.queues.push({ ...def, claim: (db) => def.claim(db), work: (db, items, env) => def.work(db, items as T[], env) });
  return def;
}

export function defineWorker(def: WorkerDef): WorkerDef {
  unique('worker', def.name, registered.workers);
  registered.workers.push(def);
  registered.order.push({ kind: 'worker', def });
  return def;
}

export function declaredSchedules(): readonly ScheduleDef[] {
  return registered.schedules;
}

export function declaredQueues(): readonly QueueDef[] {
  return registered.queues;
}

export function declaredWorkers(): readonly WorkerDef[] {
  return registered.workers;
}

/** Every recurring job, schedules and ticking workers, in the order the domains declared them. */
export function recurringJobs(env: NodeJS.ProcessEnv = process.env): RecurringInfo[] {
  const out: RecurringInfo[] = [];
  for (const entry of registered.order) {
    if (entry.kind === 'schedule') {
      const { name, kind, description, schedule, setting, scope } = entry.def;
      out.push({ name, kind, description, schedule, setting, scope });
    } else if (entry.def.recurring) out.push(entry.def.recurring(env));
  }
  return out;
}
