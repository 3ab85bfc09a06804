// The self-describing catalogs, walked over every registered list so new models are covered for free.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allModels } from '../src/core/registry.ts';
import { startHarness, type Harness } from './helpers/harness.ts';
import { BodyGenerator, isCreatable } from './helpers/valid-body.ts';
import '../src/models.ts';

let h: Harness;
let gen: BodyGenerator;
beforeAll(async () => {
  h = await startHarness();
  gen = new BodyGenerator(h);
});
afterAll(async () => {
  await h?.close();
});

function resolve(row: Record<string, unknown>, key: string): boolean {
  let cur: unknown = row;
  for (const part of key.split('.')) {
    if (typeof cur !== 'object' || cur === null || !(part in (cur as object))) return false;
    cur = (cur as Record<string, unknown>)[part];
  }
  return true;
}

describe('list-field catalog', () => {
  const lists = allModels().filter((m) => m.operations.list);
  for (const model of lists) {
    it(`${model.path}: every catalog key resolves in a real list row`, async () => {
      if (isCreatable(model) && model.name !== 'users.token') await gen.ensureRow(model.name, 'admin');
      const cat = await h.as('admin').get(`/api/list-fields/?path=${encodeURIComponent(model.path)}`);
      expect(cat.statusCode, cat.body).toBe(200);
      const catalog = cat.json() as { path: string; model: string; fields: Array<{ key: string; kind: string; sortable: boolean; options?: Array<{ value: string }> }> };
      expect(catalog.path).toBe(model.path);
      expect(catalog.model).toBe(model.name);
      const list = await h.as('admin').get(`${model.path}?limit=1`);
      expect(list.statusCode, list.body).toBe(200);
      // A column the catalog calls sortable orders the list; one it does not is refused (the UI offers no sort).
      // All sortable ones in one ordering (a refusal names the key); each other one alone.
      const sortable = catalog.fields.filter((f) => f.sortable).map((f) => `-${f.key}`).join(',');
      const ordered = await h.as('admin').get(`${model.path}?limit=1&ordering=${encodeURIComponent(sortable)}`);
      expect(ordered.statusCode, `${model.path} ordering=${sortable}: ${ordered.body}`).toBe(200);
      for (const f of catalog.fields.filter((c) => !c.sortable)) {
        expect((await h.as('admin').get(`${model.path}?limit=1&ordering=${encodeURIComponent(f.key)}`)).statusCode, `${model.path} ordering=${f.key}`).toBe(400);
      }
      const row = list.json().results[0] as Record<string, unknown> | undefined;
      if (!row) return; // a list the superuser cannot fill generically (tokens are made by the harness for others)
      for (const f of catalog.fields) {
        expect(resolve(row, f.key), `${model.path} ${f.key}`).toBe(true);
        expect(['id', 'numid', 'display', 'custom_fields']).not.toContain(f.key);
        expect(f.kind).toMatch(/^(text|longtext|ip|number|percent|bool|choice|date|datetime|color|object|objects|tags|auto)$/);
        // A choice the UI labels from `options` must find the row's value among them, or it shows a bare code.
        const value = row[f.key];
        if (f.options && value !== null && value !== undefined) expect(f.options.map((o) => o.value), `${model.path} ${f.key}`).toContain(String(value));
      }
    });
  }

  it("an address's and a prefix's family is a choice the UI shows as IPv4 / IPv6, not 4 / 6", async () => {
    for (const path of ['/api/prefixes/', '/api/ip-addresses/']) {
      const catalog = (await h.as('admin').get(`/api/list-fields/?path=${encodeURIComponent(path)}`)).json() as { fields: Array<{ key: string; kind: string; options?: unknown }> };
      expect(catalog.fields.find((f) => f.key === 'family'), path).toMatchObject({ kind: 'choice', options: [{ value: '4', label: 'IPv4' }, { value: '6', label: 'IPv6' }] });
    }
  });

  it('labels write network words in capitals, and an address shows its interfaces rather than a model code', async () => {
    const catalog = async (path: string) => ((await h.as('admin').get(`/api/list-fields/?path=${encodeURIComponent(path)}`)).json() as { fields: Array<{ key: string; label: string }> }).fields;
    expect((await catalog('/api/services/')).find((f) => f.key === 'ip_address')?.label).toBe('IP address');
    const keys = (await catalog('/api/ip-addresses/')).map((f) => f.key);
    expect(keys).toEqual(expect.arrayContaining(['assigned_interface', 'assigned_vm_interface']));
    expect(keys).not.toContain('assigned_object_type');
  });

  it('computed flags read as flags and a service status by its label, not as true or up', async () => {
    const fieldOf = async (path: string, key: string) =>
      ((await h.as('admin').get(`/api/list-fields/?path=${encodeURIComponent(path)}`)).json() as { fields: Array<{ key: string }> }).fields.find((f) => f.key === key);
    expect(await fieldOf('/api/device-credentials/', 'password_set')).toMatchObject({ kind: 'bool', sortable: false });
    expect(await fieldOf('/api/webhooks/', 'secret_set')).toMatchObject({ kind: 'bool' });
    expect(await fieldOf('/api/services/', 'status')).toMatchObject({ kind: 'choice', options: [{ value: 'up', label: 'Up' }, { value: 'down', label: 'Down' }, { value: 'unknown', label: 'Unknown' }] });
  });

  it("a device's primary IP and an address's prefix are objects of a named model, so the UI links them", async () => {
    const fieldOf = async (path: string, key: string) =>
      ((await h.as('admin').get(`/api/list-fields/?path=${encodeURIComponent(path)}`)).json() as { fields: Array<{ key: string }> }).fields.find((f) => f.key === key);
    expect(await fieldOf('/api/devices/', 'primary_ip')).toMatchObject({ kind: 'object', related: 'ipam.ipaddress' });
    expect(await fieldOf('/api/ip-addresses/', 'prefix')).toMatchObject({ kind: 'object', related: 'ipam.prefix' });
  });

  it('answers 404 for a path that is not a list, 403 without view permission, 401 without credentials', async () => {
    expect((await h.as('admin').get('/api/list-fields/?path=/api/nothing/')).statusCode).toBe(404);
    expect((await h.as('admin').get('/api/list-fields/?path=/admin/')).statusCode).toBe(404);
    expect((await h.as('admin').get('/api/list-fields/?path=/api/tags/00000000-0000-0000-0000-000000000000/')).statusCode).toBe(404);
    expect((await h.as('nobody').get('/api/list-fields/?path=/api/tags/')).statusCode).toBe(403);
    expect((await h.as('anonymous').get('/api/list-fields/?path=/api/tags/')).statusCode).toBe(401);
    expect((await h.as('admin').get('/api/list-fields/')).statusCode).toBe(400);
  });
});

describe('editable fields', () => {
  it('lists only models the caller may change', async () => {
    const editor = (await h.as('alice').get('/api/editable-fields/')).json().models.map((m: { model: string }) => m.model);
    expect(editor).toContain('extras.tag');
    expect(editor).not.toContain('users.user');
    const viewer = (await h.as('viewer').get('/api/editable-fields/')).json().models;
    expect(viewer.filter((m: { model: string }) => m.model !== 'users.token')).toEqual([]);
  });

  it('describes the write allow-list of a model, by app.model or bare name', async () => {
    const res = await h.as('alice').get('/api/editable-fields/?model=extras.tag');
    expect(res.statusCode, res.body).toBe(200);
    const byKey = Object.fromEntries((res.json() as Array<{ key: string }>).map((d) => [d.key, d]));
    expect(byKey.name).toMatchObject({ kind: 'text', nullable: false, label: 'Name' });
    expect(Object.keys(byKey).sort()).toEqual(['color', 'description', 'name', 'slug']);
    expect((await h.as('alice').get('/api/editable-fields/?model=tag')).json()).toEqual(res.json());
  });

  it("says where each field stands in the model's definition, so a form keeps a cable's length beside its unit", async () => {
    const fields = (await h.as('admin').get('/api/editable-fields/?model=dcim.cable')).json() as Array<{ key: string; position: number }>;
    const defined = Object.keys(allModels().find((m) => m.name === 'dcim.cable')!.fields);
    expect([...fields].sort((a, b) => a.position - b.position).map((f) => f.key)).toEqual(defined.filter((k) => fields.some((f) => f.key === k)));
    const at = (key: string) => fields.find((f) => f.key === key)!.position;
    expect(at('length_unit')).toBe(at('length') + 1);
    // The unit is drawn inside the length's column and row ("3 Meters"), as NetBox's cable list does.
    const catalog = (await h.as('admin').get(`/api/list-fields/?path=${encodeURIComponent('/api/cables/')}`)).json() as { fields: Array<{ key: string }>; other_fields: Array<{ key: string }> };
    expect(catalog.fields.map((f) => f.key)).toContain('length');
    expect(catalog.fields.map((f) => f.key)).not.toContain('length_unit');
    // Described still, for a change's before and after.
    expect(catalog.other_fields).toEqual([expect.objectContaining({ key: 'length_unit', label: 'Length unit', kind: 'choice', choices: 'length_units' })]);
  });

  it('every descriptor key is accepted by bulk-update of that model (same allow-list)', async () => {
    for (const model of allModels().filter((m) => m.operations.update)) {
      const res = await h.as('admin').get(`/api/editable-fields/?model=${model.name}`);
      expect(res.statusCode, `${model.name}: ${res.body}`).toBe(200);
      for (const d of res.json() as Array<{ key: string; kind: string; object_model?: string; endpoint?: string }>) {
        expect(model.fields[d.key], `${model.name}.${d.key}`).toBeDefined();
        if (d.kind === 'object') expect(d.endpoint).toMatch(/^\/api\//);
      }
    }
  });

  it('unknown model 404; a model the caller cannot change 403', async () => {
    expect((await h.as('alice').get('/api/editable-fields/?model=nope')).statusCode).toBe(404);
    expect((await h.as('viewer').get('/api/editable-fields/?model=extras.tag')).statusCode).toBe(403);
    expect((await h.as('alice').get('/api/editable-fields/?model=users.user')).statusCode).toBe(403);
  });
});
