import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { created, inventoryBasics } from '../../test/helpers/inventory.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('virtual machines', () => {
  it('creates clusters, VMs and interfaces; names are unique per tenant', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const proxmox = await created(alice, '/api/cluster-types/', { name: 'Proxmox', slug: 'proxmox' });
    const cluster = await created(alice, '/api/clusters/', { name: 'prod', type: proxmox.id, site: b.site });
    const vm = await created(alice, '/api/virtual-machines/', { name: 'web-1', cluster: cluster.id, role: b.role, platform: b.platform, comments: 'front end' });
    expect(vm).toMatchObject({ name: 'web-1', cluster: { name: 'prod' }, primary_ip4: null, primary_ip: null, config_template: null });
    const dup = await alice.post('/api/virtual-machines/', { name: 'web-1' });
    expect(dup.statusCode).toBe(400);
    expect(dup.json()).toHaveProperty('name');
    // Another tenant may use the same name.
    await created(h.as('bob'), '/api/virtual-machines/', { name: 'web-1' });
    const vmi = await created(alice, '/api/vm-interfaces/', { virtual_machine: vm.id, name: 'eth0', mtu: 9000, mac_address: '02:00:00:00:00:01' });
    expect(vmi).toMatchObject({ enabled: true, mtu: 9000, mode: null, tagged_vlans: [] });
    const badMac = await alice.post('/api/vm-interfaces/', { virtual_machine: vm.id, name: 'eth1', mac_address: 'zz' });
    expect(badMac.json()).toHaveProperty('mac_address');
    const dupIface = await alice.post('/api/vm-interfaces/', { virtual_machine: vm.id, name: 'eth0' });
    expect(dupIface.statusCode).toBe(400);
    // A cluster in use is protected.
    expect((await alice.delete(`/api/clusters/${cluster.id}/`)).statusCode).toBe(409);
    // The other tenant's cluster is unknown here.
    const bobCluster = await created(h.as('bob'), '/api/clusters/', { name: 'bob' });
    const cross = await alice.patch(`/api/virtual-machines/${vm.id}/`, { cluster: bobCluster.id });
    expect(cross.statusCode).toBe(400);
    expect(cross.json()).toHaveProperty('cluster');
  });

  it("a VM interface's VLANs are global or of the VM's site (its cluster's when it has none), else a 400 naming the VLAN", async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const other = await created(alice, '/api/sites/', { name: 'VM other site', slug: 'vm-other-site' });
    const global = await created(alice, '/api/vlans/', { vid: 110, name: 'vm-global' });
    const home = await created(alice, '/api/vlans/', { vid: 120, name: 'vm-home', site: b.site });
    const away = await created(alice, '/api/vlans/', { vid: 130, name: 'vm-away', site: other.id });
    const cluster = await created(alice, '/api/clusters/', { name: 'vlan-cluster', site: b.site });
    const inCluster = await created(alice, '/api/virtual-machines/', { name: 'vlan-vm-1', cluster: cluster.id });
    const siteless = await created(alice, '/api/virtual-machines/', { name: 'vlan-vm-2' });

    // The cluster's site is the VM's: its VLANs and global ones are taken.
    await created(alice, '/api/vm-interfaces/', { virtual_machine: inCluster.id, name: 'eth0', mode: 'tagged', untagged_vlan: home.id, tagged_vlans: [global.id] });
    const refused = await alice.post('/api/vm-interfaces/', { virtual_machine: inCluster.id, name: 'eth1', mode: 'tagged', tagged_vlans: [away.id] });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().tagged_vlans[0]).toMatch(/VLAN 130 \(vm-away\) belongs to VM other site: .* virtual machine's site/);
    // Without a site, global VLANs only; nothing was written by the refusal.
    const bare = await alice.post('/api/vm-interfaces/', { virtual_machine: siteless.id, name: 'eth0', mode: 'access', untagged_vlan: home.id });
    expect(bare.statusCode).toBe(400);
    expect(bare.json()).toHaveProperty('untagged_vlan');
    await created(alice, '/api/vm-interfaces/', { virtual_machine: siteless.id, name: 'eth0', mode: 'access', untagged_vlan: global.id });
    expect((await alice.get(`/api/vm-interfaces/?virtual_machine_id=${inCluster.id}`)).json().count).toBe(1);
    // Moving an interface to a VM whose site does not have its VLANs is refused too.
    const eth0 = (await alice.get(`/api/vm-interfaces/?virtual_machine_id=${inCluster.id}`)).json().results[0];
    const moved = await alice.patch(`/api/vm-interfaces/${eth0.id}/`, { virtual_machine: siteless.id, name: 'eth9' });
    expect(moved.statusCode).toBe(400);
    expect(moved.json()).toHaveProperty('untagged_vlan');
  });
});

