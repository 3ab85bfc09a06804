import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const count = async (path: string) => (await h.as('alice').get(path)).json().count as number;

/** A site with a device type of `height` units, a location and a 42U rack in it. */
async function rackedBasics(height = 1, fullDepth = true): Promise<Basics & { rack: string; location: string }> {
  const alice = h.as('alice');
  const b = await inventoryBasics(alice);
  await alice.patch(`/api/device-types/${b.deviceType}/`, { u_height: height, is_full_depth: fullDepth });
  const location = await created(alice, '/api/locations/', { site: b.site, name: 'Hall A', slug: 'hall-a' });
  const rack = await created(alice, '/api/racks/', { site: b.site, location: location.id, name: 'R01' });
  return { ...b, rack: rack.id, location: location.id };
}

describe('locations and racks', () => {
  it('creates nested locations and racks with NetBox defaults, lists and filters them, finds them by name', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const hall = await created(alice, '/api/locations/', { site: b.site, name: 'Hall 1', slug: 'hall-1' });
    const cage = await created(alice, '/api/locations/', { site: b.site, parent: hall.id, name: 'Cage 7', slug: 'cage-7' });
    expect(cage).toMatchObject({ status: 'active', parent: { id: hall.id } });
    expect(cage.display).toMatch(/Hall 1 › Cage 7$/);
    const role = await created(alice, '/api/rack-roles/', { name: 'Network', slug: 'network', color: '2196f3' });
    const r1 = await created(alice, '/api/racks/', { site: b.site, location: cage.id, name: 'R1', role: role.id, facility_id: 'AMS-0042' });
    expect(r1).toMatchObject({ u_height: 42, starting_unit: 1, desc_units: false, width: '19', status: 'active', location: { id: cage.id }, role: { id: role.id } });
    await created(alice, '/api/racks/', { site: b.site, name: 'R10', u_height: 48, width: '23' });
    await created(alice, '/api/racks/', { site: b.site, name: 'R2' });
    const bySite = (await alice.get(`/api/racks/?site=${b.site}`)).json();
    expect(bySite.results.map((r: { name: string }) => r.name)).toEqual(['R1', 'R2', 'R10']);
    expect((await alice.get(`/api/racks/?location=${cage.id}`)).json().count).toBe(1);
    expect((await alice.get(`/api/locations/?parent=${hall.id}`)).json().count).toBe(1);
    const found = (await alice.get('/api/search/?q=AMS-0042')).json();
    expect(JSON.stringify(found)).toContain(r1.id);
    const byName = (await alice.get('/api/search/?q=Cage 7')).json();
    expect(JSON.stringify(byName)).toContain(cage.id);
    // The same rack name is free in another site, not twice in one.
    const other = await inventoryBasics(alice);
    await created(alice, '/api/racks/', { site: other.site, name: 'R1' });
    const dup = await alice.post('/api/racks/', { site: b.site, name: 'R1' });
    expect(dup.statusCode).toBe(400);
    expect(dup.json()).toHaveProperty('name');
  });

  it('keeps a location\'s parent and a rack\'s location in the same site, and refuses bad values, writing nothing', async () => {
    const alice = h.as('alice');
    const a = await inventoryBasics(alice);
    const b = await inventoryBasics(alice);
    const hallB = await created(alice, '/api/locations/', { site: b.site, name: 'Hall B', slug: 'hall-b' });
    const hallA = await created(alice, '/api/locations/', { site: a.site, name: 'Hall A', slug: 'hall-a' });
    const before = { locations: await count('/api/locations/?limit=1'), racks: await count('/api/racks/?limit=1') };
    const parent = await alice.post('/api/locations/', { site: a.site, parent: hallB.id, name: 'Room', slug: 'room' });
    expect(parent.statusCode).toBe(400);
    expect(parent.json().parent[0]).toContain('Hall B');
    const loop = await alice.patch(`/api/locations/${hallA.id}/`, { parent: hallA.id });
    expect(loop.statusCode).toBe(400);
    expect(loop.json()).toHaveProperty('parent');
    const location = await alice.post('/api/racks/', { site: a.site, location: hallB.id, name: 'X1' });
    expect(location.statusCode).toBe(400);
    expect(location.json()).toHaveProperty('location');
    for (const [body, field] of [
      [{ u_height: 0 }, 'u_height'],
      [{ u_height: 101 }, 'u_height'],
      [{ width: '20' }, 'width'],
      [{ status: 'on-fire' }, 'status'],
    ] as const) {
      const res = await alice.post('/api/racks/', { site: a.site, name: 'X2', ...body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toHaveProperty(field);
    }
    expect({ locations: await count('/api/locations/?limit=1'), racks: await count('/api/racks/?limit=1') }).toEqual(before);
  });

  it('places devices in units and refuses a taken unit, naming the occupant', async () => {
    const alice = h.as('alice');
    const b = await rackedBasics(2, true);
    const leaf = await createDevice(alice, b, 'ams1-leaf1', { rack: b.rack, position: 11, face: 'front' });
    expect(leaf).toMatchObject({ rack: { id: b.rack }, position: 11, face: 'front' });
    // U11–U12 are taken on both faces: the type is full depth.
    for (const [position, face] of [[12, 'front'], [10, 'rear'], [11, 'rear']] as const) {
      const res = await alice.post('/api/devices/', { name: 'ams1-leaf2', device_type: b.deviceType, role: b.role, site: b.site, rack: b.rack, position, face });
      expect(res.statusCode, `${position} ${face}`).toBe(400);
      expect(res.json().position[0]).toMatch(/^U1[12] (front|rear) is taken by ams1-leaf1\.$/);
    }
    const taken = await alice.post('/api/devices/', { name: 'ams1-leaf2', device_type: b.deviceType, role: b.role, site: b.site, rack: b.rack, position: 12, face: 'front' });
    expect(taken.json().position).toEqual(['U12 front is taken by ams1-leaf1.']);
    const next = await createDevice(alice, b, 'ams1-leaf2', { rack: b.rack, position: 13, face: 'front' });
    // Moving onto another device is refused too; moving within its own units is not.
    const move = await alice.patch(`/api/devices/${next.id}/`, { position: 12 });
    expect(move.json().position).toEqual(['U12 front is taken by ams1-leaf1.']);
    expect((await alice.patch(`/api/devices/${leaf.id}/`, { position: 10 })).statusCode).toBe(200);
    // Half-depth devices share a unit from opposite faces.
    const half = await inventoryBasics(alice);
    await alice.patch(`/api/device-types/${half.deviceType}/`, { is_full_depth: false });
    const halfType = { ...b, deviceType: half.deviceType };
    await createDevice(alice, halfType, 'pp-front', { rack: b.rack, position: 30, face: 'front' });
    await createDevice(alice, halfType, 'pp-rear', { rack: b.rack, position: 30, face: 'rear' });
    const third = await alice.post('/api/devices/', { name: 'pp-3', device_type: half.deviceType, role: b.role, site: b.site, rack: b.rack, position: 30, face: 'rear' });
    expect(third.json().position).toEqual(['U30 rear is taken by pp-rear.']);
    // Making the type full depth would put pp-front and pp-rear in one unit.
    const deep = await alice.patch(`/api/device-types/${half.deviceType}/`, { is_full_depth: true });
    expect(deep.statusCode).toBe(400);
    expect(deep.json().is_full_depth[0]).toContain('taken by');
  });

  it('refuses positions outside the rack, a rack of another site, a position without rack or face', async () => {
    const alice = h.as('alice');
    const b = await rackedBasics(4);
    const before = await count('/api/devices/?limit=1');
    const post = (extra: Record<string, unknown>, site = b.site) => alice.post('/api/devices/', { name: 'misplaced', device_type: b.deviceType, role: b.role, site, ...extra });
    const high = await post({ rack: b.rack, position: 40, face: 'front' });
    expect(high.json().position).toEqual(['U40–U43 is outside rack R01 (U1–U42).']);
    expect((await post({ rack: b.rack, position: 0, face: 'front' })).json()).toHaveProperty('position');
    expect((await post({ position: 3, face: 'front' })).json().position[0]).toContain('needs a rack');
    expect((await post({ face: 'front' })).json()).toHaveProperty('face');
    expect((await post({ rack: b.rack, position: 3 })).json().face[0]).toContain('front or rear');
    expect((await post({ rack: b.rack, position: 3, face: 'side' })).json()).toHaveProperty('face');
    const elsewhere = await inventoryBasics(alice);
    const otherSite = await post({ rack: b.rack, position: 3, face: 'front' }, elsewhere.site);
    expect(otherSite.statusCode).toBe(400);
    expect(otherSite.json().rack[0]).toContain('R01');
    expect(await count('/api/devices/?limit=1')).toBe(before);
    // Moving a placed device to another site leaves its rack behind: refused, naming the rack.
    const d = await createDevice(alice, b, 'placed', { rack: b.rack, position: 1, face: 'rear' });
    const moved = await alice.patch(`/api/devices/${d.id}/`, { site: elsewhere.site });
    expect(moved.json()).toHaveProperty('rack');
    // A rack cut shorter than its devices, or a device type grown past its rack's top, is refused.
    await alice.patch(`/api/devices/${d.id}/`, { position: 38 });
    expect((await alice.patch(`/api/racks/${b.rack}/`, { u_height: 40 })).json().u_height[0]).toContain('placed');
    expect((await alice.patch(`/api/device-types/${b.deviceType}/`, { u_height: 6 })).json()).toHaveProperty('u_height');
    const rack = (await alice.get(`/api/racks/${b.rack}/`)).json();
    expect(rack.u_height).toBe(42);
    // A rack holding devices cannot be deleted.
    expect((await alice.delete(`/api/racks/${b.rack}/`)).statusCode).toBe(409);
  });

  it('keeps the rule on bulk updates: devices moved into one unit together are refused', async () => {
    const alice = h.as('alice');
    const b = await rackedBasics(1);
    const d1 = await createDevice(alice, b, 'bulk-1');
    const d2 = await createDevice(alice, b, 'bulk-2');
    const together = await alice.post('/api/devices/bulk-update/', { ids: [d1.id, d2.id], fields: { rack: b.rack, position: 5, face: 'front' } });
    expect(together.statusCode).toBe(400);
    expect(JSON.stringify(together.json())).toMatch(/U5 front is taken by bulk-[12]/);
    expect((await alice.get(`/api/devices/${d1.id}/`)).json().rack).toBeNull();
    const occupant = await createDevice(alice, b, 'bulk-occupant', { rack: b.rack, position: 7, face: 'rear' });
    const onto = await alice.post('/api/devices/bulk-update/', { ids: [d1.id], fields: { rack: b.rack, position: 7, face: 'front' } });
    expect(JSON.stringify(onto.json())).toContain('U7 front is taken by bulk-occupant');
    // A list create places its devices one after the other, each against those before it.
    const list = await alice.post('/api/devices/', [
      { name: 'list-1', device_type: b.deviceType, role: b.role, site: b.site, rack: b.rack, position: 9, face: 'front' },
      { name: 'list-2', device_type: b.deviceType, role: b.role, site: b.site, rack: b.rack, position: 9, face: 'front' },
    ]);
    expect(list.statusCode).toBe(400);
    expect(JSON.stringify(list.json())).toContain('U9 front is taken by list-1');
    expect(occupant.position).toBe(7);
  });

  it('lets only one of two concurrent writes take a free unit', async () => {
    const alice = h.as('alice');
    const b = await rackedBasics(1);
    const body = (name: string) => ({ name, device_type: b.deviceType, role: b.role, site: b.site, rack: b.rack, position: 20, face: 'front' });
    const answers = await Promise.all([alice.post('/api/devices/', body('race-1')), alice.post('/api/devices/', body('race-2'))]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 400]);
    expect(await count(`/api/devices/?rack=${b.rack}&position=20`)).toBe(1);
  });

  it('answers the elevation of each face, top to bottom, with full-depth devices on both', async () => {
    const alice = h.as('alice');
    const b = await rackedBasics(2, true);
    const rack = await created(alice, '/api/racks/', { site: b.site, name: 'R-small', u_height: 4, starting_unit: 1 });
    const d = await createDevice(alice, b, 'elev-1', { rack: rack.id, position: 2, face: 'rear' });
    const rear = (await alice.get(`/api/racks/${rack.id}/elevation/?face=rear`)).json();
    expect(rear).toMatchObject({ count: 4, next: null, previous: null });
    expect(rear.results.map((u: { name: string }) => u.name)).toEqual(['U4', 'U3', 'U2', 'U1']);
    expect(rear.results.map((u: { occupied: boolean }) => u.occupied)).toEqual([false, true, true, false]);
    expect(rear.results[1].device).toMatchObject({ id: d.id, display: 'elev-1', position: 2, u_height: 2, face: 'rear' });
    expect(rear.results[1].device.url).toContain(`/api/devices/${d.id}/`);
    const front = (await alice.get(`/api/racks/${rack.id}/elevation/`)).json();
    expect(front.results[2]).toMatchObject({ id: 2, face: 'front', occupied: true });
    await alice.patch(`/api/racks/${rack.id}/`, { desc_units: true });
    const desc = (await alice.get(`/api/racks/${rack.id}/elevation/?face=front`)).json();
    expect(desc.results.map((u: { id: number }) => u.id)).toEqual([1, 2, 3, 4]);
    expect((await alice.get(`/api/racks/${rack.id}/elevation/?face=side`)).statusCode).toBe(400);
    // A device in the rack without a unit is listed apart (the rack page's "without a unit" list).
    const loose = await createDevice(alice, b, 'elev-loose', { rack: rack.id });
    const looseAnswer = (await alice.get(`/api/devices/?rack_id=${rack.id}&position__isnull=true`)).json();
    expect(looseAnswer.results, JSON.stringify(looseAnswer)).toBeDefined();
    expect(looseAnswer.results.map((x: { id: string }) => x.id)).toEqual([loose.id]);
    // The device page's answer names its rack.
    expect((await alice.get(`/api/devices/${d.id}/`)).json().rack.display).toMatch(/R-small$/);
  });

  it("answers each rack's space utilisation in the list's one statement, and each device's role colour in the elevation", async () => {
    const alice = h.as('alice');
    const b = await rackedBasics(2, true);
    await alice.patch(`/api/device-roles/${b.role}/`, { color: 'ff5722' });
    const used = await created(alice, '/api/racks/', { site: b.site, name: 'U-used', u_height: 10 });
    await created(alice, '/api/racks/', { site: b.site, name: 'U-empty', u_height: 4 });
    const front = await createDevice(alice, b, 'util-1', { rack: used.id, position: 1, face: 'front' });
    await createDevice(alice, b, 'util-2', { rack: used.id, position: 5, face: 'rear' });
    // A device without a unit takes none.
    await createDevice(alice, b, 'util-loose', { rack: used.id });
    await created(alice, '/api/rack-reservations/', { rack: used.id, units: [9, 10], description: 'held' });
    // Units 1-2 and 5-6 (devices, either face) and 9-10 (reserved) of 10.
    expect((await alice.get(`/api/racks/${used.id}/`)).json().utilization).toBe(60);
    const listed = async (limit: number) => {
      const before = h.database.queryCount();
      const res = (await alice.get(`/api/racks/?site=${b.site}&limit=${limit}&ordering=name`)).json();
      return { rows: res.results.map((r: { name: string; utilization: number }) => [r.name, r.utilization]), queries: h.database.queryCount() - before };
    };
    const three = await listed(3);
    expect(three.rows).toEqual([['R01', 0], ['U-empty', 0], ['U-used', 60]]);
    expect((await listed(1)).queries).toBe(three.queries);
    const fields = (await alice.get('/api/list-fields/?path=/api/racks/')).json();
    expect(JSON.stringify(fields)).toContain('Space utilisation');
    const elevation = (await alice.get(`/api/racks/${used.id}/elevation/?face=front`)).json();
    const unit1 = elevation.results.find((u: { id: number }) => u.id === 1);
    expect(unit1.device).toMatchObject({ id: front.id, role: { id: b.role, color: 'ff5722' } });
  });

  it('keeps tenants apart', async () => {
    const alice = h.as('alice');
    const bob = h.as('bob');
    const b = await rackedBasics(1);
    const secret = await createDevice(alice, b, 'alpha-only', { rack: b.rack, position: 3, face: 'front' });
    expect((await bob.get(`/api/racks/${b.rack}/`)).statusCode).toBe(404);
    expect((await bob.get(`/api/racks/${b.rack}/elevation/`)).statusCode).toBe(404);
    expect((await bob.get(`/api/locations/${b.location}/`)).statusCode).toBe(404);
    expect((await bob.get('/api/racks/?limit=1')).json().count).toBe(0);
    const bobBasics = await inventoryBasics(bob);
    const res = await bob.post('/api/devices/', { name: 'b-1', device_type: bobBasics.deviceType, role: bobBasics.role, site: bobBasics.site, rack: b.rack, position: 3, face: 'front' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toHaveProperty('rack');
    expect(JSON.stringify(res.json())).not.toContain('alpha-only');
    const bobRack = await bob.post('/api/racks/', { site: bobBasics.site, location: b.location, name: 'R1' });
    expect(bobRack.json()).toHaveProperty('location');
    expect(secret.position).toBe(3);
  });
});
