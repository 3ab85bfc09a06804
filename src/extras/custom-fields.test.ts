import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';

let h: Harness;
let b: Basics;
beforeAll(async () => {
  h = await startHarness();
  const alice = h.as('alice');
  b = await inventoryBasics(alice);
  await created(alice, '/api/custom-fields/', { name: 'ansible_managed', type: 'boolean', object_types: ['dcim.device'], label: 'Managed' });
  await created(alice, '/api/custom-fields/', { name: 'rack_unit', type: 'integer', object_types: ['dcim.device'] });
  await created(alice, '/api/custom-fields/', { name: 'tier', type: 'select', choices: ['gold', 'silver'], default: 'silver', object_types: ['dcim.device', 'dcim.interface'] });
  await created(alice, '/api/custom-fields/', { name: 'roles', type: 'multiselect', choices: ['edge', 'core'], object_types: ['dcim.device'] });
});
afterAll(async () => {
  await h?.close();
});

describe('custom field definitions', () => {
  it('refuses bad names, unknown object types, select without choices and a default of the wrong type', async () => {
    const alice = h.as('alice');
    for (const name of ['Bad', '1abc', 'has-dash', 'a'.repeat(51), '']) {
      const res = await alice.post('/api/custom-fields/', { name, type: 'text', object_types: ['dcim.device'] });
      expect(res.statusCode, name).toBe(400);
      expect(res.json()).toHaveProperty('name');
    }
    expect((await alice.post('/api/custom-fields/', { name: 'x', object_types: ['dcim.nothing'] })).json()).toHaveProperty('object_types');
    expect((await alice.post('/api/custom-fields/', { name: 'x', type: 'select' })).json()).toHaveProperty('choices');
    expect((await alice.post('/api/custom-fields/', { name: 'x', type: 'integer', default: 'ten' })).json()).toHaveProperty('default');
    expect((await alice.post('/api/custom-fields/', { name: 'x', type: 'colour' })).json()).toHaveProperty('type');
    const dup = await alice.post('/api/custom-fields/', { name: 'rack_unit', type: 'text' });
    expect(dup.statusCode).toBe(400);
    expect(dup.json()).toHaveProperty('name');
    expect((await alice.get('/api/custom-fields/?name=x')).json().count).toBe(0);
    // The same name is free in another tenant.
    await created(h.as('bob'), '/api/custom-fields/', { name: 'rack_unit', type: 'text', object_types: ['dcim.device'] });
  });
});

describe('custom field values', () => {
  it('fills defaults, validates types and choices, and names the field', async () => {
    const alice = h.as('alice');
    const d = await createDevice(alice, b, 'cf-1', { custom_fields: { ansible_managed: true, roles: ['edge'] } });
    expect(d.custom_fields).toEqual({ ansible_managed: true, roles: ['edge'], tier: 'silver' });
    // Interfaces materialised from templates start with the interface defaults too.
    const withPorts = await inventoryBasics(alice, ['xe0']);
    const d2 = await createDevice(alice, withPorts, 'cf-1b');
    expect((await alice.get(`/api/interfaces/?device=${d2.id}`)).json().results[0].custom_fields).toEqual({ tier: 'silver' });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ansible_managed: 'yes' }, 'custom_fields.ansible_managed'],
      [{ rack_unit: 1.5 }, 'custom_fields.rack_unit'],
      [{ tier: 'bronze' }, 'custom_fields.tier'],
      [{ roles: ['edge', 'spine'] }, 'custom_fields.roles'],
      [{ no_such_field: 1 }, 'custom_fields.no_such_field'],
    ];
    for (const [values, key] of cases) {
      const res = await alice.post('/api/devices/', { name: 'cf-bad', device_type: b.deviceType, role: b.role, site: b.site, custom_fields: values });
      expect(res.statusCode, key).toBe(400);
      expect(res.json(), key).toHaveProperty([key]);
    }
    const notObject = await alice.post('/api/devices/', { name: 'cf-bad', device_type: b.deviceType, role: b.role, site: b.site, custom_fields: [1] });
    expect(notObject.json()).toHaveProperty('custom_fields');
    expect((await alice.get('/api/devices/?name=cf-bad')).json().count).toBe(0);
    // A device field is not an interface field.
    const iface = await alice.post('/api/interfaces/', { device: d.id, name: 'e0', type: 'virtual', custom_fields: { rack_unit: 3 } });
    expect(iface.json()).toHaveProperty(['custom_fields.rack_unit']);
  });

  it('merges PATCHed values, clears with null, and logs old and new', async () => {
    const alice = h.as('alice');
    const d = await createDevice(alice, b, 'cf-2', { custom_fields: { ansible_managed: true, rack_unit: 4 } });
    const patched = await alice.patch(`/api/devices/${d.id}/`, { custom_fields: { rack_unit: 7, ansible_managed: null } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().custom_fields).toEqual({ rack_unit: 7, tier: 'silver' });
    const bad = await alice.patch(`/api/devices/${d.id}/`, { custom_fields: { rack_unit: 'eight' } });
    expect(bad.statusCode).toBe(400);
    expect((await alice.get(`/api/devices/${d.id}/`)).json().custom_fields).toEqual({ rack_unit: 7, tier: 'silver' });
    const changes = (await alice.get(`/api/changes/?object_type=dcim.device&object_id=${d.id}&action=update`)).json().results;
    expect(changes).toHaveLength(1);
    expect(changes[0].before.custom_fields).toEqual({ ansible_managed: true, rack_unit: 4, tier: 'silver' });
    expect(changes[0].after.custom_fields).toEqual({ rack_unit: 7, tier: 'silver' });
    // A PATCH without custom_fields leaves them untouched.
    await alice.patch(`/api/devices/${d.id}/`, { serial: 'S2' });
    expect((await alice.get(`/api/devices/${d.id}/`)).json().custom_fields).toEqual({ rack_unit: 7, tier: 'silver' });
  });

  it('requires required fields, renames keys with the definition and removes them on delete', async () => {
    const alice = h.as('alice');
    const d = await createDevice(alice, b, 'cf-3', { custom_fields: { rack_unit: 2 } });
    const field = await created(alice, '/api/custom-fields/', { name: 'owner', type: 'text', required: true, object_types: ['dcim.device'] });
    const missing = await alice.post('/api/devices/', { name: 'cf-4', device_type: b.deviceType, role: b.role, site: b.site });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toHaveProperty(['custom_fields.owner']);
    await createDevice(alice, b, 'cf-4', { custom_fields: { owner: 'netops' } });
    expect((await alice.patch(`/api/custom-fields/${field.id}/`, { required: false })).statusCode).toBe(200);
    const units = (await alice.get('/api/custom-fields/?name=rack_unit')).json().results[0];
    expect((await alice.patch(`/api/custom-fields/${units.id}/`, { name: 'rack_position' })).statusCode).toBe(200);
    expect((await alice.get(`/api/devices/${d.id}/`)).json().custom_fields).toEqual({ rack_position: 2, tier: 'silver' });
    expect((await alice.delete(`/api/custom-fields/${units.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/devices/${d.id}/`)).json().custom_fields).toEqual({ tier: 'silver' });
  });

  it('does not blame a PATCH for stored values it did not send', async () => {
    const alice = h.as('alice');
    const note = await created(alice, '/api/custom-fields/', { name: 'note', type: 'text', object_types: ['dcim.device', 'dcim.interface'] });
    const d = await createDevice(alice, b, 'cf-5', { custom_fields: { note: 'hello' } });
    const iface = await created(alice, '/api/interfaces/', { device: d.id, name: 'e9', type: 'virtual', custom_fields: { note: 'if' } });
    // The type changes under a stored value: an unrelated PATCH still works and keeps it.
    expect((await alice.patch(`/api/custom-fields/${note.id}/`, { type: 'integer' })).statusCode).toBe(200);
    const ok = await alice.patch(`/api/devices/${d.id}/`, { custom_fields: { tier: 'gold' } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().custom_fields).toEqual({ note: 'hello', tier: 'gold' });
    expect((await alice.patch(`/api/devices/${d.id}/`, { custom_fields: { note: 'again' } })).json()).toHaveProperty(['custom_fields.note']);
    // Narrowing the object types removes the values from the models left out.
    expect((await alice.patch(`/api/custom-fields/${note.id}/`, { object_types: ['dcim.device'] })).statusCode).toBe(200);
    expect((await alice.get(`/api/interfaces/${iface.id}/`)).json().custom_fields).toEqual({ tier: 'silver' });
    expect((await alice.get(`/api/devices/${d.id}/`)).json().custom_fields).toEqual({ note: 'hello', tier: 'gold' });
  });
});
