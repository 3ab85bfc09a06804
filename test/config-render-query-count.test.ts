// Issue 7: a multi-device bundle render costs the same number of queries for 50 and for 500 demo devices.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from './helpers/harness.ts';
import { DEMO_SUPPORT_ROLES, generateDemoData } from '../src/system/demo-data.ts';
import { CONFIG_BENCH_TEMPLATES } from '../bench/config-render-fixture.ts';

let h: Harness;
/** `role=…` for every role of the planned network (patch panels, PDUs, console servers… take no configuration). */
let networkRoles = '';
beforeAll(async () => {
  h = await startHarness();
  await generateDemoData(h.database.db, { devices: 500, seed: 7, tenantSlug: 'alpha' });
  const admin = h.as('admin');
  const ids: string[] = [];
  for (const t of CONFIG_BENCH_TEMPLATES) {
    const res = await admin.post('/api/export-templates/', { ...t, object_type: 'dcim.device' });
    expect(res.statusCode, res.body).toBe(201);
    ids.push(res.json().id);
  }
  // The network devices' roles: the devices demo data adds around them take no configuration.
  const roles = (await admin.get('/api/device-roles/?limit=100')).json().results as Array<{ id: string; slug: string }>;
  const network = roles.filter((r) => !(DEMO_SUPPORT_ROLES as readonly string[]).includes(r.slug));
  networkRoles = network.map((r) => `role=${r.slug}`).join('&');
  const res = await admin.post('/api/config-bundles/', { name: 'fabric', templates: ids, roles: network.map((r) => r.id) });
  expect(res.statusCode, res.body).toBe(201);
}, 300_000);
afterAll(async () => {
  await h?.close();
});

async function queriesOf(url: string): Promise<{ n: number; devices: number }> {
  const before = h.database.queryCount();
  const res = await h.as('admin').get(url);
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  const body = res.json();
  expect(body.skipped).toEqual({});
  return { n: h.database.queryCount() - before, devices: Object.keys(body.devices).length };
}

it('renders one site (40 devices) and 500 devices without the query count growing', async () => {
  const { rows } = await sql<{ name: string }>`SELECT name FROM devices WHERE tenant_id = ${h.tenants.a} ORDER BY name LIMIT 50`.execute(h.database.db);
  await h.as('admin').get('/api/devices/?limit=1'); // warm the token cache
  // 50 devices: the first site (demo data puts 40 per site) plus names narrowed by search would vary; use the cap instead.
  const few = await queriesOf(`/api/devices/render/?bundle=role&hashes=1&site=${await firstSite()}&${networkRoles}`);
  const many = await queriesOf(`/api/devices/render/?bundle=role&hashes=1&${networkRoles}`);
  expect(rows.length).toBe(50);
  expect(many.devices).toBe(500);
  expect(few.devices).toBeLessThan(many.devices);
  // The site filter itself costs a lookup, so the 40-device call may take one query more; never fewer for 500.
  expect(many.n).toBeLessThanOrEqual(few.n);
  expect(many.n).toBeLessThan(40);
}, 300_000);

async function firstSite(): Promise<string> {
  const { rows } = await sql<{ id: string }>`SELECT site_id AS id FROM devices WHERE tenant_id = ${h.tenants.a} GROUP BY site_id ORDER BY min(name) LIMIT 1`.execute(h.database.db);
  return rows[0]!.id;
}
