// A real PostgreSQL restart under concurrent writes must not take a `cairn serve` process down: requests that hit
// the restart answer 503 with Retry-After (never a 500), every acknowledged write is kept, and the server answers
// again by itself within 10 s. The PostgreSQL restarted is one this file starts for itself (initdb into a
// temporary directory, pg_ctl restart): restarting the suite's shared server would cut the test files running
// beside this one. Runs in the PostgreSQL pass, where PostgreSQL's programs are installed.
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runCairn, startServe, type CairnServer } from './helpers/cairn-process.ts';

const PG_LIB = '/usr/lib/postgresql';
const pgBin = existsSync(PG_LIB) ? readdirSync(PG_LIB).map((v) => join(PG_LIB, v, 'bin')).find((d) => existsSync(join(d, 'pg_ctl'))) : undefined;
const ready = Boolean(process.env.TEST_DATABASE_URL && pgBin);

describe.skipIf(!ready)('a real PostgreSQL restart under concurrent writes', () => {
  let dir: string;
  let port: number;
  let server: CairnServer | undefined;
  let token: string;
  const asRoot = process.getuid?.() === 0;

  /** Runs a PostgreSQL program as the postgres user when we are root (PostgreSQL refuses to run as root). */
  function pgRun(program: string, args: string[]): void {
    const cmd = join(pgBin!, program);
    const r = asRoot ? spawnSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { encoding: 'utf8' }) : spawnSync(cmd, args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${program} ${args.join(' ')} failed: ${r.stderr || r.stdout || r.error?.message}`);
  }
  const pgCtl = (...args: string[]) =>
    pgRun('pg_ctl', ['-D', join(dir, 'data'), '-l', join(dir, 'log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, ...args]);

  beforeAll(async () => {
    // Under /tmp itself: the postgres user must reach it (the run's own temporary directory is root's alone).
    dir = mkdtempSync(join(existsSync('/tmp') ? '/tmp' : tmpdir(), 'cairn-pg-restart-'));
    if (asRoot) {
      const { uid, gid } = postgresIds();
      chownSync(dir, uid, gid);
    }
    port = await freePort();
    pgRun('initdb', ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--no-locale']);
    pgCtl('start');
    const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
    await admin.connect();
    await admin.query('CREATE DATABASE cairn');
    await admin.end();
    const env = {
      ...process.env,
      DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/cairn`,
      CAIRN_SECRET_KEY: '0123456789abcdef'.repeat(4),
      CAIRN_LOG_FORMAT: 'json',
      CAIRN_EMBEDDED_WORKER: '0',
    };
    // The first start migrates and makes the Default tenant and its admin.
    server = await startServe({ cwd: dir, env });
    const made = await runCairn(['token', 'create', '--username', 'admin', '--tenant', 'default'], { cwd: dir, env });
    expect(made.code, made.stderr).toBe(0);
    token = made.stdout.trim();
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    try {
      pgCtl('stop', '-m', 'immediate');
    } catch {
      /* not running */
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('the process stays up, failed requests are 503 + Retry-After, acknowledged writes are kept, it answers again within 10 s', async () => {
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${server!.url}${path}`, {
        method,
        headers: { authorization: `Token ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    const acknowledged: string[] = [];
    const refused: Array<{ status: number; body: string; retryAfter: string | null }> = [];
    let stop = false;
    let n = 0;
    const writer = async () => {
      while (!stop) {
        const i = n++;
        const res = await api('POST', '/api/tags/', { name: `restart-${i}`, slug: `restart-${i}` });
        const text = await res.text();
        if (res.status === 201) acknowledged.push((JSON.parse(text) as { id: string }).id);
        else refused.push({ status: res.status, body: text, retryAfter: res.headers.get('retry-after') });
        // While PostgreSQL is down every write fails at once: do not spin.
        if (res.status !== 201) await new Promise((r) => setTimeout(r, 50));
      }
    };
    const writers = Array.from({ length: 12 }, writer);
    // Writes under way before the restart: a few acknowledged (on a loaded machine the first ones take a while).
    for (let waited = 0; acknowledged.length < 3 && waited < 30_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    const before = acknowledged.length;
    pgCtl('restart', '-m', 'fast');
    const restarted = Date.now();
    // Back within 10 s of PostgreSQL being up again.
    let answered = false;
    while (!answered && Date.now() - restarted < 10_000) {
      const res = await api('GET', '/api/tags/?limit=1');
      answered = res.status === 200;
      if (!answered) await new Promise((r) => setTimeout(r, 100));
    }
    expect(answered, 'no 200 within 10 s of the restart').toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await Promise.all(writers);

    // A run here: 14 writes before the restart, 48 acknowledged in all, 11 answered 503 while PostgreSQL restarted.
    expect(server!.child.exitCode, server!.output()).toBeNull();
    expect(before).toBeGreaterThan(0);
    expect(acknowledged.length).toBeGreaterThan(before);
    for (const r of refused) {
      expect(r.status, r.body).toBe(503);
      expect(r.retryAfter, r.body).toMatch(/^\d+$/);
    }
    // Every acknowledged write is there.
    const listed = (await (await api('GET', '/api/tags/?limit=1000&name__isw=restart-')).json()) as { results: Array<{ id: string }> };
    const ids = new Set(listed.results.map((t) => t.id));
    expect(acknowledged.filter((id) => !ids.has(id))).toEqual([]);
    const health = await fetch(`${server!.url}/api/health/`);
    expect(health.status).toBe(200);
  }, 120_000);
});

function postgresIds(): { uid: number; gid: number } {
  const r = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const g = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
}
