import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { created } from '../../test/helpers/inventory.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('cluster types, cluster groups and virtual disks', () => {
  it('a cluster takes a type, a group and an owner; a type or group in use cannot be deleted', async () => {
    const alice = h.as('alice');
    const type = await created(alice, '/api/cluster-types/', { name: 'VMware vSphere', slug: 'vmware-vsphere' });
    const group = await created(alice, '/api/cluster-groups/', { name: 'Production', slug: 'production' });
    const owner = await created(alice, '/api/owners/', { name: 'Web team', slug: 'web-team' });
    const cluster = await created(alice, '/api/clusters/', { name: 'vc-ams', type: type.id, group: group.id, owner: owner.id });
    expect(cluster).toMatchObject({ type: { id: type.id, display: 'VMware vSphere' }, group: { display: 'Production' }, owner: { display: 'Web team' } });
    // Cairn's clusters may stay without a type (NetBox requires one).
    expect((await created(alice, '/api/clusters/', { name: 'untyped' })).type).toBeNull();
    expect((await alice.delete(`/api/cluster-types/${type.id}/`)).statusCode).toBe(409);
    expect((await alice.delete(`/api/cluster-groups/${group.id}/`)).statusCode).toBe(409);
    const dup = await alice.post('/api/cluster-types/', { name: 'VMware vSphere', slug: 'other' });
    expect(dup.statusCode).toBe(400);
    expect(dup.json()).toHaveProperty('name');
    expect((await alice.get('/api/cluster-types/?limit=100')).json().results.map((t: { name: string }) => t.name)).toContain('VMware vSphere');
    // Another tenant neither sees nor uses them.
    expect((await h.as('bob').get('/api/cluster-types/')).json().count).toBe(0);
    const cross = await h.as('bob').post('/api/clusters/', { name: 'x', type: type.id });
    expect(cross.statusCode).toBe(400);
    expect(cross.json()).toHaveProperty('type');
  });

  it("a VM's disk is the sum of its virtual disks (MB); names are unique per VM; disks go with their VM", async () => {
    const alice = h.as('alice');
    const vm = await created(alice, '/api/virtual-machines/', { name: 'db-1' });
    const other = await created(alice, '/api/virtual-machines/', { name: 'db-2' });
    expect((await alice.get(`/api/virtual-machines/${vm.id}/`)).json().disk).toBeNull();
    const d0 = await created(alice, '/api/virtual-disks/', { virtual_machine: vm.id, name: 'disk0', size: 40_960 });
    expect(d0).toMatchObject({ display: 'db-1 › disk0', size: 40_960 });
    await created(alice, '/api/virtual-disks/', { virtual_machine: vm.id, name: 'disk1', size: 102_400 });
    await created(alice, '/api/virtual-disks/', { virtual_machine: other.id, name: 'disk0', size: 10 });
    expect((await alice.get(`/api/virtual-machines/${vm.id}/`)).json().disk).toBe(143_360);
    const list = (await alice.get('/api/virtual-machines/?name=db-1')).json();
    expect(list.results[0].disk).toBe(143_360);
    const dup = await alice.post('/api/virtual-disks/', { virtual_machine: vm.id, name: 'disk0', size: 1 });
    expect(dup.statusCode).toBe(400);
    expect(Object.keys(dup.json()).join()).toMatch(/name/);
    const negative = await alice.post('/api/virtual-disks/', { virtual_machine: vm.id, name: 'disk2', size: -1 });
    expect(negative.statusCode).toBe(400);
    expect(negative.json()).toHaveProperty('size');
    expect((await alice.patch(`/api/virtual-disks/${d0.id}/`, { size: 1024 })).statusCode).toBe(200);
    expect((await alice.get(`/api/virtual-machines/${vm.id}/`)).json().disk).toBe(103_424);
    expect((await alice.delete(`/api/virtual-machines/${vm.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/virtual-disks/?virtual_machine_id=${vm.id}`)).json().count).toBe(0);
    // The other tenant sees none of it.
    expect((await h.as('bob').get('/api/virtual-disks/')).json().count).toBe(0);
  });
});
