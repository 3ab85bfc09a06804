// Several processes on one PostgreSQL, as a deployment behind a load balancer runs them: two `cairn serve` (each
// running background work, the default) and one `cairn worker`. With the schedules ticking every two seconds,
// every planned run happens once, not once per process; a monitoring check runs once per interval; a webhook
// delivery is attempted once; both web processes serve the same data.
// PostgreSQL only: the embedded database belongs to one process.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from './helpers/database.ts';
import { CAIRN_BIN, startServe, type CairnServer } from './helpers/cairn-process.ts';

const url = process.env.TEST_DATABASE_URL;
const TICK = '*/2 * * * * *';

describe.skipIf(!url)('two web processes and a worker on one PostgreSQL', () => {
  let database: TestDatabase;
  let cwd: string;
  const servers: CairnServer[] = [];
  let worker: ChildProcess | null = null;
  let env: NodeJS.ProcessEnv;
  // A webhook receiver and a TCP port for the check to find open, both on this machine.
  const received: string[] = [];
  const receiver: Server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push(body);
      res.writeHead(204).end();
    });
  });
  const listener = createTcpServer((socket) => socket.end());
  const portOf = (srv: { address(): unknown }) => (srv.address() as { port: number }).port;

  beforeAll(async () => {
    database = await openTestDatabase();
    const { rows } = await sql<{ name: string }>`SELECT current_database() AS name`.execute(database.db);
    const dbUrl = new URL(url!);
    dbUrl.pathname = `/${rows[0]!.name}`;
    cwd = mkdtempSync(join(tmpdir(), 'cairn-multi-'));
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    env = {
      CAIRN_SSRF_ALLOWLIST: '127.0.0.1',
      ...process.env,
      DATABASE_URL: dbUrl.toString(),
      CAIRN_SECRET_KEY: 'c'.repeat(64),
      CAIRN_ADMIN_PASSWORD: 'multi-process-password',
      LOG_LEVEL: 'warn',
      CAIRN_COMPLIANCE_CRON: TICK,
      CAIRN_SEARCH_REBUILD_CRON: TICK,
    };
    delete env.CAIRN_DATA_DIR;
    delete env.PORT;
    // One at a time: the first start migrates and creates the admin; the others find it done.
    servers.push(await startServe({ cwd, env }));
    servers.push(await startServe({ cwd, env }));
    worker = spawn(process.execPath, [CAIRN_BIN, 'worker'], { cwd, env, stdio: ['ignore', 'ignore', 'inherit'] });
  }, 300_000);

  afterAll(async () => {
    worker?.kill('SIGTERM');
    for (const s of servers) await s.stop();
    await database?.close();
    receiver.close();
    listener.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  }, 60_000);

  it('runs each planned run of a schedule once, each check once per interval, each webhook delivery once, and both web processes answer from the same data', async () => {
    const [a, b] = servers;
    const login = await fetch(`${a!.url}/api/auth/login/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'multi-process-password' }) });
    expect(login.status).toBe(200);
    const cookies = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const csrf = ((await login.json()) as { csrf_token: string }).csrf_token;
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${a!.url}${path}`, { method: 'POST', headers: { cookie: cookies, 'x-csrf-token': csrf, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await res.text();
      expect(res.status, `${path}: ${text}`).toBe(201);
      return JSON.parse(text) as { id: string };
    };
    // A check every five seconds (the shortest interval) of a port that is open, and a webhook on new tags.
    const template = await post('/api/check-templates/', { name: 'multi tcp', slug: 'multi-tcp', kind: 'tcp', port: portOf(listener), interval_seconds: 5, rise: 1, fall: 1 });
    const address = await post('/api/ip-addresses/', { address: '127.0.0.1/32' });
    const assignment = await post('/api/check-assignments/', { template: template.id, ip_address: address.id });
    await post('/api/webhooks/', { name: 'multi', payload_url: `http://127.0.0.1:${portOf(receiver)}/hook`, object_types: ['extras.tag'], events: ['created'] });

    // Runs so far (before the worker had started) are not counted: from here on all three processes tick.
    await new Promise((r) => setTimeout(r, 2_500));
    const since = new Date();
    // Written through one web process at the window's start, so that its delivery, and any second attempt a process
    // would wrongly make, falls inside the window rather than after it.
    await post('/api/tags/', { name: 'seen-by-both', slug: 'seen-by-both' });
    let deliveredAt = 0;
    const delivered = (async () => {
      for (let i = 0; i < 150 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 200));
      deliveredAt = Date.now();
    })();
    await new Promise((r) => setTimeout(r, 6_000));
    const plannedRuns = async (until: Date) =>
      (
        await sql<{ kind: string; n: number }>`SELECT kind, count(*)::int AS n FROM jobs
      WHERE started_by IN ('schedule:compliance', 'schedule:search-rebuild') AND started >= ${since.toISOString()}::timestamptz AND started < ${until.toISOString()}::timestamptz
      GROUP BY kind ORDER BY kind`.execute(database.db)
      ).rows;
    const checkRuns = async (until: Date) =>
      (
        await sql<{ n: number }>`SELECT count(*)::int AS n FROM check_results WHERE assignment_id = ${assignment.id}
      AND created >= ${since.toISOString()}::timestamptz AND created < ${until.toISOString()}::timestamptz`.execute(database.db)
      ).rows[0]!.n;
    // The window is six seconds, longer while nothing has run yet: a machine loaded by the rest of the suite may
    // start a process's timers late, and what is checked is that no run happens twice (the bounds below grow with the
    // window), not how soon the first one comes.
    let until = new Date();
    let rows = await plannedRuns(until);
    let checks = await checkRuns(until);
    for (let waited = 0; waited < 30_000 && !(rows.length === 2 && rows.every((r) => r.n >= 2) && checks >= 1); waited += 1_000) {
      await new Promise((r) => setTimeout(r, 1_000));
      until = new Date();
      rows = await plannedRuns(until);
      checks = await checkRuns(until);
    }
    // Six seconds (or more) of a two-second tick: three or four planned runs each; three processes without the claim
    // would have made up to twelve.
    const planned = Math.floor((until.getTime() - since.getTime()) / 2000) + 1;
    expect(rows.map((r) => r.kind).sort()).toEqual(['compliance.evaluate', 'search.rebuild']);
    for (const r of rows) {
      // At least some ran (a loaded machine may delay a timer past a tick; a late timer still claims its own).
      expect(r.n, r.kind).toBeGreaterThanOrEqual(2);
      expect(r.n, r.kind).toBeLessThanOrEqual(planned);
    }
    // Each run claimed once, by one process.
    const claims = await sql<{ name: string; planned: string; n: number }>`SELECT name, planned::text, count(*)::int AS n FROM schedule_claims GROUP BY 1, 2 HAVING count(*) > 1`.execute(database.db);
    expect(claims.rows).toEqual([]);

    // The check: six seconds of a five-second interval are at most two runs (three processes each running it
    // would have made up to six), and at least one.
    expect(checks).toBeGreaterThanOrEqual(1);
    expect(checks).toBeLessThanOrEqual(Math.floor((until.getTime() - since.getTime()) / 5000) + 1);

    // The tag written through one web process, read through the other; its webhook delivered once, by one process.
    const listed = (await (await fetch(`${b!.url}/api/tags/?slug=seen-by-both`, { headers: { cookie: cookies } })).json()) as { count: number };
    expect(listed.count).toBe(1);
    await delivered;
    // Four seconds after the first delivery for a second attempt to arrive, if any process were to make one (the
    // window above usually gave them already).
    await new Promise((r) => setTimeout(r, Math.max(0, deliveredAt + 4_000 - Date.now())));
    expect(received.map((body) => (JSON.parse(body) as { object_type: string }).object_type)).toEqual(['extras.tag']);
    const attempts = await sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries`.execute(database.db);
    expect(attempts.rows[0]!.n).toBe(1);
    expect(worker?.exitCode).toBeNull();
  }, 120_000);
});
