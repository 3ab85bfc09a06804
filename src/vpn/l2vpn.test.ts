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

type Obj = Record<string, unknown> & { id: string };

describe('L2VPNs', () => {
  it('carry route targets, an identifier and NetBox\'s types', async () => {
    const alice = h.as('alice');
    const rt1 = await created(alice, '/api/route-targets/', { name: '65000:100' });
    const rt2 = await created(alice, '/api/route-targets/', { name: '65000:200' });
    const vpn = await created(alice, '/api/l2vpns/', { name: 'Tenant fabric', slug: 'tenant-fabric', type: 'vxlan-evpn', identifier: 10_100, import_targets: [rt1.id], export_targets: [rt1.id, rt2.id] });
    expect(vpn).toMatchObject({ type: 'vxlan-evpn', status: 'active', identifier: 10_100 });
    expect((vpn.export_targets as Obj[]).map((t) => t.display).sort()).toEqual(['65000:100', '65000:200']);
    const badType = await alice.post('/api/l2vpns/', { name: 'x', slug: 'x', type: 'mpls' });
    expect(badType.statusCode).toBe(400);
    expect(badType.json()).toHaveProperty('type');
    const choices = (await alice.get('/api/dcim/choices/')).json();
    expect(choices.l2vpn_types).toContainEqual({ value: 'ep-lan', label: 'Ethernet Private LAN', group: 'E-LAN' });
    expect((await h.as('bob').get('/api/l2vpns/')).json().count).toBe(0);
    const cross = await h.as('bob').post('/api/l2vpns/', { name: 'b', slug: 'b', type: 'vxlan', import_targets: [rt1.id] });
    expect(cross.statusCode).toBe(400);
    expect(cross.json()).toHaveProperty('import_targets');
  });

  it('terminate on exactly one VLAN, interface or VM interface, each in one L2VPN at most', async () => {
    const alice = h.as('alice');
    const vpn = await created(alice, '/api/l2vpns/', { name: 'Stretch', slug: 'stretch', type: 'vxlan' });
    const other = await created(alice, '/api/l2vpns/', { name: 'Other', slug: 'other', type: 'vpls' });
    const vlan = await created(alice, '/api/vlans/', { vid: 100, name: 'servers' });
    const b = await inventoryBasics(alice);
    const device = await createDevice(alice, b, 'leaf-1');
    const iface = await created(alice, '/api/interfaces/', { device: device.id, name: 'Ethernet1', type: '10gbase-x-sfpp' });
    const vm = await created(alice, '/api/virtual-machines/', { name: 'vm-1' });
    const vmIf = await created(alice, '/api/vm-interfaces/', { virtual_machine: vm.id, name: 'eth0' });
    const t1 = await created(alice, '/api/l2vpn-terminations/', { l2vpn: vpn.id, vlan: vlan.id });
    expect(t1).toMatchObject({ vlan: { id: vlan.id }, interface: null, vm_interface: null });
    expect(String(t1.display)).toContain('Stretch');
    await created(alice, '/api/l2vpn-terminations/', { l2vpn: vpn.id, interface: iface.id });
    await created(alice, '/api/l2vpn-terminations/', { l2vpn: vpn.id, vm_interface: vmIf.id });
    const none = await alice.post('/api/l2vpn-terminations/', { l2vpn: vpn.id });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toHaveProperty('vlan');
    const two = await alice.post('/api/l2vpn-terminations/', { l2vpn: other.id, vlan: vlan.id, interface: iface.id });
    expect(two.statusCode).toBe(400);
    expect(two.json()).toHaveProperty('vlan');
    const taken = await alice.post('/api/l2vpn-terminations/', { l2vpn: other.id, vlan: vlan.id });
    expect(taken.statusCode).toBe(400);
    expect(taken.json()).toHaveProperty('vlan');
    expect((await alice.get(`/api/l2vpn-terminations/?l2vpn_id=${other.id}`)).json().count).toBe(0);
    // A terminated VLAN deleted takes its termination with it.
    expect((await alice.delete(`/api/vlans/${vlan.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/l2vpn-terminations/?l2vpn_id=${vpn.id}`)).json().count).toBe(2);
    // Bob cannot terminate on Alice's objects.
    const bobVpn = await created(h.as('bob'), '/api/l2vpns/', { name: 'B', slug: 'b', type: 'vxlan' });
    const cross = await h.as('bob').post('/api/l2vpn-terminations/', { l2vpn: bobVpn.id, interface: iface.id });
    expect(cross.statusCode).toBe(400);
    expect(cross.json()).toHaveProperty('interface');
  });

  it('a point-to-point L2VPN has two terminations at most', async () => {
    const alice = h.as('alice');
    const epl = await created(alice, '/api/l2vpns/', { name: 'Line 1', slug: 'line-1', type: 'epl' });
    const vlans = await Promise.all([201, 202, 203].map((vid) => created(alice, '/api/vlans/', { vid, name: `v${vid}` })));
    await created(alice, '/api/l2vpn-terminations/', { l2vpn: epl.id, vlan: vlans[0]!.id });
    await created(alice, '/api/l2vpn-terminations/', { l2vpn: epl.id, vlan: vlans[1]!.id });
    const third = await alice.post('/api/l2vpn-terminations/', { l2vpn: epl.id, vlan: vlans[2]!.id });
    expect(third.statusCode).toBe(400);
    expect(third.json().l2vpn[0]).toMatch(/point-to-point/);
    expect((await alice.get(`/api/l2vpn-terminations/?l2vpn_id=${epl.id}`)).json().count).toBe(2);
    // A multipoint L2VPN with three terminations cannot become point-to-point.
    const lan = await created(alice, '/api/l2vpns/', { name: 'LAN', slug: 'lan', type: 'vpls' });
    for (const v of vlans.slice(2)) await created(alice, '/api/l2vpn-terminations/', { l2vpn: lan.id, vlan: v.id });
    for (const vid of [204, 205]) await created(alice, '/api/l2vpn-terminations/', { l2vpn: lan.id, vlan: (await created(alice, '/api/vlans/', { vid, name: `v${vid}` })).id });
    const retype = await alice.patch(`/api/l2vpns/${lan.id}/`, { type: 'vpws' });
    expect(retype.statusCode).toBe(400);
    expect(retype.json()).toHaveProperty('type');
    expect((await alice.get(`/api/l2vpns/${lan.id}/`)).json().type).toBe('vpls');
  });
});
