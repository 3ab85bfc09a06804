// Restarting the processes that run checks, behind one small interface: in-process workers for the embedded
// default, systemd units for installed deployments. Routes only ever see the interface.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface WorkerInfo {
  key: string;
  kind: 'in-process' | 'systemd';
  running: boolean;
  detail: string;
  queues: Array<{ name: string; queued: number | null }>;
}

export interface Supervisor {
  list(): Promise<WorkerInfo[]>;
  /** Restarts one worker; false when the key names none. */
  restart(key: string): Promise<boolean>;
  restartAll(): Promise<string[]>;
}

/** A worker living in this process (the web process, or `cairn worker`). */
export interface ManagedWorker {
  readonly key: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  describe(): Promise<Omit<WorkerInfo, 'key' | 'kind'>>;
}

export class InProcessSupervisor implements Supervisor {
  private readonly workers = new Map<string, ManagedWorker>();

  register(worker: ManagedWorker): void {
    this.workers.set(worker.key, worker);
  }

  unregister(key: string): void {
    this.workers.delete(key);
  }

  async list(): Promise<WorkerInfo[]> {
    return Promise.all([...this.workers.values()].map(async (w) => ({ key: w.key, kind: 'in-process' as const, ...(await w.describe()) })));
  }

  async restart(key: string): Promise<boolean> {
    const w = this.workers.get(key);
    if (!w) return false;
    await w.stop();
    await w.start();
    return true;
  }

  async restartAll(): Promise<string[]> {
    const keys = [...this.workers.keys()];
    for (const key of keys) await this.restart(key);
    return keys;
  }
}

/**
 * Installed deployments run workers as systemd units (`cairn-worker@1.service` …): restart is `systemctl restart
 * <unit>`. The command is configurable so tests run a stand-in.
 */
export class SystemdSupervisor implements Supervisor {
  constructor(
    private readonly units: Record<string, string>,
    private readonly systemctl = 'systemctl',
  ) {}

  async list(): Promise<WorkerInfo[]> {
    return Promise.all(
      Object.entries(this.units).map(async ([key, unit]) => {
        const state = await run(this.systemctl, ['is-active', unit]).then(
          (r) => r.stdout.trim(),
          (err: { stdout?: string }) => String(err.stdout ?? 'unknown').trim() || 'unknown',
        );
        return { key, kind: 'systemd' as const, running: state === 'active', detail: `${unit}: ${state}`, queues: [] };
      }),
    );
  }

  async restart(key: string): Promise<boolean> {
    const unit = this.units[key];
    if (!unit) return false;
    await run(this.systemctl, ['restart', unit]);
    return true;
  }

  async restartAll(): Promise<string[]> {
    const keys = Object.keys(this.units);
    for (const key of keys) await this.restart(key);
    return keys;
  }
}

const inProcess = new InProcessSupervisor();
let current: Supervisor | null = null;

/** The supervisor the system endpoints use: the deployment's (supervisorFromEnv) unless one was installed. */
export function supervisor(): Supervisor {
  return (current ??= supervisorFromEnv());
}

export function inProcessSupervisor(): InProcessSupervisor {
  return inProcess;
}

export function setSupervisor(next: Supervisor): void {
  current = next;
}

/** CAIRN_SUPERVISOR=systemd with CAIRN_WORKER_UNITS="monitoring=cairn-worker.service,…" selects systemd. */
export function supervisorFromEnv(env: NodeJS.ProcessEnv = process.env): Supervisor {
  if (env.CAIRN_SUPERVISOR !== 'systemd') return inProcess;
  const units: Record<string, string> = {};
  for (const part of (env.CAIRN_WORKER_UNITS ?? 'monitoring=cairn-worker.service').split(',')) {
    const [key, unit] = part.split('=').map((s) => s.trim());
    if (key && unit) units[key] = unit;
  }
  return new SystemdSupervisor(units, env.CAIRN_SYSTEMCTL ?? 'systemctl');
}
