// Issue 26: many clients at once. A real server (HTTP on a local port) over the demo network, 100 connections
// for LOAD_SECONDS (default 30) with the mix a busy team produces: device, interface and prefix lists, a device
// page, global search, and 5 % writes (tags created), interleaved across the connections as independent clients
// send them (bench/load-mix.cjs). Printed: requests/s, p50, p99, errors and non-2xx answers,
// at 2,000 devices and again in a tenant of 20,000 (the page cost should not grow with the tables: the ratio of
// the two p50s and throughputs). Goal on 2 cores (PostgreSQL): 0 errors, p99 < 250 ms, >= 400 requests/s at 2,000.
// Also printed, to show where the time goes: the CPU the run used (the server's event loop, this process,
// PostgreSQL, the machine) and, at each size, each request's CPU in the server and in PostgreSQL, one client at a
// time, with its growth from the first size (LOAD_BREAKDOWN=0 skips it).
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.ts';
import { createToken, createUser } from '../src/core/accounts.ts';
import { generateDemoData } from '../src/system/demo-data.ts';
import { benchSize, loadNote, openBenchDatabase, TINY } from './helpers.ts';
import { startCpuMeter, type CpuReading } from './cpu-meter.ts';

const CONNECTIONS = TINY ? 4 : 100;
const SECONDS = benchSize('LOAD_SECONDS', 30, 1);
// Measured on a warm server, as one that has run a while: the first seconds compile the code and prepare each pool
// connection's statements (p99 264 ms cold against 220 ms warm in one comparison of this mix).
const WARMUP_SECONDS = benchSize('LOAD_WARMUP_SECONDS', 5, 0);
const MIX_HOOK = fileURLToPath(new URL('./load-mix.cjs', import.meta.url));
const SIZES = (process.env.LOAD_DEVICES ?? process.env.BENCH_DEVICES_ALL ?? (TINY ? '5' : '2000,20000')).split(',').map(Number);

interface Outcome {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  total: number;
}

export default async function run(): Promise<void> {
  const database = await openBenchDatabase();
  const app = await buildApp({ database });
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };
    const outcomes: Array<{ devices: number; o: Outcome }> = [];
    let firstCosts: RequestCost[] | undefined;
    for (const [i, devices] of SIZES.entries()) {
      const slug = `load${i}`;
      const t = performance.now();
      const demo = await generateDemoData(database.db, { devices, seed: 7, tenantSlug: slug });
      await createUser(database.db, { username: `load-${slug}`, password: 'load-bench-password', isSuperuser: true, tenantIds: [demo.tenantId] });
      const token = await createToken(database.db, { username: `load-${slug}`, tenantSlug: slug });
      console.log(`load (${database.label}): ${devices.toLocaleString('en-US')} demo devices in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      // Measured as a deployment at rest after the load: its rows vacuumed and analysed, as autovacuum soon does, and
      // written out by a checkpoint, which the checkpointer would otherwise spread over the next minutes, on the
      // cores the run shares, its CPU counted as the requests'.
      const v = performance.now();
      await sql`VACUUM (ANALYZE)`.execute(database.db);
      await sql`CHECKPOINT`.execute(database.db);
      console.log(`load (${database.label}): VACUUM (ANALYZE) and CHECKPOINT after the load in ${((performance.now() - v) / 1000).toFixed(1)} s`);
      const headers = { authorization: `Token ${token}`, 'content-type': 'application/json' };
      const get = async (path: string) => (await (await fetch(`http://127.0.0.1:${port}${path}`, { headers })).json()) as { results: Array<{ id: string; name: string }> };
      const sample = (await get('/api/devices/?limit=1&offset=7')).results[0]!;
      const site = sample.name.split('-')[0]!;
      const reads = [
        '/api/devices/?limit=50',
        `/api/devices/?limit=50&q=${site}`,
        `/api/devices/${sample.id}/`,
        '/api/interfaces/?limit=50',
        `/api/interfaces/?limit=50&device_id=${sample.id}`,
        '/api/prefixes/?limit=50',
        `/api/search/?q=${site}-leaf`,
        '/api/ip-addresses/?limit=50',
        '/api/vlans/?limit=50',
        '/api/sites/?limit=50',
      ];
      // 19 reads to 1 write, interleaved across the connections (bench/load-mix.cjs): the writes are tags with fresh names.
      process.env.LOAD_READS = JSON.stringify(reads);
      const requests = [{ method: 'GET' as const, path: reads[0]!, setupRequest: MIX_HOOK }];
      // The load comes from a thread of its own, as wrk or a real client would from its own process: in the
      // server's thread, reading 100 connections' answers would take the event loop's time from the server.
      const load = (duration: number) =>
        autocannon({ url: `http://127.0.0.1:${port}`, connections: CONNECTIONS, duration, timeout: 10, headers, requests, workers: 1 } as autocannon.Options);
      if (WARMUP_SECONDS > 0) await load(WARMUP_SECONDS);
      const meter = startCpuMeter();
      const result = await load(SECONDS);
      const o: Outcome = {
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        errors: result.errors,
        timeouts: result.timeouts,
        non2xx: result.non2xx,
        total: result.requests.total,
      };
      const spent = meter();
      outcomes.push({ devices, o });
      console.log(
        `load (${database.label}, ${devices.toLocaleString('en-US')} devices): ${CONNECTIONS} connections for ${SECONDS} s (after ${WARMUP_SECONDS} s of warm-up), 5 % writes: ` +
          `${o.rps.toFixed(0)} requests/s, p50 ${o.p50} ms, p99 ${o.p99} ms, ${o.errors} errors (${o.timeouts} timeouts), ${o.non2xx} non-2xx of ${o.total}; ` +
          `goal 0 errors, p99 < 250 ms, >= 400 requests/s at 2,000 devices; ${loadNote()}`,
      );
      console.log(`load (${database.label}, ${devices.toLocaleString('en-US')} devices): ${cpuNote(spent, o.total)}`);
      if (process.env.LOAD_BREAKDOWN !== '0') {
        console.log(`load (${database.label}, ${devices.toLocaleString('en-US')} devices): CPU per request, one client at a time:`);
        let server = 0;
        let postgres: number | null = 0;
        const costs: RequestCost[] = [];
        for (const [k, path] of (TINY ? reads.slice(0, 2) : reads).entries()) {
          const cost = await requestCost(`http://127.0.0.1:${port}${path}`, headers.authorization);
          costs.push(cost);
          server += cost.serverMs;
          postgres = postgres === null || cost.postgresMs === null ? null : postgres + cost.postgresMs;
          // Against the first size: the same request (another device's id) on tables up to ten times larger.
          const first = firstCosts?.[k];
          const growth = first
            ? ` (against ${SIZES[0]!.toLocaleString('en-US')} devices: server ${ratio(cost.serverMs, first.serverMs)}${cost.postgresMs === null || first.postgresMs === null ? '' : `, PostgreSQL ${ratio(cost.postgresMs, first.postgresMs)}`})`
            : '';
          console.log(`  ${path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>')}: server ${cost.serverMs.toFixed(2)} ms${cost.postgresMs === null ? '' : `, PostgreSQL ${cost.postgresMs.toFixed(2)} ms`}${growth}`);
        }
        firstCosts ??= costs;
        const n = costs.length;
        const cores = availableParallelism();
        const both = postgres === null ? '' : `, PostgreSQL ${(postgres / n).toFixed(2)} ms: ${cores} cores serve at most ${Math.round((cores * 1000) / ((server + postgres) / n))} requests/s of them,`;
        console.log(`  the reads' mean: server ${(server / n).toFixed(2)} ms${both} the server's one thread at most ${Math.round(1000 / (server / n))}`);
      }
    }
    if (outcomes.length >= 2 && outcomes.every((x) => x.o.total > 0)) {
      const [small, large] = [outcomes[0]!, outcomes[outcomes.length - 1]!];
      console.log(
        `load (${database.label}): ${large.devices.toLocaleString('en-US')} vs ${small.devices.toLocaleString('en-US')} devices: ` +
          `p50 ${(large.o.p50 / Math.max(small.o.p50, 0.01)).toFixed(2)}x, throughput ${(small.o.rps / Math.max(large.o.rps, 0.01)).toFixed(2)}x slower (goal: flat, 1.0x)`,
      );
    }
  } finally {
    await app.close();
    await database.close();
  }
}

/** What the load run spent, per request and as cores. */
function cpuNote(r: CpuReading, requests: number): string {
  const cores = (ms: number) => (ms / r.wallMs).toFixed(2);
  const parts = [
    `the server's event loop busy ${(r.eventLoop * 100).toFixed(0)} % of the run`,
    `this process (server and load generator) ${cores(r.processMs)} cores`,
    ...(r.postgresMs === null ? [] : [`PostgreSQL ${cores(r.postgresMs)} cores (${(r.postgresMs / Math.max(1, requests)).toFixed(2)} ms a request)`]),
    ...(r.machineBusy === null ? [] : [`the machine ${(r.machineBusy * 100).toFixed(0)} % busy of ${availableParallelism()} cores`]),
  ];
  return `CPU during the run: ${parts.join(', ')}`;
}

/** A fetch loop in a process of its own, so this process's CPU is the server's alone. */
const CLIENT = `const [url, authorization, n] = process.argv.slice(1);
(async () => { for (let i = 0; i < Number(n); i++) { const r = await fetch(url, { headers: { authorization } }); await r.arrayBuffer(); if (!r.ok) throw new Error(url + ': ' + r.status); } })().catch((e) => { console.error(e.message); process.exit(1); });`;

function runClient(url: string, authorization: string, n: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CLIENT, url, authorization, String(n)], { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`the client for ${url} failed`))));
  });
}

interface RequestCost {
  serverMs: number;
  postgresMs: number | null;
}

const ratio = (a: number, b: number) => `${(a / Math.max(b, 0.001)).toFixed(2)}x`;

/** CPU of one request to `url` in this process (the server) and in PostgreSQL: 300 in a row after 30 to warm up. */
async function requestCost(url: string, authorization: string): Promise<RequestCost> {
  const n = TINY ? 2 : 300;
  await runClient(url, authorization, TINY ? 1 : 30);
  const meter = startCpuMeter();
  await runClient(url, authorization, n);
  const r = meter();
  return { serverMs: r.processMs / n, postgresMs: r.postgresMs === null ? null : r.postgresMs / n };
}
