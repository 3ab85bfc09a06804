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

describe('virtual chassis', () => {
  it('a new chassis\' master joins at position 1; positions are taken once; the master stays a member', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['Ethernet1', 'mgmt0']);
    const leaf1 = await createDevice(alice, b, 'vc-leaf1');
    const leaf2 = await createDevice(alice, b, 'vc-leaf2');
    const leaf3 = await createDevice(alice, b, 'vc-leaf3');
    const vc = await created(alice, '/api/virtual-chassis/', { name: 'stack1', domain: 'dc1', master: leaf1.id });
    const master = (await alice.get(`/api/devices/${leaf1.id}/`)).json();
    expect(master).toMatchObject({ vc_position: 1 });
    expect((master.virtual_chassis as Obj).id).toBe(vc.id);

    const noPosition = await alice.patch(`/api/devices/${leaf2.id}/`, { virtual_chassis: vc.id });
    expect(noPosition.statusCode).toBe(400);
    expect(noPosition.json()).toHaveProperty('vc_position');
    const taken = await alice.patch(`/api/devices/${leaf2.id}/`, { virtual_chassis: vc.id, vc_position: 1 });
    expect(taken.statusCode).toBe(400);
    expect(taken.json().vc_position[0]).toContain('taken by vc-leaf1');
    const range = await alice.patch(`/api/devices/${leaf2.id}/`, { virtual_chassis: vc.id, vc_position: 256 });
    expect(range.json()).toHaveProperty('vc_position');
    expect((await alice.get(`/api/devices/${leaf2.id}/`)).json().virtual_chassis).toBeNull();
    expect((await alice.patch(`/api/devices/${leaf2.id}/`, { virtual_chassis: vc.id, vc_position: 2, vc_priority: 100 })).statusCode).toBe(200);

    const outsider = await alice.patch(`/api/virtual-chassis/${vc.id}/`, { master: leaf3.id });
    expect(outsider.statusCode).toBe(400);
    expect(outsider.json()).toHaveProperty('master');
    const leave = await alice.patch(`/api/devices/${leaf1.id}/`, { virtual_chassis: null, vc_position: null });
    expect(leave.statusCode).toBe(400);
    expect(leave.json().virtual_chassis[0]).toContain('master of stack1');
    const taken2 = await alice.post('/api/virtual-chassis/', { name: 'stack2', master: leaf2.id });
    expect(taken2.json()).toHaveProperty('master');

    // The master moves to leaf2; leaf1 may leave then.
    expect((await alice.patch(`/api/virtual-chassis/${vc.id}/`, { master: leaf2.id })).statusCode).toBe(200);
    expect((await alice.patch(`/api/devices/${leaf1.id}/`, { virtual_chassis: null, vc_position: null })).statusCode).toBe(200);
  });

  it('a member\'s interface list shows every member\'s interfaces (not management-only) with the virtual_chassis_member filter', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['Ethernet1', 'mgmt0']);
    const a = await createDevice(alice, b, 'vcf-a');
    const c = await createDevice(alice, b, 'vcf-b');
    const alone = await createDevice(alice, b, 'vcf-alone');
    const mgmt = (await alice.get(`/api/interfaces/?name=mgmt0&device=${c.id}`)).json().results[0];
    await alice.patch(`/api/interfaces/${mgmt.id}/`, { mgmt_only: true });
    await created(alice, '/api/virtual-chassis/', { name: 'stack-f', master: a.id });
    expect((await alice.patch(`/api/devices/${c.id}/`, { virtual_chassis: (await alice.get(`/api/devices/${a.id}/`)).json().virtual_chassis.id, vc_position: 2 })).statusCode).toBe(200);
    const listed = (await alice.get(`/api/interfaces/?virtual_chassis_member=${a.id}&limit=100`)).json().results as Obj[];
    expect(listed.map((i) => i.display).sort()).toEqual(['vcf-a › Ethernet1', 'vcf-a › mgmt0', 'vcf-b › Ethernet1']);
    expect((await alice.get(`/api/interfaces/?virtual_chassis_member=${alone.id}`)).json().count).toBe(2);
    expect((await alice.get('/api/interfaces/?virtual_chassis_member=nope')).statusCode).toBe(400);
    // Another tenant asking for the chassis sees none of it.
    expect((await h.as('bob').get(`/api/interfaces/?virtual_chassis_member=${a.id}`)).json().count).toBe(0);
  });

  it('a device\'s render context knows its chassis: name, domain, master, members', async () => {
    const admin = h.as('admin');
    const b = await inventoryBasics(admin);
    const m = await createDevice(admin, b, 'vcr-1');
    const n = await createDevice(admin, b, 'vcr-2');
    const vc = await created(admin, '/api/virtual-chassis/', { name: 'stack-r', domain: 'r-dom', master: m.id });
    await admin.patch(`/api/devices/${n.id}/`, { virtual_chassis: vc.id, vc_position: 2, vc_priority: 10 });
    const tpl = await created(admin, '/api/export-templates/', {
      name: 'vc-ctx',
      object_type: 'dcim.device',
      template_code: '{{ device.virtual_chassis.name }} {{ device.virtual_chassis.domain }} master={{ device.virtual_chassis.master.name }} members={% for d in device.virtual_chassis.members.order_by("vc_position") %}{{ d.name }}:{{ d.vc_position }} {% endfor %}',
    });
    const res = await admin.get(`/api/devices/${n.id}/render/?template=${tpl.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().output).toBe('stack-r r-dom master=vcr-1 members=vcr-1:1 vcr-2:2 ');
  });

  it('deleting a chassis leaves its members without position or priority; a deleted master leaves no master', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const m = await createDevice(alice, b, 'vcd-1');
    const n = await createDevice(alice, b, 'vcd-2');
    const vc = await created(alice, '/api/virtual-chassis/', { name: 'stack-d', master: m.id });
    await alice.patch(`/api/devices/${n.id}/`, { virtual_chassis: vc.id, vc_position: 2, vc_priority: 5 });
    expect((await alice.delete(`/api/devices/${m.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/virtual-chassis/${vc.id}/`)).json().master).toBeNull();
    expect((await alice.delete(`/api/virtual-chassis/${vc.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/devices/${n.id}/`)).json()).toMatchObject({ virtual_chassis: null, vc_position: null, vc_priority: null });
    expect((await alice.get(`/api/changes/?object_type=dcim.device&object_id=${n.id}&action=update`)).json().count).toBe(2);
  });
});
