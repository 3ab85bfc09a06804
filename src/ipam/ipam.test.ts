import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { created, createDevice, inventoryBasics } from '../../test/helpers/inventory.ts';
import { routeDistinguisherError } from './service.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function count(table: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(h.database.db);
  return rows[0]!.n;
}

describe('prefixes', () => {
  it('refuses host bits, naming the network, and writes nothing', async () => {
    const before = await count('prefixes');
    const res = await h.as('alice').post('/api/prefixes/', { prefix: '10.0.0.1/24' });
    expect(res.statusCode).toBe(400);
    expect(res.json().prefix[0]).toContain('10.0.0.0/24');
    expect(await count('prefixes')).toBe(before);
  });

  it('creates, reads and lists with the family', async () => {
    const p = await created(h.as('alice'), '/api/prefixes/', { prefix: '2001:db8::/32', is_pool: true });
    expect(p).toMatchObject({ prefix: '2001:db8::/32', family: 6, is_pool: true, vrf: null, display: '2001:db8::/32' });
    const list = await h.as('alice').get('/api/prefixes/?prefix=2001:db8::/32');
    expect(list.json().count).toBe(1);
  });
});

describe('VLANs', () => {
  it('accepts 1 and 4094, refuses 0 and 4095 naming vid', async () => {
    const alice = h.as('alice');
    for (const vid of [0, 4095, -1]) {
      const res = await alice.post('/api/vlans/', { vid, name: `v${vid}` });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toHaveProperty('vid');
    }
    await created(alice, '/api/vlans/', { vid: 1, name: 'default' });
    await created(alice, '/api/vlans/', { vid: 4094, name: 'last' });
  });

  it('are shown with their VID as NetBox shows them, in answers, briefs and search', async () => {
    const alice = h.as('alice');
    const v = await created(alice, '/api/vlans/', { vid: 110, name: 'voice-display' });
    expect(v.display).toBe('voice-display (110)');
    const b = await inventoryBasics(alice, ['eth0']);
    const dev = await createDevice(alice, b, 'vlan-display-dev');
    const iface = (await alice.get(`/api/interfaces/?device=${dev.id}`)).json().results[0];
    const set = await alice.patch(`/api/interfaces/${iface.id}/`, { mode: 'access', untagged_vlan: v.id });
    expect(set.statusCode, set.body).toBe(200);
    // NetBox's brief VLAN carries the VID: clients read interface.untagged_vlan.vid.
    expect(set.json().untagged_vlan).toMatchObject({ id: v.id, display: 'voice-display (110)', vid: 110, name: 'voice-display' });
    const found = await alice.get('/api/search/?q=voice-display');
    expect(found.json().results.find((r: { id: string }) => r.id === v.id)?.display).toBe('voice-display (110)');
    // A new VID re-indexes the display.
    await alice.patch(`/api/vlans/${v.id}/`, { vid: 111 });
    const again = await alice.get('/api/search/?q=voice-display');
    expect(again.json().results.find((r: { id: string }) => r.id === v.id)?.display).toBe('voice-display (111)');
    expect((await alice.get(`/api/vlans/${v.id}/`)).json().display).toBe('voice-display (111)');
    // A picker's search by the number: the VID matches exactly (NetBox's VLAN q), names still match as text.
    const byVid = (await alice.get('/api/vlans/?q=111')).json();
    expect(byVid.results.map((r: { id: string }) => r.id)).toEqual([v.id]);
    expect((await alice.get('/api/vlans/?q=11')).json().results.map((r: { id: string }) => r.id)).not.toContain(v.id);
    expect((await alice.get('/api/vlans/?q=voice-disp')).json().results.map((r: { id: string }) => r.id)).toContain(v.id);
  });

  it("offer an interface's picker the VLANs its device may carry: global ones and its site's, not another site's", async () => {
    const alice = h.as('alice');
    const here = await inventoryBasics(alice, ['eth0']);
    const there = await inventoryBasics(alice);
    const dev = await createDevice(alice, here, 'vlan-picker-dev');
    const mine = await created(alice, '/api/vlans/', { vid: 210, name: 'picker-servers', site: here.site });
    const theirs = await created(alice, '/api/vlans/', { vid: 210, name: 'picker-servers', site: there.site });
    const global = await created(alice, '/api/vlans/', { vid: 211, name: 'picker-global' });
    const group = await created(alice, '/api/vlan-groups/', { name: 'picker-group-here', slug: 'picker-group-here', site: here.site });
    const grouped = await created(alice, '/api/vlans/', { vid: 212, name: 'picker-grouped', group: group.id });
    const offered = (await alice.get(`/api/vlans/?available_on_device=${dev.id}&q=picker&limit=100`)).json().results.map((r: { id: string }) => r.id);
    expect(new Set(offered)).toEqual(new Set([mine.id, global.id, grouped.id]));
    // The rule is the write path's: what the filter leaves out, an interface of the device is refused.
    const iface = (await alice.get(`/api/interfaces/?device=${dev.id}`)).json().results[0];
    const refused = await alice.patch(`/api/interfaces/${iface.id}/`, { mode: 'access', untagged_vlan: theirs.id });
    expect(refused.statusCode).toBe(400);
    expect((await alice.patch(`/api/interfaces/${iface.id}/`, { mode: 'tagged', untagged_vlan: mine.id, tagged_vlans: [global.id, grouped.id] })).statusCode).toBe(200);
    // A host without a site (here: no such virtual machine) takes global VLANs only.
    const siteless = (await alice.get('/api/vlans/?available_on_virtualmachine=00000000-0000-4000-8000-000000000001&q=picker')).json().results.map((r: { id: string }) => r.id);
    expect(siteless).toEqual([global.id]);
    const bad = await alice.get('/api/vlans/?available_on_device=nope');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toHaveProperty('available_on_device');
    // Another tenant's device reads as no device: global VLANs only, nothing of its site.
    const bobBasics = await inventoryBasics(h.as('bob'), ['eth0']);
    const bobDev = await createDevice(h.as('bob'), bobBasics, 'vlan-picker-dev-b');
    const fenced = (await alice.get(`/api/vlans/?available_on_device=${bobDev.id}&q=picker`)).json().results.map((r: { id: string }) => r.id);
    expect(fenced).toEqual([global.id]);
    // The interface form's pickers ask for it with the device the form holds.
    const fields = (await alice.get('/api/editable-fields/?model=dcim.interface')).json() as Array<{ key: string; filters?: Record<string, string> }>;
    for (const key of ['untagged_vlan', 'tagged_vlans']) expect(fields.find((f) => f.key === key)?.filters).toEqual({ available_on_device: '$field:device' });
  });
});

describe('VRFs and route targets', () => {
  it('checks RD and route-target grammar', async () => {
    expect(routeDistinguisherError('65000:100')).toBeNull();
    expect(routeDistinguisherError('4200000000:1')).toBeNull();
    expect(routeDistinguisherError('4200000000:70000')).not.toBeNull();
    expect(routeDistinguisherError('192.0.2.1:5')).toBeNull();
    expect(routeDistinguisherError('192.0.2.300:5')).not.toBeNull();
    expect(routeDistinguisherError('hello')).not.toBeNull();
    const alice = h.as('alice');
    const bad = await alice.post('/api/route-targets/', { name: 'foo:bar' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toHaveProperty('name');
    const rt1 = await created(alice, '/api/route-targets/', { name: '65000:1' });
    const rt2 = await created(alice, '/api/route-targets/', { name: '65000:2' });
    const badRd = await alice.post('/api/vrfs/', { name: 'X', rd: '1.2.3:4' });
    expect(badRd.statusCode).toBe(400);
    expect(badRd.json()).toHaveProperty('rd');
    const vrf = await created(alice, '/api/vrfs/', { name: 'CUST', rd: '65000:10', import_targets: [rt1.id, rt2.id], export_targets: [rt1.id], l3vni: 50010 });
    expect((vrf.import_targets as unknown[]).length).toBe(2);
    expect(vrf).toMatchObject({ rd: '65000:10', l3vni: 50010 });
  });

  it('refuses a VRF of another tenant as a reference, like one that does not exist', async () => {
    const theirs = await created(h.as('bob'), '/api/vrfs/', { name: 'BOBS' });
    const before = await count('prefixes');
    const res = await h.as('alice').post('/api/prefixes/', { prefix: '10.99.0.0/16', vrf: theirs.id });
    expect(res.statusCode).toBe(400);
    expect(res.json().vrf[0]).toContain('does not exist');
    expect(await count('prefixes')).toBe(before);
    expect((await h.as('alice').get(`/api/vrfs/${theirs.id}/`)).statusCode).toBe(404);
  });
});

describe('IP addresses', () => {
  it('refuses invalid addresses naming the field', async () => {
    for (const address of ['10.0.0.256/24', 'hello', '10.0.0.1/33', '10.1/8', '2001:db8::g/64', '', 5]) {
      const res = await h.as('alice').post('/api/ip-addresses/', { address });
      expect(res.statusCode, String(address)).toBe(400);
      expect(res.json()).toHaveProperty('address');
    }
  });

  it('computes the longest containing prefix in the same VRF', async () => {
    const alice = h.as('alice');
    const vrf = await created(alice, '/api/vrfs/', { name: 'LPM' });
    await created(alice, '/api/prefixes/', { prefix: '172.16.0.0/12' });
    const p24 = await created(alice, '/api/prefixes/', { prefix: '172.16.5.0/24' });
    const inVrf = await created(alice, '/api/prefixes/', { prefix: '172.16.5.0/25', vrf: vrf.id });
    const global = await created(alice, '/api/ip-addresses/', { address: '172.16.5.10/16' });
    expect((global.prefix as { id: string }).id).toBe(p24.id);
    const scoped = await created(alice, '/api/ip-addresses/', { address: '172.16.5.10/25', vrf: vrf.id });
    expect((scoped.prefix as { id: string }).id).toBe(inVrf.id);
    const none = await created(alice, '/api/ip-addresses/', { address: '192.0.2.1/24' });
    expect(none.prefix).toBeNull();
    expect(none.family).toBe(4);
    // The prefix is derived: sending it is refused.
    const ro = await alice.patch(`/api/ip-addresses/${none.id}/`, { prefix: p24.id });
    expect(ro.statusCode).toBe(400);
  });

  it('lists addresses with their prefix and assignment in a constant number of queries', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['eth0']);
    const dev = await createDevice(alice, b, 'qc-dev');
    const iface = (await alice.get(`/api/interfaces/?device=${dev.id}`)).json().results[0];
    await created(alice, '/api/prefixes/', { prefix: '198.18.0.0/16' });
    const queriesFor = async (n: number) => {
      const start = h.database.queryCount();
      const res = await alice.get(`/api/ip-addresses/?address__isw=198.18.&limit=${n}`);
      expect(res.statusCode).toBe(200);
      expect(res.json().results.length).toBe(n);
      return h.database.queryCount() - start;
    };
    for (let i = 1; i <= 12; i++) await created(alice, '/api/ip-addresses/', { address: `198.18.0.${i}/16`, assigned_interface: iface.id });
    const small = await queriesFor(2);
    const large = await queriesFor(12);
    expect(large).toBe(small);
    const page = (await alice.get('/api/ip-addresses/?address__isw=198.18.&limit=3')).json().results;
    expect(page[0].prefix.display).toBe('198.18.0.0/16');
    expect(page[0].assigned_object_type).toBe('dcim.interface');
    expect(page[0].assigned_object).toMatchObject({ id: iface.id, name: 'eth0', device: { id: dev.id, name: 'qc-dev' } });
  });

  it('assigns to one interface only', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['eth0']);
    const dev = await createDevice(alice, b, 'one-iface');
    const iface = (await alice.get(`/api/interfaces/?device=${dev.id}`)).json().results[0];
    const vm = await created(alice, '/api/virtual-machines/', { name: 'one-iface-vm' });
    const vmi = await created(alice, '/api/vm-interfaces/', { virtual_machine: vm.id, name: 'eth0' });
    const res = await alice.post('/api/ip-addresses/', { address: '203.0.113.5/24', assigned_interface: iface.id, assigned_vm_interface: vmi.id });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toHaveProperty('assigned_vm_interface');
    const ip = await created(alice, '/api/ip-addresses/', { address: '203.0.113.5/24', assigned_vm_interface: vmi.id });
    expect(ip.assigned_object_type).toBe('virtualization.vminterface');
    expect(ip.assigned_object).toMatchObject({ name: 'eth0', virtual_machine: { id: vm.id } });
  });
});

describe('primary IP rule', () => {
  it('requires an address on one of the device interfaces, of the right family', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['eth0']);
    const dev = await createDevice(alice, b, 'prim-1');
    const other = await createDevice(alice, b, 'prim-2');
    const iface = (await alice.get(`/api/interfaces/?device=${dev.id}`)).json().results[0];
    const otherIface = (await alice.get(`/api/interfaces/?device=${other.id}`)).json().results[0];
    const v4 = await created(alice, '/api/ip-addresses/', { address: '100.64.0.1/24', assigned_interface: iface.id });
    const v6 = await created(alice, '/api/ip-addresses/', { address: '2001:db8:1::1/64', assigned_interface: iface.id });
    const elsewhere = await created(alice, '/api/ip-addresses/', { address: '100.64.0.2/24', assigned_interface: otherIface.id });
    const loose = await created(alice, '/api/ip-addresses/', { address: '100.64.0.3/24' });

    for (const ip of [elsewhere, loose]) {
      const res = await alice.patch(`/api/devices/${dev.id}/`, { primary_ip4: ip.id });
      expect(res.statusCode).toBe(400);
      expect(res.json().primary_ip4[0]).toContain('not assigned to an interface of this device');
    }
    const wrongFamily = await alice.patch(`/api/devices/${dev.id}/`, { primary_ip4: v6.id });
    expect(wrongFamily.statusCode).toBe(400);
    expect(wrongFamily.json().primary_ip4[0]).toContain('IPv4');
    const wrong6 = await alice.patch(`/api/devices/${dev.id}/`, { primary_ip6: v4.id });
    expect(wrong6.json()).toHaveProperty('primary_ip6');
    expect((await alice.get(`/api/devices/${dev.id}/`)).json().primary_ip4).toBeNull();

    const ok = await alice.patch(`/api/devices/${dev.id}/`, { primary_ip4: v4.id, primary_ip6: v6.id });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().primary_ip).toMatchObject({ id: v4.id });

    // A new device has no interfaces yet: any primary IP is refused on create.
    const onCreate = await alice.post('/api/devices/', { name: 'prim-3', device_type: b.deviceType, role: b.role, site: b.site, primary_ip4: v4.id });
    expect(onCreate.statusCode).toBe(400);
    expect(onCreate.json()).toHaveProperty('primary_ip4');

    // The address cannot move away while it is primary.
    const move = await alice.patch(`/api/ip-addresses/${v4.id}/`, { assigned_interface: otherIface.id });
    expect(move.statusCode).toBe(400);
    expect(move.json()).toHaveProperty('assigned_interface');

    // Deleting the address clears the primary IP (set null).
    expect((await alice.delete(`/api/ip-addresses/${v4.id}/`)).statusCode).toBe(204);
    const after = (await alice.get(`/api/devices/${dev.id}/`)).json();
    expect(after.primary_ip4).toBeNull();
    expect(after.primary_ip).toMatchObject({ id: v6.id });
  });

  it('applies the same rule to virtual machines', async () => {
    const alice = h.as('alice');
    const vm = await created(alice, '/api/virtual-machines/', { name: 'vm-prim' });
    const vmi = await created(alice, '/api/vm-interfaces/', { virtual_machine: vm.id, name: 'eth0' });
    const ip = await created(alice, '/api/ip-addresses/', { address: '100.65.0.1/24', assigned_vm_interface: vmi.id });
    const loose = await created(alice, '/api/ip-addresses/', { address: '100.65.0.2/24' });
    const bad = await alice.patch(`/api/virtual-machines/${vm.id}/`, { primary_ip4: loose.id });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toHaveProperty('primary_ip4');
    const ok = await alice.patch(`/api/virtual-machines/${vm.id}/`, { primary_ip4: ip.id });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().primary_ip).toMatchObject({ id: ip.id });
  });
});

describe('interface VLANs', () => {
  it('needs a mode for untagged and mode tagged for tagged VLANs', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['eth0']);
    const dev = await createDevice(alice, b, 'vlan-dev');
    const iface = (await alice.get(`/api/interfaces/?device=${dev.id}`)).json().results[0];
    const v10 = await created(alice, '/api/vlans/', { vid: 10, name: 'ten' });
    const v20 = await created(alice, '/api/vlans/', { vid: 20, name: 'twenty' });
    const noMode = await alice.patch(`/api/interfaces/${iface.id}/`, { untagged_vlan: v10.id });
    expect(noMode.statusCode).toBe(400);
    expect(noMode.json()).toHaveProperty('untagged_vlan');
    const access = await alice.patch(`/api/interfaces/${iface.id}/`, { mode: 'access', tagged_vlans: [v20.id] });
    expect(access.statusCode).toBe(400);
    expect(access.json()).toHaveProperty('tagged_vlans');
    const ok = await alice.patch(`/api/interfaces/${iface.id}/`, { mode: 'tagged', untagged_vlan: v10.id, tagged_vlans: [v20.id] });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().tagged_vlans.map((v: { id: string }) => v.id)).toEqual([v20.id]);
    // Stored tagged VLANs count when only the mode changes.
    const demote = await alice.patch(`/api/interfaces/${iface.id}/`, { mode: 'access' });
    expect(demote.statusCode).toBe(400);
  });
});
