// Answer shapes and calls of the upgrade API (deployment admins): the last upgrade card, whether a newer release
// is available, starting an upgrade (feed version or bundle upload) and the upgrade settings.
import { ApiError, get, patch, post } from '../../api/client.ts';

export interface UpgradeStep {
  name: string;
  status: string;
  started: string;
  ended: string | null;
  seconds: number | null;
  detail: string;
}

/** How a finished run left the site: the code (new release, nothing changed, rolled back, restore failed), the database and the services. */
export interface UpgradeOutcome {
  code: 'new' | 'unchanged' | 'restored' | 'restore_failed';
  database: 'migrated' | 'unchanged' | 'restored' | 'restore_failed';
  services: 'running' | 'unhealthy' | 'stopped';
}

export interface UpgradeRun {
  id?: string;
  version_from: string;
  version_to: string | null;
  started_by: string;
  trigger?: string;
  started_at: string;
  finished_at: string | null;
  state: string;
  current_step?: string | null;
  outcome: UpgradeOutcome | null;
  failed_step: string | null;
  error: string | null;
  output_excerpt?: string | null;
  warnings: string[];
  steps: UpgradeStep[];
}

export interface UpgradeStatus {
  running_version: string;
  installed: boolean;
  /** Whether an upgrade keeps answering reads (changes wait) rather than showing the maintenance page. */
  reads_during_upgrade: boolean;
  last_upgrade: UpgradeRun | null;
  lock: { held: boolean; owner_alive: boolean; unfinished_run: boolean };
  /** Set by the maintenance responder, which answers the card while the site is down for the upgrade. */
  maintenance?: boolean;
}

export interface Release {
  version: string;
  bundle_url: string;
  sha256: string;
  prerelease: boolean;
  published: string | null;
  notes_url: string | null;
}

export interface Availability {
  running_version: string;
  channel: 'stable' | 'any';
  airgapped: boolean;
  automatic_updates: boolean;
  feed_url: string;
  latest: Release | null;
  update_available: boolean;
  checked_at: string | null;
  error: string | null;
}

export interface UpgradeStarted {
  run_id: string;
  version: string;
  trigger: 'online' | 'bundle';
  via: string;
  poll: string;
}

export interface UpgradeSettings {
  feed_url: string;
  channel: 'stable' | 'any';
  automatic_updates: boolean;
  airgapped: boolean;
  smtp_host: string;
  smtp_port: number;
  smtp_tls: 'none' | 'starttls' | 'tls';
  smtp_user: string;
  mail_from: string;
  digest_recipients: string[];
  smtp_password_set: boolean;
}

export const STATUS_KEY = ['system-upgrade'];
export const AVAILABLE_KEY = ['system-upgrade-available'];
export const SETTINGS_KEY = ['system-upgrade-settings'];

export const fetchStatus = () => get<UpgradeStatus>('/api/system/upgrade/');
export const fetchAvailable = () => get<Availability>('/api/system/upgrade/available/');
export const checkNow = () => post<Availability>('/api/system/upgrade/check/');
export const fetchSettings = () => get<UpgradeSettings>('/api/system/upgrade/settings/');
export const saveSettings = (body: Partial<UpgradeSettings> & { smtp_password?: string }) => patch<UpgradeSettings>('/api/system/upgrade/settings/', body);

export function startUpgrade(what: { version: string } | { bundle: File }): Promise<UpgradeStarted> {
  if ('version' in what) return post<UpgradeStarted>('/api/system/upgrade/', { version: what.version });
  const form = new FormData();
  form.append('bundle', what.bundle, what.bundle.name);
  return post<UpgradeStarted>('/api/system/upgrade/', form);
}

/**
 * While an upgrade runs the web service stops and the maintenance page answers 503 (or nothing answers at all):
 * those are "the site is away", to keep polling through, not errors to show.
 */
export function siteAway(err: unknown): boolean {
  return err instanceof ApiError && (err.status === 0 || err.status === 502 || err.status === 503 || err.status === 504);
}

/** A run is still going while its journal says so, or until the run we started shows up in the card. */
export function runInProgress(status: UpgradeStatus | undefined, following: string | null): boolean {
  if (!status) return following !== null;
  const run = status.last_upgrade;
  if (run?.state === 'running') return true;
  if (following !== null && run?.id !== following) return true;
  return status.lock.held && status.lock.owner_alive;
}
