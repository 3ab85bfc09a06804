// Long CLI commands print their progress while they work, not all at the end: `cairn demo-data` (embedded, and
// PostgreSQL when TEST_DATABASE_URL is set) and `cairn backup create|restore`. The child is frozen (SIGSTOP) as
// soon as its first progress line arrives; what is still to come must not have happened yet.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { bareEnv, seedMigratedDataDir } from './helpers/cairn-process.ts';

const BIN = resolve(import.meta.dirname, '..', 'bin', 'cairn.mjs');
const work = mkdtempSync(join(tmpdir(), 'cairn-progress-'));
const backupsDir = join(work, 'backups');
afterAll(() => rmSync(work, { recursive: true, force: true }));

function env(databaseUrl: string | null): NodeJS.ProcessEnv {
  // Nothing from the checkout's environment: the data directory, backups and database are this test's own.
  const e = bareEnv({ HOME: work, LOG_LEVEL: 'warn', CAIRN_DATA_DIR: join(work, 'data'), CAIRN_BACKUPS_DIR: backupsDir });
  if (databaseUrl) {
    e.DATABASE_URL = databaseUrl;
    e.CAIRN_SECRET_KEY = 'a'.repeat(64);
  }
  return e;
}

interface Watched {
  code: number | null;
  lines: string[];
  /** What `atFirst` returned, called while the child was frozen right after its first line matching `first`. */
  frozen: unknown;
  /** Lines received by then. */
  linesAtFirst: string[];
}

/** Runs cairn; on the first stdout line matching `first`, freezes the child, runs `atFirst`, and lets it go on. */
function watch(args: string[], databaseUrl: string | null, first: RegExp, atFirst: () => Promise<unknown> = async () => null): Promise<Watched> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: work, env: env(databaseUrl), stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let partial = '';
    let stderr = '';
    let checking: Promise<void> | null = null;
    let frozen: unknown = undefined;
    let linesAtFirst: string[] = [];
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      const parts = (partial + d.toString()).split('\n');
      partial = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        if (checking || !first.test(line)) continue;
        child.kill('SIGSTOP');
        linesAtFirst = [...lines];
        checking = atFirst()
          .then((value) => void (frozen = value))
          .finally(() => child.kill('SIGCONT'));
      }
    });
    child.on('close', async (code) => {
      try {
        await checking;
      } catch (err) {
        return fail(err);
      }
      if (code !== 0) return fail(new Error(`cairn ${args.join(' ')} exited with ${code}: ${stderr}`));
      done({ code, lines: partial ? [...lines, partial] : lines, frozen, linesAtFirst });
    });
  });
}

async function cairnOk(args: string[], databaseUrl: string | null): Promise<void> {
  const run = await watch(args, databaseUrl, /^$/);
  expect(run.code).toBe(0);
}

/** A migrated embedded data directory: the run's template when there is one (initdb costs seconds), else `cairn migrate`. */
async function migratedDataDir(): Promise<void> {
  if (!seedMigratedDataDir(join(work, 'data'))) await cairnOk(['migrate'], null);
}

// The embedded cases run in the embedded pass only when both passes run (the same processes on the same database).
const embeddedElsewhere = Boolean(process.env.CAIRN_TEST_BOTH_PASSES && process.env.TEST_DATABASE_URL);

describe('cairn demo-data prints progress as it loads', () => {
  it.skipIf(embeddedElsewhere)('on the embedded database', async () => {
    await migratedDataDir();
    const run = await watch(['demo-data', '--devices', '40', '--tenant', 'progress'], null, /^ {2}regions and sites: /);
    // Frozen at the first step: the later steps and the summary had not been printed (nor done) yet.
    expect(run.linesAtFirst.some((l) => /^ {2}devices: /.test(l))).toBe(false);
    expect(run.linesAtFirst.some((l) => l.startsWith('search index:'))).toBe(false);
    expect(run.lines.some((l) => /^ {2}devices: 40 rows/.test(l))).toBe(true);
    expect(run.lines.at(-1)).toMatch(/^search index: [\d,]+ entries$/);
  }, 300_000);

  it.skipIf(!process.env.TEST_DATABASE_URL)('on PostgreSQL, with the job record running meanwhile', async () => {
    const url = new URL(process.env.TEST_DATABASE_URL!);
    const name = `cairn_progress_${process.pid}`;
    const admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('pgTemplate')}`); // migrated: the run's template
    url.pathname = `/${name}`;
    const probe = new pg.Client({ connectionString: url.toString() });
    try {
      await probe.connect();
      const run = await watch(['demo-data', '--devices', '40', '--tenant', 'progress'], url.toString(), /^ {2}regions and sites: /, async () => {
        const { rows } = await probe.query(`SELECT status FROM jobs WHERE kind = 'demo-data'`);
        const devices = await probe.query(`SELECT count(*)::int AS n FROM devices`);
        return { jobs: rows.map((r: { status: string }) => r.status), devices: devices.rows[0].n as number };
      });
      // The load is one transaction: nothing of it is visible while it runs, but its job is.
      expect(run.frozen).toEqual({ jobs: ['running'], devices: 0 });
      expect(run.linesAtFirst.some((l) => l.startsWith('search index:'))).toBe(false);
      // As int: a bigint's JavaScript type is whatever node-postgres's process-wide parsers say (the app, imported
      // by a shared worker, parses them as numbers).
      const { rows } = await probe.query(`SELECT status, done::int AS done, total::int AS total FROM jobs WHERE kind = 'demo-data'`);
      expect(rows[0]).toMatchObject({ status: 'succeeded', done: run.lines.length, total: run.lines.length });
    } finally {
      await probe.end().catch(() => undefined);
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  }, 300_000);
});

describe.skipIf(embeddedElsewhere)('cairn backup prints each step as it finishes', () => {
  let id = '';

  it('create', async () => {
    const archives = () => (existsSync(backupsDir) ? readdirSync(backupsDir).filter((f) => f.endsWith('.tar.gz')) : []);
    const run = await watch(['backup', 'create'], null, /^ {2}\[1\/4\] /, async () => archives());
    // Frozen after the dump: no archive written yet, the last steps still to come.
    expect(run.frozen).toEqual([]);
    expect(run.linesAtFirst.some((l) => l.startsWith('Backup '))).toBe(false);
    expect(run.lines.filter((l) => /^ {2}\[\d\/4\] /.test(l)).map((l) => l.split(' (')[0])).toEqual([
      '  [1/4] database dumped',
      expect.stringMatching(/^ {2}\[2\/4\] data directory (and environment file )?copied$/),
      '  [3/4] archive compressed',
      '  [4/4] older backups pruned',
    ]);
    id = /^Backup (\S+) written/.exec(run.lines.find((l) => l.startsWith('Backup '))!)![1]!;
    expect(archives()).toEqual([`${id}.tar.gz`]);
  }, 300_000);

  it('restore', async () => {
    const run = await watch(['backup', 'restore', id, '--yes'], null, /^ {2}\[1\/2\] /);
    expect(run.linesAtFirst.some((l) => l.startsWith('Restored'))).toBe(false);
    expect(run.lines.filter((l) => /^ {2}\[\d\/2\] /.test(l))).toEqual(['  [1/2] archive unpacked', expect.stringMatching(/^ {2}\[2\/2\] database(, data directory and environment file| and data directory) replaced$/)]);
    expect(run.lines.at(-1)).toBe(`Restored ${id}.`);
  }, 300_000);
});
