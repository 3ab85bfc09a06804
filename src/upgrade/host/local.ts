// The local process supervisor: `node <root>/current/bin/cairn.mjs serve|worker` as detached processes with pid
// files and logs under <root>/shared/run/. Used by tests and by installs that run without systemd.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { releaseEnv, type InstallLayout } from '../engine/layout.ts';
import { processAlive, processStartTime } from '../engine/lock.ts';
import { HostError, type Host, type ServiceName, type StartOptions } from './types.ts';

const COMMAND: Record<ServiceName, string> = { web: 'serve', worker: 'worker' };
const STOP_GRACE_MS = 30_000;

interface PidFile {
  pid: number;
  pidStart: string | null;
}

export class LocalSupervisor implements Host {
  readonly kind = 'local' as const;
  readonly handsOverSocket = true;
  constructor(private readonly layout: InstallLayout) {}

  private pidFile(service: ServiceName): string {
    return join(this.layout.runDir, `${service}.pid`);
  }

  private readPid(service: ServiceName): PidFile | null {
    try {
      return JSON.parse(readFileSync(this.pidFile(service), 'utf8')) as PidFile;
    } catch {
      return null;
    }
  }

  pidOf(service: ServiceName): number | null {
    const p = this.readPid(service);
    return p && processAlive(p.pid, p.pidStart) ? p.pid : null;
  }

  async isActive(service: ServiceName): Promise<boolean> {
    return this.pidOf(service) !== null;
  }

  async start(service: ServiceName, opts: StartOptions = {}): Promise<void> {
    if (await this.isActive(service)) return;
    mkdirSync(this.layout.runDir, { recursive: true });
    const log = openSync(join(this.layout.runDir, `${service}.log`), 'a');
    const stdio: Array<'ignore' | number> = ['ignore', log, log];
    const extra: Record<string, string> = {};
    if (service === 'web' && opts.listenFd !== undefined) {
      stdio.push(opts.listenFd);
      extra.CAIRN_LISTEN_FD = '3';
    }
    try {
      const child = spawn(process.execPath, [join(this.layout.current, 'bin', 'cairn.mjs'), COMMAND[service]], {
        cwd: this.layout.shared,
        detached: true,
        stdio,
        env: releaseEnv(this.layout, extra),
      });
      if (child.pid === undefined) throw new HostError(`could not start ${service}`);
      writeFileSync(this.pidFile(service), JSON.stringify({ pid: child.pid, pidStart: processStartTime(child.pid) } satisfies PidFile));
      child.unref();
    } finally {
      closeSync(log);
    }
  }

  async stop(service: ServiceName): Promise<void> {
    const p = this.readPid(service);
    if (p && processAlive(p.pid, p.pidStart)) {
      // Signal the process group: a service may have children of its own.
      const signal = (sig: NodeJS.Signals) => {
        try {
          process.kill(-p.pid, sig);
        } catch {
          try {
            process.kill(p.pid, sig);
          } catch {
            /* gone */
          }
        }
      };
      signal('SIGTERM');
      const deadline = Date.now() + STOP_GRACE_MS;
      while (processAlive(p.pid, p.pidStart) && Date.now() < deadline) await sleep(25);
      if (processAlive(p.pid, p.pidStart)) {
        signal('SIGKILL');
        while (processAlive(p.pid, p.pidStart)) await sleep(25);
      }
    }
    rmSync(this.pidFile(service), { force: true });
  }

  // The local supervisor runs no timers of its own: schedules live in pg-boss inside the services.
  async activeTimers(): Promise<string[]> {
    return [];
  }
  async stopTimers(): Promise<void> {}
  async startTimers(): Promise<void> {}
  async linkUnits(): Promise<void> {}
  // No boot hook without systemd: `cairn upgrade recover` is run by hand (or by the next upgrade's refusal).
  async installRecovery(): Promise<void> {}
}
