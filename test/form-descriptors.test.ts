// What the generic forms are built from, checked without a browser: every help text reads as plain words (no
// column names, no `null`, no source files), /api/editable-fields/ says of every field what a create stores when
// it is not sent (so an add form can show it) and whether it is required, and a write the model's rules refuse
// reports every field error of the same row at once (a taken rack unit and a taken name in one 400).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../src/models.ts';
import { allModels, isRequired } from '../src/core/registry.ts';
import { startHarness, type Harness } from './helpers/harness.ts';
import { createDevice, created, inventoryBasics } from './helpers/inventory.ts';
import { developerWords, helpProblems } from './helpers/plain-words.ts';

describe('help texts', () => {
  it('finds the developer words it looks for (the check itself works)', () => {
    expect(developerWords('A device interface; leave assigned_vm_interface null.')).toEqual(['assigned_vm_interface', 'null']);
    expect(developerWords('Null for the global table.')).toEqual(['Null']);
    expect(developerWords('A device export template (see templating/bindings.ts).')).toEqual(['templating/bindings.ts']);
    expect(developerWords('The id of the site; set from termination_id.')).toEqual(['termination_id']);
    expect(developerWords('Empty for the global table, e.g. dcim.device or Ethernet1/1.')).toEqual([]);
  });

  it('says every field\'s help in plain words: no column names, no null, no source files (JSON fields may name their keys)', () => {
    const offending: string[] = [];
    for (const model of allModels()) {
      for (const [key, field] of Object.entries(model.fields)) {
        if (!field.help) continue;
        const words = helpProblems(field.help, field.kind);
        if (words.length) offending.push(`${model.name}.${key}: ${words.join(', ')} in "${field.help}"`);
      }
    }
    expect(offending).toEqual([]);
  });
});

describe('editable fields and several field errors', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('describes each field\'s default and requiredness as the registry declares them, for every model', async () => {
    const alice = h.as('admin');
    let checked = 0;
    for (const model of allModels()) {
      if (!model.operations.create) continue;
      const res = await alice.get(`/api/editable-fields/?model=${model.name}`);
      if (res.statusCode !== 200) continue;
      const byKey = new Map((res.json() as Array<{ key: string; default?: unknown; required: boolean }>).map((f) => [f.key, f]));
      for (const [key, field] of Object.entries(model.fields)) {
        const d = byKey.get(key);
        if (!d) continue;
        const stored = field.default !== undefined ? field.default : field.kind === 'boolean' ? false : null;
        expect(d.default ?? null, `${model.name}.${key}`).toEqual(stored);
        expect(d.required, `${model.name}.${key}`).toBe(isRequired(field));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(500);
    // The interface's Enabled: true on a new interface, as the form must show it.
    const iface = (await alice.get('/api/editable-fields/?model=dcim.interface')).json() as Array<{ key: string; default?: unknown }>;
    expect(iface.find((f) => f.key === 'enabled')).toMatchObject({ default: true });
  });

  it('answers a device with a taken rack unit and a taken name with both field errors in one 400, writing nothing', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const rack = await created(alice, '/api/racks/', { site: b.site, name: 'R-errors' });
    const first = await createDevice(alice, b, 'errors-leaf1', { rack: rack.id, position: 10, face: 'front' });
    const before = (await alice.get('/api/devices/?limit=1')).json().count as number;
    const res = await alice.post('/api/devices/', { name: 'errors-leaf1', device_type: b.deviceType, role: b.role, site: b.site, rack: rack.id, position: 10, face: 'front' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ position: ['U10 front is taken by errors-leaf1.'], name: ['A device with this name already exists.'] });
    expect((await alice.get('/api/devices/?limit=1')).json().count).toBe(before);
    // The same on an update: a second device moved onto the taken unit and renamed to the taken name.
    const second = await createDevice(alice, b, 'errors-leaf2');
    const move = await alice.patch(`/api/devices/${second.id}/`, { name: 'errors-leaf1', rack: rack.id, position: 10, face: 'front' });
    expect(move.statusCode).toBe(400);
    expect(Object.keys(move.json()).sort()).toEqual(['name', 'position']);
    expect((await alice.get(`/api/devices/${second.id}/`)).json()).toMatchObject({ name: 'errors-leaf2', position: null });
    // A write the rules accept still works in the same transaction shape, and a lone taken name is still a 400.
    const lone = await alice.post('/api/devices/', { name: 'errors-leaf1', device_type: b.deviceType, role: b.role, site: b.site });
    expect(lone.statusCode).toBe(400);
    expect(Object.keys(lone.json())).toEqual(['name']);
    expect(first.id).toBeTruthy();
  });
});
