// The local process supervisor: `node <root>/current/bin/cairn.mjs serve|worker` as detached processes with pid
// files and logs under <root>/shared/run/. Used by tests and by installs that run without systemd.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { releaseEnv, type InstallLayout } from '../../install/layout.ts';
import { processAlive, processStartTime } from '../../install/lock.ts';
import { HostError, type Host, type ServiceName } from './types.ts';

// A running job may finish (SPEC: up to two minutes) before the stop turns into a kill.
const STOP_GRACE_MS = 150_000;

export const PACKAGE_UPDATES_FILE = 'package-updates';

interface PidFile {
  pid: number;
  pidStart: string | null;
}

export class LocalSupervisor implements Host {
  readonly kind = 'local' as const;
  constructor(private readonly layout: InstallLayout) {}

  private pidFile(service: ServiceName | 'responder'): string {
    return join(this.layout.runDir, `${service}.pid`);
  }

  private readPid(service: ServiceName | 'responder'): PidFile | null {
    try {
      return JSON.parse(readFileSync(this.pidFile(service), 'utf8')) as PidFile;
    } catch {
      return null;
    }
  }

  pidOf(service: ServiceName | 'responder'): number | null {
    const p = this.readPid(service);
    return p && processAlive(p.pid, p.pidStart) ? p.pid : null;
  }

  async isActive(service: ServiceName): Promise<boolean> {
    return this.pidOf(service) !== null;
  }

  async start(service: ServiceName): Promise<void> {
    if (await this.isActive(service)) return;
    const responder = this.readPid('responder');
    if (service === 'web' && responder && processAlive(responder.pid, responder.pidStart)) {
      // The responder starts web on its own socket and leaves once web listens (host/handover.ts).
      const before = this.readPid('web');
      process.kill(responder.pid, 'SIGUSR2');
      const started = () => {
        const now = this.readPid('web');
        return now !== null && now.pid !== before?.pid;
      };
      await this.until(() => started() || !processAlive(responder.pid, responder.pidStart), 30_000, 'the maintenance responder did not start web');
      if (started()) return;
      // The responder left without starting web (it died): the port is free, web binds it itself.
      rmSync(this.pidFile('responder'), { force: true });
    }
    this.spawnDetached(service === 'web' ? 'serve' : 'worker', service);
  }

  /** Starts `cairn <command>` detached; returns its pid and start time (written to the pid file unless told not to). */
  private spawnDetached(command: string, name: ServiceName | 'responder', args: string[] = [], writePid = true): PidFile {
    mkdirSync(this.layout.runDir, { recursive: true });
    const log = openSync(join(this.layout.runDir, `${name === 'responder' ? 'web' : name}.log`), 'a');
    try {
      const child = spawn(process.execPath, [join(this.layout.current, 'bin', 'cairn.mjs'), ...command.split(' '), ...args], {
        cwd: this.layout.shared,
        detached: true,
        stdio: ['ignore', log, log],
        env: releaseEnv(this.layout),
      });
      if (child.pid === undefined) throw new HostError(`could not start ${name}`);
      const started: PidFile = { pid: child.pid, pidStart: processStartTime(child.pid) };
      if (writePid) writeFileSync(this.pidFile(name), JSON.stringify(started));
      child.unref();
      return started;
    } finally {
      closeSync(log);
    }
  }

  private async until(test: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!test()) {
      if (Date.now() > deadline) throw new HostError(`${what} within ${timeoutMs / 1000} s`);
      await sleep(25);
    }
  }

  async holdPort(): Promise<void> {
    const web = this.readPid('web');
    const responderUp = () => this.pidOf('responder') !== null;
    if (web && processAlive(web.pid, web.pidStart)) {
      // A responder still handing over to this web leaves by itself once web listens: let it, then take over.
      await this.until(() => !responderUp(), 30_000, 'the maintenance responder did not finish its hand-over').catch(() => {});
      if (!responderUp()) {
        // Web hands its socket to a responder process, then exits (host/handover.ts).
        process.kill(web.pid, 'SIGUSR2');
        await this.until(() => responderUp() || !processAlive(web.pid, web.pidStart), 60_000, 'web did not hand its port to the maintenance responder');
      }
      await this.stop('web');
    }
    if (responderUp()) return;
    // The responder writes its own pid file once it listens, in the same tick as it installs its SIGTERM and
    // SIGUSR2 handlers: only then is it ready. A pid file written here at spawn time would let start('web')
    // signal a process still loading its modules, and SIGUSR2's default action kills it silently: no web, no
    // responder, a closed port (seen after `cairn upgrade recover` on the embedded database, whose restore is
    // quick enough to win that race).
    rmSync(this.pidFile('responder'), { force: true });
    const child = this.spawnDetached('upgrade responder', 'responder', [], false);
    await this.until(() => {
      if (!processAlive(child.pid, child.pidStart)) throw new HostError('the maintenance responder exited as it started (see shared/run/web.log)');
      return this.readPid('responder')?.pid === child.pid;
    }, 60_000, 'the maintenance responder did not start');
  }

  async releasePort(): Promise<void> {
    const p = this.readPid('responder');
    if (p && processAlive(p.pid, p.pidStart)) {
      process.kill(p.pid, 'SIGTERM');
      await this.until(() => !processAlive(p.pid, p.pidStart), 30_000, 'the maintenance responder did not stop');
    }
    rmSync(this.pidFile('responder'), { force: true });
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
  /**
   * A local install does not wait for the machine's package manager. The file shared/run/package-updates stands in
   * for one that is busy, so the wait and its refusal can be exercised without root or apt.
   */
  async packageManagerBusy(): Promise<boolean> {
    return existsSync(join(this.layout.runDir, PACKAGE_UPDATES_FILE));
  }
  // No boot hook without systemd: `cairn upgrade recover` is run by hand (or by the next upgrade's refusal).
  async installRecovery(): Promise<void> {}
}
