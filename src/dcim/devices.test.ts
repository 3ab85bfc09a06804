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

describe('devices', () => {
  it('creates a device with the default status and its type\'s interfaces', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['eth0', 'eth1', 'mgmt0']);
    const device = await createDevice(alice, b, 'leaf1', { platform: b.platform, serial: 'X1' });
    expect(device).toMatchObject({ name: 'leaf1', serial: 'X1', primary_ip: null, custom_fields: {} });
    expect((device.status as { slug: string }).slug).toBe('active');
    expect((device.site as { id: string }).id).toBe(b.site);
    const ifaces = (await alice.get(`/api/interfaces/?device=${device.id}`)).json();
    expect(ifaces.results.map((i: { name: string }) => i.name)).toEqual(['eth0', 'eth1', 'mgmt0']);
    expect(ifaces.results[0]).toMatchObject({ type: '10gbase-x-sfpp', enabled: true, link_peer: null, poe_mode: null });
    expect(ifaces.results[1]).toMatchObject({ name: 'eth1', poe_mode: 'pse' });
    const duplex = await alice.patch(`/api/interfaces/${ifaces.results[0].id}/`, { duplex: 'full', speed: 10_000_000 });
    expect(duplex.json()).toMatchObject({ duplex: 'full', speed: 10_000_000 });
    expect((await alice.patch(`/api/interfaces/${ifaces.results[0].id}/`, { duplex: 'sideways' })).json()).toHaveProperty('duplex');
    const changes = (await alice.get(`/api/changes/?object_type=dcim.interface`)).json();
    expect(changes.count).toBeGreaterThanOrEqual(3);
  });

  it('orders interfaces naturally (eth2 before eth10)', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['eth10', 'eth2', 'eth1/10', 'eth1/2', 'lo0']);
    const d = await createDevice(alice, b, 'nat-leaf10');
    const names = (await alice.get(`/api/interfaces/?device=${d.id}`)).json().results.map((i: { name: string }) => i.name);
    expect(names).toEqual(['eth1/2', 'eth1/10', 'eth2', 'eth10', 'lo0']);
    const reversed = (await alice.get(`/api/interfaces/?device=${d.id}&ordering=-name`)).json().results.map((i: { name: string }) => i.name);
    expect(reversed).toEqual(['lo0', 'eth10', 'eth2', 'eth1/10', 'eth1/2']);
  });

  it('materialises idempotently and leaves devices alone when templates change', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['ge0', 'ge1']);
    const d1 = await createDevice(alice, b, 'sw-a');
    const templates = (await alice.get(`/api/interface-templates/?device_type=${b.deviceType}`)).json().results;
    const ge1 = templates.find((t: { name: string }) => t.name === 'ge1');
    expect((await alice.delete(`/api/interface-templates/${ge1.id}/`)).statusCode).toBe(204);
    await created(alice, '/api/interface-templates/', { device_type: b.deviceType, name: 'ge9', type: '1000base-t' });
    const names = (await alice.get(`/api/interfaces/?device=${d1.id}`)).json().results.map((i: { name: string }) => i.name);
    expect(names).toEqual(['ge0', 'ge1']);
    const d2 = await createDevice(alice, b, 'sw-b');
    const names2 = (await alice.get(`/api/interfaces/?device=${d2.id}`)).json().results.map((i: { name: string }) => i.name);
    expect(names2).toEqual(['ge0', 'ge9']);
  });

  it('refuses a duplicate name, a status not available to devices and bad fields, writing nothing', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['p1']);
    await createDevice(alice, b, 'dup1');
    const before = (await alice.get('/api/devices/?limit=1')).json().count;
    const dup = await alice.post('/api/devices/', { name: 'dup1', device_type: b.deviceType, role: b.role, site: b.site });
    expect(dup.statusCode).toBe(400);
    expect(dup.json()).toHaveProperty('name');
    const reserved = (await alice.get('/api/statuses/?slug=reserved')).json().results[0];
    const bad = await alice.post('/api/devices/', { name: 'x1', device_type: b.deviceType, role: b.role, site: b.site, status: reserved.id });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toHaveProperty('status');
    const blankTag = await alice.post('/api/devices/', { name: 'x3', device_type: b.deviceType, role: b.role, site: b.site, asset_tag: '' });
    expect(blankTag.json()).toHaveProperty('asset_tag');
    const noSite = await alice.post('/api/devices/', { name: 'x2', device_type: b.deviceType, role: b.role });
    expect(noSite.json()).toHaveProperty('site');
    expect((await alice.get('/api/devices/?limit=1')).json().count).toBe(before);
    const ifaces = (await alice.get('/api/interfaces/?name=p1')).json();
    expect(ifaces.count).toBe(1);
  });

  it('keeps tenants apart', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const device = await createDevice(alice, b, 'secret-box');
    const bob = h.as('bob');
    expect((await bob.get(`/api/devices/${device.id}/`)).statusCode).toBe(404);
    expect((await bob.get(`/api/devices/${device.id}/config-context/`)).statusCode).toBe(404);
    expect((await bob.get('/api/devices/?name=secret-box')).json().count).toBe(0);
    // Bob cannot build on Alice's site.
    const bobBasics = await inventoryBasics(bob);
    const res = await bob.post('/api/devices/', { name: 'b1', device_type: bobBasics.deviceType, role: bobBasics.role, site: b.site });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toHaveProperty('site');
    // The same name is free in another tenant.
    await created(bob, '/api/devices/', { name: 'secret-box', device_type: bobBasics.deviceType, role: bobBasics.role, site: bobBasics.site });
  });

  it('shows the primary IP, IPv4 first', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['eth0']);
    const d = await createDevice(alice, b, 'pip-1');
    const eth0 = (await alice.get(`/api/interfaces/?device=${d.id}`)).json().results[0];
    const v6 = await created(alice, '/api/ip-addresses/', { address: '2001:db8::1/64', assigned_interface: eth0.id });
    const v4 = await created(alice, '/api/ip-addresses/', { address: '192.0.2.1/24', assigned_interface: eth0.id });
    const only6 = await alice.patch(`/api/devices/${d.id}/`, { primary_ip6: v6.id });
    expect(only6.statusCode, only6.body).toBe(200);
    expect(only6.json().primary_ip).toMatchObject({ id: v6.id });
    const both = await alice.patch(`/api/devices/${d.id}/`, { primary_ip4: v4.id });
    expect(both.json().primary_ip).toMatchObject({ id: v4.id });
  });

  it('lists a thousand devices with a constant number of queries', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['eth0']);
    const count = async () => {
      const before = h.database.queryCount();
      const res = await alice.get('/api/devices/?limit=1000');
      expect(res.statusCode).toBe(200);
      return h.database.queryCount() - before;
    };
    const tag = await created(alice, '/api/tags/', { name: 'qc', slug: 'qc' });
    const withIp = async (name: string) => {
      const d = await createDevice(alice, b, name, { platform: b.platform, tags: [tag.id], custom_fields: {} });
      const eth0 = (await alice.get(`/api/interfaces/?device=${d.id}`)).json().results[0];
      const ip = await created(alice, '/api/ip-addresses/', { address: `198.51.100.${name.slice(3)}/24`, assigned_interface: eth0.id });
      expect((await alice.patch(`/api/devices/${d.id}/`, { primary_ip4: ip.id })).statusCode).toBe(200);
    };
    await withIp('qc-1');
    const few = await count();
    for (let i = 2; i <= 30; i++) await withIp(`qc-${i}`);
    expect(await count()).toBe(few);
  });

  it('serves the choices vocabularies', async () => {
    const res = await h.as('viewer').get('/api/dcim/choices/');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.interface_types).toContainEqual({ value: '100gbase-x-qsfp28', label: 'QSFP28 (100GE)', group: 'Ethernet (modular)' });
    for (const key of ['cable_types', 'duplex', 'interface_modes', 'poe_modes', 'poe_types', 'fibre_counts', 'speeds']) expect(body[key].length).toBeGreaterThan(1);
    expect((await h.as('anonymous').get('/api/dcim/choices/')).statusCode).toBe(401);
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const d = await createDevice(alice, b, 'choice-dev');
    const bad = await alice.post('/api/interfaces/', { device: d.id, name: 'x', type: 'warp-drive' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toHaveProperty('type');
    const mtu = await alice.post('/api/interfaces/', { device: d.id, name: 'x', type: 'virtual', mtu: 70000 });
    expect(mtu.json()).toHaveProperty('mtu');
  });
});

describe('interfaces: MAC addresses, LAGs, parents and VLAN scope', () => {
  it('accepts a MAC address in the usual notations, stores one form and finds it in any', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const device = await createDevice(alice, b, 'mac-host');
    for (const [i, typed] of ['aa:bb:cc:00:11:22', 'AA-BB-CC-00-11-23', 'aabb.cc00.1124', 'aabbcc001125'].entries()) {
      const iface = await created(alice, '/api/interfaces/', { device: device.id, name: `eth${i}`, type: '1000base-t', mac_address: typed });
      expect(iface.mac_address).toBe(`AA:BB:CC:00:11:2${2 + i}`);
    }
    const found = (await alice.get(`/api/interfaces/?mac_address=aabb.cc00.1122`)).json();
    expect(found.results.map((r: { name: string }) => r.name)).toEqual(['eth0']);
    const bad = await alice.post('/api/interfaces/', { device: device.id, name: 'eth9', type: '1000base-t', mac_address: 'aa:bb:cc:00:11' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().mac_address[0]).toMatch(/six hex pairs/);
    expect((await alice.get('/api/interfaces/?mac_address=nope')).statusCode).toBe(400);
  });

  it('a LAG member and a sub-interface name interfaces of their own device, a LAG of type lag', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const sw = await createDevice(alice, b, 'lag-sw1');
    const other = await createDevice(alice, b, 'lag-sw2');
    const po1 = await created(alice, '/api/interfaces/', { device: sw.id, name: 'Port-Channel1', type: 'lag' });
    const eth1 = await created(alice, '/api/interfaces/', { device: sw.id, name: 'Ethernet1', type: '10gbase-x-sfpp', lag: po1.id });
    expect((eth1.lag as { display: string }).display).toBe('lag-sw1 › Port-Channel1');
    const sub = await created(alice, '/api/interfaces/', { device: sw.id, name: 'Ethernet1.100', type: 'virtual', parent: eth1.id });
    expect((sub.parent as { id: string }).id).toBe(eth1.id);

    const foreign = await alice.post('/api/interfaces/', { device: other.id, name: 'Ethernet1', type: '10gbase-x-sfpp', lag: po1.id });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().lag[0]).toMatch(/lag-sw1 › Port-Channel1 is on another device/);
    const notLag = await alice.patch(`/api/interfaces/${sub.id}/`, { lag: eth1.id });
    expect(notLag.json().lag[0]).toMatch(/is not a LAG/);
    const ownParent = await alice.patch(`/api/interfaces/${eth1.id}/`, { parent: eth1.id });
    expect(ownParent.json().parent[0]).toMatch(/its own parent/);
    // Bulk calls keep the same rule.
    const bulk = await alice.post('/api/interfaces/bulk-update/', { ids: [sub.id], fields: { lag: eth1.id } });
    expect(bulk.statusCode).toBe(400);
    // The form's picker offers the device's own LAGs only.
    const offered = (await alice.get(`/api/interfaces/?sibling_of=${eth1.id}&type=lag`)).json();
    expect(offered.results.map((r: { id: string }) => r.id)).toEqual([po1.id]);
    // Deleting the LAG clears its members' lag.
    expect((await alice.delete(`/api/interfaces/${po1.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/interfaces/${eth1.id}/`)).json().lag).toBeNull();
  });

  it("tagged and untagged VLANs are global or of the device's site (or a VLAN group of it), else a 400 naming the VLAN", async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const elsewhere = await inventoryBasics(alice);
    const device = await createDevice(alice, b, 'vlan-host');
    const iface = await created(alice, '/api/interfaces/', { device: device.id, name: 'Ethernet7', type: '1000base-t' });
    const global = await created(alice, '/api/vlans/', { vid: 10, name: 'global-10' });
    const local = await created(alice, '/api/vlans/', { vid: 20, name: 'local-20', site: b.site });
    const group = await created(alice, '/api/vlan-groups/', { name: 'scope-grp', slug: 'scope-grp', site: b.site });
    const grouped = await created(alice, '/api/vlans/', { vid: 30, name: 'grouped-30', group: group.id });
    const foreign = await created(alice, '/api/vlans/', { vid: 40, name: 'foreign-40', site: elsewhere.site });
    const ok = await alice.patch(`/api/interfaces/${iface.id}/`, { mode: 'tagged', untagged_vlan: global.id, tagged_vlans: [local.id, grouped.id] });
    expect(ok.statusCode, ok.body).toBe(200);
    const refused = await alice.patch(`/api/interfaces/${iface.id}/`, { tagged_vlans: [local.id, foreign.id] });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().tagged_vlans[0]).toMatch(/VLAN 40 \(foreign-40\) belongs to Site/);
    const untagged = await alice.patch(`/api/interfaces/${iface.id}/`, { untagged_vlan: foreign.id });
    expect(untagged.json()).toHaveProperty('untagged_vlan');
    // Nothing changed.
    const now = (await alice.get(`/api/interfaces/${iface.id}/`)).json();
    expect(now.tagged_vlans.map((v: { id: string }) => v.id).sort()).toEqual([local.id, grouped.id].sort());
    expect(now.untagged_vlan.id).toBe(global.id);
  });
});
