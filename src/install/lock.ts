// One upgrade at a time. The lock file names its owner by pid and process start time (so a reused pid is not
// mistaken for the owner); it is created with O_EXCL so two starters cannot both win.
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export const BUSY_MESSAGE = 'An upgrade is already running.';

export class UpgradeBusyError extends Error {
  constructor(detail = '') {
    super(detail ? `${BUSY_MESSAGE} ${detail}` : BUSY_MESSAGE);
  }
}

export interface LockInfo {
  pid: number;
  pidStart: string | null;
  acquiredAt: string;
  purpose: string;
  /** SHA-256 of the run's secret: the web process trusts a call from the engine that presents it. */
  tokenSha256: string | null;
  /**
   * The new release's upgrade stage the owner handed the run to (engine/handover.ts): the lock is held while
   * either process lives.
   */
  delegate?: { pid: number; pidStart: string | null } | null;
}

/** Start time of a process (field 22 of /proc/<pid>/stat), or null where /proc is not there. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

export function processAlive(pid: number, pidStart: string | null = null): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (pidStart === null) return true;
  const now = processStartTime(pid);
  // A zombie (killed, not yet reaped by its parent) is not alive for our purposes.
  try {
    if (/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) return false;
  } catch {
    /* no /proc: trust kill(0) */
  }
  return now === null || now === pidStart;
}

export function readLock(file: string): LockInfo | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as LockInfo;
  } catch {
    return null;
  }
}

function holderAlive(lock: LockInfo): boolean {
  return processAlive(lock.pid, lock.pidStart) || (!!lock.delegate && processAlive(lock.delegate.pid, lock.delegate.pidStart));
}

export function lockOwnerAlive(file: string): boolean {
  const lock = readLock(file);
  return lock !== null && lock.pid !== process.pid && lock.delegate?.pid !== process.pid && holderAlive(lock);
}

/** Records the process the owner handed the run to; only the owner's own child may take it (checked by the caller). */
export function delegateLock(file: string, pid: number): void {
  const lock = readLock(file);
  if (!lock) throw new UpgradeBusyError('The upgrade lock is gone: the run that handed over is no longer in charge.');
  const tmp = `${file}.${pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ ...lock, delegate: { pid, pidStart: processStartTime(pid) } }), { mode: 0o600 });
  renameSync(tmp, file);
}

/** Takes the lock for this process or throws UpgradeBusyError; a lock whose owner is dead is taken over. */
export function acquireLock(file: string, purpose: string, tokenSha256: string | null = null): () => void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const info: LockInfo = { pid: process.pid, pidStart: processStartTime(process.pid), acquiredAt: new Date().toISOString(), purpose, tokenSha256 };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, JSON.stringify(info));
      closeSync(fd);
      return () => releaseLock(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readLock(file);
      if (holder && holderAlive(holder)) throw new UpgradeBusyError();
      try {
        unlinkSync(file);
      } catch {
        /* another starter removed it first; try again */
      }
    }
  }
  throw new UpgradeBusyError();
}

export function releaseLock(file: string): void {
  const holder = readLock(file);
  if (holder && holder.pid !== process.pid) return;
  try {
    unlinkSync(file);
  } catch {
    /* already gone */
  }
}
