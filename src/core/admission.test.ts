import { request as httpRequest } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { ADMISSION_DEFAULTS, registerAdmission, type AdmissionOptions } from './admission.ts';

// A real server on a real port: a client that hangs up is a closed socket, which inject() cannot show.
let app: FastifyInstance | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
});

interface Probe {
  running: number;
  most: number;
  /** The order requests reached the server (before admission), and the order they started work. */
  arrived: string[];
  order: string[];
  finished: string[];
}

async function serve(opts: Partial<AdmissionOptions>): Promise<{ base: string; probe: Probe }> {
  const probe: Probe = { running: 0, most: 0, arrived: [], order: [], finished: [] };
  app = Fastify();
  // Registered before admission, so it sees each request as it arrives: on a busy machine two sends 15 ms apart
  // can reach the server in either order, and "first come" means first to arrive.
  app.addHook('onRequest', (req, _reply, done) => {
    const name = new URL(req.url, 'http://x').searchParams.get('name');
    if (name) probe.arrived.push(name);
    done();
  });
  registerAdmission(app, { limit: 2, maxWaitMs: 5_000, lendAfterMs: 5_000, bypass: (req) => req.url === '/health', ...opts });
  app.get<{ Querystring: { ms?: string; name?: string } }>('/work', async (req) => {
    probe.running += 1;
    probe.most = Math.max(probe.most, probe.running);
    probe.order.push(req.query.name ?? '');
    await new Promise((r) => setTimeout(r, Number(req.query.ms ?? 100)));
    probe.running -= 1;
    probe.finished.push(req.query.name ?? '');
    return { done: req.query.name };
  });
  app.get('/health', async () => ({ ok: true }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  return { base: `http://127.0.0.1:${port}`, probe };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits until the server has seen what the test needs, so a slow machine changes timings but not outcomes. */
async function until(seen: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !seen(); i++) await sleep(5);
  expect(seen()).toBe(true);
}

describe('admission: a bounded number of requests at once, the rest in arrival order', () => {
  it('works on at most `limit` requests at once and starts the waiting ones in the order they came', async () => {
    const { base, probe } = await serve({ limit: 2 });
    const answers: Array<Promise<Response>> = [];
    for (let i = 0; i < 6; i++) {
      answers.push(fetch(`${base}/work?ms=80&name=r${i}`));
      await sleep(15);
    }
    const all = await Promise.all(answers);
    expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(probe.most).toBe(2);
    expect([...probe.arrived].sort()).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    expect(probe.order).toEqual(probe.arrived);
  });

  it('a client that hangs up while waiting gives up its turn: the places are not lost', async () => {
    const { base, probe } = await serve({ limit: 1 });
    const first = fetch(`${base}/work?ms=800&name=first`);
    await until(() => probe.order.includes('first'));
    // Three clients that leave while `first` runs: each is queued, then its socket closes.
    for (let i = 0; i < 3; i++) {
      const req = httpRequest(`${base}/work?ms=10&name=gone${i}`);
      req.on('error', () => {});
      req.end();
      await until(() => probe.arrived.includes(`gone${i}`));
      req.destroy();
    }
    expect((await first).status).toBe(200);
    const after = await fetch(`${base}/work?ms=10&name=after`, { signal: AbortSignal.timeout(2_000) });
    expect(after.status).toBe(200);
    expect(probe.order).toEqual(['first', 'after']);
  });

  it('a long request stops counting after lendAfterMs, so the next ones do not wait for it', async () => {
    const { base, probe } = await serve({ limit: 1, lendAfterMs: 100 });
    const long = fetch(`${base}/work?ms=600&name=long`);
    await until(() => probe.order.includes('long'));
    const short = await fetch(`${base}/work?ms=10&name=short`);
    expect(short.status).toBe(200);
    expect((await long).status).toBe(200);
    expect(probe.finished).toEqual(['short', 'long']);
    expect(probe.most).toBe(2);
  });

  it('a request that waited maxWaitMs is answered 503 with Retry-After; the health check never waits', async () => {
    const { base, probe } = await serve({ limit: 1, maxWaitMs: 100 });
    const busy = fetch(`${base}/work?ms=600&name=busy`);
    await until(() => probe.order.includes('busy'));
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    const refused = await fetch(`${base}/work?ms=10&name=refused`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/busy.*Try again/);
    expect((await busy).status).toBe(200);
    expect(probe.order).toEqual(['busy']);
    // The refused request left no trace in the count.
    expect((await fetch(`${base}/work?ms=10&name=next`)).status).toBe(200);
  });

  it('CAIRN_MAX_ACTIVE_REQUESTS and CAIRN_REQUEST_WAIT_MS have defaults and refuse nonsense', () => {
    expect(loadConfig({}, {})).toMatchObject({ maxActiveRequests: ADMISSION_DEFAULTS.limit, requestWaitMs: ADMISSION_DEFAULTS.maxWaitMs });
    expect(loadConfig({}, { CAIRN_MAX_ACTIVE_REQUESTS: '16', CAIRN_REQUEST_WAIT_MS: '2000' })).toMatchObject({ maxActiveRequests: 16, requestWaitMs: 2000 });
    expect(() => loadConfig({}, { CAIRN_MAX_ACTIVE_REQUESTS: '0' })).toThrow(/CAIRN_MAX_ACTIVE_REQUESTS/);
    expect(() => loadConfig({}, { CAIRN_REQUEST_WAIT_MS: 'soon' })).toThrow(/CAIRN_REQUEST_WAIT_MS/);
  });
});
