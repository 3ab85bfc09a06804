// The producers wired to job records: compliance evaluation (API), the end-of-life refresh, demo data with the
// search index of the loaded tenant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:net';
import { sql } from 'kysely';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { runDemoDataJob } from '../system/demo-data-job.ts';
import { startQueueDispatcher } from './host.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

interface Job { id: string; kind: string; status: string; started_by: string; tenant: string | null; result: string; error: string; progress: { done: number; total: number | null } }

async function jobs(who: Parameters<Harness['as']>[0], query: string): Promise<Job[]> {
  const res = await h.as(who).get(`/api/jobs/${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().results;
}

/** Polls the record (bounded by attempts, never by a time assertion) until the background job has finished. */
async function finished(id: string): Promise<Job> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const job = (await h.as('admin').get(`/api/jobs/${id}/`)).json() as Job;
    if (job.status !== 'queued' && job.status !== 'running') return job;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('job did not finish');
}

describe('job producers', () => {
  it('records a compliance evaluation started through the API in the tenant', async () => {
    const res = await h.as('alice').post('/api/compliance/evaluate/');
    expect(res.statusCode, res.body).toBe(200);
    const [job] = await jobs('alice', '?kind=compliance.evaluate');
    expect(job).toMatchObject({ status: 'succeeded', started_by: 'user:alice', tenant: h.tenants.a });
    expect(job!.result).toBe(`${res.json().rules} rules evaluated, ${res.json().violations} violations`);
    expect(await jobs('bob', '?kind=compliance.evaluate')).toEqual([]);
  });

  it('records an end-of-life refresh as a deployment-wide job with its failure', async () => {
    // A listener that closes every connection: the fetch fails, as a real unreachable mirror would.
    const server: Server = createServer((socket) => socket.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    try {
      const saved = await h.as('admin').patch('/api/eol/settings/', { enabled: true, ssrf_allowlist: ['127.0.0.1/32'], source_urls: { endoflife_date: `https://127.0.0.1:${port}` } });
      expect(saved.statusCode, saved.body).toBe(200);
      expect((await h.as('admin').post('/api/eol/refresh/')).statusCode).toBe(202);
      const [queued] = await jobs('admin', '?kind=eol.refresh');
      // Nothing runs it in the web process: it waits for a worker, which claims it from its pg-boss tick.
      expect(queued).toMatchObject({ status: 'queued' });
      const stopWorker = await startQueueDispatcher(h.database);
      let job: Job;
      try {
        job = await finished(queued!.id);
      } finally {
        await stopWorker();
      }
      expect(job).toMatchObject({ kind: 'eol.refresh', tenant: null, started_by: 'user:admin', status: 'failed', progress: { done: 1, total: 1 } });
      expect(job.error).toMatch(/^endoflife_date: /);
      expect(await jobs('alice', '?kind=eol.refresh')).toEqual([]);
    } finally {
      await h.as('admin').patch('/api/eol/settings/', { enabled: false, ssrf_allowlist: [] });
      server.close();
    }
  });

  it('records demo data, prints the same steps, and indexes the loaded tenant for search', async () => {
    const lines: string[] = [];
    const result = await runDemoDataJob(h.database, { devices: 3, seed: 4, tenantSlug: 'gamma' }, (line) => lines.push(line));
    const [job] = await jobs('admin', '?kind=demo-data');
    expect(job).toMatchObject({ status: 'succeeded', tenant: null, started_by: 'system' });
    expect(job!.progress).toEqual({ done: lines.length, total: lines.length });
    expect(job!.result).toContain(`${result.totalRows} rows`);
    expect(lines.some((l) => l.startsWith('demo-data: 3 devices'))).toBe(true);
    expect(lines.at(-1)).toMatch(/^search index: [\d,]+ entries$/);
    // Every device of the tenant is indexed by name: the 3 planned ones and those demo data adds around them.
    const { rows } = await sql<{ indexed: number; devices: number }>`SELECT
        (SELECT count(*)::int FROM search_index si JOIN devices d ON d.id = si.object_id WHERE si.tenant_id = ${result.tenantId} AND si.field = 'name') AS indexed,
        (SELECT count(*)::int FROM devices d WHERE d.tenant_id = ${result.tenantId}) AS devices`.execute(h.database.db);
    expect(rows[0]!.devices).toBeGreaterThan(3);
    expect(rows[0]!.indexed).toBe(rows[0]!.devices);
  });
});
