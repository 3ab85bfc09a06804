// Bad input thrown at every bulk endpoint of every model, generated from the registry: each answer is a 400
// (or the documented silent skip) and the tables are unchanged, compared by checksum.
import { checkedInThisPass } from './runner/pass-share.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allModels, type FieldDef } from '../src/core/registry.ts';
import { startHarness, type Harness } from './helpers/harness.ts';
import { BodyGenerator, isCreatable, tableState, writableFields } from './helpers/valid-body.ts';
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

const ZERO = '018f0000-0000-7000-8000-000000000000';

/** A value of the wrong JSON type for a field. */
function wrongType(field: FieldDef): unknown {
  switch (field.kind) {
    case 'integer':
    case 'decimal':
    case 'boolean':
      return 'not-a-value';
    case 'json':
      return field.jsonObject ? 'not-an-object' : undefined;
    case 'custom_fields':
      return 'not-an-object';
    case 'm2m':
    case 'generic_m2m':
    case 'tags':
    case 'string_list':
    case 'integer_list':
      return 'not-a-list';
    default:
      return { not: 'a string' };
  }
}

const models = allModels().filter((m) => checkedInThisPass(m.name) && isCreatable(m) && m.tenantScoped && (m.operations.update || m.operations.delete));

describe.each(models.map((m) => [m.path, m] as const))('bulk endpoints of %s', (_path, model) => {
  it('refuse malformed bodies and foreign, unknown or ill-typed values, changing nothing', async () => {
    const mine = await gen.ensureRow(model.name, 'admin', true);
    const theirs = await gen.ensureRow(model.name, 'adminB', true);
    const before = await tableState(h, model);
    const post = (path: string, body: unknown) =>
      h.app.inject({ method: 'POST', url: `${model.path}${path}`, headers: { authorization: `Token ${h.tokens.admin}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    const endpoints = [...(model.operations.delete ? ['bulk-delete/'] : []), ...(model.operations.update ? ['bulk-update/'] : [])];
    const malformed: unknown[] = [[mine], 'x', { ids: 'x' }, { ids: [1] }, { ids: [null] }, { ids: Array.from({ length: 1001 }, () => ZERO) }];
    for (const endpoint of endpoints) {
      for (const body of malformed) {
        const res = await post(endpoint, body);
        expect(res.statusCode, `${endpoint} ${JSON.stringify(body).slice(0, 40)}: ${res.body}`).toBe(400);
        expect(Object.keys(res.json())).toEqual(['ids']);
      }
    }
    if (model.operations.update) {
      // Another tenant's id falls out silently, as in a list.
      const foreign = await post('bulk-update/', { ids: [theirs, theirs], fields: {} });
      expect(foreign.statusCode).toBe(400); // empty fields
      expect((await post('bulk-update/', { ids: [mine], fields: { no_such_field: 1 } })).json()).toHaveProperty('no_such_field');
      expect((await post('bulk-update/', { ids: [mine], fields: { constructor: 1 } })).json()).toHaveProperty('constructor');
      for (const [key, field] of writableFields(model)) {
        const value = wrongType(field);
        if (value === undefined) continue;
        const res = await post('bulk-update/', { ids: [mine, mine, theirs], fields: { [key]: value } });
        expect(res.statusCode, `${key}: ${res.body}`).toBe(400);
        // A field no bulk call may set (a cable's ends: one port, one cable) is refused as `fields.<key>`.
        expect(Object.keys(res.json()).some((k) => k === key || k.startsWith(`${key}.`) || k === `fields.${key}`), `${key}: ${res.body}`).toBe(true);
        if (!field.nullable && field.kind !== 'm2m' && field.kind !== 'tags') {
          const nulled = await post('bulk-update/', { ids: [mine], fields: { [key]: null } });
          expect(nulled.statusCode, `${key}=null: ${nulled.body}`).toBe(400);
        }
      }
    }
    expect(await tableState(h, model)).toBe(before);
    if (model.operations.delete) {
      const res = await post('bulk-delete/', { ids: [theirs], dry_run: false });
      expect(res.json()).toMatchObject({ deleted: 0, deleted_ids: [] });
      expect(await tableState(h, model)).toBe(before);
    }
  });
});
