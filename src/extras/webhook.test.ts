// Outbound webhooks end to end: real HTTPS receivers on 127.0.0.1 (allow-listed through CAIRN_SSRF_ALLOWLIST),
// the pg-boss outbound worker on the test database, signatures checked against the exact body bytes.
import { createHmac } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { created } from '../../test/helpers/inventory.ts';
import { eventually, startStandin, type Received, type Standin } from '../../test/helpers/outbound.ts';
import { recordChanges } from '../core/changelog.ts';
import { systemContext } from '../core/context.ts';
import { requireModel } from '../core/registry.ts';
import { uuidv7 } from '../core/ids.ts';
import { QueueDispatcher } from '../jobs/host.ts';
import { claimDueDeliveries } from './webhook-outbox.ts';
import { attemptDelivery, webhookSettings } from './webhook-delivery.ts';

let h: Harness;
let receiver: Standin;
let flakyCalls = 0;
let worker: QueueDispatcher;
const SECRET = 'hook-secret-1';

beforeAll(async () => {
  process.env.CAIRN_SSRF_ALLOWLIST = '127.0.0.1';
  h = await startHarness();
  receiver = await startStandin((req) => {
    if (req.url === '/flaky') return { status: ++flakyCalls <= 2 ? 500 : 200 };
    return { status: 200, json: { ok: true } };
  });
  // Backoff of 0.05 s, 0.1 s…: each retry goes out at the dispatch tick after it falls due (every second), so the
  // five tries of a dead receiver take about five seconds (eight with 0.3 s, seven and a half minutes with the
  // product's 30 s).
  worker = new QueueDispatcher(h.database, { ...process.env, CAIRN_WEBHOOK_RETRY_BASE_SECONDS: '0.05', CAIRN_WEBHOOK_TIMEOUT_SECONDS: '5' });
  await worker.start();
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await h?.close();
  delete process.env.CAIRN_SSRF_ALLOWLIST;
});

async function count(table: string, where = sql`true`): Promise<number> {
  return (await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)} WHERE ${where}`.execute(h.database.db)).rows[0]!.n;
}

/** Returns once no query has gone to the test database for 300 ms (at most ten seconds). */
async function quietPool(): Promise<void> {
  let last = h.database.queryCount();
  for (let quiet = 0, waited = 0; quiet < 3 && waited < 10_000; waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
    const now = h.database.queryCount();
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
}

function hooksTo(path: string): Received[] {
  return receiver.received.filter((r) => r.url === path);
}

function verified(r: Received): Record<string, unknown> {
  const expected = `sha256=${createHmac('sha256', SECRET).update(r.body).digest('hex')}`;
  expect(r.headers['x-cairn-signature']).toBe(expected);
  expect(r.headers['content-type']).toBe('application/json');
  return JSON.parse(r.body.toString('utf8'));
}

describe('signed deliveries after commit', () => {
  let hook: { id: string };

  beforeAll(async () => {
    hook = await created(h.as('admin'), '/api/webhooks/', {
      name: 'tags', payload_url: `${receiver.url}/tags`, secret: SECRET, additional_headers: { 'X-Receiver-Token': 'tok-1' },
      object_types: ['extras.tag'], events: ['created', 'updated', 'deleted'],
    });
  });

  it('keeps the secret and headers write-only', async () => {
    const shown = (await h.as('admin').get(`/api/webhooks/${hook.id}/`)).json();
    expect(shown.secret).toBeUndefined();
    expect(shown.additional_headers).toBeUndefined();
    expect(shown).toMatchObject({ secret_set: true, additional_headers_set: true, payload_url: `${receiver.url}/tags` });
  });

  it('delivers create, update and delete with the body and signature of the issue', async () => {
    const alice = h.as('alice');
    const tag = await created(alice, '/api/tags/', { name: 'edge', slug: 'edge' });
    const createdHook = await eventually(async () => hooksTo('/tags')[0], 'the created webhook');
    const body = verified(createdHook);
    expect(createdHook.headers['x-receiver-token']).toBe('tok-1');
    expect(body).toMatchObject({
      event: 'created', object_type: 'extras.tag', object_id: tag.id, user: 'alice',
      tenant: { id: h.tenants.a, slug: 'alpha' }, data: { id: tag.id, name: 'edge', slug: 'edge' },
      snapshots: { before: null, after: { name: 'edge' } },
    });
    expect(typeof body.request_id).toBe('string');
    expect(Number.isNaN(Date.parse(String(body.timestamp)))).toBe(false);

    expect((await alice.patch(`/api/tags/${tag.id}/`, { name: 'edge-2' })).statusCode).toBe(200);
    const updated = verified(await eventually(async () => hooksTo('/tags')[1], 'the updated webhook'));
    expect(updated).toMatchObject({ event: 'updated', object_id: tag.id, data: { name: 'edge-2' }, snapshots: { before: { name: 'edge' }, after: { name: 'edge-2' } } });

    expect((await alice.delete(`/api/tags/${tag.id}/`)).statusCode).toBe(204);
    const deleted = verified(await eventually(async () => hooksTo('/tags')[2], 'the deleted webhook'));
    expect(deleted).toMatchObject({ event: 'deleted', object_id: tag.id, data: { name: 'edge-2' }, snapshots: { before: { name: 'edge-2' }, after: null } });

    // Each attempt is recorded, readable by viewers, and each delivery is a job.
    const deliveries = await eventually(async () => {
      const page = (await h.as('viewer').get(`/api/webhook-deliveries/?webhook=${hook.id}`)).json();
      return page.count === 3 ? page : undefined;
    }, 'three delivery records');
    for (const d of deliveries.results) expect(d).toMatchObject({ succeeded: true, status_code: 200, attempt: 1, next_retry: null, error: '' });
    expect(deliveries.results.map((d: { event: string }) => d.event).sort()).toEqual(['created', 'deleted', 'updated']);
    await eventually(async () => ((await count('jobs', sql`kind = 'webhook.delivery' AND status = 'succeeded'`)) === 3 ? true : undefined), 'three finished jobs');
    expect(await count('webhook_outbox')).toBe(0);
    // The delivery history is read-only, and another tenant sees none of it.
    expect((await h.as('admin').post('/api/webhook-deliveries/', {})).statusCode).toBe(404);
    expect((await h.as('bob').get('/api/webhook-deliveries/')).json().count).toBe(0);
  });

  it('sends nothing for a rolled-back write, another tenant, or an event not asked for', async () => {
    const before = hooksTo('/tags').length;
    const tagModel = requireModel('extras.tag');
    // A write whose transaction rolls back after its change row was written: nothing queued, nothing sent.
    await expect(
      h.database.db.transaction().execute(async (tx) => {
        await recordChanges(tx, systemContext(h.tenants.a), [{ model: tagModel, action: 'create', objectId: uuidv7(), repr: 'ghost', before: null, after: { name: 'ghost' } }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await count('webhook_outbox')).toBe(0);
    // Beta's tag does not match alpha's webhook; a refused write (duplicate name) records no change.
    await created(h.as('bob'), '/api/tags/', { name: 'beta-tag', slug: 'beta-tag' });
    await created(h.as('alice'), '/api/tags/', { name: 'dup', slug: 'dup' });
    expect((await h.as('alice').post('/api/tags/', { name: 'dup', slug: 'dup' })).statusCode).toBe(400);
    // Only alpha's one successful create is delivered.
    const sent = await eventually(async () => (hooksTo('/tags').length > before ? hooksTo('/tags').slice(before) : undefined), 'the dup delivery');
    await new Promise((r) => setTimeout(r, 1500)); // a couple of dispatch ticks: anything wrongly queued would go out now
    expect(hooksTo('/tags').length).toBe(before + 1);
    expect(verified(sent[0]!)).toMatchObject({ event: 'created', data: { name: 'dup' } });
  });

  it('finds webhooks with a constant number of queries for bulk writes', async () => {
    const alice = h.as('alice');
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await created(alice, '/api/tags/', { name: `bulk-${i}`, slug: `bulk-${i}` })).id);
    const queries = async (some: string[], suffix: string) => {
      const start = h.database.queryCount();
      const res = await alice.post('/api/tags/bulk-update/', { ids: some, fields: { description: `changed ${suffix}` } });
      expect(res.statusCode, res.body).toBe(200);
      return h.database.queryCount() - start;
    };
    // The worker's own queries would blur the count. The creates' deliveries go out at their commits, so they are
    // let finish first; and a fetch pg-boss had in flight when the worker stopped may still bring a job to work
    // (its stop waits only for jobs it holds), so the count is taken once the pool has gone quiet.
    await eventually(async () => ((await count('webhook_outbox')) === 0 && (await count('jobs', sql`kind = 'webhook.delivery' AND status IN ('queued', 'running')`)) === 0 ? true : undefined), 'the creates\' deliveries');
    await worker.stop();
    await quietPool();
    try {
      const few = await queries(ids.slice(0, 2), 'few');
      const many = await queries(ids, 'many');
      expect(many).toBe(few);
      expect(await count('webhook_outbox', sql`tenant_id = ${h.tenants.a}`)).toBeGreaterThanOrEqual(14);
    } finally {
      await worker.start();
    }
    await eventually(async () => ((await count('webhook_outbox')) === 0 ? true : undefined), 'the bulk deliveries');
  });
});

it('retries a failing receiver with backoff: 500, 500, then 200 is three attempts', async () => {
  const hook = await created(h.as('admin'), '/api/webhooks/', { name: 'flaky', payload_url: `${receiver.url}/flaky`, secret: SECRET, object_types: ['organization.site'], events: ['created'] });
  const site = await created(h.as('alice'), '/api/sites/', { name: 'Retry site', slug: 'retry-site' });
  const attempts = await eventually(async () => {
    const page = (await h.as('admin').get(`/api/webhook-deliveries/?webhook=${hook.id}&ordering=attempt`)).json();
    return page.results.some((d: { succeeded: boolean }) => d.succeeded) ? page.results : undefined;
  }, 'a successful attempt');
  expect(attempts.map((d: { attempt: number; status_code: number; succeeded: boolean }) => [d.attempt, d.status_code, d.succeeded])).toEqual([
    [1, 500, false],
    [2, 500, false],
    [3, 200, true],
  ]);
  expect(attempts[0].next_retry).not.toBeNull();
  expect(attempts[0].error).toMatch(/HTTP 500/);
  expect(attempts[2].next_retry).toBeNull();
  // Every try carried the same signed body.
  const tries = hooksTo('/flaky');
  expect(tries).toHaveLength(3);
  expect(new Set(tries.map((t) => t.body.toString())).size).toBe(1);
  expect(verified(tries[0]!)).toMatchObject({ event: 'created', object_id: site.id });
  const { rows } = await sql<{ status: string; result: string }>`SELECT status, result FROM jobs WHERE kind = 'webhook.delivery' AND subject_id = ${hook.id}`.execute(h.database.db);
  expect(rows).toEqual([{ status: 'succeeded', result: expect.stringMatching(/try 3/) }]);
});

it('gives up after five tries and says so', async () => {
  const hook = await created(h.as('admin'), '/api/webhooks/', { name: 'down', payload_url: 'https://127.0.0.1:1/nothing', object_types: ['dcim.manufacturer'], events: ['created'] });
  await created(h.as('alice'), '/api/manufacturers/', { name: 'Gone maker', slug: 'gone-maker' });
  const attempts = await eventually(async () => {
    const page = (await h.as('admin').get(`/api/webhook-deliveries/?webhook=${hook.id}&ordering=attempt`)).json();
    return page.count === 5 && page.results[4].next_retry === null ? page.results : undefined;
  }, 'five attempts', 600);
  expect(attempts.every((d: { succeeded: boolean; status_code: number | null }) => !d.succeeded && d.status_code === null)).toBe(true);
  const { rows } = await sql<{ status: string; error: string }>`SELECT status, error FROM jobs WHERE kind = 'webhook.delivery' AND subject_id = ${hook.id}`.execute(h.database.db);
  expect(rows).toEqual([{ status: 'failed', error: expect.stringMatching(/after 5 tries/) }]);
}, 120_000);

it('deleting a webhook with a delivery still to retry ends its job as cancelled', async () => {
  await worker.stop(); // one try by hand, so the retry is certainly still pending when the webhook goes
  try {
    const hook = await created(h.as('admin'), '/api/webhooks/', { name: 'doomed', payload_url: `${receiver.url}/flaky`, object_types: ['dcim.platform'], events: ['created'] });
    flakyCalls = 0;
    await created(h.as('alice'), '/api/platforms/', { name: 'Doomed OS', slug: 'doomed-os' });
    const [outboxId] = await claimDueDeliveries(h.database.db);
    const outcome = await attemptDelivery(h.database.db, outboxId!, webhookSettings());
    expect(outcome).toMatchObject({ delivered: false, attempt: 1, statusCode: 500 });
    expect(outcome!.nextRetry).not.toBeNull();
    expect((await h.as('admin').delete(`/api/webhooks/${hook.id}/`)).statusCode).toBe(204);
    expect(await count('webhook_outbox')).toBe(0);
    const { rows } = await sql<{ status: string }>`SELECT status FROM jobs WHERE kind = 'webhook.delivery' AND subject_id = ${hook.id}`.execute(h.database.db);
    expect(rows).toEqual([{ status: 'cancelled' }]);
    // The attempt stays in the history, detached from the deleted webhook.
    const history = (await h.as('admin').get('/api/webhook-deliveries/?webhook_name=doomed')).json();
    expect(history.results).toMatchObject([{ webhook: null, attempt: 1, status_code: 500 }]);
  } finally {
    await worker.start();
  }
});

it('uses plain http only for an allow-listed host', async () => {
  const bodies: string[] = [];
  const plain = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200);
      res.end();
    });
  });
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  try {
    const port = (plain.address() as AddressInfo).port;
    // 127.0.0.1 is on CAIRN_SSRF_ALLOWLIST in this file, so http:// to it is accepted and used.
    await created(h.as('admin'), '/api/webhooks/', { name: 'plain', payload_url: `http://127.0.0.1:${port}/in`, object_types: ['dcim.devicerole'], events: ['created'] });
    const role = await created(h.as('alice'), '/api/device-roles/', { name: 'Plain role', slug: 'plain-role' });
    const body = await eventually(async () => bodies[0], 'the plain http delivery');
    expect(JSON.parse(body)).toMatchObject({ event: 'created', object_id: role.id });
  } finally {
    await new Promise<void>((resolve) => plain.close(() => resolve()));
  }
});

describe('bad input', () => {
  it.each([
    ['plain http to a public address', { payload_url: 'http://8.8.8.8/hook' }, 'payload_url', /http:\/\/ is refused/],
    ['a private address not allow-listed', { payload_url: 'https://10.20.30.40/hook' }, 'payload_url', /non-public/],
    ['an unknown event', { events: ['create'] }, 'events', /created, updated, deleted/],
    ['an unknown object type', { object_types: ['dcim.nothing'] }, 'object_types', /Unknown object type/],
    ['a header name with a space', { additional_headers: { 'X Bad': 'v' } }, 'additional_headers', /not a valid HTTP header name/],
  ])('%s is a 400 naming the field, and nothing is saved', async (_what, patch, field, message) => {
    const before = await count('webhooks');
    const res = await h.as('admin').post('/api/webhooks/', { name: `bad-${field}`, payload_url: `${receiver.url}/x`, object_types: ['organization.site'], ...patch });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()[field][0]).toMatch(message);
    expect(await count('webhooks')).toBe(before);
  });

  it('refuses writes from a read-only token and from users without the permission', async () => {
    expect((await h.as('aliceRO').post('/api/webhooks/', { name: 'ro', payload_url: `${receiver.url}/x` })).statusCode).toBe(403);
    expect((await h.as('viewer').post('/api/webhooks/', { name: 'viewer', payload_url: `${receiver.url}/x` })).statusCode).toBe(403);
  });
});
