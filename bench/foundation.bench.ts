// Issue 2: list latency against the bare SQL that fetches the same rows, and the cost of token auth.
// The list is fetched over real HTTP on loopback, its body read as bytes, as a client receives it; the reference
// is node-pg's query of the same rows, parsed into row objects. Not app.inject: light-my-request decodes every
// answer into one JavaScript string (of 300 KB here), a cost of the test harness that no client of the
// API pays and that made up a third of the measured time.
import { sql } from 'kysely';
import http from 'node:http';
import { buildApp } from '../src/app.ts';
import { createTenant, createToken, createUser } from '../src/core/accounts.ts';
import { benchSize, collectGarbage, fmt, openBenchDatabase, TINY } from './helpers.ts';

const ROWS = benchSize(null, 10_000, 50);
// Both sides measured warm (compiled code, prepared statements), as a server is after its first minute.
const WARMUP = TINY ? 1 : 20;
const BLOCKS = TINY ? 1 : 6;
const PER_BLOCK = TINY ? 1 : 10;

export default async function run(): Promise<void> {
  const database = await openBenchDatabase();
  try {
    const db = database.db;
    const tenant = (await createTenant(db, 'Bench', 'bench')).id;
    await createUser(db, { username: 'bench', password: 'bench-password', isSuperuser: true, tenantIds: [tenant] });
    const key = await createToken(db, { username: 'bench', tenantSlug: 'bench' });
    await sql`INSERT INTO tags (id, numid, tenant_id, name, slug, color, description)
      SELECT gen_random_uuid(), g, ${tenant}, 'tag-' || lpad(g::text, 6, '0'), 'tag-' || g, '00aa00', 'bench tag ' || g
      FROM generate_series(1, ${ROWS}) AS g`.execute(db);
    // Statistics, as autovacuum would gather them within the minute: without them PostgreSQL guessed 7 tags for the
    // tenant and sorted all 10,000 for the reference, while the API's page had (by a parameter LIMIT) an index scan.
    await sql`ANALYZE tags`.execute(db);
    const app = await buildApp({ database });
    const headers = { authorization: `Token ${key}` };

    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const [api, bare] = await alternatingMedians(
      () => getBytes(agent, port, '/api/tags/?limit=1000', headers),
      () => database.pool.query('SELECT * FROM tags WHERE tenant_id = $1 ORDER BY name, id LIMIT 1000', [tenant]),
    );
    agent.destroy();
    console.log(`GET /api/tags/?limit=1000 over ${ROWS} rows (${database.label}): ${fmt(api)}; bare SQL ${fmt(bare)}; ratio ${(api / bare).toFixed(2)}x (target <= 1.5x, issue 26; the list over HTTP)`);

    // The server's memory per request in flight, as the page grows (issue 55's goal: flat). IN_FLIGHT requests of
    // one page size at once, over their own connections; the JavaScript heap sampled every millisecond while they
    // run, its peak above the heap after a full collection, per request. A page's rows and its answer are held
    // while it is written, so a server that builds each answer whole holds memory in proportion to the page.
    const pages = TINY ? [5, 50] : [50, 200, 1000];
    const perRequest: string[] = [];
    for (const limit of pages) {
      const mb = await heapPerRequestMb(port, `/api/tags/?limit=${limit}`, headers);
      perRequest.push(`${limit} rows ${mb.toFixed(2)} MB (${((mb * 1024) / limit).toFixed(1)} KB a row)`);
    }
    console.log(`server heap per request in flight (${IN_FLIGHT} at once, peak above the collected heap): ${perRequest.join('; ')} (goal: flat as the page grows, issue 55)`);

    // Auth cost: queries a token-authenticated request issues beyond the list's own.
    const before = database.queryCount();
    await app.inject({ method: 'GET', url: '/api/tags/?limit=1', headers });
    const cached = database.queryCount() - before;
    const { forgetCachedTokens } = await import('../src/core/auth/credentials.ts');
    forgetCachedTokens();
    const before2 = database.queryCount();
    await app.inject({ method: 'GET', url: '/api/tags/?limit=1', headers });
    const cold = database.queryCount() - before2;
    console.log(`token auth: ${cold - cached} indexed lookup(s) on a cold token, 0 once cached (queries per request: cold ${cold}, cached ${cached})`);
    await app.close();
  } finally {
    await database.close();
  }
}

// Medians of 60 runs of each, in blocks of 10 taking turns: each side's garbage is mostly collected in its own
// blocks, and a drift of the machine's speed reaches both.
async function alternatingMedians(a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < WARMUP; i++) await a();
  for (let i = 0; i < WARMUP; i++) await b();
  for (let block = 0; block < BLOCKS; block++) {
    for (const [side, work] of [a, b].entries()) {
      for (let i = 0; i < PER_BLOCK; i++) {
        const start = process.hrtime.bigint();
        await work();
        times[side]!.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
    }
  }
  return [median(times[0]), median(times[1])];
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[sorted.length >> 1]!;
}

const IN_FLIGHT = TINY ? 2 : 20;

/** The heap's peak above a collected heap while IN_FLIGHT GETs of `path` run at once, per request, in MB (median of 5). */
async function heapPerRequestMb(port: number, path: string, headers: Record<string, string>): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const burst = () => Promise.all(Array.from({ length: IN_FLIGHT }, () => getBytes(agent, port, path, headers)));
  await burst(); // connections opened, code warm
  const peaks: number[] = [];
  for (let round = 0; round < (TINY ? 1 : 5); round++) {
    collectGarbage();
    const base = process.memoryUsage().heapUsed;
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 1);
    await burst();
    clearInterval(sampler);
    peaks.push((Math.max(peak, process.memoryUsage().heapUsed) - base) / IN_FLIGHT / 1024 / 1024);
  }
  agent.destroy();
  return median(peaks);
}

// One GET over a kept-alive connection; resolves with the body's length once all of it has arrived.
function getBytes(agent: http.Agent, port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`list answered ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}
