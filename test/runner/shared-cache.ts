// Directories a test run builds once per source tree and shares: with every file of the run, with the other pass
// of CI (the two start side by side) and with the runs after it while the sources are the same. Kept under
// CAIRN_TEST_SHARED_TMP (test/runner/tmpdir.ts) or os.tmpdir(). The first process to ask builds under a lock
// directory; the others wait for it. What is in them is only ever read (copied) by the tests.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../../src/db/lock.ts';

const READY = '.ready';

function cacheRoot(): string {
  return process.env.CAIRN_TEST_SHARED_TMP || tmpdir();
}

/** A hash of the files under `entries` (paths relative to `root`; folders walked; `skip` left out) and Node's version. */
export function sourceHash(root: string, entries: string[], skip: (rel: string) => boolean = () => false): string {
  const hash = createHash('sha256').update(process.version);
  const walk = (rel: string) => {
    const full = join(root, rel);
    if (!existsSync(full) || skip(rel)) return;
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) walk(`${rel}/${name}`);
    } else {
      hash.update(`${rel}\0`).update(readFileSync(full)).update('\0');
    }
  };
  for (const entry of entries) walk(entry);
  return hash.digest('hex').slice(0, 16);
}

/**
 * The directory `<prefix><key>`, built by `build` (into the empty directory it is given) unless a process built it
 * already. Directories of the same prefix and another key untouched for an hour are removed.
 */
export async function sharedDir(prefix: string, key: string, build: (dir: string) => Promise<void>, what: string, timeoutMs = 900_000): Promise<string> {
  const dir = join(cacheRoot(), `${prefix}${key}`);
  const ready = join(dir, READY);
  const lock = `${dir}.lock`;
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(ready)) {
    try {
      mkdirSync(lock);
    } catch {
      // Someone else builds: wait, unless the builder died (its pid file names a gone process).
      const owner = Number(readOr(join(lock, 'pid'), '0'));
      if (owner && !processAlive(owner)) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`${what} in ${dir} were not made within ${Math.round(timeoutMs / 60_000)} minutes`);
      await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    try {
      writeFileSync(join(lock, 'pid'), String(process.pid));
      if (existsSync(ready)) break;
      pruneOthers(prefix, dir);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      await build(dir);
      writeFileSync(ready, '');
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  // Used now: another source tree's run prunes only what nobody used for an hour.
  const now = new Date();
  utimesSync(dir, now, now);
  return dir;
}

function readOr(file: string, fallback: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}

function pruneOthers(prefix: string, keep: string): void {
  const hourAgo = Date.now() - 3_600_000;
  for (const name of readdirSync(cacheRoot())) {
    const full = join(cacheRoot(), name);
    if (!name.startsWith(prefix) || full === keep || name.endsWith('.lock')) continue;
    try {
      if (statSync(full).mtimeMs < hourAgo) rmSync(full, { recursive: true, force: true });
    } catch {
      /* gone meanwhile */
    }
  }
}
