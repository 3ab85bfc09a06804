// FHRP groups (secret key, assignments of one interface kind, priority, one per group and interface), an IP
// address as a group's virtual address (exclusive with the interface assignments), application service
// templates, VLAN translation policies and rules, and their vocabularies.
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

async function deviceInterface(name: string): Promise<{ device: Obj; iface: Obj }> {
  const alice = h.as('alice');
  const b = await inventoryBasics(alice, ['eth0']);
  const device = await createDevice(alice, b, name);
  const iface = (await alice.get(`/api/interfaces/?device=${device.id}`)).json().results[0] as Obj;
  return { device, iface };
}

describe('FHRP groups', () => {
  it('keep the key secret and are shown as NetBox shows them', async () => {
    const alice = h.as('alice');
    const g = await created(alice, '/api/fhrp-groups/', { protocol: 'vrrp3', group_id: 10, name: 'gw', auth_type: 'md5', auth_key: 's3cret' });
    expect(g).toMatchObject({ display: 'gw VRRPv3: 10', auth_type: 'md5', auth_key_set: true, ip_addresses: [] });
    expect(g).not.toHaveProperty('auth_key');
    const plain = await created(alice, '/api/fhrp-groups/', { protocol: 'hsrp', group_id: 1 });
    expect(plain.display).toBe('HSRP: 1');
    expect(plain.auth_key_set).toBe(false);
    const badProto = await alice.post('/api/fhrp-groups/', { protocol: 'vrrp4', group_id: 1 });
    expect(badProto.statusCode).toBe(400);
    expect(badProto.json()).toHaveProperty('protocol');
    const badAuth = await alice.post('/api/fhrp-groups/', { protocol: 'vrrp2', group_id: 1, auth_type: 'sha' });
    expect(badAuth.json()).toHaveProperty('auth_type');
    const badId = await alice.post('/api/fhrp-groups/', { protocol: 'vrrp2', group_id: 40000 });
    expect(badId.json()).toHaveProperty('group_id');
    const changes = (await alice.get(`/api/changes/?object_type=ipam.fhrpgroup&object_id=${g.id}`)).json();
    expect(JSON.stringify(changes)).not.toContain('s3cret');
  });

  it('assign one interface (device or VM), once per group, with a priority of 0 to 255', async () => {
    const alice = h.as('alice');
    const g = await created(alice, '/api/fhrp-groups/', { protocol: 'vrrp2', group_id: 20 });
    const { iface } = await deviceInterface('fhrp-a');
    const vm = await created(alice, '/api/virtual-machines/', { name: 'fhrp-vm' });
    const vmi = await created(alice, '/api/vm-interfaces/', { virtual_machine: vm.id, name: 'eth0' });
    const count = async () => (await alice.get(`/api/fhrp-group-assignments/?group=${g.id}`)).json().count;

    const none = await alice.post('/api/fhrp-group-assignments/', { group: g.id, priority: 100 });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toHaveProperty('interface');
    const both = await alice.post('/api/fhrp-group-assignments/', { group: g.id, interface: iface.id, vm_interface: vmi.id, priority: 100 });
    expect(both.json()).toHaveProperty('vm_interface');
    const loud = await alice.post('/api/fhrp-group-assignments/', { group: g.id, interface: iface.id, priority: 256 });
    expect(loud.json()).toHaveProperty('priority');
    expect(await count()).toBe(0);

    const a = await created(alice, '/api/fhrp-group-assignments/', { group: g.id, interface: iface.id, priority: 100 });
    expect(a.display).toBe('fhrp-a › eth0');
    await created(alice, '/api/fhrp-group-assignments/', { group: g.id, vm_interface: vmi.id, priority: 200 });
    const again = await alice.post('/api/fhrp-group-assignments/', { group: g.id, interface: iface.id, priority: 50 });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ interface: ['This interface is already assigned to this FHRP group.'] });
    // Highest priority first, as NetBox orders them.
    expect((await alice.get(`/api/fhrp-group-assignments/?group=${g.id}`)).json().results.map((r: Obj) => r.priority)).toEqual([200, 100]);
    // Moving an assignment onto a VM interface as well as its device interface: refused, unchanged.
    expect((await alice.patch(`/api/fhrp-group-assignments/${a.id}/`, { vm_interface: vmi.id })).statusCode).toBe(400);
    expect((await alice.get(`/api/fhrp-group-assignments/${a.id}/`)).json().vm_interface).toBeNull();
    // Bob cannot assign his interface to Alice's group, nor see it.
    const bobBasics = await inventoryBasics(h.as('bob'), ['eth0']);
    const bobDev = await createDevice(h.as('bob'), bobBasics, 'bob-fhrp');
    const bobIface = (await h.as('bob').get(`/api/interfaces/?device=${bobDev.id}`)).json().results[0] as Obj;
    expect((await h.as('bob').post('/api/fhrp-group-assignments/', { group: g.id, interface: bobIface.id, priority: 1 })).statusCode).toBe(400);
    expect((await h.as('bob').get(`/api/fhrp-groups/${g.id}/`)).statusCode).toBe(404);
    // Deleting the group deletes its assignments.
    expect((await alice.delete(`/api/fhrp-groups/${g.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/fhrp-group-assignments/${a.id}/`)).statusCode).toBe(404);
  });

  it('an IP address is a group\'s virtual address or on an interface, never both', async () => {
    const alice = h.as('alice');
    const g = await created(alice, '/api/fhrp-groups/', { protocol: 'vrrp3', group_id: 30, name: 'vip' });
    const { iface } = await deviceInterface('fhrp-vip');
    const both = await alice.post('/api/ip-addresses/', { address: '198.51.100.1/24', assigned_interface: iface.id, fhrp_group: g.id });
    expect(both.statusCode).toBe(400);
    expect(both.json()).toHaveProperty('fhrp_group');
    expect((await alice.get('/api/ip-addresses/?q=198.51.100.1')).json().count).toBe(0);
    const vip = await created(alice, '/api/ip-addresses/', { address: '198.51.100.1/24', fhrp_group: g.id, role: 'vrrp' });
    expect(vip).toMatchObject({ assigned_object_type: 'ipam.fhrpgroup', assigned_object: { id: g.id, display: 'vip VRRPv3: 30' } });
    const listed = (await alice.get('/api/ip-addresses/?q=198.51.100.1')).json().results[0];
    expect(listed.assigned_object).toMatchObject({ id: g.id, display: 'vip VRRPv3: 30' });
    expect((await alice.get(`/api/fhrp-groups/${g.id}/`)).json().ip_addresses).toMatchObject([{ id: vip.id, address: '198.51.100.1/24' }]);
    const onIface = await alice.patch(`/api/ip-addresses/${vip.id}/`, { assigned_interface: iface.id });
    expect(onIface.statusCode).toBe(400);
    expect(onIface.json()).toHaveProperty('assigned_interface');
    // Deleting the group leaves the address unassigned.
    expect((await alice.delete(`/api/fhrp-groups/${g.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/ip-addresses/${vip.id}/`)).json()).toMatchObject({ fhrp_group: null, assigned_object: null });
  });
});

describe('application service templates', () => {
  it('have a unique name, a protocol and at least one port of 1 to 65535', async () => {
    const alice = h.as('alice');
    const ssh = await created(alice, '/api/service-templates/', { name: 'ssh', protocol: 'tcp', ports: [22] });
    expect(ssh).toMatchObject({ display: 'ssh', protocol: 'tcp', ports: [22] });
    expect((await alice.post('/api/service-templates/', { name: 'ssh', protocol: 'tcp', ports: [2222] })).json()).toHaveProperty('name');
    expect((await alice.post('/api/service-templates/', { name: 'none', protocol: 'tcp', ports: [] })).json()).toEqual({ ports: ['Give at least one port number.'] });
    expect((await alice.post('/api/service-templates/', { name: 'big', protocol: 'tcp', ports: [65536] })).json()).toHaveProperty('ports');
    expect((await alice.post('/api/service-templates/', { name: 'icmp', protocol: 'icmp', ports: [1] })).json()).toHaveProperty('protocol');
    expect((await alice.get('/api/service-templates/')).json().count).toBe(1);
  });
});

describe('VLAN translation', () => {
  it('maps each VID once per side of a policy; interfaces name a policy, which then cannot be deleted', async () => {
    const alice = h.as('alice');
    const p = await created(alice, '/api/vlan-translation-policies/', { name: 'customer-a' });
    const rule = await created(alice, '/api/vlan-translation-rules/', { policy: p.id, local_vid: 100, remote_vid: 2100 });
    expect(rule.display).toBe('customer-a › 100 (2100)');
    const sameLocal = await alice.post('/api/vlan-translation-rules/', { policy: p.id, local_vid: 100, remote_vid: 2200 });
    expect(sameLocal.statusCode).toBe(400);
    expect(sameLocal.json()).toHaveProperty('local_vid');
    const sameRemote = await alice.post('/api/vlan-translation-rules/', { policy: p.id, local_vid: 101, remote_vid: 2100 });
    expect(sameRemote.json()).toHaveProperty('remote_vid');
    expect((await alice.post('/api/vlan-translation-rules/', { policy: p.id, local_vid: 4095, remote_vid: 1 })).json()).toHaveProperty('local_vid');
    expect((await alice.get(`/api/vlan-translation-rules/?policy=${p.id}`)).json().count).toBe(1);

    const { iface } = await deviceInterface('vlan-xlate');
    const patched = await alice.patch(`/api/interfaces/${iface.id}/`, { vlan_translation_policy: p.id });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().vlan_translation_policy).toMatchObject({ id: p.id, name: 'customer-a' });
    expect((await alice.delete(`/api/vlan-translation-policies/${p.id}/`)).statusCode).toBe(409);
    expect((await h.as('bob').get(`/api/vlan-translation-policies/${p.id}/`)).statusCode).toBe(404);
  });
});

describe('vocabularies', () => {
  it('serves NetBox\'s FHRP protocols and authentication types', async () => {
    const choices = (await h.as('alice').get('/api/dcim/choices/')).json();
    expect(choices.fhrp_group_protocols.map((c: { value: string }) => c.value)).toEqual(['vrrp2', 'vrrp3', 'carp', 'clusterxl', 'hsrp', 'glbp', 'other']);
    expect(choices.fhrp_group_protocols[0]).toMatchObject({ value: 'vrrp2', label: 'VRRPv2', group: 'Standard' });
    expect(choices.fhrp_group_auth_types).toEqual([{ value: 'plaintext', label: 'Plaintext' }, { value: 'md5', label: 'MD5' }]);
  });
});
