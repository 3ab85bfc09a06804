// The run's journal: one JSON document rewritten atomically (temp file, fsync, rename, fsync of the directory)
// before and after every step, so a killed run can be finished or rolled back from what it says.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export const STEPS = ['preflight', 'backup', 'prepare', 'quiesce', 'swap', 'deps', 'snapshot', 'migrate', 'static', 'verify', 'start', 'resume', 'done'] as const;
export type StepName = (typeof STEPS)[number];

export type StepStatus = 'running' | 'ok' | 'failed' | 'skipped';

export interface StepRecord {
  name: StepName;
  status: StepStatus;
  started: string;
  ended: string | null;
  detail: string;
  /** The release whose engine ran the step: from quiesce on, the new release's own stage (engine/handover.ts). */
  engine?: string;
}

export type RunState = 'running' | 'done' | 'failed' | 'restore_failed';
export type OutcomeCode = 'new' | 'unchanged' | 'restored' | 'restore_failed';

export interface Journal {
  id: string;
  state: RunState;
  trigger: 'bundle' | 'online' | 'installer' | 'auto';
  startedBy: string;
  versionFrom: string;
  versionTo: string | null;
  bundle: string;
  pid: number;
  startedAt: string;
  finishedAt: string | null;
  step: StepName | null;
  steps: StepRecord[];
  outcome: { code: OutcomeCode; database: 'migrated' | 'unchanged' | 'restored' | 'restore_failed'; services: 'running' | 'unhealthy' | 'stopped' } | null;
  failedStep: StepName | null;
  error: string | null;
  errorTail: string | null;
  warnings: string[];
  /** A failure before any service stopped that may simply be tried again later (the host's package updates, say). */
  retryable?: boolean;
  /** What rollback and recovery need to know; every field is set before the change it describes. */
  context: {
    workDir: string;
    previousRelease: string | null;
    newRelease: string | null;
    servicesBefore: string[] | null;
    timersBefore: string[] | null;
    envCopy: string | null;
    swapped: boolean;
    pendingMigrations: string[] | null;
    snapshotFile: string | null;
    migrateStarted: boolean;
    holdToken: string | null;
    backupId: string | null;
    jobId: string | null;
    /** A command the engine is waiting for, so recovery can stop it if the engine was killed meanwhile. */
    child: { pid: number; pidStart: string | null } | null;
    /**
     * The old release's web answers reads and refuses changes (CAIRN_UPGRADE_SERVE_READS=1): set at quiesce, cleared
     * when the run takes the port (before a migration that web could not read through, or at start) or that web hands
     * it to the new one. Absent in journals of older engines.
     */
    webReadOnly?: boolean;
    /**
     * The run asked that web to start the new one on its port: until the answer, either may be serving (a run that
     * died meanwhile is rolled back by restarting web, never by reopening it).
     */
    handOverStarted?: boolean;
    /** The new release's upgrade stage that took the run over after prepare (absent in journals of older engines). */
    stage?: { release: string; protocol: number; pid: number | null } | null;
  };
}

export function writeJournal(file: string, journal: Journal): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(journal, null, 2));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  const dirFd = openSync(dirname(file), 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

export function readJournal(file: string): Journal | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Journal;
  } catch {
    return null;
  }
}

/** A run that neither finished nor rolled back: recovery must see to it before anything else happens. */
export function unfinished(journal: Journal | null): boolean {
  return journal !== null && (journal.state === 'running' || journal.state === 'restore_failed');
}
