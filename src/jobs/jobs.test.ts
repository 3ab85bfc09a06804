// /api/jobs/: who sees which job, filters, cancellation, and the recurring schedules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cron } from 'croner';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { createJob, finishJob, jobCancelRequested, markJobRunning } from './record.ts';

let h: Harness;
const ids: Record<string, string> = {};

beforeAll(async () => {
  h = await startHarness();
  const db = h.database.db;
  ids.alphaQueued = await createJob(db, { kind: 'demo-data', tenantId: h.tenants.a, startedBy: 'user:alice', cancellable: true, total: 5 });
  ids.alphaRunning = await createJob(db, { kind: 'deploy.run', tenantId: h.tenants.a, startedBy: 'user:alice', cancellable: true, status: 'running' });
  ids.alphaFixed = await createJob(db, { kind: 'deploy.run', tenantId: h.tenants.a, startedBy: 'user:alice', status: 'running' });
  ids.alphaDone = await createJob(db, { kind: 'demo-data', tenantId: h.tenants.a, startedBy: 'system', cancellable: true });
  await markJobRunning(db, ids.alphaDone);
  await finishJob(db, ids.alphaDone, { status: 'failed', error: 'boom' });
  ids.beta = await createJob(db, { kind: 'demo-data', tenantId: h.tenants.b, startedBy: 'user:bob' });
  ids.deployment = await createJob(db, { kind: 'eol.refresh', tenantId: null, startedBy: 'schedule:eol-refresh' });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

async function listIds(who: Parameters<Harness['as']>[0], query = ''): Promise<string[]> {
  const res = await h.as(who).get(`/api/jobs/${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().results.map((j: { id: string }) => j.id);
}

describe('jobs', () => {
  it('shows tenant jobs to the tenant and deployment-wide jobs to users.manage only', async () => {
    const alpha = [ids.alphaQueued, ids.alphaRunning, ids.alphaFixed, ids.alphaDone];
    expect((await listIds('alice')).sort()).toEqual([...alpha].sort());
    expect((await listIds('viewer')).sort()).toEqual([...alpha].sort());
    expect((await listIds('admin')).sort()).toEqual([...alpha, ids.deployment].sort());
    expect(await listIds('bob')).toEqual([ids.beta]);
    expect((await h.as('nobody').get('/api/jobs/')).statusCode).toBe(403);
    expect((await h.as('anonymous').get('/api/jobs/')).statusCode).toBe(401);
    expect((await h.as('bob').get(`/api/jobs/${ids.alphaQueued}/`)).statusCode).toBe(404);
    expect((await h.as('alice').get(`/api/jobs/${ids.deployment}/`)).statusCode).toBe(404);
    const one = (await h.as('admin').get(`/api/jobs/${ids.alphaDone}/`)).json();
    expect(one).toMatchObject({ id: ids.alphaDone, kind: 'demo-data', status: 'failed', started_by: 'system', error: 'boom', cancellable: false, tenant: h.tenants.a });
    expect(one.finished).not.toBeNull();
    expect(one.progress).toEqual({ done: 0, total: null });
  });

  it('filters by kind and status, pages, and refuses unknown values', async () => {
    expect((await listIds('alice', '?kind=deploy.run')).sort()).toEqual([ids.alphaRunning, ids.alphaFixed].sort());
    expect(await listIds('alice', '?status=failed')).toEqual([ids.alphaDone]);
    expect((await listIds('alice', '?status=queued,failed')).sort()).toEqual([ids.alphaQueued, ids.alphaDone].sort());
    const page = (await h.as('alice').get('/api/jobs/?limit=1')).json();
    expect(page.count).toBe(4);
    expect(page.results).toHaveLength(1);
    expect(page.next).toContain('offset=1');
    for (const [query, param] of [['?status=done', 'status'], ['?limit=0', 'limit'], ['?limit=100000', 'limit'], ['?offset=-1', 'offset'], ['?colour=red', 'colour'], ['?kind=a%00b', 'kind']]) {
      const res = await h.as('alice').get(`/api/jobs/${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json(), query).toHaveProperty(param!);
    }
    expect((await h.as('alice').get('/api/jobs/not-an-id/')).statusCode).toBe(400);
  });

  it('cancels a queued job at once and asks a running one to stop', async () => {
    expect((await h.as('viewer').post(`/api/jobs/${ids.alphaQueued}/cancel/`)).statusCode).toBe(403);
    expect((await h.as('aliceRO').post(`/api/jobs/${ids.alphaQueued}/cancel/`)).statusCode).toBe(403);
    const queued = await h.as('alice').post(`/api/jobs/${ids.alphaQueued}/cancel/`);
    expect(queued.statusCode, queued.body).toBe(200);
    expect(queued.json()).toMatchObject({ status: 'cancelled', cancel_requested: true, cancellable: false });
    const running = await h.as('alice').post(`/api/jobs/${ids.alphaRunning}/cancel/`);
    expect(running.json()).toMatchObject({ status: 'running', cancel_requested: true });
    expect(await jobCancelRequested(h.database.db, ids.alphaRunning)).toBe(true);
    // The worker ends it at its next step.
    await finishJob(h.database.db, ids.alphaRunning, { status: 'cancelled', result: 'stopped after 2 of 5' });
    expect((await h.as('alice').get(`/api/jobs/${ids.alphaRunning}/`)).json().status).toBe('cancelled');
  });

  it('refuses to cancel what cannot be cancelled, with the reason', async () => {
    const fixed = await h.as('alice').post(`/api/jobs/${ids.alphaFixed}/cancel/`);
    expect(fixed.statusCode).toBe(400);
    expect(fixed.json().id[0]).toMatch(/cannot be cancelled/);
    const finished = await h.as('alice').post(`/api/jobs/${ids.alphaDone}/cancel/`);
    expect(finished.statusCode).toBe(409);
    expect(finished.json().detail).toMatch(/already failed/);
    expect((await h.as('alice').post(`/api/jobs/${ids.alphaQueued}/cancel/`)).statusCode).toBe(409);
    expect((await h.as('bob').post(`/api/jobs/${ids.alphaFixed}/cancel/`)).statusCode).toBe(404);
    expect((await h.as('alice').get(`/api/jobs/${ids.alphaFixed}/`)).json().status).toBe('running');
  });

  it('lists the recurring jobs with their schedule and next run', async () => {
    const res = await h.as('alice').get('/api/jobs/schedules/');
    expect(res.statusCode).toBe(200);
    const byName = Object.fromEntries(res.json().results.map((s: { name: string }) => [s.name, s]));
    expect(Object.keys(byName).sort()).toEqual(['compliance', 'eol-refresh', 'monitoring', 'row-count-fold', 'search-rebuild', 'upgrade-check', 'write-mark-sweep']);
    for (const s of Object.values(byName) as Array<{ schedule: string; next_run: string }>) {
      const next = new Date(s.next_run);
      expect(next.getTime()).toBeGreaterThan(Date.now() - 1000);
      // The next run is a time the pattern matches.
      expect(new Cron(s.schedule, { paused: true }).match(next)).toBe(true);
    }
    expect(byName['eol-refresh'].schedule).toBe(process.env.CAIRN_EOL_REFRESH_CRON ?? '35 5 * * *');
    expect(byName['compliance'].schedule).toBe(process.env.CAIRN_COMPLIANCE_CRON ?? '15 6 * * *');
    expect((await h.as('nobody').get('/api/jobs/schedules/')).statusCode).toBe(403);
  });
});
