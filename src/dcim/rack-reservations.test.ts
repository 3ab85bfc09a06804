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
type Unit = Record<string, unknown> & { id: number };

describe('rack reservations', () => {
  it('hold units of their rack, none twice, made by the caller', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const rack = await created(alice, '/api/racks/', { site: b.site, name: 'R01', u_height: 10, starting_unit: 5 });
    const r1 = await created(alice, '/api/rack-reservations/', { rack: rack.id, units: [10, 11, 12], description: 'Firewall pair' });
    expect(r1).toMatchObject({ units: [10, 11, 12], reserved_units: 'U10–U12', status: 'active', user: { display: 'alice' }, description: 'Firewall pair' });
    expect(String(r1.display)).toMatch(/R01 › Firewall pair$/);
    const outside = await alice.post('/api/rack-reservations/', { rack: rack.id, units: [4, 14, 15], description: 'x' });
    expect(outside.statusCode).toBe(400);
    expect(outside.json().units[0]).toBe('U4, U15 are not in rack R01 (U5–U14).');
    const overlap = await alice.post('/api/rack-reservations/', { rack: rack.id, units: [9, 10], description: 'y' });
    expect(overlap.statusCode).toBe(400);
    expect(overlap.json().units[0]).toMatch(/U10 of rack R01 is already reserved \(Firewall pair\)/);
    const twice = await alice.post('/api/rack-reservations/', { rack: rack.id, units: [6, 6] });
    expect(twice.json()).toHaveProperty('units');
    const empty = await alice.post('/api/rack-reservations/', { rack: rack.id, units: [] });
    expect(empty.json()).toHaveProperty('units');
    // The user is the server's to set.
    const user = await alice.post('/api/rack-reservations/', { rack: rack.id, units: [5], user: r1.user });
    expect(user.statusCode).toBe(400);
    expect((await alice.get(`/api/rack-reservations/?rack_id=${rack.id}`)).json().count).toBe(1);
    // Moving its own units, or to free ones, is fine; onto another's is not.
    const r2 = await created(alice, '/api/rack-reservations/', { rack: rack.id, units: [5, 6], description: 'Spare' });
    expect((await alice.patch(`/api/rack-reservations/${r1.id}/`, { units: [11, 12, 13] })).statusCode).toBe(200);
    const onto = await alice.patch(`/api/rack-reservations/${r2.id}/`, { units: [6, 7, 13] });
    expect(onto.statusCode).toBe(400);
    expect(onto.json()).toHaveProperty('units');
    expect((await alice.get(`/api/rack-reservations/${r2.id}/`)).json().units).toEqual([5, 6]);
    // Bob neither sees nor reserves in Alice's rack; a rack deleted takes its reservations.
    expect((await h.as('bob').get('/api/rack-reservations/')).json().count).toBe(0);
    const cross = await h.as('bob').post('/api/rack-reservations/', { rack: rack.id, units: [8] });
    expect(cross.statusCode).toBe(400);
    expect(cross.json()).toHaveProperty('rack');
    expect((await alice.delete(`/api/racks/${rack.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/rack-reservations/${r2.id}/`)).statusCode).toBe(404);
  });

  it('show on the rack elevation, with their description and user', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const rack = await created(alice, '/api/racks/', { site: b.site, name: 'R02', u_height: 6 });
    await createDevice(alice, b, 'sw-1', { rack: rack.id, position: 1, face: 'front' });
    const res = await created(alice, '/api/rack-reservations/', { rack: rack.id, units: [4, 5], description: 'New router' });
    const front = (await alice.get(`/api/racks/${rack.id}/elevation/?face=front`)).json().results as Unit[];
    const u4 = front.find((u) => u.id === 4)!;
    expect(u4).toMatchObject({ occupied: false, device: null, reservation: { id: res.id, description: 'New router', user: 'alice' } });
    expect(front.find((u) => u.id === 1)).toMatchObject({ occupied: true, reservation: null });
    const rear = (await alice.get(`/api/racks/${rack.id}/elevation/?face=rear`)).json().results as Unit[];
    expect((rear.find((u) => u.id === 5)!.reservation as Obj).id).toBe(res.id);
  });
});

describe('rack types', () => {
  it('a rack with a type takes its physical attributes; a different value sent is refused', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const type = await created(alice, '/api/rack-types/', {
      manufacturer: b.manufacturer, model: 'NetShelter SX 48U', slug: 'netshelter-sx-48u', form_factor: '4-post-cabinet', u_height: 48, width: '19',
      outer_width: 600, outer_depth: 1200, outer_unit: 'mm', weight: 160, weight_unit: 'kg', mounting_depth: 900,
    });
    expect(type).toMatchObject({ display: expect.stringContaining('NetShelter SX 48U'), u_height: 48, starting_unit: 1, form_factor: '4-post-cabinet' });
    const rack = await created(alice, '/api/racks/', { site: b.site, name: 'R10', rack_type: type.id });
    expect(rack).toMatchObject({ u_height: 48, width: '19', rack_type: { id: type.id } });
    expect((await alice.get(`/api/racks/${rack.id}/`)).json().u_height).toBe(48);
    const clash = await alice.patch(`/api/racks/${rack.id}/`, { u_height: 42 });
    expect(clash.statusCode).toBe(400);
    expect(clash.json().u_height[0]).toMatch(/NetShelter SX 48U sets u_height to 48/);
    // Setting a type on an existing rack copies its attributes too.
    const plain = await created(alice, '/api/racks/', { site: b.site, name: 'R11' });
    expect(plain.u_height).toBe(42);
    const typed = await alice.patch(`/api/racks/${plain.id}/`, { rack_type: type.id });
    expect(typed.json().u_height).toBe(48);
    // The change log records the rack as it ends up.
    const change = (await alice.get(`/api/changes/?object_type=dcim.rack&object_id=${plain.id}&action=update`)).json().results[0];
    expect(change.after.u_height).toBe(48);
    // Units need their unit; a type in use cannot be deleted.
    const noUnit = await alice.post('/api/rack-types/', { manufacturer: b.manufacturer, model: 'Open frame', slug: 'open-frame', form_factor: '2-post-frame', weight: 20 });
    expect(noUnit.statusCode).toBe(400);
    expect(noUnit.json()).toHaveProperty('weight_unit');
    expect((await alice.delete(`/api/rack-types/${type.id}/`)).statusCode).toBe(409);
    const choices = (await alice.get('/api/dcim/choices/')).json();
    expect(choices.rack_form_factors).toContainEqual({ value: 'wall-cabinet', label: 'Wall-mounted cabinet', group: 'Form factor' });
    expect(choices.rack_reservation_statuses.map((c: { value: string }) => c.value)).toEqual(['pending', 'active', 'stale']);
  });
});
