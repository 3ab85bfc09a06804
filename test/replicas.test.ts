// Read replicas (CAIRN_DATABASE_REPLICA_URLS, src/db/replicas.ts) against a real streaming standby: this file starts a
// primary of its own (initdb) and a standby of it (pg_basebackup -R), as pg-restart.test.ts starts its own server,
// and one `cairn serve` reading from the standby. The standby's replay is paused to make it visibly stale: a
// reader that did not write then sees the old data (so its reads are answered by the standby), while the writer
// sees its own write at once; past the lag limit every reader gets the primary; a stopped standby costs no error.
// Runs in the PostgreSQL pass, where PostgreSQL's programs are installed.
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runCairn, startServe, type CairnServer } from './helpers/cairn-process.ts';
import { loadConfig, REPLICA_DEFAULTS } from '../src/config.ts';
import { lagOf, parseLsn, type ReadRoute } from '../src/db/replicas.ts';
import { openPostgres, type Database } from '../src/db/database.ts';

describe('read replica settings', () => {
  it('have defaults, refuse nonsense, and are refused without DATABASE_URL', () => {
    const pgUrl = { DATABASE_URL: 'postgres://u@db/cairn' };
    expect(loadConfig({}, pgUrl)).toMatchObject({ databaseReplicaUrls: [], replicaMaxLagMs: REPLICA_DEFAULTS.maxLagMs, replicaWaitMs: REPLICA_DEFAULTS.waitMs });
    expect(loadConfig({}, { ...pgUrl, CAIRN_DATABASE_REPLICA_URLS: ' postgres://u@r1/cairn, postgres://u@r2:5433/cairn ,', CAIRN_REPLICA_WAIT_MS: '0' })).toMatchObject({
      databaseReplicaUrls: ['postgres://u@r1/cairn', 'postgres://u@r2:5433/cairn'],
      replicaWaitMs: 0,
    });
    expect(loadConfig({ databaseReplicaUrls: 'postgres://u@r3/cairn' }, pgUrl).databaseReplicaUrls).toEqual(['postgres://u@r3/cairn']);
    expect(() => loadConfig({}, { CAIRN_DATABASE_REPLICA_URLS: 'postgres://u@r1/cairn' })).toThrow(/needs DATABASE_URL: the embedded database has no replicas/);
    expect(() => loadConfig({}, { ...pgUrl, CAIRN_DATABASE_REPLICA_URLS: 'mysql://r1/cairn' })).toThrow(/CAIRN_DATABASE_REPLICA_URLS must start with postgres:\/\//);
    expect(() => loadConfig({}, { ...pgUrl, CAIRN_DATABASE_REPLICA_URLS: 'r1' })).toThrow(/CAIRN_DATABASE_REPLICA_URLS is not a valid URL/);
    expect(() => loadConfig({}, { ...pgUrl, CAIRN_REPLICA_MAX_LAG_MS: '0' })).toThrow(/CAIRN_REPLICA_MAX_LAG_MS/);
    expect(() => loadConfig({}, { ...pgUrl, CAIRN_REPLICA_WAIT_MS: '-1' })).toThrow(/CAIRN_REPLICA_WAIT_MS/);
  });

  it('judge a replica by the oldest primary position it has not replayed', () => {
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
    const samples = [
      { at: 1_000, lsn: 100n },
      { at: 2_000, lsn: 200n },
      { at: 3_000, lsn: 300n },
    ];
    expect(lagOf(samples, 300n, 3_500)).toBe(0);
    expect(lagOf(samples, 250n, 3_500)).toBe(500);
    expect(lagOf(samples, 150n, 3_500)).toBe(1_500);
    // Behind every position seen: how far cannot be told, so it is not used.
    expect(lagOf(samples, 50n, 3_500)).toBeNull();
    expect(lagOf([], 50n, 3_500)).toBeNull();
  });
});

const PG_LIB = '/usr/lib/postgresql';
const pgBin = existsSync(PG_LIB) ? readdirSync(PG_LIB).map((v) => join(PG_LIB, v, 'bin')).find((d) => existsSync(join(d, 'pg_basebackup'))) : undefined;
const ready = Boolean(process.env.TEST_DATABASE_URL && pgBin);
const MAX_LAG_MS = 3_000;

describe.skipIf(!ready)('a streaming standby behind CAIRN_DATABASE_REPLICA_URLS', () => {
  let dir: string;
  let primaryPort: number;
  let standbyPort: number;
  let server: CairnServer | undefined;
  let second: CairnServer | undefined;
  let writer: string;
  let reader: string;
  let standby: pg.Client;
  const asRoot = process.getuid?.() === 0;

  function pgRun(program: string, args: string[]): void {
    const cmd = join(pgBin!, program);
    const r = asRoot ? spawnSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { encoding: 'utf8' }) : spawnSync(cmd, args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${program} ${args.join(' ')} failed: ${r.stderr || r.stdout || r.error?.message}`);
  }
  const pgCtl = (data: string, port: number, ...args: string[]) =>
    pgRun('pg_ctl', ['-D', join(dir, data), '-l', join(dir, `${data}.log`), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_wal_senders=4`, ...args]);
  const urlOf = (port: number) => `postgres://postgres@127.0.0.1:${port}/cairn`;

  beforeAll(async () => {
    dir = mkdtempSync(join(existsSync('/tmp') ? '/tmp' : tmpdir(), 'cairn-replicas-'));
    if (asRoot) {
      const ids = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
      chownSync(dir, ids('-u'), ids('-g'));
    }
    primaryPort = await freePort();
    standbyPort = await freePort();
    // initdb's trust lines include replication connections from 127.0.0.1; wal_level is replica by default.
    pgRun('initdb', ['-D', join(dir, 'primary'), '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--no-locale']);
    pgCtl('primary', primaryPort, 'start');
    const admin = new pg.Client({ host: '127.0.0.1', port: primaryPort, user: 'postgres', database: 'postgres' });
    await admin.connect();
    await admin.query('CREATE DATABASE cairn');
    await admin.end();
    // -R writes standby.signal and primary_conninfo: started, it streams from the primary.
    pgRun('pg_basebackup', ['-D', join(dir, 'standby'), '-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-R', '--no-sync', '-c', 'fast']);
    pgCtl('standby', standbyPort, 'start');
    standby = new pg.Client({ host: '127.0.0.1', port: standbyPort, user: 'postgres', database: 'cairn' });
    standby.on('error', () => {});
    await standby.connect();

    const env = {
      ...process.env,
      DATABASE_URL: urlOf(primaryPort),
      CAIRN_DATABASE_REPLICA_URLS: urlOf(standbyPort),
      CAIRN_REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
      CAIRN_REPLICA_WAIT_MS: '200',
      CAIRN_SECRET_KEY: '0123456789abcdef'.repeat(4),
      CAIRN_ADMIN_PASSWORD: 'replica-test-password',
      CAIRN_LOG_FORMAT: 'json',
      CAIRN_EMBEDDED_WORKER: '0',
    };
    server = await startServe({ cwd: dir, env });
    // Once the first has migrated: a second process behind the same (imagined) load balancer, and the two tokens.
    const [started, made, readOnly] = await Promise.all([
      startServe({ cwd: dir, env }),
      runCairn(['token', 'create', '--username', 'admin', '--tenant', 'default'], { cwd: dir, env }),
      runCairn(['token', 'create', '--username', 'admin', '--tenant', 'default', '--read-only'], { cwd: dir, env }),
    ]);
    second = started;
    expect(made.code, made.stderr).toBe(0);
    writer = made.stdout.trim();
    expect(readOnly.code, readOnly.stderr).toBe(0);
    reader = readOnly.stdout.trim();
  }, 180_000);

  afterAll(async () => {
    await standby?.end().catch(() => {});
    await second?.stop();
    await server?.stop();
    for (const data of ['standby', 'primary']) {
      try {
        pgCtl(data, data === 'primary' ? primaryPort : standbyPort, 'stop', '-m', 'immediate');
      } catch {
        /* not running */
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const api = (token: string, method: string, path: string, body?: unknown) =>
    fetch(`${server!.url}${path}`, {
      method,
      headers: { authorization: `Token ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  const tagCount = async (token: string, name: string) => {
    const res = await api(token, 'GET', `/api/tags/?name=${name}`);
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { count: number }).count;
  };
  type ReplicaHealth = { state: string; lag_ms: number | null; statements: number; error: string | null };
  const replicaHealth = async (of: CairnServer = server!): Promise<ReplicaHealth> => {
    const body = (await (await fetch(`${of.url}/api/health/`)).json()) as { replicas: ReplicaHealth[] };
    return body.replicas[0]!;
  };
  const waitFor = async (what: string, test: () => Promise<boolean>, ms = 15_000) => {
    const until = Date.now() + ms;
    while (!(await test())) {
      if (Date.now() > until) throw new Error(`waited ${ms} ms for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('reads come from the standby, the writer reads its own writes at once on any process, a lagging standby is skipped for the primary', async () => {
    await waitFor('the standby to serve', async () => (await replicaHealth()).state === 'serving');
    const before = (await replicaHealth()).statements;
    expect(await tagCount(reader, 'replica-0')).toBe(0);
    expect((await replicaHealth()).statements).toBeGreaterThan(before);

    // A second web process behind the same load balancer, with its own token cache and its own view of the standby.
    const countThere = async (token: string, name: string) => {
      const res = await fetch(`${second!.url}/api/tags/?name=${name}`, { headers: { authorization: `Token ${token}` } });
      expect(res.status, await res.clone().text()).toBe(200);
      return ((await res.json()) as { count: number }).count;
    };
    await waitFor('the second process to see the standby serve', async () => (await replicaHealth(second!)).state === 'serving');
    // Both tokens' checks are cached there now, from before the write.
    expect(await countThere(writer, 'replica-1')).toBe(0);
    expect(await countThere(reader, 'replica-1')).toBe(0);

    await standby.query('SELECT pg_wal_replay_pause()');
    const made = await api(writer, 'POST', '/api/tags/', { name: 'replica-1', slug: 'replica-1' });
    expect(made.status, await made.clone().text()).toBe(201);
    // Another token, which did not write, is answered by the standby on either process: it has no such tag yet.
    // (First, while the standby is surely within the lag limit.)
    expect(await tagCount(reader, 'replica-1')).toBe(0);
    expect(await countThere(reader, 'replica-1')).toBe(0);
    // The writer, at once: its own write (the standby has not replayed it, so this came from the primary)...
    expect(await tagCount(writer, 'replica-1')).toBe(1);
    // ...on the other process too, whose cached check of the token predates the write.
    expect(await countThere(writer, 'replica-1')).toBe(1);
    const onStandby = await standby.query(`SELECT count(*)::int AS n FROM tags WHERE name = 'replica-1'`);
    expect(onStandby.rows[0].n).toBe(0);
    // Its part is done: its CPU is the rest's.
    await second!.stop();
    second = undefined;

    // A session that writes reads its write too (its mark is read with the session itself).
    const login = await fetch(`${server!.url}/api/auth/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'replica-test-password' }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const { csrf_token } = (await login.json()) as { csrf_token: string };
    const session = (method: string, path: string, body?: unknown) =>
      fetch(`${server!.url}${path}`, { method, headers: { cookie, 'x-csrf-token': csrf_token, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    expect((await session('POST', '/api/tags/', { name: 'replica-2', slug: 'replica-2' })).status).toBe(201);
    expect(await tagCount(reader, 'replica-2')).toBe(0);
    expect(((await (await session('GET', '/api/tags/?name=replica-2')).json()) as { count: number }).count).toBe(1);

    // Paused past the limit, the standby is skipped: the reader gets the primary's answer, never an error.
    await waitFor('the standby to be skipped', async () => (await tagCount(reader, 'replica-1')) === 1, MAX_LAG_MS + 10_000);
    expect((await replicaHealth()).state).toBe('lagging');

    // Replaying again, it is taken back at a later check.
    await standby.query('SELECT pg_wal_replay_resume()');
    await waitFor('the standby to serve again', async () => (await replicaHealth()).state === 'serving');
    const resumed = (await replicaHealth()).statements;
    expect(await tagCount(reader, 'replica-2')).toBe(1);
    expect((await replicaHealth()).statements).toBeGreaterThan(resumed);
  }, 60_000);

  it('a statement that writes inside a read, and a transaction, run on the primary', async () => {
    // In process, over this file's primary and standby: the same routing the server's GET requests get.
    const database: Database = await openPostgres(urlOf(primaryPort), 2, { replicas: { urls: [urlOf(standbyPort)], maxLagMs: MAX_LAG_MS, waitMs: 200 } });
    try {
      const replicas = database.replicas!;
      await replicas.check();
      const replica = await replicas.choose(null);
      expect(replica?.state).toBe('serving');
      const route: ReadRoute = { replica, wrote: false };
      const inRead = <T>(fn: () => Promise<T>) => replicas.run(route, fn);
      const served = replica!.statements;
      expect((await inRead(() => sql<{ standby: boolean }>`SELECT pg_is_in_recovery() AS standby`.execute(database.db))).rows[0]!.standby).toBe(true);
      expect(replica!.statements).toBe(served + 1);
      // A transaction is never begun on the standby (it would end at its first write).
      const inTx = await inRead(() => database.db.transaction().execute((tx) => sql<{ standby: boolean }>`SELECT pg_is_in_recovery() AS standby`.execute(tx)));
      expect(inTx.rows[0]!.standby).toBe(false);
      // A write the standby refuses (25006) runs on the primary, and so does the rest of the request.
      const wrote = await inRead(() => sql`INSERT INTO sign_in_failures (key, failures, last_failure) VALUES ('replicas-test', 0, now()) ON CONFLICT (key) DO NOTHING`.execute(database.db));
      expect(wrote.numAffectedRows).toBe(1n);
      expect(route.wrote).toBe(true);
      expect(route.replica).toBeNull();
      expect((await inRead(() => sql<{ standby: boolean }>`SELECT pg_is_in_recovery() AS standby`.execute(database.db))).rows[0]!.standby).toBe(false);
      await sql`DELETE FROM sign_in_failures WHERE key = 'replicas-test'`.execute(database.db);
    } finally {
      await database.close();
    }
  }, 30_000);

  it('a server that is not a standby is never read from', async () => {
    // The primary named as its own replica (or a promoted standby): its data may diverge from the primary's.
    const database: Database = await openPostgres(urlOf(primaryPort), 1, { replicas: { urls: [urlOf(primaryPort)], maxLagMs: MAX_LAG_MS, waitMs: 200 } });
    try {
      await database.replicas!.check();
      expect(database.replicas!.status()).toEqual([{ name: `127.0.0.1:${primaryPort}/cairn`, state: 'not_a_standby', lag_ms: null, statements: 0, error: expect.stringMatching(/not a streaming standby/) }]);
      expect(await database.replicas!.choose(null)).toBeNull();
    } finally {
      await database.close();
    }
  });

  it('a stopped standby costs no error: a statement it dropped runs again on the primary, reads and writes keep answering', async () => {
    await waitFor('the standby to serve', async () => (await replicaHealth()).state === 'serving');
    // A statement under way on the standby when it stops, in process (the server's reads are too quick to catch).
    const database: Database = await openPostgres(urlOf(primaryPort), 2, { replicas: { urls: [urlOf(standbyPort)], maxLagMs: MAX_LAG_MS, waitMs: 200 } });
    let stop = false;
    try {
      const replicas = database.replicas!;
      await replicas.check();
      const replica = await replicas.choose(null);
      expect(replica?.state).toBe('serving');
      // Long enough to be under way whatever the machine's load when the standby stops; the stop waits until it is.
      const slow = replicas.run({ replica, wrote: false }, () => sql<{ standby: boolean }>`SELECT pg_is_in_recovery() AS standby, pg_sleep(3)::text AS slept`.execute(database.db));
      await waitFor('the slow statement to run on the standby', async () =>
        (await standby.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%pg_sleep(3)%' AND pid <> pg_backend_pid()`)).rows[0]!.n > 0);

      // Meanwhile, readers and a writer through the server.
      const statuses: number[] = [];
      let n = 0;
      const loop = async (token: string, writes: boolean) => {
        while (!stop) {
          const i = n++;
          try {
            const res = writes ? await api(token, 'POST', '/api/tags/', { name: `during-stop-${i}`, slug: `during-stop-${i}` }) : await api(token, 'GET', '/api/tags/?limit=5');
            statuses.push(res.status);
            await res.arrayBuffer();
          } catch {
            // No answer at all (the server gone): counted as a failure, not left as an unhandled rejection.
            statuses.push(0);
          }
        }
      };
      const loops = [loop(reader, false), loop(reader, false), loop(writer, true), loop(writer, false)];
      await new Promise((r) => setTimeout(r, 200));
      await standby.end().catch(() => {});
      pgCtl('standby', standbyPort, 'stop', '-m', 'immediate');
      expect((await slow).rows[0]!.standby).toBe(false);
      expect(replica!.state).toBe('down');

      for (let i = 0; i < 5; i++) {
        const made = await api(writer, 'POST', '/api/tags/', { name: `after-stop-${i}`, slug: `after-stop-${i}` });
        expect(made.status).toBe(201);
        for (const token of [writer, reader]) expect(((await (await api(token, 'GET', `/api/tags/?name=after-stop-${i}`)).json()) as { count: number }).count).toBe(1);
      }
      stop = true;
      await Promise.all(loops);
      expect(statuses.length).toBeGreaterThan(10);
      expect(statuses.filter((s) => s !== 200 && s !== 201)).toEqual([]);
    } finally {
      stop = true;
      await database.close();
    }
    await waitFor('health to report the standby down', async () => (await replicaHealth()).state === 'down');
    const health = await fetch(`${server!.url}/api/health/`);
    expect(health.status).toBe(200);
    expect(server!.child.exitCode, server!.output()).toBeNull();
  }, 60_000);
});
