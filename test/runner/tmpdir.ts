// Where a test run keeps its temporary files. Tests make a great many: a PGlite data directory per file, real
// installs with 15,000-file releases, backups, browser profiles. On this project's machines /tmp is ext4 on a
// virtual disk, where creating files costs the kernel far more than the work itself (unpacking one release: 8 s
// there, 1 s in memory), so a run puts its files in memory (/dev/shm, tmpfs) when there is room: the same code,
// the same real files and processes, on a faster filesystem. CAIRN_TEST_TMPDIR chooses another place.
import { mkdirSync, readdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../../src/db/lock.ts';

const MEMORY_ROOT = '/dev/shm';
/** A run on tmpfs wants this much free memory there (two passes side by side peak at a few GB). */
const MIN_FREE_BYTES = 6 * 1024 ** 3;

/**
 * Points TMPDIR (os.tmpdir() of this process, its workers and every process they start) at a directory of this
 * run's own, and CAIRN_TEST_SHARED_TMP at one kept across runs (the release bundles built for the upgrade tests,
 * keyed by the sources). Returns the run's directory, for removeRunTmpdir at the end.
 */
export function useRunTmpdir(): string | null {
  const chosen = process.env.CAIRN_TEST_TMPDIR;
  const base = chosen || (memoryHasRoom() ? join(MEMORY_ROOT, `cairn-tests-${process.getuid?.() ?? 0}`) : null);
  if (!base) return null;
  mkdirSync(base, { recursive: true });
  pruneDeadRuns(base);
  const run = join(base, `run-${process.pid}`);
  mkdirSync(run, { recursive: true });
  process.env.CAIRN_TEST_SHARED_TMP ??= base;
  process.env.TMPDIR = run;
  return run;
}

export function removeRunTmpdir(run: string | null): void {
  if (run) rmSync(run, { recursive: true, force: true });
}

function memoryHasRoom(): boolean {
  try {
    if (!statSync(MEMORY_ROOT).isDirectory()) return false;
    const fs = statfsSync(MEMORY_ROOT);
    return fs.bavail * fs.bsize >= MIN_FREE_BYTES;
  } catch {
    return false;
  }
}

/** Runs killed before their teardown leave their directory; nothing else removes it from memory. */
function pruneDeadRuns(base: string): void {
  for (const name of readdirSync(base)) {
    const pid = /^run-(\d+)$/.exec(name)?.[1];
    if (pid && Number(pid) !== process.pid && !processAlive(Number(pid))) rmSync(join(base, name), { recursive: true, force: true });
  }
}
