import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics } from '../../test/helpers/inventory.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function interfacesOf(who: 'alice' | 'bob', deviceId: string): Promise<Record<string, { id: string; link_peer: unknown }>> {
  const res = (await h.as(who).get(`/api/interfaces/?device=${deviceId}`)).json();
  return Object.fromEntries(res.results.map((i: { name: string; id: string; link_peer: unknown }) => [i.name, i]));
}

describe('cables', () => {
  it('connects interfaces and shows the link peer on both ends', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['swp1', 'swp2']);
    const leaf = await createDevice(alice, b, 'leaf1');
    const spine = await createDevice(alice, b, 'spine1');
    const leafIfs = await interfacesOf('alice', leaf.id);
    const spineIfs = await interfacesOf('alice', spine.id);
    await alice.patch(`/api/interfaces/${spineIfs.swp2!.id}/`, { description: 'to leaf1', custom_fields: {} });
    const cable = await created(alice, '/api/cables/', {
      a_terminations: [leafIfs.swp1!.id],
      b_terminations: [spineIfs.swp2!.id],
      type: 'cat6',
      label: 'C-1',
      length: 2.5,
      length_unit: 'm',
    });
    expect(cable).toMatchObject({ label: 'C-1', type: 'cat6', length: 2.5 });
    expect((cable.a_terminations as Array<{ id: string }>)[0]!.id).toBe(leafIfs.swp1!.id);
    const after = await interfacesOf('alice', leaf.id);
    expect(after.swp1!.link_peer).toEqual({
      object_type: 'dcim.interface', id: spineIfs.swp2!.id, device: 'spine1', interface: 'swp2', name: 'swp2', display: 'spine1 › swp2', description: 'to leaf1', custom_fields: {},
      device_id: spine.id, parent_type: 'dcim.device', interface_id: spineIfs.swp2!.id, cable_id: cable.id,
    });
    expect(after.swp2!.link_peer).toBeNull();
    const cabledList = (await alice.get(`/api/interfaces/?device=${leaf.id}&cabled=true`)).json();
    expect(cabledList.results.map((i: { name: string }) => i.name)).toEqual(['swp1']);
    expect((await alice.get(`/api/interfaces/?device=${leaf.id}&cabled=false`)).json().count).toBe(1);
    expect((await alice.get('/api/interfaces/?cabled=maybe')).json()).toHaveProperty('cabled');
    expect((await interfacesOf('alice', spine.id)).swp2!.link_peer).toMatchObject({ device: 'leaf1', interface: 'swp1' });

    // One interface, one cable.
    const again = await alice.post('/api/cables/', { a_terminations: [leafIfs.swp2!.id], b_terminations: [spineIfs.swp2!.id] });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toHaveProperty('b_terminations');
    const same = await alice.post('/api/cables/', { a_terminations: [leafIfs.swp2!.id], b_terminations: [leafIfs.swp2!.id] });
    expect(same.json()).toHaveProperty('b_terminations');
    const oneEnd = await alice.post('/api/cables/', { a_terminations: [leafIfs.swp2!.id], b_terminations: [] });
    expect(oneEnd.json()).toHaveProperty('b_terminations');
    const badType = await alice.post('/api/cables/', { a_terminations: [leafIfs.swp2!.id], b_terminations: [spineIfs.swp1!.id], type: 'string' });
    expect(badType.json()).toHaveProperty('type');
    expect((await alice.get('/api/cables/')).json().count).toBe(1);

    // Moving the B end re-points the peers; deleting the cable clears them.
    const moved = await alice.patch(`/api/cables/${cable.id}/`, { b_terminations: [spineIfs.swp1!.id] });
    expect(moved.statusCode, moved.body).toBe(200);
    expect((await interfacesOf('alice', leaf.id)).swp1!.link_peer).toMatchObject({ interface: 'swp1', device: 'spine1' });
    expect((await alice.delete(`/api/cables/${cable.id}/`)).statusCode).toBe(204);
    expect((await interfacesOf('alice', leaf.id)).swp1!.link_peer).toBeNull();
  });

  it('removes cables left without an end when interfaces or devices go', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['p1', 'p2']);
    const x = await createDevice(alice, b, 'del-x');
    const y = await createDevice(alice, b, 'del-y');
    const xi = await interfacesOf('alice', x.id);
    const yi = await interfacesOf('alice', y.id);
    const lag = await created(alice, '/api/cables/', { a_terminations: [xi.p1!.id, xi.p2!.id], b_terminations: [yi.p1!.id] });
    // One of two A-side interfaces goes: the cable stays.
    expect((await alice.delete(`/api/interfaces/${xi.p2!.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/cables/${lag.id}/`)).json().a_terminations).toHaveLength(1);
    // The whole B device goes: the cable goes with it, in the change log too.
    expect((await alice.delete(`/api/devices/${y.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/cables/${lag.id}/`)).statusCode).toBe(404);
    expect((await alice.get(`/api/changes/?object_type=dcim.cable&object_id=${lag.id}&action=delete`)).json().count).toBe(1);
    expect((await interfacesOf('alice', x.id)).p1!.link_peer).toBeNull();
  });

  it('refuses a cable to another tenant\'s interface and virtual interfaces', async () => {
    const alice = h.as('alice');
    const bob = h.as('bob');
    const b = await inventoryBasics(alice, ['eth0']);
    const mine = await interfacesOf('alice', (await createDevice(alice, b, 'a-dev')).id);
    const bb = await inventoryBasics(bob, ['eth0']);
    const theirs = await interfacesOf('bob', (await createDevice(bob, bb, 'b-dev')).id);
    const res = await alice.post('/api/cables/', { a_terminations: [mine.eth0!.id], b_terminations: [theirs.eth0!.id] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ b_terminations: [`Related object ${theirs.eth0!.id} does not exist.`] });
    expect((await alice.get('/api/cables/')).json().count).toBe(0);
    expect((await bob.get('/api/cables/')).json().count).toBe(0);

    const lo = await created(alice, '/api/interfaces/', { device: (await createDevice(alice, b, 'a-dev2')).id, name: 'lo0', type: 'loopback' });
    const virt = await alice.post('/api/cables/', { a_terminations: [mine.eth0!.id], b_terminations: [lo.id] });
    expect(virt.statusCode).toBe(400);
    expect(virt.json()).toHaveProperty('b_terminations');
  });
});

describe('statuses', () => {
  it('seeds the defaults per tenant and guards availability and defaults', async () => {
    const alice = h.as('alice');
    const list = (await alice.get('/api/statuses/?limit=100')).json();
    expect(list.results.map((s: { slug: string }) => s.slug).sort()).toEqual(['active', 'connected', 'container', 'decommissioned', 'decommissioning', 'deprecated', 'deprovisioning', 'offline', 'planned', 'provisioning', 'reserved']);
    expect((await h.as('bob').get('/api/statuses/')).json().count).toBe(11);
    const unknown = await alice.post('/api/statuses/', { name: 'Weird', slug: 'weird', available_to: ['dcim.nothing'] });
    expect(unknown.json()).toHaveProperty('available_to');
    const notAvailable = await alice.post('/api/statuses/', { name: 'Weird', slug: 'weird', available_to: [], default_for: ['dcim.device'] });
    expect(notAvailable.json()).toHaveProperty('default_for');
    const second = await alice.post('/api/statuses/', { name: 'Weird', slug: 'weird', available_to: ['dcim.device'], default_for: ['dcim.device'] });
    expect(second.json()).toHaveProperty('default_for');
    const staged = await created(alice, '/api/statuses/', { name: 'Staged', slug: 'staged', available_to: ['dcim.device', 'organization.site'] });
    const b = await inventoryBasics(alice);
    const d = await createDevice(alice, b, 'st-1', { status: staged.id });
    expect((d.status as { slug: string }).slug).toBe('staged');
    expect((await alice.patch(`/api/sites/${b.site}/`, { status: staged.id })).statusCode).toBe(200);
    expect((await alice.delete(`/api/statuses/${staged.id}/`)).statusCode).toBe(409);
  });

  it('a new cable is Connected unless it says otherwise; Planned and Decommissioning fit a cable, Active does not', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['p1', 'p2', 'p3']);
    const x = await interfacesOf('alice', (await createDevice(alice, b, 'cs-a')).id);
    const y = await interfacesOf('alice', (await createDevice(alice, b, 'cs-b')).id);
    const statuses = (await alice.get('/api/statuses/?limit=100')).json().results as Array<{ id: string; slug: string }>;
    const idOf = (slug: string) => statuses.find((s) => s.slug === slug)!.id;
    const plain = await created(alice, '/api/cables/', { a_terminations: [x.p1!.id], b_terminations: [y.p1!.id] });
    expect(plain.status).toMatchObject({ slug: 'connected', name: 'Connected' });
    const planned = await created(alice, '/api/cables/', { a_terminations: [x.p2!.id], b_terminations: [y.p2!.id], status: idOf('planned') });
    expect(planned.status).toMatchObject({ slug: 'planned' });
    const active = await alice.post('/api/cables/', { a_terminations: [x.p3!.id], b_terminations: [y.p3!.id], status: idOf('active') });
    expect(active.statusCode).toBe(400);
    expect(active.json().status[0]).toMatch(/not available to dcim\.cable/);
    expect((await alice.patch(`/api/cables/${planned.id}/`, { status: idOf('decommissioning') })).json().status).toMatchObject({ slug: 'decommissioning' });
    // Bulk creation takes the default too.
    const bulk = await alice.post('/api/cables/', [{ a_terminations: [x.p3!.id], b_terminations: [y.p3!.id] }]);
    expect(bulk.statusCode, bulk.body).toBe(201);
    expect(bulk.json()[0].status).toMatchObject({ slug: 'connected' });
  });

  it('a new site is Active unless it says otherwise; Planned fits a site, Connected does not', async () => {
    const alice = h.as('alice');
    const statuses = (await alice.get('/api/statuses/?limit=100')).json().results as Array<{ id: string; slug: string }>;
    const idOf = (slug: string) => statuses.find((s) => s.slug === slug)!.id;
    expect((await created(alice, '/api/sites/', { name: 'Status site', slug: 'status-site' })).status).toMatchObject({ slug: 'active' });
    expect((await created(alice, '/api/sites/', { name: 'Planned site', slug: 'planned-site', status: idOf('planned') })).status).toMatchObject({ slug: 'planned' });
    const refused = await alice.post('/api/sites/', { name: 'Cable site', slug: 'cable-site', status: idOf('connected') });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().status[0]).toMatch(/not available to organization\.site/);
  });

  it('gives a tenant created through the API its default statuses', async () => {
    const res = await h.as('admin').post('/api/tenants/', { name: 'Gamma', slug: 'gamma' });
    expect(res.statusCode, res.body).toBe(201);
    const { rows } = await sql<{ slug: string; default_for: string[] }>`SELECT slug, default_for FROM statuses WHERE tenant_id = ${res.json().id} ORDER BY slug`.execute(h.database.db);
    expect(rows.map((r) => r.slug)).toEqual(['active', 'connected', 'container', 'decommissioned', 'decommissioning', 'deprecated', 'deprovisioning', 'offline', 'planned', 'provisioning', 'reserved']);
    expect(rows[0]!.default_for).toEqual(['dcim.device', 'ipam.ipaddress', 'ipam.prefix', 'ipam.vlan', 'ipam.iprange', 'organization.site', 'circuits.circuit']);
  });
});
