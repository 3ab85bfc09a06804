// How the upgrade engine talks to the machine: start, stop and inspect the long-running services, the timers,
// the unit links and the recovery unit. Two implementations: systemd (real deployments) and a local process
// supervisor (tests and installs started without systemd).
export const SERVICES = ['web', 'worker'] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface Host {
  readonly kind: 'systemd' | 'local';
  isActive(service: ServiceName): Promise<boolean>;
  /** Starts a service; web takes over the port from the maintenance responder when one holds it. */
  start(service: ServiceName): Promise<void>;
  stop(service: ServiceName): Promise<void>;
  /**
   * Stops web (if it runs) and leaves the maintenance responder on its port: every request answered 503 with
   * Retry-After, /api/health/ with maintenance true.
   */
  holdPort(): Promise<void>;
  /** Stops the maintenance responder (the port closes) when no web service is to take over. */
  releasePort(): Promise<void>;
  /** Timers that are enabled now (so resume starts again exactly these). */
  activeTimers(): Promise<string[]>;
  stopTimers(timers: string[]): Promise<void>;
  startTimers(timers: string[]): Promise<void>;
  /** Points the unit links at a release's unit files (systemd); nothing to do for the local supervisor. */
  linkUnits(releaseDir: string): Promise<void>;
  /** True while the host installs its own package updates (dpkg/apt, unattended-upgrades): quiesce waits for them. */
  packageManagerBusy(): Promise<boolean>;
  /** Makes sure the recovery unit runs at boot, on failure of the upgrade unit and every five minutes. */
  installRecovery(): Promise<void>;
}

export class HostError extends Error {}
