import { describe, expect, it } from 'vitest';
import { decideAutoUpdate, previousAttempt, type AutoAttempt, type AutoInput, type PreviousAttempt } from './auto-update.ts';
import type { Journal } from './engine/journal.ts';

const now = new Date('2026-11-21T12:00:00Z');
const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000).toISOString();
const base: AutoInput = { now, running: '1.2.0', target: '1.3.0', automatic: true, airgapped: false, container: false, busy: false, previous: null };
const failedEarly = (attempt: number, h: number, version = '1.3.0'): PreviousAttempt => ({ version, attempt, failed: true, retryable: true, finishedAt: hoursAgo(h) });

describe('decideAutoUpdate', () => {
  it.each<[string, Partial<AutoInput>, ReturnType<typeof decideAutoUpdate>]>([
    ['starts the newest release', {}, { action: 'start', version: '1.3.0', attempt: 1 }],
    ['container deployment', { container: true }, { action: 'skip', reason: 'containerized' }],
    ['airgapped wins over enabled', { airgapped: true }, { action: 'skip', reason: 'airgapped' }],
    ['turned off', { automatic: false }, { action: 'skip', reason: 'disabled' }],
    ['a run is alive or unrecovered', { busy: true }, { action: 'skip', reason: 'already_running' }],
    ['nothing newer', { target: null }, { action: 'skip', reason: 'up_to_date' }],
    ['last run of the target succeeded (ran elsewhere)', { previous: { version: '1.3.0', attempt: 1, failed: false, retryable: false, finishedAt: hoursAgo(1) } }, { action: 'start', version: '1.3.0', attempt: 1 }],
    ['early failure, 30 min ago: wait for the 1 h retry', { previous: failedEarly(1, 0.5) }, { action: 'skip', reason: 'retry_later', retry_at: hoursAgo(-0.5) }],
    ['early failure, 1 h ago: second attempt', { previous: failedEarly(1, 1) }, { action: 'start', version: '1.3.0', attempt: 2 }],
    ['second attempt failed 3 h ago: wait for 4 h', { previous: failedEarly(2, 3) }, { action: 'skip', reason: 'retry_later', retry_at: hoursAgo(-1) }],
    ['second attempt failed 4 h ago: third attempt', { previous: failedEarly(2, 4) }, { action: 'start', version: '1.3.0', attempt: 3 }],
    ['third attempt failed 11 h ago: wait for 12 h', { previous: failedEarly(3, 11) }, { action: 'skip', reason: 'retry_later', retry_at: hoursAgo(-1) }],
    ['third attempt failed 12 h ago: fourth and last attempt', { previous: failedEarly(3, 12) }, { action: 'start', version: '1.3.0', attempt: 4 }],
    ['fourth attempt failed: no more retries', { previous: failedEarly(4, 100) }, { action: 'skip', reason: 'failed_before' }],
    ['rolled back (services had stopped): not retried', { previous: { version: '1.3.0', attempt: 1, failed: true, retryable: false, finishedAt: hoursAgo(100) } }, { action: 'skip', reason: 'failed_before' }],
    ['rolled back, then a newer release appears: start it', { target: '1.3.1', previous: { version: '1.3.0', attempt: 1, failed: true, retryable: false, finishedAt: hoursAgo(1) } }, { action: 'start', version: '1.3.1', attempt: 1 }],
    ['early failures of an older target do not delay a newer one', { target: '1.4.0', previous: failedEarly(2, 0.1) }, { action: 'start', version: '1.4.0', attempt: 1 }],
  ])('%s', (_name, patch, expected) => {
    expect(decideAutoUpdate({ ...base, ...patch })).toEqual(expected);
  });
});

function journal(patch: Partial<Journal>): Journal {
  return {
    id: '20261121T100000-abcdef', state: 'failed', trigger: 'auto', startedBy: 'automatic', versionFrom: '1.2.0', versionTo: '1.3.0', bundle: '/x.tar.gz', pid: 1,
    startedAt: hoursAgo(2), finishedAt: hoursAgo(1.9), step: 'backup', steps: [], outcome: { code: 'unchanged', database: 'unchanged', services: 'running' },
    failedStep: 'backup', error: 'disk full', errorTail: null, warnings: [],
    context: { workDir: '/w', previousRelease: null, newRelease: null, servicesBefore: null, timersBefore: null, envCopy: null, swapped: false, pendingMigrations: null, snapshotFile: null, migrateStarted: false, holdToken: null, backupId: null, jobId: null, child: null },
    ...patch,
  } as Journal;
}

describe('previousAttempt', () => {
  const ours: AutoAttempt = { version: '1.3.0', attempt: 2, run_id: '20261121T100000-abcdef', at: hoursAgo(2), error: null };
  it('a failure before quiesce is retryable and keeps the schedule\'s attempt number', () => {
    expect(previousAttempt(journal({}), ours)).toEqual({ version: '1.3.0', attempt: 2, failed: true, retryable: true, finishedAt: hoursAgo(1.9) });
  });
  it('a failure after services stopped (rolled back) or a failed restore is not', () => {
    expect(previousAttempt(journal({ failedStep: 'migrate', outcome: { code: 'restored', database: 'restored', services: 'running' } }), ours)!.retryable).toBe(false);
    expect(previousAttempt(journal({ state: 'restore_failed', failedStep: 'migrate' }), ours)!.retryable).toBe(false);
  });
  it('a failure the engine marked retryable (nothing stopped yet) is retryable whatever its step', () => {
    expect(previousAttempt({ ...journal({ failedStep: 'quiesce' }), retryable: true } as Journal, ours)!.retryable).toBe(true);
    expect(previousAttempt(journal({ failedStep: 'quiesce' }), ours)!.retryable).toBe(false);
  });
  it('a person\'s run counts as attempt 1 (a manual retry resets the schedule\'s count)', () => {
    expect(previousAttempt(journal({ trigger: 'online', startedBy: 'user:admin', id: 'other' }), ours)!.attempt).toBe(1);
  });
  it('a download or checksum failure (no run) after the last run is the previous attempt', () => {
    const failedLaunch: AutoAttempt = { version: '1.3.0', attempt: 3, run_id: null, at: hoursAgo(0.5), error: 'checksum' };
    expect(previousAttempt(journal({}), failedLaunch)).toEqual({ version: '1.3.0', attempt: 3, failed: true, retryable: true, finishedAt: hoursAgo(0.5) });
    expect(previousAttempt(null, failedLaunch)!.attempt).toBe(3);
    // A run started after that launch failure is the newer fact.
    expect(previousAttempt(journal({ startedAt: hoursAgo(0.1), id: 'later' }), failedLaunch)!.attempt).toBe(1);
  });
  it('nothing known: null', () => {
    expect(previousAttempt(null, null)).toBeNull();
    expect(previousAttempt(journal({ versionTo: null }), null)).toBeNull();
  });
});
