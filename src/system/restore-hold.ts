// A restore holds the site: `cairn backup restore` (restoreBackup) writes <backups>/restore.lock for as long as it
// replaces the database, the data directory and the environment file, and the upgrade's preflight refuses while
// that file is there. A file left by a restore that died says the database may be half restored.
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive, processStartTime } from '../install/lock.ts';

export interface RestoreHold {
  backupId: string;
  pid: number;
  pidStart: string | null;
  since: string;
}

export function restoreHoldFile(backupsDir: string): string {
  return join(backupsDir, 'restore.lock');
}

/** The restore holding the site, with whether its process still lives; null when none does. */
export function restoreHolding(backupsDir: string): (RestoreHold & { alive: boolean }) | null {
  const file = restoreHoldFile(backupsDir);
  if (!existsSync(file)) return null;
  let hold: RestoreHold;
  try {
    hold = JSON.parse(readFileSync(file, 'utf8')) as RestoreHold;
  } catch {
    return { backupId: '?', pid: 0, pidStart: null, since: '?', alive: false };
  }
  return { ...hold, alive: processAlive(hold.pid, hold.pidStart) };
}

/** Marks the site held by this restore; refuses while another live restore holds it. Returns the release. */
export function holdForRestore(backupsDir: string, backupId: string): () => void {
  const file = restoreHoldFile(backupsDir);
  const other = restoreHolding(backupsDir);
  if (other?.alive) throw new Error(`A restore is in progress (backup ${other.backupId}, since ${other.since}).`);
  // A dead restore's hold is ours to replace: this restore puts the database in a known state again.
  rmSync(file, { force: true });
  const hold: RestoreHold = { backupId, pid: process.pid, pidStart: processStartTime(process.pid), since: new Date().toISOString() };
  const fd = openSync(file, 'wx', 0o600);
  try {
    writeSync(fd, JSON.stringify(hold));
  } finally {
    closeSync(fd);
  }
  return () => rmSync(file, { force: true });
}
