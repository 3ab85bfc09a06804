// A real install for upgrade tests: two bundles built from this source tree (vN as it is, vN+1 a copy with the
// version bumped and one migration added; built once per source tree and shared by every file), a temporary install
// root with vN unpacked and `current` pointing at it, the web service run by the local supervisor, and helpers to
// run `cairn` commands of the installed release.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/types.ts';
import { openPGlite, openPostgres } from '../../src/db/database.ts';
import { buildBundle, unpackBundle } from '../../src/upgrade/bundle.ts';
import { parseVersion } from '../../src/install/version.ts';
import { layoutFor, type InstallLayout } from '../../src/install/layout.ts';
import { LocalSupervisor } from '../../src/upgrade/host/local.ts';
import { waitForHealth } from '../../src/upgrade/engine/probe.ts';
import { processAlive } from '../../src/install/lock.ts';
import { freePort } from '../helpers/cairn-process.ts';
import { snapshotCopiesOf, testTablespaceClause, withServer } from '../helpers/pg-test-databases.ts';
import { sharedDir, sourceHash } from '../runner/shared-cache.ts';
import { copyDataDir } from '../helpers/data-dir-copy.ts';
import type { Journal } from '../../src/upgrade/engine/journal.ts';

export const SOURCE = resolve(import.meta.dirname, '../..');
export const TEST_MIGRATION = '9000_upgrade_test';

export interface Bundles {
  dir: string;
  vN: string;
  vN1: string;
  versionN: string;
  versionN1: string;
}

export function bumpPatch(version: string): string {
  const v = parseVersion(version);
  if (!v) throw new Error(`bad version ${version}`);
  return `${v.major}.${v.minor}.${v.patch + 1}`;
}

/** Copies the source tree (without node_modules, which is linked) and bumps the version; adds the test migration. */
function nextSource(into: string, version: string): void {
  for (const entry of ['src', 'bin', 'deploy', 'package-lock.json', 'tsconfig.json']) {
    if (existsSync(join(SOURCE, entry))) cpSync(join(SOURCE, entry), join(into, entry), { recursive: true });
  }
  symlinkSync(join(SOURCE, 'node_modules'), join(into, 'node_modules'));
  const pkg = JSON.parse(readFileSync(join(SOURCE, 'package.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(into, 'package.json'), JSON.stringify({ ...pkg, version }, null, 2));
  const migrations = join(into, 'src/db/migrations');
  writeFileSync(
    join(migrations, `${TEST_MIGRATION}.ts`),
    `import { sql, type Kysely } from 'kysely';
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql\`CREATE TABLE upgrade_test_marker (id int PRIMARY KEY, note text NOT NULL); INSERT INTO upgrade_test_marker VALUES (1, 'added by the upgrade')\`.execute(db);
}
`,
  );
  const index = join(migrations, 'index.ts');
  let text = readFileSync(index, 'utf8');
  text = text.replace(/\nexport const migrations/, `\nimport * as mUpgradeTest from './${TEST_MIGRATION}.ts';\nexport const migrations`);
  text = text.replace(/\n};\s*$/, `\n  '${TEST_MIGRATION}': mUpgradeTest,\n};\n`);
  writeFileSync(index, text);
}

/** Everything that goes into the two bundles: same tree, same bundles. */
const BUNDLE_INPUTS = ['src', 'bin', 'deploy', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json', 'test/upgrade/install.ts'];

async function build(dir: string, versionN1: string): Promise<void> {
  await buildBundle({ sourceDir: SOURCE, outDir: join(dir, 'n'), skipWeb: true });
  const src = join(dir, 'src-n1');
  mkdirSync(src);
  nextSource(src, versionN1);
  await buildBundle({ sourceDir: src, outDir: join(dir, 'n1'), skipWeb: true });
  rmSync(src, { recursive: true, force: true });
}

/**
 * The two bundles, built once per source tree and shared by every upgrade test file (and by the embedded and
 * PostgreSQL passes of CI, and later runs of the same tree): test/runner/shared-cache.ts. Bundles are only ever
 * read by the tests.
 */
export async function buildBundles(): Promise<Bundles> {
  const versionN = (JSON.parse(readFileSync(join(SOURCE, 'package.json'), 'utf8')) as { version: string }).version;
  const versionN1 = bumpPatch(versionN);
  const dir = await sharedDir('cairn-test-bundles-', sourceHash(SOURCE, BUNDLE_INPUTS), (d) => build(d, versionN1), 'the test bundles');
  return { dir, vN: join(dir, 'n', `cairn-${versionN}.tar.gz`), vN1: join(dir, 'n1', `cairn-${versionN1}.tar.gz`), versionN, versionN1 };
}

function readFileSyncOr(file: string, fallback: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}

export interface Install {
  layout: InstallLayout;
  /** The install's PostgreSQL database, or null for the embedded one under shared/data. */
  databaseUrl: string | null;
  host: LocalSupervisor;
  port: number;
  adminToken: string;
  /** Runs `cairn <args>` of the installed (current) release; resolves with exit code and output. */
  cairn(args: string[], env?: Record<string, string>): Promise<{ code: number | null; signal: string | null; out: string }>;
  /** Runs deploy/install.sh of this source tree against the install root. */
  installer(args: string[]): Promise<{ code: number | null; signal: string | null; out: string }>;
  /** Starts `cairn <args>` without waiting (to kill it mid-run). */
  spawnCairn(args: string[], env?: Record<string, string>): ChildProcess;
  api(path: string, method?: 'GET' | 'POST', body?: unknown): Promise<{ status: number; body: unknown; headers: Record<string, unknown> }>;
  waitHealthy(version: string): Promise<void>;
  close(): Promise<void>;
}

async function createPgDatabase(base: string | undefined, template: string | null): Promise<{ url: string; name: string; drop: () => Promise<void> } | null> {
  if (!base) return null;
  const name = `cairn_up_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await withServer(base, (c) => c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : testTablespaceClause()}`));
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    // With any copy an upgrade's snapshot left (a run that failed and kept it for `cairn upgrade recover`).
    drop: () =>
      withServer(base, async (c) => {
        for (const db of [name, ...(await snapshotCopiesOf(c, name))]) await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      }).then(() => undefined, () => undefined),
  };
}

/**
 * What a new install holds once its admin, token and demo data are made (the first-run commands, ~15 s of CPU on
 * the embedded database): the first install of a run with the same release, size and database kind makes it with
 * the real commands and keeps a copy (a data directory, or a PostgreSQL template database named after the run so
 * the run's teardown drops it); later installs start from the copy. Every install still unpacks its release and
 * starts its own web.
 */
interface InstallSeed {
  adminToken: string;
  /** Embedded: the data directory to copy. */
  dataDir: string | null;
  /** PostgreSQL: the template database to create from. */
  database: string | null;
}

interface SeedPaths {
  dir: string;
  file: string;
  lock: string;
  database: string | null;
}

/**
 * The run's migrated template (test/global-setup.ts): a PostgreSQL template database's name, or an embedded data
 * directory to copy; null outside a test run (vitest is imported only inside one: importing it anywhere else fails).
 */
async function runTemplate(pg: boolean): Promise<string | null> {
  if (!process.env.VITEST) return null;
  const { inject } = await import('vitest');
  return (pg ? inject('pgTemplate') : inject('pgliteTemplate')) || null;
}

/**
 * Where the seed lives; null outside a test run (the benchmarks install with this file too) and when no run template
 * names a PostgreSQL server (nothing would drop the copy).
 */
async function seedPaths(version: string, devices: number, pg: boolean): Promise<SeedPaths | null> {
  if (!process.env.VITEST) return null;
  const key = `${version}-${devices}-${pg ? 'pg' : 'embedded'}`;
  const dir = join(tmpdir(), `cairn-install-seed-${key}`);
  const pgTemplate = pg ? await runTemplate(true) : null;
  if (pg && !pgTemplate) return null;
  const database = pgTemplate ? `${pgTemplate.replace(/template$/, '')}seed_${key.replace(/[^a-z0-9]/gi, '_')}` : null;
  return { dir, file: join(dir, 'seed.json'), lock: `${dir}.lock`, database };
}

/** The seed for this kind of install, or null with the lock held (the caller makes it, then calls saveSeed). */
async function takeSeed(paths: SeedPaths): Promise<InstallSeed | null> {
  const deadline = Date.now() + 900_000;
  for (;;) {
    if (existsSync(paths.file)) return JSON.parse(readFileSync(paths.file, 'utf8')) as InstallSeed;
    try {
      mkdirSync(paths.lock);
      writeFileSync(join(paths.lock, 'pid'), String(process.pid));
      if (existsSync(paths.file)) {
        rmSync(paths.lock, { recursive: true, force: true });
        continue;
      }
      return null;
    } catch {
      const owner = Number(readFileSyncOr(join(paths.lock, 'pid'), '0'));
      if (owner && !processAlive(owner)) rmSync(paths.lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`the install seed ${paths.dir} was not made within 15 minutes`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

async function saveSeed(paths: SeedPaths, from: { dataDir: string; database: string | null; base: string | undefined }, adminToken: string): Promise<void> {
  try {
    mkdirSync(paths.dir, { recursive: true });
    let dataDir: string | null = null;
    if (from.database && from.base) {
      // The commands that made it have exited; a closing backend may still hold it for a moment.
      for (let i = 0; ; i++) {
        try {
          await withServer(from.base, (c) => c.query(`CREATE DATABASE ${paths.database} TEMPLATE ${from.database}`));
          break;
        } catch (err) {
          if (i >= 20 || !/being accessed by other users/.test((err as Error).message)) throw err;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    } else {
      dataDir = join(paths.dir, 'data');
      copyDataDir(from.dataDir, dataDir);
    }
    const seed: InstallSeed = { adminToken, dataDir, database: from.database ? paths.database : null };
    writeFileSync(`${paths.file}.partial`, JSON.stringify(seed));
    renameSync(`${paths.file}.partial`, paths.file);
  } finally {
    rmSync(paths.lock, { recursive: true, force: true });
  }
}

/** Installs vN into a fresh root, loads demo data, starts web and waits for it. */
export async function installRelease(
  bundle: string,
  version: string,
  opts: {
    devices?: number;
    postgresUrl?: string;
    /** CAIRN_SNAPSHOT_COPY_FROM_MB in the env file: 0 (the tests' small databases still get the server's copy), or null for the product's default. */
    snapshotCopyFromMb?: number | null;
    /** CAIRN_UPGRADE_SERVE_READS=1 in the env file: reads are answered through the upgrade (PostgreSQL only). */
    serveReads?: boolean;
  } = {},
): Promise<Install> {
  const root = mkdtempSync(join(tmpdir(), 'cairn-root-'));
  const layout = layoutFor(root);
  const pgBase = opts.postgresUrl ?? process.env.TEST_DATABASE_URL;
  const copyFromMb = opts.snapshotCopyFromMb === undefined ? 0 : opts.snapshotCopyFromMb;
  const devices = opts.devices ?? 12;
  const seedAt = await seedPaths(version, devices, Boolean(pgBase));
  const seed = seedAt ? await takeSeed(seedAt) : null;
  // Without a seed yet, the first commands start from the run's migrated template rather than an empty database:
  // the release is this tree's, so are its migrations (a release's own first run is src/upgrade/bundle.test.ts's).
  const migrated = seed || (pgBase && pgBase !== process.env.TEST_DATABASE_URL) ? null : await runTemplate(Boolean(pgBase));
  const pgdb = await createPgDatabase(pgBase, seed?.database ?? migrated);
  await unpackBundle(bundle, join(layout.releases, version));
  symlinkSync(`releases/${version}`, layout.current);
  if (seed?.dataDir) copyDataDir(seed.dataDir, layout.dataDir);
  else if (migrated && !pgBase) copyDataDir(migrated, layout.dataDir);
  else mkdirSync(layout.dataDir, { recursive: true });
  const port = await freePort();
  const env = [
    'HOST=127.0.0.1',
    `PORT=${port}`,
    `CAIRN_DATA_DIR=${layout.dataDir}`,
    'LOG_LEVEL=warn',
    'CAIRN_ADMIN_PASSWORD=admin-password-for-tests',
    ...(pgdb ? [`DATABASE_URL=${pgdb.url}`, `CAIRN_SECRET_KEY=${'b'.repeat(64)}`] : []),
    ...(copyFromMb === null ? [] : [`CAIRN_SNAPSHOT_COPY_FROM_MB=${copyFromMb}`]),
    ...(opts.serveReads ? ['CAIRN_UPGRADE_SERVE_READS=1'] : []),
  ];
  writeFileSync(layout.envFile, `${env.join('\n')}\n`);
  const host = new LocalSupervisor(layout);

  const childEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
    const e: NodeJS.ProcessEnv = { ...process.env, ...extra };
    // The install's own env file is the truth; nothing of the test runner's database settings leaks in.
    delete e.DATABASE_URL;
    delete e.CAIRN_DATA_DIR;
    delete e.PORT;
    for (const line of env) {
      const i = line.indexOf('=');
      e[line.slice(0, i)] = line.slice(i + 1);
    }
    return e;
  };
  const spawnCairn = (args: string[], extra: Record<string, string> = {}, command = [process.execPath, join(layout.current, 'bin', 'cairn.mjs')]) =>
    spawn(command[0]!, [...command.slice(1), ...args], { cwd: layout.shared, env: childEnv(extra), stdio: ['ignore', 'pipe', 'pipe'] });
  const cairn = (args: string[], extra: Record<string, string> = {}, command?: string[]) =>
    new Promise<{ code: number | null; signal: string | null; out: string }>((ok) => {
      const child = spawnCairn(args, extra, command);
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      child.on('close', (code, signal) => ok({ code, signal, out }));
    });

  const run = async (args: string[]) => {
    const r = await cairn(args);
    if (r.code !== 0) throw new Error(`cairn ${args.join(' ')} failed: ${r.out}`);
    return r.out.trim();
  };
  let adminToken: string;
  if (seed) adminToken = seed.adminToken;
  else {
    try {
      await run(['createsuperuser', '--username', 'admin', '--password', 'admin-password-for-tests']);
      adminToken = (await run(['token', 'create', '--username', 'admin'])).split('\n').pop()!;
      await run(['demo-data', '--devices', String(devices), '--tenant', 'default']);
    } catch (err) {
      if (seedAt) rmSync(seedAt.lock, { recursive: true, force: true });
      throw err;
    }
    if (seedAt) await saveSeed(seedAt, { dataDir: layout.dataDir, database: pgdb?.name ?? null, base: pgBase }, adminToken);
  }

  const api = (path: string, method: 'GET' | 'POST' = 'GET', body?: unknown) =>
    new Promise<{ status: number; body: unknown; headers: Record<string, unknown> }>((ok, fail) => {
      const headers: Record<string, string> = { authorization: `Token ${adminToken}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const req = request({ host: '127.0.0.1', port, path, method, agent: false, headers }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => ok({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as unknown) : null, headers: res.headers }));
      });
      req.on('error', fail);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  const waitHealthy = async (v: string) => {
    const h = await waitForHealth('127.0.0.1', port, (x) => x.status === 'ok' && x.version === v && !x.maintenance, 90_000);
    if (!h.ok) throw new Error(`web did not become healthy with ${v}: ${JSON.stringify(h.last)}\n${readLog(layout)}`);
  };
  await host.start('web');
  await waitHealthy(version);
  return {
    layout,
    databaseUrl: pgdb?.url ?? null,
    host,
    port,
    adminToken,
    cairn,
    installer: (args) => cairn(['--root', root, ...args], {}, ['sh', join(SOURCE, 'deploy', 'install.sh')]),
    spawnCairn: (args, extra) => spawnCairn(args, extra),
    api,
    waitHealthy,
    close: async () => {
      await host.stop('worker');
      await host.stop('web');
      await host.releasePort();
      await pgdb?.drop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Opens the install's database from the test (stop web first on the embedded one: it holds the data directory). */
export async function withInstallDatabase<T>(inst: Install, work: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  const database = inst.databaseUrl ? await openPostgres(inst.databaseUrl, 1) : await openPGlite(inst.layout.dataDir);
  try {
    return await work(database.db);
  } finally {
    await database.close();
  }
}

export function readLog(layout: InstallLayout): string {
  const f = join(layout.runDir, 'web.log');
  return existsSync(f) ? readFileSync(f, 'utf8').slice(-3000) : '';
}

export interface PollRecord {
  ok: number;
  maintenance: number;
  /** When the first and the last 503 + Retry-After answer arrived (ms since the epoch), or null for none. */
  maintenanceFirstAt: number | null;
  maintenanceLastAt: number | null;
  /** When health first and last said read_only (the site answering reads and refusing changes), or null. */
  readOnlyFirstAt: number | null;
  readOnlyLastAt: number | null;
  other: string[];
  errors: string[];
}

/**
 * Polls a list endpoint and health on fresh connections until stopped: every answer must be 200, or 503 with
 * Retry-After; a refused or reset connection is recorded as an error.
 */
export function startPoller(port: number, token: string): { stop(): Promise<PollRecord> } {
  const record: PollRecord = { ok: 0, maintenance: 0, maintenanceFirstAt: null, maintenanceLastAt: null, readOnlyFirstAt: null, readOnlyLastAt: null, other: [], errors: [] };
  let running = true;
  const once = (path: string) =>
    new Promise<void>((done) => {
      const req = request({ host: '127.0.0.1', port, path, agent: false, timeout: 60_000, headers: { authorization: `Token ${token}` } }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString().slice(0, 300)));
        res.on('end', () => {
          if (res.statusCode === 200) {
            record.ok++;
            if (path === '/api/health/' && body.includes('"read_only":true')) {
              record.readOnlyFirstAt ??= Date.now();
              record.readOnlyLastAt = Date.now();
            }
          }
          else if (res.statusCode === 503 && res.headers['retry-after']) {
            record.maintenance++;
            record.maintenanceFirstAt ??= Date.now();
            record.maintenanceLastAt = Date.now();
          }
          // With what answered and what it said: an unexpected answer is rare and needs its story to be fixed.
          else record.other.push(`${path}: ${res.statusCode} at ${new Date().toISOString()} ${body.slice(0, 300)}`);
          done();
        });
      });
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', (err) => {
        record.errors.push(`${path}: ${err.message}`);
        done();
      });
      req.end();
    });
  const loop = (async () => {
    while (running) {
      await Promise.all([once('/api/devices/?limit=1'), once('/api/health/')]);
      await new Promise((r) => setTimeout(r, 30));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return record;
    },
  };
}

/**
 * What `npm run bench -- upgrade` prints of a finished run: each step's time and detail, the downtime from the
 * journal (quiesce start → resume end: the steps that may answer 503) and the window a poller saw. Here, not in the
 * bench, so that test/upgrade/clean.test.ts checks these lines on its own run (the bench smoke only imports the
 * upgrade bench: its install and upgrade are clean.test.ts's).
 */
export function upgradeFigures(j: Journal, seen: PollRecord, opts: { serveReads: boolean; loadAverage: number }): string[] {
  const at = (name: string, edge: 'started' | 'ended') => Date.parse(j.steps.find((s) => s.name === name)![edge]!);
  const lines = j.steps.map((s) => {
    const secs = s.ended ? (Date.parse(s.ended) - Date.parse(s.started)) / 1000 : NaN;
    return `  ${s.name.padEnd(10)} ${secs.toFixed(2).padStart(8)} s  ${s.detail}`;
  });
  const total = (Date.parse(j.finishedAt!) - Date.parse(j.startedAt)) / 1000;
  const downtime = (at('resume', 'ended') - at('quiesce', 'started')) / 1000;
  // A run that could not keep the site readable at some step says so in its warnings, and showed the page.
  const mode = !opts.serveReads ? 'maintenance page from quiesce' : j.warnings.length ? 'reads served in part' : 'reads served throughout';
  lines.push(
    `upgrade ${j.versionFrom} → ${j.versionTo} (${mode}): total ${total.toFixed(1)} s, ` +
      `quiesce → resume ${downtime.toFixed(1)} s; load average ${opts.loadAverage.toFixed(2)}${j.warnings.map((w) => `\n  warning: ${w}`).join('')}`,
  );
  const span = (first: number | null, last: number | null) => (first === null ? 'none' : `${((last! - first) / 1000).toFixed(1)} s`);
  lines.push(
    `a client polling a list and health saw 503 for ${span(seen.maintenanceFirstAt, seen.maintenanceLastAt)} (first to last), ${seen.ok} answers 200, ` +
      `${seen.maintenance} 503 + Retry-After, ${seen.other.length} other, ${seen.errors.length} connection errors${[...seen.other, ...seen.errors].slice(0, 3).map((e) => `\n  ${e}`).join('')}`,
  );
  if (opts.serveReads) lines.push(`health said read-only (the old web: reads answered, changes refused) for ${span(seen.readOnlyFirstAt, seen.readOnlyLastAt)} (first to last)`);
  return lines;
}
