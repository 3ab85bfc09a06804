// How the upgrade engine talks to the machine: start, stop and inspect the long-running services, the timers,
// the unit links and the recovery unit. Two implementations: systemd (real deployments) and a local process
// supervisor (tests and installs started without systemd).
export const SERVICES = ['web', 'worker'] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface StartOptions {
  /** A listening socket to hand to the web process (fd 3), so no connection is refused while it starts. */
  listenFd?: number;
}

export interface Host {
  readonly kind: 'systemd' | 'local';
  isActive(service: ServiceName): Promise<boolean>;
  start(service: ServiceName, opts?: StartOptions): Promise<void>;
  stop(service: ServiceName): Promise<void>;
  /** Timers that are enabled now (so resume starts again exactly these). */
  activeTimers(): Promise<string[]>;
  stopTimers(timers: string[]): Promise<void>;
  startTimers(timers: string[]): Promise<void>;
  /** Points the unit links at a release's unit files (systemd); nothing to do for the local supervisor. */
  linkUnits(releaseDir: string): Promise<void>;
  /** Makes sure the recovery unit runs at boot, on failure of the upgrade unit and every five minutes. */
  installRecovery(): Promise<void>;
  /** Whether the host can hand a listening socket to the web process (see StartOptions.listenFd). */
  readonly handsOverSocket: boolean;
}

export class HostError extends Error {}
