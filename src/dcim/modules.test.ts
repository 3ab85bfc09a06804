import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Client } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';
import { resolveModuleToken } from './module-materialize.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

type Obj = Record<string, unknown> & { id: string };

async function names(client: Client, path: string, query: string): Promise<string[]> {
  const res = (await client.get(`${path}?${query}&limit=1000`)).json();
  return res.results.map((r: Obj) => r.name);
}

/** A chassis type with two module bays (positions 1 and 2) and a line card whose interfaces use {module}. */
async function modularKit(client: Client): Promise<Basics & { lineCard: string }> {
  const b = await inventoryBasics(client);
  await created(client, '/api/module-bay-templates/', { device_type: b.deviceType, name: 'Slot 1', position: '1' });
  await created(client, '/api/module-bay-templates/', { device_type: b.deviceType, name: 'Slot 2', position: '2' });
  const lineCard = await created(client, '/api/module-types/', { manufacturer: b.manufacturer, model: `LC-${b.deviceType.slice(-6)}`, airflow: 'front-to-rear' });
  for (let p = 1; p <= 3; p++) await created(client, '/api/interface-templates/', { module_type: lineCard.id, name: `Ethernet{module}/${p}`, type: '10gbase-x-sfpp' });
  const rear = await created(client, '/api/rear-port-templates/', { module_type: lineCard.id, name: 'R{module}', type: 'mpo', positions: 2 });
  await created(client, '/api/front-port-templates/', { module_type: lineCard.id, name: 'F{module}/1', type: 'lc', rear_port: rear.id, rear_port_position: 1 });
  return { ...b, lineCard: lineCard.id };
}

async function bayOf(client: Client, device: string, name: string): Promise<Obj> {
  const res = (await client.get(`/api/module-bays/?device=${device}&limit=100`)).json();
  return res.results.find((r: Obj) => r.name === name);
}

describe('{module} substitution', () => {
  it('puts the bay position in one token, and each level\'s in as many tokens as levels', () => {
    expect(resolveModuleToken('Ethernet{module}/1', ['3'])).toBe('Ethernet3/1');
    expect(resolveModuleToken('Ethernet{module}/{module}/1', ['1', '2'])).toBe('Ethernet1/2/1');
    expect(resolveModuleToken('Gi{module}', ['1', '4'])).toBe('Gi4');
    expect(resolveModuleToken('mgmt0', ['1'])).toBe('mgmt0');
  });
});

describe('modules', () => {
  it('installing a module makes its components with the bay position; deleting it takes them away', async () => {
    const alice = h.as('alice');
    const kit = await modularKit(alice);
    const chassis = await createDevice(alice, kit, 'mod-chassis-1');
    expect(await names(alice, '/api/module-bays/', `device=${chassis.id}`)).toEqual(['Slot 1', 'Slot 2']);
    const slot2 = await bayOf(alice, chassis.id, 'Slot 2');
    const module = await created(alice, '/api/modules/', { device: chassis.id, module_bay: slot2.id, module_type: kit.lineCard, serial: 'LC123' });
    expect(module).toMatchObject({ status: 'active', display: 'mod-chassis-1 › Slot 2' });
    expect(await names(alice, '/api/interfaces/', `device=${chassis.id}`)).toEqual(['Ethernet2/1', 'Ethernet2/2', 'Ethernet2/3']);
    const ifaces = (await alice.get(`/api/interfaces/?module=${module.id}`)).json();
    expect(ifaces.count).toBe(3);
    expect((ifaces.results[0].module as Obj).id).toBe(module.id);
    const fronts = (await alice.get(`/api/front-ports/?device=${chassis.id}`)).json();
    expect(fronts.results).toHaveLength(1);
    expect(fronts.results[0]).toMatchObject({ name: 'F2/1', rear_port_position: 1 });
    expect((fronts.results[0].rear_port as Obj).display).toBe('mod-chassis-1 › R2');
    expect((await alice.get(`/api/changes/?object_type=dcim.interface&object_id=${ifaces.results[0].id}`)).json().count).toBe(1);

    // A cable on a module's port goes with the module.
    const other = await createDevice(alice, await inventoryBasics(alice, ['eth0']), 'mod-peer-1');
    const peer = (await alice.get(`/api/interfaces/?device=${other.id}`)).json().results[0];
    const cable = await created(alice, '/api/cables/', { a_terminations: [ifaces.results[0].id], b_terminations: [peer.id] });
    expect((await alice.delete(`/api/modules/${module.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/interfaces/?device=${chassis.id}`)).json().count).toBe(0);
    expect((await alice.get(`/api/rear-ports/?device=${chassis.id}`)).json().count).toBe(0);
    expect((await alice.get(`/api/cables/${cable.id}/`)).statusCode).toBe(404);
  });

  it('a module type\'s console and power templates make the module\'s console lines, power ports and outlets fed by them', async () => {
    const alice = h.as('alice');
    const kit = await modularKit(alice);
    const psuCard = await created(alice, '/api/module-types/', { manufacturer: kit.manufacturer, model: `PSU-${kit.deviceType.slice(-6)}` });
    await created(alice, '/api/console-port-templates/', { module_type: psuCard.id, name: 'con{module}', type: 'rj-45' });
    await created(alice, '/api/console-server-port-templates/', { module_type: psuCard.id, name: 'line{module}', type: 'rj-45' });
    const inlet = await created(alice, '/api/power-port-templates/', { module_type: psuCard.id, name: 'PSU{module}', type: 'iec-60320-c14', maximum_draw: 400, allocated_draw: 200 });
    await created(alice, '/api/power-outlet-templates/', { module_type: psuCard.id, name: 'out{module}', type: 'iec-60320-c13', power_port: inlet.id, feed_leg: 'A' });
    const chassis = await createDevice(alice, kit, 'mod-chassis-power');
    const module = await created(alice, '/api/modules/', { device: chassis.id, module_bay: (await bayOf(alice, chassis.id, 'Slot 1')).id, module_type: psuCard.id });
    expect(await names(alice, '/api/console-ports/', `device=${chassis.id}`)).toEqual(['con1']);
    expect(await names(alice, '/api/console-server-ports/', `device=${chassis.id}`)).toEqual(['line1']);
    const ports = (await alice.get(`/api/power-ports/?module=${module.id}`)).json().results as Obj[];
    expect(ports.map((p) => [p.name, p.allocated_draw])).toEqual([['PSU1', 200]]);
    const outlets = (await alice.get(`/api/power-outlets/?device=${chassis.id}`)).json().results as Obj[];
    expect(outlets.map((o) => [o.name, (o.power_port as Obj).id, o.feed_leg])).toEqual([['out1', ports[0]!.id, 'A']]);
    // A template on a module type and a device type at once is refused, naming the field.
    const both = await alice.post('/api/power-port-templates/', { module_type: psuCard.id, device_type: kit.deviceType, name: 'x' });
    expect(both.statusCode).toBe(400);
    expect(both.json()).toHaveProperty('module_type');
    expect((await alice.delete(`/api/modules/${module.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/power-outlets/?device=${chassis.id}`)).json().count).toBe(0);
  });

  it('refuses a bay of another device, a taken bay, a repeated asset tag, a type change: 400 naming the field, nothing written', async () => {
    const alice = h.as('alice');
    const kit = await modularKit(alice);
    const a = await createDevice(alice, kit, 'mod-rules-a');
    const b = await createDevice(alice, kit, 'mod-rules-b');
    const slotA1 = await bayOf(alice, a.id, 'Slot 1');
    const slotB1 = await bayOf(alice, b.id, 'Slot 1');
    const wrong = await alice.post('/api/modules/', { device: a.id, module_bay: slotB1.id, module_type: kit.lineCard });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().module_bay[0]).toContain('Slot 1 is a bay of mod-rules-b');
    const first = await created(alice, '/api/modules/', { device: a.id, module_bay: slotA1.id, module_type: kit.lineCard, asset_tag: 'LC-TAG-1' });
    const taken = await alice.post('/api/modules/', { device: a.id, module_bay: slotA1.id, module_type: kit.lineCard });
    expect(taken.statusCode).toBe(400);
    expect(taken.json().module_bay[0]).toContain('already holds a module');
    const slotA2 = await bayOf(alice, a.id, 'Slot 2');
    const tag = await alice.post('/api/modules/', { device: a.id, module_bay: slotA2.id, module_type: kit.lineCard, asset_tag: 'LC-TAG-1' });
    expect(tag.statusCode).toBe(400);
    expect(tag.json()).toHaveProperty('asset_tag');
    const retype = await alice.patch(`/api/modules/${first.id}/`, { module_type: (await created(alice, '/api/module-types/', { manufacturer: kit.manufacturer, model: 'Other LC' })).id });
    expect(retype.json()).toHaveProperty('module_type');
    expect((await alice.get(`/api/modules/?device=${a.id}`)).json().count).toBe(1);
    expect(await names(alice, '/api/interfaces/', `device=${a.id}`)).toEqual(['Ethernet1/1', 'Ethernet1/2', 'Ethernet1/3']);
    // A component names a module of its own device only.
    const stray = await alice.post('/api/interfaces/', { device: b.id, module: first.id, name: 'x1', type: '1000base-t' });
    expect(stray.statusCode).toBe(400);
    expect(stray.json().module[0]).toContain('installed in mod-rules-a');
    expect((await alice.get(`/api/interfaces/?device=${b.id}&name=x1`)).json().count).toBe(0);
    expect((await alice.patch(`/api/modules/${first.id}/`, { status: 'failed' })).json().status).toBe('failed');
    expect((await alice.patch(`/api/modules/${first.id}/`, { status: 'broken' })).json()).toHaveProperty('status');
  });

  it('refuses a module whose components would repeat a name, or whose {module} has no bay position: nothing half-written', async () => {
    const alice = h.as('alice');
    const kit = await modularKit(alice);
    const d = await createDevice(alice, kit, 'mod-clash');
    await created(alice, '/api/interfaces/', { device: d.id, name: 'Ethernet1/2', type: '1000base-t' });
    const slot1 = await bayOf(alice, d.id, 'Slot 1');
    const clash = await alice.post('/api/modules/', { device: d.id, module_bay: slot1.id, module_type: kit.lineCard });
    expect(clash.statusCode).toBe(400);
    expect(clash.json().module_bay[0]).toContain('Ethernet1/2');
    const noPos = await created(alice, '/api/module-bays/', { device: d.id, name: 'Slot X' });
    const unplaced = await alice.post('/api/modules/', { device: d.id, module_bay: noPos.id, module_type: kit.lineCard });
    expect(unplaced.statusCode).toBe(400);
    expect(unplaced.json().module_bay[0]).toContain('give the bay a position');
    expect((await alice.get(`/api/modules/?device=${d.id}`)).json().count).toBe(0);
    expect(await names(alice, '/api/interfaces/', `device=${d.id}`)).toEqual(['Ethernet1/2']);
    expect((await alice.get(`/api/rear-ports/?device=${d.id}`)).json().count).toBe(0);
  });

  it('a template belongs to a device type or a module type, exactly one; a front port template maps to a rear port of its own module type', async () => {
    const alice = h.as('alice');
    const kit = await modularKit(alice);
    const both = await alice.post('/api/interface-templates/', { device_type: kit.deviceType, module_type: kit.lineCard, name: 'x', type: '1000base-t' });
    expect(both.statusCode).toBe(400);
    expect(both.json()).toHaveProperty('module_type');
    const neither = await alice.post('/api/rear-port-templates/', { name: 'x', type: 'lc' });
    expect(neither.statusCode).toBe(400);
    expect(neither.json()).toHaveProperty('device_type');
    const deviceRear = await created(alice, '/api/rear-port-templates/', { device_type: kit.deviceType, name: 'DR', type: 'mpo' });
    const cross = await alice.post('/api/front-port-templates/', { module_type: kit.lineCard, name: 'FX', type: 'lc', rear_port: deviceRear.id });
    expect(cross.statusCode).toBe(400);
    expect(cross.json()).toHaveProperty('rear_port');
    expect((await alice.get(`/api/front-port-templates/?module_type=${kit.lineCard}`)).json().count).toBe(1);
  });

  it('a module bay may sit in a module of its own device; a module stays out of bays of itself', async () => {
    const alice = h.as('alice');
    const kit = await modularKit(alice);
    const d = await createDevice(alice, kit, 'mod-nest');
    const other = await createDevice(alice, kit, 'mod-nest-other');
    const slot1 = await bayOf(alice, d.id, 'Slot 1');
    const card = await created(alice, '/api/modules/', { device: d.id, module_bay: slot1.id, module_type: kit.lineCard });
    const sub = await created(alice, '/api/module-bays/', { device: d.id, module: card.id, name: 'Sub 1', position: '5' });
    const elsewhere = await alice.post('/api/module-bays/', { device: other.id, module: card.id, name: 'Sub 1' });
    expect(elsewhere.json()).toHaveProperty('module');
    const sfpType = await created(alice, '/api/module-types/', { manufacturer: kit.manufacturer, model: `SFP-${d.id.slice(-4)}` });
    await created(alice, '/api/interface-templates/', { module_type: sfpType.id, name: 'Ethernet{module}/{module}', type: '10gbase-x-sfpp' });
    await created(alice, '/api/modules/', { device: d.id, module_bay: sub.id, module_type: sfpType.id });
    expect(await names(alice, '/api/interfaces/', `device=${d.id}`)).toContain('Ethernet1/5');
    const loop = await alice.patch(`/api/modules/${card.id}/`, { module_bay: sub.id });
    expect(loop.statusCode).toBe(400);
    expect(loop.json()).toHaveProperty('module_bay');
    // Deleting the outer card takes the inner module and every component of both.
    expect((await alice.delete(`/api/modules/${card.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/interfaces/?device=${d.id}`)).json().count).toBe(0);
  });

  it('keeps tenants apart: another tenant\'s bay is a missing object', async () => {
    const alice = h.as('alice');
    const bob = h.as('bob');
    const kit = await modularKit(alice);
    const d = await createDevice(alice, kit, 'mod-iso');
    const slot1 = await bayOf(alice, d.id, 'Slot 1');
    const bobKit = await modularKit(bob);
    const bobDevice = await createDevice(bob, bobKit, 'mod-iso-bob');
    const res = await bob.post('/api/modules/', { device: bobDevice.id, module_bay: slot1.id, module_type: bobKit.lineCard });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toHaveProperty('module_bay');
    expect((await bob.get(`/api/module-bays/${slot1.id}/`)).statusCode).toBe(404);
  });
});

describe('choices', () => {
  it('serves NetBox\'s module statuses, module airflows and subdevice roles', async () => {
    const body = (await h.as('viewer').get('/api/dcim/choices/')).json();
    expect(body.module_statuses.map((o: { value: string }) => o.value)).toEqual(['offline', 'active', 'planned', 'staged', 'failed', 'decommissioning']);
    expect(body.module_airflows).toContainEqual({ value: 'side-to-rear', label: 'Side to rear' });
    expect(body.subdevice_roles).toEqual([{ value: 'parent', label: 'Parent' }, { value: 'child', label: 'Child' }]);
  });
});

describe('device bays', () => {
  async function bladeKit(client: Client) {
    const b = await inventoryBasics(client);
    const parentType = (await client.patch(`/api/device-types/${b.deviceType}/`, { subdevice_role: 'parent' })).json();
    expect(parentType.subdevice_role).toBe('parent');
    await created(client, '/api/device-bay-templates/', { device_type: b.deviceType, name: 'Bay 1' });
    await created(client, '/api/device-bay-templates/', { device_type: b.deviceType, name: 'Bay 2' });
    const bladeType = await created(client, '/api/device-types/', { manufacturer: b.manufacturer, model: `Blade ${b.deviceType.slice(-4)}`, slug: `blade-${b.deviceType.slice(-8)}`, u_height: 0, subdevice_role: 'child' });
    return { ...b, bladeType: bladeType.id };
  }

  it('a child device goes in a bay of a parent and takes its site and rack', async () => {
    const alice = h.as('alice');
    const kit = await bladeKit(alice);
    const rack = await created(alice, '/api/racks/', { name: 'Blade rack', site: kit.site });
    const chassis = await createDevice(alice, kit, 'blade-chassis', { rack: rack.id });
    const bays = (await alice.get(`/api/device-bays/?device=${chassis.id}`)).json().results;
    expect(bays.map((x: Obj) => x.name)).toEqual(['Bay 1', 'Bay 2']);
    const otherSite = await created(alice, '/api/sites/', { name: 'Blade elsewhere', slug: 'blade-elsewhere' });
    const blade = await createDevice(alice, { ...kit, deviceType: kit.bladeType, site: otherSite.id }, 'blade-1');
    const put = await alice.patch(`/api/device-bays/${bays[0].id}/`, { installed_device: blade.id });
    expect(put.statusCode).toBe(200);
    const moved = (await alice.get(`/api/devices/${blade.id}/`)).json();
    expect((moved.site as Obj).id).toBe(kit.site);
    expect((moved.rack as Obj).id).toBe(rack.id);

    const twice = await alice.patch(`/api/device-bays/${bays[1].id}/`, { installed_device: blade.id });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().installed_device[0]).toContain('already installed in blade-chassis › Bay 1');
    const self = await alice.patch(`/api/device-bays/${bays[1].id}/`, { installed_device: chassis.id });
    expect(self.json()).toHaveProperty('installed_device');
    const notChild = await createDevice(alice, kit, 'blade-chassis-2');
    const wrongType = await alice.patch(`/api/device-bays/${bays[1].id}/`, { installed_device: notChild.id });
    expect(wrongType.json().installed_device[0]).toContain('not a child device type');
    expect((await alice.get(`/api/device-bays/${bays[1].id}/`)).json().installed_device).toBeNull();

    // The parent moves: its children follow.
    const rack2 = await created(alice, '/api/racks/', { name: 'Blade rack 2', site: kit.site });
    await alice.patch(`/api/devices/${chassis.id}/`, { rack: rack2.id });
    expect(((await alice.get(`/api/devices/${blade.id}/`)).json().rack as Obj).id).toBe(rack2.id);
  });

  it('bays are for parent types; a child type is 0U; a parent keeps its role while it has bay templates', async () => {
    const alice = h.as('alice');
    const kit = await bladeKit(alice);
    const plain = await inventoryBasics(alice);
    const tpl = await alice.post('/api/device-bay-templates/', { device_type: plain.deviceType, name: 'Bay' });
    expect(tpl.statusCode).toBe(400);
    expect(tpl.json()).toHaveProperty('device_type');
    const plainDevice = await createDevice(alice, plain, 'not-a-parent');
    const bay = await alice.post('/api/device-bays/', { device: plainDevice.id, name: 'Bay' });
    expect(bay.json()).toHaveProperty('device');
    const tall = await alice.patch(`/api/device-types/${kit.bladeType}/`, { u_height: 1 });
    expect(tall.json()).toHaveProperty('u_height');
    const demote = await alice.patch(`/api/device-types/${kit.deviceType}/`, { subdevice_role: null });
    expect(demote.json()).toHaveProperty('subdevice_role');
    expect((await alice.get(`/api/device-types/${kit.deviceType}/`)).json().subdevice_role).toBe('parent');
  });
});

describe('inventory items', () => {
  it('are made from the type\'s templates as a tree; a parent is on the same device and never below itself', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const role = await created(alice, '/api/inventory-item-roles/', { name: 'PSU', slug: 'psu', color: 'ff0000' });
    const tray = await created(alice, '/api/inventory-item-templates/', { device_type: b.deviceType, name: 'Tray', role: role.id });
    await created(alice, '/api/inventory-item-templates/', { device_type: b.deviceType, name: 'PSU1', parent: tray.id, part_id: 'PWR-1', manufacturer: b.manufacturer });
    const d = await createDevice(alice, b, 'inv-1');
    const items = (await alice.get(`/api/inventory-items/?device=${d.id}`)).json().results as Obj[];
    expect(items.map((i) => i.name)).toEqual(['PSU1', 'Tray']);
    const psu = items.find((i) => i.name === 'PSU1')!;
    const trayItem = items.find((i) => i.name === 'Tray')!;
    expect((psu.parent as Obj).id).toBe(trayItem.id);
    expect(psu.part_id).toBe('PWR-1');
    expect((trayItem.role as Obj).id).toBe(role.id);

    const loop = await alice.patch(`/api/inventory-items/${trayItem.id}/`, { parent: psu.id });
    expect(loop.statusCode).toBe(400);
    expect(loop.json()).toHaveProperty('parent');
    const other = await createDevice(alice, b, 'inv-2');
    const cross = await alice.post('/api/inventory-items/', { device: other.id, name: 'Fan', parent: trayItem.id });
    expect(cross.statusCode).toBe(400);
    expect(cross.json().parent[0]).toContain('another device');
    const dup = await alice.post('/api/inventory-items/', { device: d.id, name: 'Tray' });
    expect(dup.statusCode).toBe(400);
    expect((await alice.get(`/api/inventory-items/?device=${other.id}`)).json().count).toBe(2);
  });
});
