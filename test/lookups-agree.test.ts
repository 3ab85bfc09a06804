// One lookup language (src/core/lookups.ts): every lookup of every field kind, asked of a list (`?mtu__gt=1500`)
// and of a template's related set (`device.interfaces.filter(mtu__gt=1500)`), finds the same rows, or is refused
// by both. Generated from the registry over demo data: for each field kind, a model with such a field that is a
// related set of its parent, and values taken from the rows demo data made.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from './helpers/harness.ts';
import { generateDemoData } from '../src/system/demo-data.ts';
import { allModels, columnOf, isColumnField, type FieldDef, type ModelDef } from '../src/core/registry.ts';
import type { LookupOp } from '../src/core/lookups.ts';
import { relationsOf } from '../src/templating/proxies.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  await generateDemoData(h.database.db, { devices: 4, seed: 7, tenantSlug: 'alpha' });
  // Two kinds demo data leaves empty where a related set reaches them: an aggregate's date (rir.aggregates) and a
  // role's colour (the roles a config template is bound to: template.device_roles).
  const alice = h.as('alice');
  const aggregates = (await alice.get('/api/aggregates/?limit=2')).json().results as Array<{ id: string }>;
  expect(aggregates.length).toBeGreaterThan(0);
  for (const [i, a] of aggregates.entries()) expect((await alice.patch(`/api/aggregates/${a.id}/`, { date_added: `2024-0${i + 1}-15` })).statusCode).toBe(200);
  const template = await alice.post('/api/export-templates/', { name: 'lookups', object_type: 'dcim.device', template_code: 'x' });
  expect(template.statusCode, template.body).toBe(201);
  const roles = (await alice.get('/api/device-roles/?limit=2')).json().results as Array<{ id: string }>;
  for (const r of roles) expect((await alice.patch(`/api/device-roles/${r.id}/`, { config_template: template.json().id })).statusCode).toBe(200);
});
afterAll(async () => {
  await h?.close();
});

/** Kinds no lookup reads (both refuse them; asked below too). */
const UNREADABLE = new Set(['json', 'custom_fields', 'tags']);
/** Each lookup in its NetBox spelling (lists) and its Django one (templates): the two name one operation. */
const OPS: Array<{ op: LookupOp; list: string; template: string }> = [
  { op: 'exact', list: 'exact', template: 'exact' },
  { op: 'n', list: 'n', template: 'n' },
  { op: 'in', list: 'in', template: 'in' },
  { op: 'iexact', list: 'ie', template: 'iexact' },
  { op: 'icontains', list: 'ic', template: 'icontains' },
  { op: 'nic', list: 'nic', template: 'nic' },
  { op: 'contains', list: 'contains', template: 'contains' },
  { op: 'istartswith', list: 'isw', template: 'istartswith' },
  { op: 'iendswith', list: 'iew', template: 'iendswith' },
  { op: 'gt', list: 'gt', template: 'gt' },
  { op: 'gte', list: 'gte', template: 'gte' },
  { op: 'lt', list: 'lt', template: 'lt' },
  { op: 'lte', list: 'lte', template: 'lte' },
  { op: 'isnull', list: 'isnull', template: 'isnull' },
  { op: 'empty', list: 'empty', template: 'empty' },
];

interface Case {
  child: ModelDef;
  /** The child's relation to its parent, and the related set's name on the parent. */
  parentKey: string;
  parent: ModelDef;
  relation: string;
  key: string;
  field: FieldDef;
}

/** The name a template reads a child's rows by on its parent (`device.interfaces`), or null when it has none. */
function relationName(parent: ModelDef, child: ModelDef, fkKey: string, fk: FieldDef): string | null {
  for (const [name, rel] of relationsOf(parent)) {
    if (rel.target === child && rel.via.kind === 'reverse' && rel.via.column === columnOf(fkKey, fk) && !rel.via.typeColumn) return name;
  }
  return null;
}

/** Every (child, parent relation, field) whose related set a template can filter, grouped by the field's kind. */
function candidates(): Map<string, Case[]> {
  const out = new Map<string, Case[]>();
  for (const child of allModels()) {
    if (!child.tenantScoped || !child.operations.list) continue;
    const fks = Object.entries(child.fields).filter(([, f]) => f.kind === 'fk' && f.target);
    for (const [parentKey, fk] of fks) {
      const parent = allModels().find((m) => m.name === fk.target);
      if (!parent?.tenantScoped) continue;
      const relation = relationName(parent, child, parentKey, fk);
      if (!relation) continue;
      const audit: Array<[string, FieldDef]> = [['id', { kind: 'uuid' }], ['numid', { kind: 'integer' }], ...(child.timestamps ? [['created', { kind: 'datetime' }] as [string, FieldDef]] : [])];
      for (const [key, field] of [...Object.entries(child.fields), ...audit]) {
        if (key === parentKey || field.secret || field.writeOnly) continue;
        out.set(field.kind, [...(out.get(field.kind) ?? []), { child, parentKey, parent, relation, key, field }]);
      }
    }
  }
  return out;
}

interface Sample {
  parentId: string;
  values: unknown[];
}

/** The parent with the most children holding a value in the field, and those values; null when demo data has none. */
async function sample(c: Case): Promise<Sample | null> {
  const fkColumn = columnOf(c.parentKey, c.child.fields[c.parentKey]!);
  if (!isColumnField(c.field)) {
    const t = c.field.through!;
    const { rows } = await sql<{ parent: string; value: string }>`SELECT ch.${sql.ref(fkColumn)} AS parent, j.${sql.ref(t.to)}::text AS value
      FROM ${sql.table(c.child.table)} ch JOIN ${sql.table(t.table)} j ON j.${sql.ref(t.from)} = ch.id
      WHERE ch.${sql.ref(fkColumn)} IS NOT NULL ORDER BY 1, 2 LIMIT 200`.execute(h.database.db);
    return pick(rows);
  }
  const column = columnOf(c.key, c.field);
  const { rows } = await sql<{ parent: string; value: unknown }>`SELECT ch.${sql.ref(fkColumn)} AS parent, ch.${sql.ref(column)} AS value
    FROM ${sql.table(c.child.table)} ch WHERE ch.${sql.ref(fkColumn)} IS NOT NULL AND ch.${sql.ref(column)} IS NOT NULL
    ORDER BY 1 LIMIT 500`.execute(h.database.db);
  return pick(rows);
}

function pick(rows: Array<{ parent: string; value: unknown }>): Sample | null {
  const byParent = new Map<string, unknown[]>();
  for (const r of rows) byParent.set(r.parent, [...(byParent.get(r.parent) ?? []), r.value]);
  const best = [...byParent].sort((a, b) => b[1].length - a[1].length)[0];
  return best ? { parentId: best[0], values: best[1] } : null;
}

/** A stored value as a query-string value and as a template literal. */
function spelled(value: unknown): { text: string; literal: string } {
  if (typeof value === 'boolean') return { text: String(value), literal: value ? 'True' : 'False' };
  if (typeof value === 'number' || typeof value === 'bigint') return { text: String(value), literal: String(value) };
  if (value instanceof Date) return { text: value.toISOString(), literal: JSON.stringify(value.toISOString()) };
  if (Array.isArray(value)) return spelled(value[0]);
  const text = String(value);
  return { text, literal: JSON.stringify(text) };
}

/** The operand of each lookup, taken from the sample. */
function operands(op: LookupOp, s: Sample): { text: string; literal: string } {
  const [a, b] = [spelled(s.values[0]), spelled(s.values[s.values.length - 1])];
  switch (op) {
    case 'in':
      return { text: `${a.text},${b.text}`, literal: `[${a.literal}, ${b.literal}]` };
    case 'isnull':
    case 'empty':
      return { text: 'false', literal: 'False' };
    case 'icontains':
    case 'nic':
    case 'contains':
    case 'istartswith':
    case 'iendswith': {
      const part = op === 'iendswith' ? a.text.slice(-3) : a.text.slice(0, 3);
      return { text: part, literal: JSON.stringify(part) };
    }
    default:
      return a;
  }
}

type Outcome = { ids: string[] } | { refused: string };

async function viaList(c: Case, s: Sample, op: (typeof OPS)[number], value: string): Promise<Outcome> {
  const q = new URLSearchParams({ [c.parentKey]: s.parentId, [`${c.key}__${op.list}`]: value, limit: '1000' });
  const res = await h.as('alice').get(`${c.child.path}?${q}`);
  if (res.statusCode === 400) return { refused: res.body };
  expect(res.statusCode, res.body).toBe(200);
  return { ids: (res.json().results as Array<{ id: string }>).map((r) => r.id).sort() };
}

async function viaTemplate(c: Case, s: Sample, op: (typeof OPS)[number], literal: string): Promise<Outcome> {
  const code = `{% for o in objects %}{% for x in o.${c.relation}.filter(${c.key}__${op.template}=${literal}) %}{{ x.id }} {% endfor %}{% endfor %}`;
  const res = await h.as('alice').post(`/api/export-templates/preview/?id=${s.parentId}`, { object_type: c.parent.name, template_code: code });
  if (res.statusCode === 400) return { refused: res.body };
  expect(res.statusCode, res.body).toBe(200);
  return { ids: String(res.json().output).split(' ').filter(Boolean).sort() };
}

describe('one lookup language for lists and templates', () => {
  it('every lookup of every field kind finds the same rows both ways, or is refused both ways', async () => {
    const byKind = candidates();
    const covered: string[] = [];
    const missing: string[] = [];
    const disagreements: string[] = [];
    let compared = 0;
    for (const [kind, cases] of [...byKind].sort(([a], [b]) => a.localeCompare(b))) {
      let chosen: { c: Case; s: Sample } | null = null;
      for (const c of cases) {
        if (UNREADABLE.has(kind)) {
          chosen = { c, s: { parentId: '', values: ['x'] } };
          break;
        }
        const s = await sample(c);
        if (s) {
          chosen = { c, s };
          break;
        }
      }
      if (!chosen) {
        missing.push(kind);
        continue;
      }
      covered.push(`${kind}: ${chosen.c.child.name}.${chosen.c.key}`);
      if (UNREADABLE.has(kind)) continue;
      for (const op of OPS) {
        const { text, literal } = operands(op.op, chosen.s);
        const [list, template] = await Promise.all([viaList(chosen.c, chosen.s, op, text), viaTemplate(chosen.c, chosen.s, op, literal)]);
        compared++;
        const agree = 'ids' in list && 'ids' in template ? JSON.stringify(list.ids) === JSON.stringify(template.ids) : 'refused' in list && 'refused' in template;
        if (!agree) {
          const show = (o: Outcome) => ('ids' in o ? `${o.ids.length} rows` : `refused ${o.refused.slice(0, 160)}`);
          disagreements.push(`${chosen.c.child.name}.${chosen.c.key} (${kind}) __${op.op}=${text}: list ${show(list)}, template ${show(template)}`);
        }
      }
    }
    expect(disagreements).toEqual([]);
    // Demo data holds a row for each kind a list can filter; a kind with no sample would go unchecked.
    expect(missing, `no demo row to compare for these kinds (covered: ${covered.join('; ')})`).toEqual([]);
    expect(compared).toBeGreaterThan(100);
  });

  it("refuses what no lookup reads, and a relation walk, the same way: the list's 400 names the parameter", async () => {
    const res = await h.as('alice').get('/api/devices/?custom_fields__ic=x');
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('custom_fields__ic');
    const walk = await h.as('alice').post('/api/export-templates/preview/', {
      object_type: 'organization.site',
      template_code: '{% for s in objects %}{{ s.devices.filter(role__slug="leaf").count() }}{% endfor %}',
    });
    expect(walk.statusCode).toBe(400);
    expect(walk.body).toContain('walks a relation');
  });
});
