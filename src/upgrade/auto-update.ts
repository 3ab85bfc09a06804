// Automatic updates: after the scheduled feed check, start an upgrade to the newest release the channel takes,
// started_by "automatic". The decision is a pure function of what is known (decideAutoUpdate), so its rules are
// tested over a table:
//   - skipped on container deployments, when airgapped, when off, while a run lives or waits for recovery, and
//     when nothing newer is listed;
//   - a failure before any service stopped (download, checksum, launch, preflight, backup, prepare) is retried
//     1, 4 and 12 hours after it ended, then no more;
//   - a release whose run stopped services and was rolled back (or whose restore failed) is not tried again by
//     the schedule: a person retries it (POST /api/system/upgrade/, the CLI) or a newer release appears;
//   - a newer release than the one that failed starts afresh.
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { readAllowlist } from '../core/ssrf.ts';
import { readJournal, unfinished, type Journal, type StepName } from './engine/journal.ts';
import { lockOwnerAlive } from '../install/lock.ts';
import type { InstallLayout } from '../install/layout.ts';
import { checkFeed, upgradeTarget } from './feed.ts';
import { writeMailMirror } from './mail.ts';
import { readUpgradeSettings } from './settings.ts';
import { downloadRelease, launchChecked, refuseUnlessStartable, StartRefusal } from './start.ts';
import { readState as readKey, writeState as writeKey } from '../core/state.ts';

export const RETRY_DELAYS_HOURS = [1, 4, 12] as const;
/** Steps before quiesce: a failure there stopped nothing, so trying again later is safe. */
const BEFORE_ANY_STOP: readonly StepName[] = ['preflight', 'backup', 'prepare'];

/** The last attempt at a release, automatic or not, as the decision needs it. */
export interface PreviousAttempt {
  version: string;
  /** 1 for the first try (or a person's), n for the schedule's n-th. */
  attempt: number;
  failed: boolean;
  /** Failed before any service stopped. */
  retryable: boolean;
  finishedAt: string | null;
}

export interface AutoInput {
  now: Date;
  running: string;
  /** The newest release the channel takes that is newer than running, or null. */
  target: string | null;
  automatic: boolean;
  airgapped: boolean;
  container: boolean;
  busy: boolean;
  previous: PreviousAttempt | null;
}

export type SkipReason = 'containerized' | 'airgapped' | 'disabled' | 'already_running' | 'up_to_date' | 'failed_before' | 'retry_later';
export type AutoDecision = { action: 'start'; version: string; attempt: number } | { action: 'skip'; reason: SkipReason; retry_at?: string };

export function decideAutoUpdate(input: AutoInput): AutoDecision {
  if (input.container) return { action: 'skip', reason: 'containerized' };
  if (input.airgapped) return { action: 'skip', reason: 'airgapped' };
  if (!input.automatic) return { action: 'skip', reason: 'disabled' };
  if (input.busy) return { action: 'skip', reason: 'already_running' };
  if (!input.target) return { action: 'skip', reason: 'up_to_date' };
  const prev = input.previous;
  if (!prev || prev.version !== input.target || !prev.failed) return { action: 'start', version: input.target, attempt: 1 };
  if (!prev.retryable || prev.attempt > RETRY_DELAYS_HOURS.length) return { action: 'skip', reason: 'failed_before' };
  const ended = prev.finishedAt ? Date.parse(prev.finishedAt) : NaN;
  const retryAt = (Number.isNaN(ended) ? input.now.getTime() : ended) + RETRY_DELAYS_HOURS[prev.attempt - 1]! * 3_600_000;
  if (input.now.getTime() < retryAt) return { action: 'skip', reason: 'retry_later', retry_at: new Date(retryAt).toISOString() };
  return { action: 'start', version: input.target, attempt: prev.attempt + 1 };
}

// ------------------------------------------------------------------------------ what the schedule remembers

/** The schedule's own last attempt: run_id null when it failed before a run started (download, checksum). */
export interface AutoAttempt {
  version: string;
  attempt: number;
  run_id: string | null;
  at: string;
  error: string | null;
}

export interface AutoStatus {
  checked_at: string;
  decision: AutoDecision | { action: 'skip'; reason: 'not_installed' | 'no_feed' };
  error: string | null;
}

const ATTEMPT_KEY = 'upgrade_auto_attempt';
const STATUS_KEY = 'upgrade_auto_status';

export function readAutoStatus(db: Kysely<DB>): Promise<AutoStatus | null> {
  return readKey<AutoStatus>(db, STATUS_KEY);
}

/** The most recent attempt: the schedule's launch failure, or the last run's journal, whichever came later. */
export function previousAttempt(journal: Journal | null, auto: AutoAttempt | null): PreviousAttempt | null {
  const launchFailure = auto && auto.run_id === null ? auto : null;
  if (launchFailure && (!journal || Date.parse(launchFailure.at) >= Date.parse(journal.startedAt))) {
    return { version: launchFailure.version, attempt: launchFailure.attempt, failed: true, retryable: true, finishedAt: launchFailure.at };
  }
  if (!journal) return null;
  const ours = auto?.run_id === journal.id ? auto : null;
  const version = journal.versionTo ?? ours?.version ?? null;
  if (!version) return null;
  const failed = journal.state !== 'done';
  // The engine may also mark a failure retryable itself (e.g. quiesce gave up waiting for the host's package
  // updates before stopping anything).
  const flagged = (journal as Journal & { retryable?: boolean }).retryable === true;
  const early = journal.failedStep !== null && BEFORE_ANY_STOP.includes(journal.failedStep);
  return {
    version,
    attempt: ours?.attempt ?? 1,
    failed,
    retryable: failed && journal.state === 'failed' && (early || flagged),
    finishedAt: journal.finishedAt,
  };
}

/**
 * The scheduled check: fetch the feed (unless airgapped), then start an automatic upgrade when the rules say so.
 * Returns what it decided (also kept for GET /api/system/upgrade/available/).
 */
export async function scheduledUpgradeCheck(db: Kysely<DB>, opts: { running: string; layout: InstallLayout | null; env?: NodeJS.ProcessEnv; now?: Date }): Promise<AutoStatus> {
  const env = opts.env ?? process.env;
  const now = opts.now ?? new Date();
  const settings = await readUpgradeSettings(db);
  const finish = async (status: Omit<AutoStatus, 'checked_at'>): Promise<AutoStatus> => {
    const full = { checked_at: now.toISOString(), ...status };
    await writeKey(db, STATUS_KEY, full);
    return full;
  };
  if (settings.airgapped) return finish({ decision: { action: 'skip', reason: 'airgapped' }, error: null });
  if (!settings.feed_url) return finish({ decision: { action: 'skip', reason: 'no_feed' }, error: null });
  const check = await checkFeed(db, settings);
  const layout = opts.layout;
  if (!layout) return finish({ decision: { action: 'skip', reason: 'not_installed' }, error: check.error });
  const journal = readJournal(layout.journalFile);
  const auto = await readKey<AutoAttempt>(db, ATTEMPT_KEY);
  const decision = decideAutoUpdate({
    now,
    running: opts.running,
    target: upgradeTarget(check.releases, settings.channel, opts.running)?.version ?? null,
    automatic: settings.automatic_updates,
    airgapped: settings.airgapped,
    container: env.CAIRN_CONTAINER === '1',
    busy: lockOwnerAlive(layout.lockFile) || unfinished(journal),
    previous: previousAttempt(journal, auto),
  });
  if (decision.action === 'skip') return finish({ decision, error: check.error });

  const attempt: AutoAttempt = { version: decision.version, attempt: decision.attempt, run_id: null, at: now.toISOString(), error: null };
  try {
    refuseUnlessStartable(layout, env);
    const release = check.releases.find((r) => r.version === decision.version)!;
    const allowlist = await readAllowlist(db);
    const file = await downloadRelease(layout, release, allowlist);
    writeMailMirror(layout, settings);
    const launched = await launchChecked(layout, file, 'auto', 'automatic');
    attempt.run_id = launched.run_id;
    await writeKey(db, ATTEMPT_KEY, attempt);
    return finish({ decision, error: null });
  } catch (err) {
    if (err instanceof StartRefusal && err.status === 409) return finish({ decision: { action: 'skip', reason: 'already_running' }, error: err.message });
    if (!(err instanceof StartRefusal)) throw err;
    // Nothing ran, nothing stopped: retryable on the 1/4/12 h plan.
    attempt.error = err.message;
    attempt.at = new Date().toISOString();
    await writeKey(db, ATTEMPT_KEY, attempt);
    return finish({ decision, error: err.message });
  }
}
