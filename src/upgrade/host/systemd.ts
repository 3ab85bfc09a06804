// systemd host: the services are user or system units named cairn-web and cairn-worker; timers are the
// cairn-*.timer units; unit files ship in each release under deploy/systemd/ and are linked from there.
// Every operation is one `systemctl` call built by systemctlArgs(), so it can be checked without systemd.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HostError, type Host, type ServiceName } from './types.ts';
import { startResponder, type Responder } from '../engine/responder.ts';
import type { InstallLayout } from '../../install/layout.ts';

const run = promisify(execFile);

export const UNIT: Record<ServiceName, string> = { web: 'cairn-web.service', worker: 'cairn-worker.service' };
export const RECOVERY_UNITS = ['cairn-recover.service', 'cairn-recover.timer'];
export const PACKAGE_UNITS = ['apt-daily.service', 'apt-daily-upgrade.service', 'unattended-upgrades-run.service'];
const PACKAGE_PROCESSES = new Set(['dpkg', 'apt', 'apt-get', 'aptitude', 'unattended-upgr']);

/** A dpkg or apt process on this machine (comm names, as /proc shows them: at most 15 characters). */
export function packageProcessRunning(proc = '/proc'): boolean {
  let entries: string[];
  try {
    entries = readdirSync(proc).filter((e) => /^\d+$/.test(e));
  } catch {
    return false;
  }
  for (const pid of entries) {
    try {
      if (PACKAGE_PROCESSES.has(readFileSync(join(proc, pid, 'comm'), 'utf8').trim())) return true;
    } catch {
      /* gone meanwhile */
    }
  }
  return false;
}

export interface SystemdOptions {
  /** `systemctl --user` (units of the service user) rather than system units. */
  user: boolean;
  systemctl?: string;
}

export class SystemdHost implements Host {
  readonly kind = 'systemd' as const;
  // The maintenance responder runs in the engine process and binds the port as soon as the stopping web lets
  // go of it (and lets go just before web starts): unlike the local supervisor, there is a short gap here.
  private responder: Responder | null = null;
  constructor(
    private readonly opts: SystemdOptions,
    private readonly address: { host: string; port: number; version: string; layout?: InstallLayout } | null = null,
  ) {}

  systemctlArgs(...args: string[]): string[] {
    return this.opts.user ? ['--user', ...args] : args;
  }

  private async systemctl(args: string[], allowFailure = false): Promise<{ code: number; stdout: string }> {
    try {
      const { stdout } = await run(this.opts.systemctl ?? 'systemctl', this.systemctlArgs(...args), { timeout: 300_000 });
      return { code: 0, stdout };
    } catch (err) {
      const e = err as { code?: number | string; stdout?: string; stderr?: string; message: string };
      if (allowFailure && typeof e.code === 'number') return { code: e.code, stdout: e.stdout ?? '' };
      throw new HostError(`systemctl ${args.join(' ')} failed: ${(e.stderr || e.message).trim()}`);
    }
  }

  async isActive(service: ServiceName): Promise<boolean> {
    return (await this.systemctl(['is-active', '--quiet', UNIT[service]], true)).code === 0;
  }

  // --no-block: inside the recovery unit (ordered Before= the app units) a blocking start would wait for the
  // recovery itself to end. The engine waits for health instead.
  async start(service: ServiceName): Promise<void> {
    if (service === 'web') await this.releasePort();
    await this.systemctl(['start', '--no-block', UNIT[service]]);
  }

  async holdPort(): Promise<void> {
    if (this.responder || !this.address) return this.stop('web');
    const { host, port, version, layout } = this.address;
    const [responder] = await Promise.all([startResponder(host, port, version, layout ?? null), this.stop('web')]);
    this.responder = responder;
  }

  async releasePort(): Promise<void> {
    const r = this.responder;
    this.responder = null;
    if (r) await r.close();
  }

  async stop(service: ServiceName): Promise<void> {
    await this.systemctl(['stop', UNIT[service]]);
  }

  async activeTimers(): Promise<string[]> {
    const { stdout } = await this.systemctl(['list-units', '--type=timer', '--state=active', '--plain', '--no-legend', 'cairn-*.timer'], true);
    return stdout
      .split('\n')
      .map((l) => l.trim().split(/\s+/)[0] ?? '')
      .filter((u) => u.endsWith('.timer') && !RECOVERY_UNITS.includes(u));
  }

  async stopTimers(timers: string[]): Promise<void> {
    if (timers.length) await this.systemctl(['stop', ...timers]);
  }

  async startTimers(timers: string[]): Promise<void> {
    if (timers.length) await this.systemctl(['start', ...timers]);
  }

  async linkUnits(releaseDir: string): Promise<void> {
    const dir = join(releaseDir, 'deploy', 'systemd');
    let files: string[];
    try {
      files = readdirSync(dir).filter((f) => /\.(service|timer|socket)$/.test(f)).map((f) => join(dir, f));
    } catch {
      throw new HostError(`the release at ${releaseDir} ships no deploy/systemd units`);
    }
    if (files.length) await this.systemctl(['link', ...files]);
    await this.systemctl(['daemon-reload']);
  }

  /**
   * Debian's daily apt units while they run (system units, seen from a user manager too), or any dpkg/apt process
   * (an administrator's own apt-get, unattended-upgrades started some other way).
   */
  async packageManagerBusy(): Promise<boolean> {
    const units = await this.systemctlSystem(['is-active', '--quiet', ...PACKAGE_UNITS]);
    return units === 0 || packageProcessRunning();
  }

  private async systemctlSystem(args: string[]): Promise<number> {
    try {
      await run(this.opts.systemctl ?? 'systemctl', args, { timeout: 60_000 });
      return 0;
    } catch (err) {
      return typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1;
    }
  }

  async installRecovery(): Promise<void> {
    await this.systemctl(['enable', '--now', 'cairn-recover.timer']);
    // At boot the service runs through WantedBy=; enabling it is what installs that link.
    await this.systemctl(['enable', 'cairn-recover.service']);
  }
}
