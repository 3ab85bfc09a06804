// systemd host: the services are user or system units named cairn-web and cairn-worker; timers are the
// cairn-*.timer units; unit files ship in each release under deploy/systemd/ and are linked from there.
// Every operation is one `systemctl` call built by systemctlArgs(), so it can be checked without systemd.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HostError, type Host, type ServiceName } from './types.ts';

const run = promisify(execFile);

export const UNIT: Record<ServiceName, string> = { web: 'cairn-web.service', worker: 'cairn-worker.service' };
export const RECOVERY_UNITS = ['cairn-recover.service', 'cairn-recover.timer'];

export interface SystemdOptions {
  /** `systemctl --user` (units of the service user) rather than system units. */
  user: boolean;
  systemctl?: string;
}

export class SystemdHost implements Host {
  readonly kind = 'systemd' as const;
  // systemd owns no socket for us here: the engine's maintenance responder binds right after web stops.
  readonly handsOverSocket = false;
  constructor(private readonly opts: SystemdOptions) {}

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
    await this.systemctl(['start', '--no-block', UNIT[service]]);
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

  async installRecovery(): Promise<void> {
    await this.systemctl(['enable', '--now', 'cairn-recover.timer']);
    // At boot the service runs through WantedBy=; enabling it is what installs that link.
    await this.systemctl(['enable', 'cairn-recover.service']);
  }
}
