// GET <object>/related/: what refers to an object, counted in the caller's tenant, each count what the referring
// list shows when filtered by the field named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics } from '../../../test/helpers/inventory.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

interface Related {
  count: number;
  next: null;
  previous: null;
  results: Array<{ model: string; label: string; field: string; list: string; count: number }>;
}

describe('related objects', () => {
  it("counts a site's devices, racks and prefixes, each as its list filtered by the field shows them", async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    await createDevice(alice, b, 'rel-1');
    await createDevice(alice, b, 'rel-2');
    await created(alice, '/api/racks/', { site: b.site, name: 'R1' });
    await created(alice, '/api/prefixes/', { prefix: '10.77.0.0/24', site: b.site });
    // Another site's rows are not counted.
    const other = await inventoryBasics(alice);
    await createDevice(alice, other, 'rel-other');

    const res = await alice.get(`/api/sites/${b.site}/related/`);
    expect(res.statusCode, res.body).toBe(200);
    const related = res.json() as Related;
    const counts = Object.fromEntries(related.results.map((r) => [r.label, r.count]));
    expect(counts).toMatchObject({ Devices: 2, Racks: 1, Prefixes: 1, Locations: 0, VLANs: 0 });
    expect(related.count).toBe(related.results.length);
    expect(related.results.map((r) => r.label)).toEqual([...related.results.map((r) => r.label)].sort((x, y) => x.localeCompare(y)));
    for (const r of related.results) {
      const list = await alice.get(`${r.list}?${r.field}=${b.site}&limit=1`);
      expect(list.statusCode, `${r.list}?${r.field}: ${list.body}`).toBe(200);
      expect(list.json().count, `${r.label}`).toBe(r.count);
    }
  });

  it('says how a model refers when the field is not named after it, and lists models pointing at themselves', async () => {
    const alice = h.as('alice');
    const parent = await created(alice, '/api/regions/', { name: 'Europe', slug: 'europe' });
    await created(alice, '/api/regions/', { name: 'Benelux', slug: 'benelux', parent: parent.id });
    await created(alice, '/api/sites/', { name: 'In Europe', slug: 'in-europe', region: parent.id });
    const related = (await alice.get(`/api/regions/${parent.id}/related/`)).json() as Related;
    expect(related.results).toContainEqual({ model: 'organization.region', label: 'Regions · Parent', field: 'parent', list: '/api/regions/', count: 1 });
    expect(related.results).toContainEqual({ model: 'organization.site', label: 'Sites', field: 'region', list: '/api/sites/', count: 1 });
    // A field named after the model with an underscore (device_type for dcim.devicetype) needs no qualifier either.
    const b = await inventoryBasics(alice, ['t1']);
    const ofType = (await alice.get(`/api/device-types/${b.deviceType}/related/`)).json() as Related;
    expect(ofType.results.find((r) => r.field === 'device_type' && r.model === 'dcim.interfacetemplate')).toMatchObject({ label: 'Interface templates', count: 1 });
  });

  it("counts many-to-many references too: a VLAN's tagged interfaces beside its untagged ones", async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['e1', 'e2']);
    const device = await createDevice(alice, b, 'rel-vlan');
    const vlan = await created(alice, '/api/vlans/', { vid: 120, name: 'tagged-here', site: b.site });
    const ifaces = (await alice.get(`/api/interfaces/?device=${device.id}`)).json().results as Array<{ id: string; name: string }>;
    const byName = Object.fromEntries(ifaces.map((i) => [i.name, i.id]));
    expect((await alice.patch(`/api/interfaces/${byName.e1}/`, { mode: 'tagged', tagged_vlans: [vlan.id] })).statusCode).toBe(200);
    expect((await alice.patch(`/api/interfaces/${byName.e2}/`, { mode: 'access', untagged_vlan: vlan.id })).statusCode).toBe(200);
    const related = (await alice.get(`/api/vlans/${vlan.id}/related/`)).json() as Related;
    const counts = Object.fromEntries(related.results.map((r) => [r.label, r.count]));
    expect(counts).toMatchObject({ 'Interfaces · Tagged VLANs': 1, 'Interfaces · Untagged VLAN': 1 });
    for (const r of related.results) expect((await alice.get(`${r.list}?${r.field}=${vlan.id}&limit=1`)).json().count, r.label).toBe(r.count);
  });

  it("answers another tenant's object as a missing one, and refuses a caller who may not view the model", async () => {
    const b = await inventoryBasics(h.as('alice'));
    const theirs = await h.as('bob').get(`/api/sites/${b.site}/related/`);
    const missing = await h.as('bob').get('/api/sites/00000000-0000-7000-8000-000000000000/related/');
    expect(theirs.statusCode).toBe(404);
    expect(theirs.body).toBe(missing.body);
    expect((await h.as('nobody').get(`/api/sites/${b.site}/related/`)).statusCode).toBe(403);
    expect((await h.as('alice').get('/api/sites/not-an-id/related/')).statusCode).toBe(400);
  });

  it('is offered only where something can refer: the model index says which', async () => {
    const models = (await h.as('admin').get('/api/models/')).json().models as Array<{ model: string; has_related: boolean }>;
    const of = (name: string) => models.find((m) => m.model === name)!.has_related;
    expect(of('organization.site')).toBe(true);
    expect(of('dcim.device')).toBe(true);
    expect(of('extras.tag')).toBe(false);
    expect((await h.as('admin').get('/api/tags/00000000-0000-7000-8000-000000000000/related/')).statusCode).toBe(404);
  });
});
