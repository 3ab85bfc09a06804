// A list page loads the brief objects of all its relations and its tags in one query (a branch per related model
// or link table, each brief with its display parent and extensions), and its computed values with its rows: on
// demo data a page of devices (type, role, platform with end of life, site, rack › site, status, primary
// addresses, config template, compliance, tags) costs the same two queries at 5 rows as at 50.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from './helpers/harness.ts';
import { generateDemoData } from '../src/system/demo-data.ts';
import { allModels } from '../src/core/registry.ts';
import { systemContext } from '../src/core/context.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await generateDemoData(h.database.db, { devices: 60, seed: 5, tenantSlug: 'alpha' });
  // Another tenant's network beside it: no count or relation may reach across.
  await generateDemoData(h.database.db, { devices: 12, seed: 9, tenantSlug: 'beta' });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

async function pageQueries(url: string): Promise<{ n: number; results: Array<Record<string, unknown>> }> {
  const before = h.database.queryCount();
  const res = await h.as('admin').get(url);
  expect(res.statusCode, res.body).toBe(200);
  return { n: h.database.queryCount() - before, results: res.json().results };
}

describe('list pages load their relations in one query', () => {
  it('a page of devices: two queries, whatever its length', async () => {
    await h.as('admin').get('/api/devices/?limit=1'); // warm the token cache
    const few = await pageQueries('/api/devices/?limit=5');
    const many = await pageQueries('/api/devices/?limit=50');
    expect(many.results).toHaveLength(50);
    const racked = many.results.find((d) => d.rack !== null) as { rack: { display: string }; site: { name: string } } | undefined;
    // The rack is shown with its site in front: the display-parent level.
    expect(racked?.rack.display.startsWith(`${racked.site.name} › `)).toBe(true);
    expect(many.results.every((d) => (d.device_type as { display: string }).display && (d.role as { display: string }).display)).toBe(true);
    // The page with its count and computed values (primary addresses, config template, compliance) (1); all
    // relations' briefs with the racks' sites and the platforms' end of life, and the tags (1). It was 15: the
    // count on its own, a query per relation, one per display level, one per brief extension and one per computed
    // field.
    expect(many.n).toBe(few.n);
    expect(many.n).toBeLessThanOrEqual(2);
  });

  it('a device: two queries, its computed values read with its row', async () => {
    const { rows } = await sql<{ id: string }>`SELECT id FROM devices WHERE tenant_id = ${h.tenants.a} LIMIT 1`.execute(h.database.db);
    const before = h.database.queryCount();
    const res = await h.as('admin').get(`/api/devices/${rows[0]!.id}/`);
    expect(res.statusCode).toBe(200);
    // The row with its primary address, config template and compliance (1); relations with the rack's site and
    // the platform's end of life (1). It was seven.
    expect(h.database.queryCount() - before).toBeLessThanOrEqual(2);
  });

  it('computed values read beside the rows equal the ones each field loads on its own', async () => {
    const admin = h.as('admin');
    // Something for each to show: a template bound to a role and one device; a rule some devices break (names not
    // ending in 1).
    const template = (await admin.post('/api/export-templates/', { name: 'base', object_type: 'dcim.device', template_code: '{{ device.name }}' })).json();
    const other = (await admin.post('/api/export-templates/', { name: 'own', object_type: 'dcim.device', template_code: 'x' })).json();
    const page = (await admin.get('/api/devices/?limit=50&role__n=patch-panel')).json().results as Array<{ id: string; role: { id: string } }>;
    expect((await admin.patch(`/api/device-roles/${page[0]!.role.id}/`, { config_template: template.id })).statusCode).toBe(200);
    expect((await admin.patch(`/api/devices/${page[1]!.id}/`, { config_template_id: other.id })).statusCode).toBe(200);
    expect((await admin.post('/api/compliance/rules/', { name: 'ends in 1', object_type: 'dcim.device', check_kind: 'field_regex', settings: { field: 'name', pattern: '1$' } })).statusCode).toBe(201);
    // An address on a VM's interface, and one translated from another (NAT).
    const site = page[0]! as unknown as { site: { id: string } };
    const kvm = (await admin.post('/api/cluster-types/', { name: 'KVM', slug: 'kvm' })).json();
    const cluster = (await admin.post('/api/clusters/', { name: 'c1', type: kvm.id, site: site.site.id })).json();
    const vm = (await admin.post('/api/virtual-machines/', { name: 'vm1', cluster: cluster.id })).json();
    const vmIf = (await admin.post('/api/vm-interfaces/', { virtual_machine: vm.id, name: 'eth0' })).json();
    const inside = (await admin.post('/api/ip-addresses/', { address: '0.0.0.1/24', assigned_vm_interface: vmIf.id })).json();
    expect((await admin.post('/api/ip-addresses/', { address: '0.0.0.2/24', nat_inside: inside.id })).statusCode).toBe(201);
    const ctx = systemContext(h.tenants.a);
    let compared = 0;
    for (const model of allModels()) {
      const inline = Object.entries(model.computed).filter(([, c]) => c.inline);
      if (inline.length === 0) continue;
      const shown = (await admin.get(`${model.path}?limit=50`)).json().results as Array<Record<string, unknown>>;
      const { rows: stored } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(model.table)} WHERE id = ANY(${shown.map((r) => r.id)}::uuid[])`.execute(h.database.db);
      for (const [key, c] of inline) {
        const loaded = await c.load({ db: h.database.db, ctx, rows: stored, origin: 'http://localhost' });
        for (const row of shown) expect(row[key], `${model.name}.${key}`).toEqual(loaded.get(String(row.id)) ?? null);
        compared += shown.length;
      }
    }
    expect(compared).toBeGreaterThan(100);
    const devices = (await admin.get('/api/devices/?limit=50&role__n=patch-panel')).json().results as Array<Record<string, { violations?: number; own?: unknown; resolved?: unknown }>>;
    expect(devices.some((d) => d.compliance!.violations! > 0) && devices.some((d) => d.compliance!.violations === 0)).toBe(true);
    expect(devices.some((d) => d.config_template!.own) && devices.some((d) => d.config_template!.resolved && !d.config_template!.own)).toBe(true);
    const addresses = (await admin.get('/api/ip-addresses/?limit=2')).json().results as Array<{ address: string; assigned_object: unknown; nat_outside: unknown[] }>;
    expect(addresses[0]).toMatchObject({ address: '0.0.0.1/24', assigned_object: { name: 'eth0', virtual_machine: { name: 'vm1' } }, nat_outside: [{ address: '0.0.0.2/24' }] });
  });

  it("a page of interfaces: each one's link peer and connected endpoint, through the panels, in two queries", async () => {
    await h.as('admin').get('/api/interfaces/?limit=1'); // warm the token cache
    const { n, results } = await pageQueries('/api/interfaces/?limit=50&cabled=true');
    // The page with its count, link peers and each row's path walked through the panels (1); relations (1). It
    // was 10, then 5 (a query per cable hop: 3 on demo data), then 3 (the paths in a statement of their own).
    expect(n).toBeLessThanOrEqual(2);
    expect(results.length).toBeGreaterThan(10);
    let throughPanels = 0;
    for (const row of results) {
      const trace = (await h.as('admin').get(`/api/interfaces/${row.id as string}/trace/`)).json();
      expect(row.connected_endpoint, String(row.display)).toEqual(trace.destination);
      expect((row.link_peer as { id: string } | null)?.id ?? null).toBe(trace.segments[0].far_end?.id ?? null);
      if (trace.segments.length > 1 && trace.destination) throughPanels++;
    }
    expect(throughPanels).toBeGreaterThan(0);
  });

  it("an export render over interfaces shows each one's connected endpoint as the list does", async () => {
    const admin = h.as('admin');
    const code = "{% for i in objects %}{{ i.id }} {{ i.connected_endpoint.display if i.connected_endpoint else '-' }}\n{% endfor %}";
    expect((await admin.post('/api/export-templates/', { name: 'endpoints', object_type: 'dcim.interface', template_code: code })).statusCode).toBe(201);
    const rendered = await admin.get('/api/interfaces/?cabled=true&export=endpoints');
    expect(rendered.statusCode, rendered.body).toBe(200);
    const shown = new Map(rendered.body.trim().split('\n').map((line) => line.split(/ (.*)/s).slice(0, 2) as [string, string]));
    const listed = (await admin.get('/api/interfaces/?cabled=true&limit=1000')).json().results as Array<{ id: string; connected_endpoint: { display: string } | null }>;
    expect(shown.size).toBe(listed.length);
    expect(listed.filter((r) => r.connected_endpoint).length).toBeGreaterThan(10);
    for (const r of listed) expect(shown.get(r.id), r.id).toBe(r.connected_endpoint?.display ?? '-');
  });

  it("an address page: two queries, each interface shown with its device in front", async () => {
    const { n, results } = await pageQueries('/api/ip-addresses/?limit=50&assigned_interface__isnull=false');
    // The page with its count and computed values (1); relations, each interface brief with its device's (1).
    expect(n).toBeLessThanOrEqual(2);
    const { rows } = await sql<{ id: string; shown: string }>`SELECT i.id, d.name || ' › ' || i.name AS shown FROM interfaces i JOIN devices d ON d.id = i.device_id
      WHERE i.id = ANY(${results.map((r) => (r.assigned_interface as { id: string }).id)}::uuid[])`.execute(h.database.db);
    expect(rows.length).toBeGreaterThan(10);
    const expected = new Map(rows.map((r) => [r.id, r.shown]));
    for (const r of results) expect((r.assigned_interface as { display: string }).display).toBe(expected.get((r.assigned_interface as { id: string }).id));
  });

  it('counts with the page, filtered or not, and on its own past the end', async () => {
    const all = (await h.as('admin').get('/api/devices/?limit=3')).json();
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM devices WHERE tenant_id = ${h.tenants.a}`.execute(h.database.db);
    expect(all.count).toBe(rows[0]!.n);
    const filtered = (await h.as('admin').get('/api/devices/?limit=3&role__n=patch-panel')).json();
    const { rows: network } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM devices d JOIN device_roles r ON r.id = d.role_id
      WHERE d.tenant_id = ${h.tenants.a} AND r.slug <> 'patch-panel'`.execute(h.database.db);
    expect(filtered.count).toBe(network[0]!.n);
    expect(filtered.results).toHaveLength(3);
    expect(filtered.results[0]).not.toHaveProperty('__cairn_count');
    const past = (await h.as('admin').get('/api/devices/?limit=3&offset=100000&role__n=patch-panel')).json();
    expect(past).toMatchObject({ count: network[0]!.n, results: [] });
  });

  it("counts and shows only the caller's tenant, with the page's relations from it alone", async () => {
    const countIn = async (tenant: string, patchPanels: boolean) =>
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM devices d JOIN device_roles r ON r.id = d.role_id
        WHERE d.tenant_id = ${tenant} AND ${patchPanels ? sql`true` : sql`r.slug <> 'patch-panel'`}`.execute(h.database.db)).rows[0]!.n;
    for (const [who, tenant] of [['admin', h.tenants.a], ['adminB', h.tenants.b]] as const) {
      const all = (await h.as(who).get('/api/devices/?limit=50')).json();
      expect(all.count, who).toBe(await countIn(tenant, true));
      expect((await h.as(who).get('/api/devices/?limit=3&role__n=patch-panel')).json().count, who).toBe(await countIn(tenant, false));
      const { rows: sites } = await sql<{ id: string }>`SELECT id FROM sites WHERE tenant_id = ${tenant}`.execute(h.database.db);
      const own = new Set(sites.map((r) => r.id));
      expect(all.results.every((d: { site: { id: string } }) => own.has(d.site.id)), who).toBe(true);
    }
    expect(await countIn(h.tenants.b, true)).toBeLessThan(await countIn(h.tenants.a, true));
  });

  it('tags come with the relations, each row\'s in name order', async () => {
    const admin = h.as('admin');
    const { results } = await pageQueries('/api/devices/?limit=2');
    const tag = async (name: string) => (await admin.post('/api/tags/', { name, slug: name })).json().id as string;
    const [zulu, alpha, mike] = [await tag('zulu'), await tag('alpha'), await tag('mike')];
    await admin.patch(`/api/devices/${results[0]!.id as string}/`, { tags: [zulu, alpha, mike] });
    await admin.patch(`/api/devices/${results[1]!.id as string}/`, { tags: [mike] });
    const after = await pageQueries('/api/devices/?limit=2');
    expect(after.results.map((d) => (d.tags as Array<{ name: string }>).map((t) => t.name))).toEqual([['alpha', 'mike', 'zulu'], ['mike']]);
    expect((after.results[0]!.tags as Array<Record<string, unknown>>)[0]).toMatchObject({ id: alpha, name: 'alpha', slug: 'alpha', color: expect.any(String), display: 'alpha' });
  });
});
