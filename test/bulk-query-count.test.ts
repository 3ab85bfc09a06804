// Issue 5: a bulk call costs the same number of queries whatever the number of ids (one SELECT … FOR UPDATE,
// one write, one change-log INSERT), checked on demo data for bulk-update of devices and bulk-delete of interfaces;
// and a single create takes its number inside its own insert.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from './helpers/harness.ts';
import { generateDemoData } from '../src/system/demo-data.ts';

let h: Harness;
let deviceIds: string[];
let interfaceIds: string[];
beforeAll(async () => {
  h = await startHarness();
  await generateDemoData(h.database.db, { devices: 220, seed: 5, tenantSlug: 'alpha' });
  deviceIds = (await sql<{ id: string }>`SELECT id FROM devices WHERE tenant_id = ${h.tenants.a} ORDER BY numid`.execute(h.database.db)).rows.map((r) => r.id);
  // Access ports: no cable, no address, so a delete has nothing to skip.
  interfaceIds = (await sql<{ id: string }>`SELECT i.id FROM interfaces i WHERE i.tenant_id = ${h.tenants.a} AND i.description = '' AND i.type <> 'loopback'
      AND NOT EXISTS (SELECT 1 FROM cable_terminations ct WHERE ct.termination_type = 'dcim.interface' AND ct.termination_id = i.id)
    ORDER BY i.numid`.execute(h.database.db)).rows.map((r) => r.id);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

async function queriesOf(url: string, body: unknown): Promise<number> {
  const before = h.database.queryCount();
  const res = await h.as('admin').post(url, body);
  expect(res.statusCode, res.body).toBe(200);
  return h.database.queryCount() - before;
}

describe('bulk calls issue a constant number of queries', () => {
  it('bulk-update of devices: 10 ids and 200 ids', async () => {
    await h.as('admin').get('/api/devices/?limit=1'); // warm the token cache
    const few = await queriesOf('/api/devices/bulk-update/', { ids: deviceIds.slice(0, 10), fields: { serial: 'QC-10' } });
    const many = await queriesOf('/api/devices/bulk-update/', { ids: deviceIds.slice(10, 210), fields: { serial: 'QC-200' } });
    expect(many).toBe(few);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM devices WHERE serial = 'QC-200'`.execute(h.database.db);
    expect(rows[0]!.n).toBe(200);
  });

  it('bulk-delete of interfaces: 10 ids and 200 ids', async () => {
    const few = await queriesOf('/api/interfaces/bulk-delete/', { ids: interfaceIds.slice(0, 10) });
    const many = await queriesOf('/api/interfaces/bulk-delete/', { ids: interfaceIds.slice(10, 210) });
    expect(many).toBe(few);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM interfaces WHERE id = ANY(${interfaceIds.slice(0, 210)}::uuid[])`.execute(h.database.db);
    expect(rows[0]!.n).toBe(0);
  });

  it('a single create takes its number in its own insert: begin, insert, change log, webhook outbox, commit', async () => {
    await h.as('admin').get('/api/tags/?limit=1'); // warm the token cache
    const numids: number[] = [];
    for (const name of ['qc-one', 'qc-two']) {
      const before = h.database.queryCount();
      const res = await h.as('admin').post('/api/tags/', { name, slug: name });
      expect(res.statusCode, res.body).toBe(201);
      expect(h.database.queryCount() - before).toBeLessThanOrEqual(5);
      numids.push(Number(res.json().numid));
    }
    expect(numids[1]).toBe(numids[0]! + 1);
  });
});
