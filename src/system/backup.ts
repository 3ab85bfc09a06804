// Backups: database + data directory + environment file, one `<id>.tar.gz` per backup in the backups
// directory, with a `<id>.json` beside it so listing never opens an archive.
//
// Archive layout:
//   backup.json            the BackupInfo plus the backend it came from
//   database/dump.sql      PostgreSQL: pg_dump in plain SQL (restored by psql in ONE transaction, so a
//                          failed restore leaves the database as it was)
//   database/pgdata.tar    embedded PGlite: the data directory's pgdata, taken while nobody writes to it
//   data/...               the rest of the data directory (secret.key: without it secrets cannot be read)
//   env                    the environment file
//
// A backup is restored only onto the version that made it (peers.md §6: migrations cannot be reverted, so a
// dump from another version would leave code and schema disagreeing).
import { spawn } from 'node:child_process';
import { holdForRestore } from './restore-hold.ts';
import { randomBytes } from 'node:crypto';
import { closeSync, createWriteStream, existsSync, openSync, readSync, statSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { copyDatabase, copyName, DatabaseCopyError, dropDatabaseCopy, urlOfDatabase } from './database-copy.ts';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { DataDirLockedError, lockDataDir } from '../db/lock.ts';
import { compareVersions, parseVersion } from '../install/version.ts';

import type { BackupTarget } from '../install/backup-target.ts';
export type { BackupTarget };

export interface BackupInfo {
  id: string;
  file: string;
  version: string;
  created: string;
  size: number;
  kind: 'pre-upgrade' | 'manual';
}

export class BackupError extends Error {}

/** Told after each step of a backup or a restore (`cairn backup` prints it): steps done of the total, and which. */
export type BackupProgress = (done: number, total: number, step: string) => void;

export const BACKUPS_KEPT = 3;
const BACKUP_KINDS: ReadonlyArray<BackupInfo['kind']> = ['pre-upgrade', 'manual'];
const ID_RE = /^\d{8}T\d{6}Z-(?:pre-upgrade|manual)-[0-9a-f]{6}$/;
const LOCK_FILE = 'cairn.lock';
const PGDATA = 'pgdata';

interface BackupMeta extends Omit<BackupInfo, 'file' | 'size'> {
  backend: 'postgres' | 'pglite';
}

// ---------------------------------------------------------------------------------------------- processes

const INSTALL_HINT: Record<string, string> = {
  pg_dump: 'install postgresql-client',
  psql: 'install postgresql-client',
  tar: 'install tar',
};

/** Runs a tool; a missing tool and a failing tool are both BackupErrors that say what to do. */
function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; stdoutFile?: string } = {}): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...opts.env }, stdio: ['ignore', opts.stdoutFile ? 'pipe' : 'ignore', 'pipe'] });
    const err: Buffer[] = [];
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    const written = opts.stdoutFile && child.stdout ? pipeline(child.stdout, createWriteStream(opts.stdoutFile)) : Promise.resolve();
    child.on('error', (e: NodeJS.ErrnoException) => {
      reject(
        new BackupError(
          e.code === 'ENOENT' ? `${cmd} was not found on PATH; ${INSTALL_HINT[cmd] ?? `install ${cmd}`}` : `${cmd} could not be started: ${e.message}`,
        ),
      );
    });
    child.on('close', (code) => {
      written.then(
        () => {
          if (code === 0) resolvePromise();
          else reject(new BackupError(`${cmd} failed (exit ${code}): ${Buffer.concat(err).toString('utf8').trim().slice(-1500)}`));
        },
        (e: Error) => reject(new BackupError(`${cmd} output could not be written: ${e.message}`)),
      );
    });
  });
}

/** libpq tools get the password through the environment, not the command line (visible in `ps`). */
function libpqArgs(databaseUrl: string): { url: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = '';
  return { url: url.toString(), env: password ? { PGPASSWORD: password } : {} };
}

// ---------------------------------------------------------------------------------------------- database part

/**
 * Embedded: the data directory must not change while it is copied. Either this process has it open
 * (PGlite dumps it consistently), or nobody has: then we hold its lock for the copy so no server starts.
 */
async function withStoppedDataDir<T>(dataDir: string, work: () => Promise<T>): Promise<T> {
  let release: () => void;
  try {
    release = lockDataDir(dataDir);
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      throw new BackupError(`${err.message} The embedded database is copied only while Cairn is stopped (or by the running server itself).`);
    }
    throw err;
  }
  try {
    return await work();
  } finally {
    release();
  }
}

async function dumpDatabase(target: BackupTarget, outDir: string): Promise<void> {
  await mkdir(outDir, { recursive: true });
  if (target.databaseUrl) {
    const { url, env } = libpqArgs(target.databaseUrl);
    // Plain SQL, no owners or grants: it restores onto a database owned by another role too.
    await run('pg_dump', ['--format=plain', '--no-owner', '--no-privileges', `--file=${join(outDir, 'dump.sql')}`, `--dbname=${url}`], { env });
    return;
  }
  const pgdata = join(target.dataDir, PGDATA);
  const tarFile = join(outDir, 'pgdata.tar');
  if (target.database?.dumpDataDir) {
    const blob = await target.database.dumpDataDir();
    await pipeline(Readable.fromWeb(blob.stream() as import('node:stream/web').ReadableStream<Uint8Array>), createWriteStream(tarFile));
    return;
  }
  if (!existsSync(pgdata)) throw new BackupError(`no embedded database at ${pgdata}`);
  await withStoppedDataDir(target.dataDir, () => run('tar', ['-cf', tarFile, '-C', pgdata, '.']));
}

/** Replaces dir's entries (except the lock file) with those of `from`; puts the old ones back on failure. */
async function replaceContents(dir: string, from: string, keep: (name: string) => boolean = () => false): Promise<void> {
  await mkdir(dir, { recursive: true });
  const aside = await mkdtemp(join(dirname(dir), `.${basename(dir)}-old-`));
  const moved: string[] = [];
  try {
    for (const name of await readdir(dir)) {
      if (name === LOCK_FILE || keep(name)) continue;
      await rename(join(dir, name), join(aside, name));
      moved.push(name);
    }
    for (const name of await readdir(from)) await rename(join(from, name), join(dir, name));
  } catch (err) {
    for (const name of await readdir(dir)) if (name !== LOCK_FILE && !keep(name) && !moved.includes(name)) await rm(join(dir, name), { recursive: true, force: true });
    for (const name of moved) await rename(join(aside, name), join(dir, name));
    await rm(aside, { recursive: true, force: true });
    throw err;
  }
  await rm(aside, { recursive: true, force: true });
}

async function restoreEmbedded(dataDir: string, pgdataTar: string): Promise<void> {
  const fresh = await mkdtemp(join(dirname(dataDir), `.${basename(dataDir)}-restore-`));
  try {
    await mkdir(join(fresh, PGDATA));
    await run('tar', ['-xf', pgdataTar, '-C', join(fresh, PGDATA), '--no-same-owner']);
    if (!existsSync(join(fresh, PGDATA, 'PG_VERSION'))) throw new BackupError(`${basename(pgdataTar)} holds no PostgreSQL data directory`);
    await replaceContents(dataDir, fresh, (name) => name !== PGDATA);
  } finally {
    await rm(fresh, { recursive: true, force: true });
  }
}

/**
 * PostgreSQL: drop every schema the application owns and load the dump, all in one psql transaction, so
 * tables a later migration added disappear too and a failure changes nothing.
 */
async function restorePostgres(databaseUrl: string, dumpFile: string): Promise<void> {
  const { url, env } = libpqArgs(databaseUrl);
  const prelude = join(dirname(dumpFile), 'restore-prelude.sql');
  await writeFile(
    prelude,
    `DO $$ DECLARE s text; BEGIN
       FOR s IN SELECT nspname FROM pg_namespace
                 WHERE nspname NOT IN ('pg_catalog', 'information_schema') AND nspname NOT LIKE 'pg\\_%'
       LOOP EXECUTE format('DROP SCHEMA %I CASCADE', s); END LOOP;
     END $$;
     CREATE SCHEMA public;\n`,
  );
  const args = ['--no-psqlrc', '--quiet', '--single-transaction', '--set=ON_ERROR_STOP=1', `--file=${prelude}`, `--file=${dumpFile}`, `--dbname=${url}`];
  // The one transaction locks every table, index and sequence of the schema (about 3,000 locks), from the lock table
  // all the server's sessions share: while other sessions hold many, it can run out ("out of shared memory"). It
  // then changed nothing, so it is tried again once they may have let go, a few times, before the error stands.
  for (let attempt = 1; ; attempt++) {
    try {
      await run('psql', args, { env });
      return;
    } catch (err) {
      if (!(err instanceof BackupError) || !/out of shared memory/.test(err.message) || attempt >= RESTORE_ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, 1000 * 2 ** (attempt - 1) * (1 + Math.random())));
    }
  }
}

/** Tries of a PostgreSQL restore that ran out of the server's shared lock table (waits 1-2, 2-4, 4-8, 8-16 s between). */
const RESTORE_ATTEMPTS = 5;

// ---------------------------------------------------------------------------------------------- snapshots

/** What a snapshot file holds when the server copied the database (a plain SQL dump starts with "--"). */
const COPY_MARK = 'cairn-database-copy ';

/** The database copy a snapshot file names, or null when the file is a dump (or a PGlite tar). */
function snapshotCopy(file: string): string | null {
  // The first bytes only: a dump may be gigabytes.
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(200);
  let head: string;
  try {
    head = buf.toString('utf8', 0, readSync(fd, buf, 0, buf.length, 0));
  } finally {
    closeSync(fd);
  }
  return head.startsWith(COPY_MARK) ? head.slice(COPY_MARK.length).split('\n')[0]! : null;
}

/**
 * Database only, for the upgrade's rollback: taken while nothing serves, restored only when the upgrade fails
 * after migrating. PostgreSQL: a copy of the database made by the server (src/system/database-copy.ts; the file
 * names it) from `copyFromBytes` up, or a dump below that or where the copy cannot be made; embedded: a tar of the
 * (stopped) pgdata. Says which.
 */
export async function snapshotDatabase(target: BackupTarget, file: string, copyFromBytes?: number | null): Promise<string> {
  // null: a dump whatever the size (the server's copy needs every other session gone, and the site serves reads).
  if (target.databaseUrl && copyFromBytes !== null) {
    // The file names the copy before it is made: a run killed while the server copies still finds it to drop.
    const copy = copyName(target.databaseUrl);
    await writeFile(file, `${COPY_MARK}${copy}\n`, { mode: 0o600 });
    try {
      await copyDatabase(target.databaseUrl, copy, copyFromBytes);
      return `a copy of the database made by the server (${copy})`;
    } catch (err) {
      // Whatever stopped the copy, a dump is a snapshot too (and says what is wrong if the server is).
      await dumpSnapshot(target, file);
      const why = err instanceof DatabaseCopyError ? err.message : `the server could not copy the database: ${err instanceof Error ? err.message : String(err)}`;
      return `a dump of ${Math.round(statSync(file).size / 1024)} KB (no copy by the server: ${why})`;
    }
  }
  await dumpSnapshot(target, file);
  return `${Math.round(statSync(file).size / 1024)} KB`;
}

async function dumpSnapshot(target: BackupTarget, file: string): Promise<void> {
  const work = await mkdtemp(join(dirname(file), '.snapshot-'));
  try {
    await dumpDatabase(target, work);
    await chmod(join(work, target.databaseUrl ? 'dump.sql' : 'pgdata.tar'), 0o600);
    await rename(join(work, target.databaseUrl ? 'dump.sql' : 'pgdata.tar'), file);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Puts the database back as the snapshot holds it (a copy is dumped and loaded like a dump: the database keeps its owner and settings). */
export async function restoreSnapshot(target: BackupTarget, file: string): Promise<void> {
  if (!existsSync(file)) throw new BackupError(`snapshot ${file} does not exist`);
  if (!target.databaseUrl) return withStoppedDataDir(target.dataDir, () => restoreEmbedded(target.dataDir, file));
  const copy = snapshotCopy(file);
  if (!copy) return restorePostgres(target.databaseUrl, file);
  const work = await mkdtemp(join(dirname(file), '.restore-'));
  try {
    await dumpDatabase({ ...target, databaseUrl: urlOfDatabase(target.databaseUrl, copy) }, work);
    await restorePostgres(target.databaseUrl, join(work, 'dump.sql'));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Removes a snapshot: its file, and the database copy it names. Throws when the copy could not be dropped. */
export async function discardSnapshot(target: BackupTarget, file: string): Promise<void> {
  if (!existsSync(file)) return;
  const copy = snapshotCopy(file);
  if (copy && target.databaseUrl) await dropDatabaseCopy(target.databaseUrl, copy);
  await rm(file, { force: true });
}

// ---------------------------------------------------------------------------------------------- backups

function newId(kind: BackupInfo['kind'], now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  return `${stamp}-${kind}-${randomBytes(3).toString('hex')}`;
}

export async function createBackup(target: BackupTarget, kind: BackupInfo['kind'], onStep: BackupProgress = () => {}): Promise<BackupInfo> {
  if (!BACKUP_KINDS.includes(kind)) throw new BackupError(`unknown backup kind ${JSON.stringify(kind)}`);
  if (!parseVersion(target.version)) throw new BackupError(`version ${JSON.stringify(target.version)} is not a release version`);
  // Backups hold the environment file and secret.key: readable by the service user only.
  await mkdir(target.backupsDir, { recursive: true, mode: 0o700 });
  await chmod(target.backupsDir, 0o700);
  const now = new Date();
  const id = newId(kind, now);
  const file = join(target.backupsDir, `${id}.tar.gz`);
  const staging = await mkdtemp(join(target.backupsDir, `.tmp-${id}-`));
  try {
    const meta: BackupMeta = { id, version: target.version, created: now.toISOString(), kind, backend: target.databaseUrl ? 'postgres' : 'pglite' };
    await writeFile(join(staging, 'backup.json'), JSON.stringify(meta, null, 1));
    await dumpDatabase(target, join(staging, 'database'));
    onStep(1, 4, 'database dumped');
    await mkdir(join(staging, 'data'));
    if (existsSync(target.dataDir)) {
      for (const name of await readdir(target.dataDir)) {
        if (name === LOCK_FILE || name === PGDATA) continue;
        await run('cp', ['-a', join(target.dataDir, name), join(staging, 'data', name)]);
      }
    }
    if (target.envFile && existsSync(target.envFile)) await copyFile(target.envFile, join(staging, 'env'));
    onStep(2, 4, target.envFile ? 'data directory and environment file copied' : 'data directory copied');
    const partial = `${file}.partial`;
    await run('tar', ['--use-compress-program=gzip -1', '-cf', partial, '-C', staging, '.']);
    await chmod(partial, 0o600);
    await rename(partial, file);
    onStep(3, 4, 'archive compressed');
    await writeFile(join(target.backupsDir, `${id}.json`), JSON.stringify(meta, null, 1), { mode: 0o600 });
  } catch (err) {
    await rm(`${file}.partial`, { force: true });
    throw err;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const info: BackupInfo = { id, file, version: target.version, created: now.toISOString(), size: (await stat(file)).size, kind };
  // The newest three are kept (SPEC Limits); pruning here means no caller can forget it.
  await pruneBackups(target.backupsDir);
  onStep(4, 4, `older backups pruned (the newest ${BACKUPS_KEPT} are kept)`);
  return info;
}

export async function listBackups(backupsDir: string): Promise<BackupInfo[]> {
  if (!existsSync(backupsDir)) return [];
  const out: BackupInfo[] = [];
  for (const name of await readdir(backupsDir)) {
    const id = name.endsWith('.json') ? name.slice(0, -5) : null;
    if (!id || !ID_RE.test(id)) continue;
    const file = join(backupsDir, `${id}.tar.gz`);
    let meta: BackupMeta;
    let size: number;
    try {
      meta = JSON.parse(await readFile(join(backupsDir, name), 'utf8')) as BackupMeta;
      size = (await stat(file)).size;
    } catch {
      continue; // a half-written or half-deleted backup is not a backup
    }
    out.push({ id, file, version: meta.version, created: meta.created, size, kind: meta.kind });
  }
  // Ids start with the UTC time, so they sort like `created`; the id breaks ties within one second.
  return out.sort((a, b) => (a.created === b.created ? (a.id < b.id ? 1 : -1) : a.created < b.created ? 1 : -1));
}

export async function pruneBackups(backupsDir: string, keep = BACKUPS_KEPT): Promise<string[]> {
  if (!Number.isInteger(keep) || keep < 1) throw new BackupError(`keep must be a whole number of at least 1 (got ${keep})`);
  const removed: string[] = [];
  for (const b of (await listBackups(backupsDir)).slice(keep)) {
    // The listing file goes first: a crash in between leaves an unlisted archive, never a listed missing one.
    await unlink(join(backupsDir, `${b.id}.json`));
    await rm(b.file, { force: true });
    removed.push(b.id);
  }
  return removed;
}

export async function restoreBackup(target: BackupTarget, id: string, onStep: BackupProgress = () => {}): Promise<void> {
  if (!ID_RE.test(id)) throw new BackupError(`${JSON.stringify(id)} is not a backup id (see cairn backup list)`);
  const info = (await listBackups(target.backupsDir)).find((b) => b.id === id);
  if (!info) throw new BackupError(`no backup ${id} in ${target.backupsDir}`);
  if (compareVersions(info.version, target.version) !== 0) {
    throw new BackupError(
      `backup ${id} was made by Cairn ${info.version} and this is Cairn ${target.version}: a backup is restored only onto the version that made it (install ${info.version} first)`,
    );
  }
  let releaseHold: () => void;
  try {
    releaseHold = holdForRestore(target.backupsDir, id);
  } catch (err) {
    throw new BackupError((err as Error).message);
  }
  let replacing = false;
  const work = await mkdtemp(join(target.backupsDir, `.restore-${id}-`)).catch((err: unknown) => {
    releaseHold();
    throw err;
  });
  try {
    await run('tar', ['-xzf', info.file, '-C', work, '--no-same-owner']);
    onStep(1, 2, 'archive unpacked');
    const meta = JSON.parse(await readFile(join(work, 'backup.json'), 'utf8')) as BackupMeta;
    const wanted: BackupMeta['backend'] = target.databaseUrl ? 'postgres' : 'pglite';
    if (meta.backend !== wanted) throw new BackupError(`backup ${id} holds a ${meta.backend} database; this installation uses ${wanted}`);
    if (target.databaseUrl) {
      replacing = true;
      await restorePostgres(target.databaseUrl, join(work, 'database', 'dump.sql'));
      await replaceContents(target.dataDir, join(work, 'data'), (name) => name === PGDATA);
    } else {
      await withStoppedDataDir(target.dataDir, async () => {
        replacing = true;
        await rename(join(work, 'database', 'pgdata.tar'), join(work, 'pgdata.tar'));
        // The non-database files first, then the database: both under the lock, so no server sees a mix.
        await replaceContents(target.dataDir, join(work, 'data'), (name) => name === PGDATA);
        await restoreEmbedded(target.dataDir, join(work, 'pgdata.tar'));
      });
    }
    if (target.envFile && existsSync(join(work, 'env'))) await copyFile(join(work, 'env'), target.envFile);
    onStep(2, 2, target.envFile ? 'database, data directory and environment file replaced' : 'database and data directory replaced');
    replacing = false;
  } finally {
    await rm(work, { recursive: true, force: true });
    // A restore that died while replacing leaves the site held: the database may be half restored.
    if (!replacing) releaseHold();
  }
}
