// The install layout the upgrade engine works on:
//   <root>/releases/<version>/   one unpacked bundle per release
//   <root>/current               symlink to the running release
//   <root>/shared/.env           environment of every process (DATABASE_URL, CAIRN_DATA_DIR, HOST, PORT, ...)
//   <root>/shared/data/          embedded database (when DATABASE_URL is unset)
//   <root>/shared/backups/       pre-upgrade and manual backups
//   <root>/shared/upgrade/       journal.json (the last run), lock.json, work/<run>/ (snapshot, env copy, logs)
//   <root>/shared/run/           pid files and logs of the local process supervisor
//   <root>/shared/cache/<version>/  V8's code cache of that release's compiled server
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface InstallLayout {
  root: string;
  releases: string;
  current: string;
  shared: string;
  envFile: string;
  dataDir: string;
  backupsDir: string;
  upgradeDir: string;
  journalFile: string;
  lockFile: string;
  workRoot: string;
  runDir: string;
}

export function layoutFor(root: string): InstallLayout {
  const r = resolve(root);
  const shared = join(r, 'shared');
  const upgradeDir = join(shared, 'upgrade');
  return {
    root: r,
    releases: join(r, 'releases'),
    current: join(r, 'current'),
    shared,
    envFile: join(shared, '.env'),
    dataDir: join(shared, 'data'),
    backupsDir: join(shared, 'backups'),
    upgradeDir,
    journalFile: join(upgradeDir, 'journal.json'),
    lockFile: join(upgradeDir, 'lock.json'),
    workRoot: join(upgradeDir, 'work'),
    runDir: join(shared, 'run'),
  };
}

export function releaseDir(layout: InstallLayout, version: string): string {
  return join(layout.releases, version);
}

/**
 * Where a release's processes keep V8's code cache of its compiled server (written by the release's bin/cairn.mjs,
 * which finds it by the same rule: src/upgrade/bundle.ts); it goes with the release.
 */
export function releaseCacheDir(layout: InstallLayout, version: string): string {
  return join(layout.shared, 'cache', version);
}

export function releaseVersion(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The release `current` points at, or null on a fresh root. */
export function currentRelease(layout: InstallLayout): { version: string; dir: string } | null {
  let target: string;
  try {
    target = readlinkSync(layout.current);
  } catch {
    return null;
  }
  const dir = resolve(layout.root, target);
  if (!existsSync(join(dir, 'package.json'))) return null;
  return { version: releaseVersion(dir), dir };
}

/**
 * The install root this code runs from: CAIRN_ROOT, else the parent of `releases/` when this file lives inside
 * an unpacked release, else null (a development checkout has no install root).
 */
export function detectRoot(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.CAIRN_ROOT) return resolve(env.CAIRN_ROOT);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, 'package.json'))) break;
    dir = dirname(dir);
  }
  return basename(dirname(dir)) === 'releases' ? dirname(dirname(dir)) : null;
}

/** KEY=VALUE lines of an env file (comments, blank lines and surrounding quotes allowed). */
export function readEnvFile(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const out: Record<string, string> = {};
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    let value = line.slice(eq + 1).trim();
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0]!)) value = value.slice(1, -1);
    out[line.slice(0, eq).trim()] = value;
  }
  return out;
}

/** The environment a release runs with: ours, overlaid with the install's env file, pointed at the shared data. */
export function releaseEnv(layout: InstallLayout, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const fileEnv = readEnvFile(layout.envFile);
  const env: NodeJS.ProcessEnv = { ...process.env, CAIRN_DATA_DIR: layout.dataDir, ...fileEnv, CAIRN_ROOT: layout.root, ...extra };
  // A listen-fd hand-over is for one spawn only, never inherited further.
  if (!extra.CAIRN_LISTEN_FD) delete env.CAIRN_LISTEN_FD;
  return env;
}

/** Where the web service listens, from the install's env file (defaults as in src/config.ts). */
export function webAddress(layout: InstallLayout): { host: string; port: number } {
  const env = { ...process.env, ...readEnvFile(layout.envFile) };
  const host = env.HOST && env.HOST !== '0.0.0.0' && env.HOST !== '::' ? env.HOST : '127.0.0.1';
  return { host, port: Number(env.PORT ?? 8080) };
}
