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
    const cluster = await created(alice, '/api/clusters/', { name: 'prod', type: 'Proxmox', site: b.site });
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
});
