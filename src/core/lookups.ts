// The one lookup language: `?name__ic=leaf` on a list and `device.interfaces.filter(name__ic='leaf')` in a
// template are the same lookup, compiled here, so the two can never disagree on what matches, which values a
// field takes or which lookups apply to it. Both NetBox's filter spellings (`ic`, `isw`, `n`, `empty`…) and
// Django's (`icontains`, `istartswith`…) name the same operations.
//
// A lookup names one field of the row (or `pk`, `id`, `numid`, `created`, `last_updated`, `<fk>_id`); the caller
// reports a refused one in its own way (a 400 naming the parameter, or a template error).
import { sql, type RawBuilder } from 'kysely';
import { columnOf, getModel, isColumnField, lookupTable, type FieldDef, type ModelDef } from './registry.ts';
import { checkFieldValue } from './crud/field-values.ts';
import { isUuid } from './ids.ts';

export type LookupOp =
  | 'exact' | 'n' | 'in'
  | 'iexact' | 'nie' | 'contains' | 'icontains' | 'nic' | 'startswith' | 'istartswith' | 'nisw' | 'endswith' | 'iendswith' | 'niew'
  | 'gt' | 'gte' | 'lt' | 'lte'
  | 'isnull' | 'empty';

/** Every spelling of every lookup: Django's names and NetBox's filter suffixes. */
const SPELLINGS: Record<string, LookupOp> = lookupTable({
  exact: 'exact', n: 'n', in: 'in',
  iexact: 'iexact', ie: 'iexact', nie: 'nie',
  contains: 'contains', icontains: 'icontains', ic: 'icontains', nic: 'nic',
  startswith: 'startswith', istartswith: 'istartswith', isw: 'istartswith', nisw: 'nisw',
  endswith: 'endswith', iendswith: 'iendswith', iew: 'iendswith', niew: 'niew',
  gt: 'gt', gte: 'gte', lt: 'lt', lte: 'lte',
  isnull: 'isnull', empty: 'empty',
});

/** `name__ic` → the key `name` and the lookup; a key without a known suffix is an exact lookup on the whole key. */
export function splitLookup(param: string): { key: string; op: LookupOp } {
  const sep = param.lastIndexOf('__');
  const op = sep > 0 ? SPELLINGS[param.slice(sep + 2)] : undefined;
  return op ? { key: param.slice(0, sep), op } : { key: param, op: 'exact' };
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

/** The one reading of a yes/no value sent as text or given as a boolean (any case: `True`, `yes`, `1`); null if neither. */
export function parseBoolean(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : null;
  if (typeof value !== 'string') return null;
  const v = value.trim().toLowerCase();
  return TRUE.has(v) ? true : FALSE.has(v) ? false : null;
}

/** What a lookup compares: a field of the row, its key and its column. */
export interface LookupTarget {
  key: string;
  field: FieldDef;
  /** Null for the relations kept in a join table (m2m). */
  column: string | null;
}

const AUDIT: Record<string, FieldDef> = lookupTable({
  pk: { kind: 'uuid' },
  id: { kind: 'uuid' },
  numid: { kind: 'integer' },
  created: { kind: 'datetime' },
  last_updated: { kind: 'datetime' },
});

export type LookupProblem = { error: string; refused: boolean };

/** The field `key` names (`<fk>_id` is the relation), or why no lookup can read it. */
export function lookupTarget(model: ModelDef, key: string): LookupTarget | LookupProblem {
  const audit = AUDIT[key];
  if (audit && (model.timestamps || (key !== 'created' && key !== 'last_updated'))) return { key, field: audit, column: key === 'pk' ? 'id' : key };
  const base = !Object.hasOwn(model.fields, key) && key.endsWith('_id') && model.fields[key.slice(0, -3)]?.kind === 'fk' ? key.slice(0, -3) : key;
  const field = Object.hasOwn(model.fields, base) ? model.fields[base] : undefined;
  if (!field) return { error: 'not a field', refused: true };
  if (field.secret || field.writeOnly) return { error: 'cannot be read', refused: true };
  if (field.kind === 'json' || field.kind === 'custom_fields' || field.kind === 'tags') return { error: 'cannot be used in a lookup', refused: true };
  return { key: base, field, column: isColumnField(field) ? columnOf(base, field) : null };
}

/** A value to compare with: text from a query string, or a template's string, number, boolean or None (null). */
export type Operand = string | number | boolean | null;

/** A compiled lookup: its SQL over the row's alias. */
export interface CompiledLookup {
  build(alias: string): RawBuilder<unknown>;
}

const TEXT_KINDS = new Set(['string', 'text', 'slug', 'url', 'choice', 'color', 'inet', 'cidr']);
const ORDERED_KINDS = new Set(['integer', 'decimal', 'date', 'datetime', 'string', 'text', 'slug', 'url', 'choice', 'color', 'inet', 'cidr', 'uuid']);
const LIST_KINDS = new Set(['string_list', 'integer_list']);
const TEXT_OPS: Record<string, { pattern: (v: string) => string; insensitive: boolean; negated: boolean }> = lookupTable({
  iexact: { pattern: (v) => v, insensitive: true, negated: false },
  nie: { pattern: (v) => v, insensitive: true, negated: true },
  contains: { pattern: (v) => `%${v}%`, insensitive: false, negated: false },
  icontains: { pattern: (v) => `%${v}%`, insensitive: true, negated: false },
  nic: { pattern: (v) => `%${v}%`, insensitive: true, negated: true },
  startswith: { pattern: (v) => `${v}%`, insensitive: false, negated: false },
  istartswith: { pattern: (v) => `${v}%`, insensitive: true, negated: false },
  nisw: { pattern: (v) => `${v}%`, insensitive: true, negated: true },
  endswith: { pattern: (v) => `%${v}`, insensitive: false, negated: false },
  iendswith: { pattern: (v) => `%${v}`, insensitive: true, negated: false },
  niew: { pattern: (v) => `%${v}`, insensitive: true, negated: true },
});
const COMPARE: Record<string, RawBuilder<unknown>> = { gt: sql`>`, gte: sql`>=`, lt: sql`<`, lte: sql`<=` };

const problem = (error: string, refused = false): LookupProblem => ({ error, refused });
const shown = (v: Operand) => (typeof v === 'string' ? `"${v.slice(0, 60)}"` : String(v));

/** One operand as a typed SQL value for comparing with the target's column. */
function typedValue(target: LookupTarget, op: LookupOp, v: string | number | boolean): RawBuilder<unknown> | LookupProblem {
  const { field, key } = target;
  const equality = op === 'exact' || op === 'n' || op === 'in';
  switch (field.kind) {
    case 'uuid':
      return typeof v === 'string' && isUuid(v) ? sql`${v.toLowerCase()}::uuid` : problem(`${shown(v)} is not a valid id.`);
    case 'integer':
    case 'integer_list': {
      const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d{1,15}$/.test(v.trim()) ? Number(v) : NaN;
      return Number.isInteger(n) ? sql`${n}::bigint` : problem(`${shown(v)} is not a whole number.`);
    }
    case 'decimal': {
      const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : NaN;
      return Number.isFinite(n) ? sql`${String(n)}::numeric` : problem(`${shown(v)} is not a number.`);
    }
    case 'boolean': {
      const b = parseBoolean(v);
      return b === null ? problem(`${shown(v)} is not true or false.`) : sql`${b}::boolean`;
    }
    case 'date':
    case 'datetime': {
      const checked = checkFieldValue(key, { kind: field.kind }, String(v));
      if (!checked.ok) return problem(checked.message);
      const value = checked.value instanceof Date ? checked.value.toISOString() : String(checked.value);
      return field.kind === 'date' ? sql`${value}::date` : sql`${value}::timestamptz`;
    }
    case 'inet':
    case 'cidr': {
      const checked = checkFieldValue(key, { kind: 'inet' }, String(v));
      return checked.ok ? sql`${String(v)}::inet` : problem(checked.message);
    }
    case 'choice':
      if (equality) {
        const checked = checkFieldValue(key, field, String(v));
        if (!checked.ok) return problem(checked.message);
      }
      return sql`${String(v)}`;
    default: {
      const text = String(v);
      if (field.normalize && equality) {
        const normal = field.normalize(text);
        return normal === null ? problem(`${shown(text)}: ${field.patternMessage ?? 'not a valid value.'}`) : sql`${normal}`;
      }
      return sql`${text}`;
    }
  }
}

/** `<fk> = value`: an id, or the target's slug (or display name) for humans; null: no object. */
function relationCondition(col: RawBuilder<unknown>, field: FieldDef, v: Operand): RawBuilder<unknown> | LookupProblem {
  if (v === null || v === 'null') return sql`${col} IS NULL`;
  if (typeof v !== 'string') return problem(`${shown(v)} is not an id, a slug or a name.`);
  if (isUuid(v)) return sql`${col} = ${v.toLowerCase()}::uuid`;
  const target = getModel(field.target!)!;
  const by = 'slug' in target.fields ? 'slug' : columnOf(target.displayField, target.fields[target.displayField] ?? { kind: 'string' });
  // Compared as text: a display field may be typed (an address is inet); a malformed value then matches nothing.
  return sql`${col} IN (SELECT r.id FROM ${sql.table(target.table)} r WHERE ${sql.ref(`r.${by}`)}::text = ${v})`;
}

function isProblem(x: unknown): x is LookupProblem {
  return typeof x === 'object' && x !== null && 'error' in x && 'refused' in x;
}

const or = (parts: RawBuilder<unknown>[]) => sql`(${sql.join(parts, sql` OR `)})`;
const and = (parts: RawBuilder<unknown>[]) => sql`(${sql.join(parts, sql` AND `)})`;

/**
 * Compiles `<target>__<op>` over `values` (several values of one lookup: any of them, or for a negated lookup none
 * of them). Every operand is checked here; what cannot apply is a problem naming why.
 */
export function compileLookup(target: LookupTarget, op: LookupOp, values: readonly Operand[]): CompiledLookup | LookupProblem {
  const { field } = target;
  if (values.length === 0) return problem('Give a value.');
  if (op === 'isnull' || op === 'empty') {
    const want = parseBoolean(values[0]);
    if (values.length > 1 || want === null) return problem('Expected true or false.');
    if (target.column === null) {
      const exists = (a: string) => m2mExists(field, a, null);
      return { build: (a) => (want ? sql`NOT ${exists(a)}` : exists(a)) };
    }
    const col = target.column;
    if (op === 'isnull') return { build: (a) => (want ? sql`${sql.ref(`${a}.${col}`)} IS NULL` : sql`${sql.ref(`${a}.${col}`)} IS NOT NULL`) };
    return {
      build: (a) => {
        const c = sql.ref(`${a}.${col}`);
        return want ? sql`(${c} IS NULL OR ${c}::text = '')` : sql`(${c} IS NOT NULL AND ${c}::text <> '')`;
      },
    };
  }

  if (target.column === null) {
    // A relation kept in a join table: by the related objects' ids.
    if (op !== 'exact' && op !== 'in' && op !== 'n') return problem('Relations can be filtered by id only (exact, n, in).');
    const ids: string[] = [];
    for (const v of values) {
      if (typeof v !== 'string' || !isUuid(v)) return problem(`${shown(v)} is not a valid id.`);
      ids.push(v.toLowerCase());
    }
    return { build: (a) => (op === 'n' ? sql`NOT ${m2mExists(field, a, ids)}` : m2mExists(field, a, ids)) };
  }
  const column = target.column;

  if (field.kind === 'fk') {
    if (op !== 'exact' && op !== 'n' && op !== 'in') return problem('Relations can be filtered by id or slug only (exact, n, in).');
    const probe = values.map((v) => relationCondition(sql.ref(`t.${column}`), field, v)).find(isProblem);
    if (probe) return probe;
    return {
      build: (a) => {
        const conds = values.map((v) => relationCondition(sql.ref(`${a}.${column}`), field, v) as RawBuilder<unknown>);
        return op === 'n' ? sql`NOT ${or(conds)}` : or(conds);
      },
    };
  }

  const text = TEXT_OPS[op];
  if (text) {
    if (!TEXT_KINDS.has(field.kind)) return problem(`The ${op} lookup applies to text fields only.`);
    const patterns: string[] = [];
    for (const v of values) {
      if (v === null) return problem(`The ${op} lookup cannot compare with null; use isnull.`);
      const escaped = String(v).replace(/[\\%_]/g, (c) => `\\${c}`);
      patterns.push(text.pattern(escaped));
    }
    return {
      build: (a) => {
        const c = sql`${sql.ref(`${a}.${column}`)}::text`;
        const like = text.insensitive ? sql`ILIKE` : sql`LIKE`;
        const conds = patterns.map((p) => sql`${c} ${like} ${p}`);
        return text.negated ? sql`NOT ${or(conds)}` : or(conds);
      },
    };
  }

  const compare = COMPARE[op];
  if (compare && !ORDERED_KINDS.has(field.kind)) return problem(`The ${op} lookup applies to numbers, dates, addresses and text only.`);
  if (LIST_KINDS.has(field.kind) && op !== 'exact' && op !== 'n' && op !== 'in') return problem('List fields take the exact, n and in lookups only.');

  let nulls = false;
  const params: RawBuilder<unknown>[] = [];
  for (const v of values) {
    if (v === null) {
      if (compare) return problem(`The ${op} lookup cannot compare with null; use isnull.`);
      nulls = true;
      continue;
    }
    const p = typedValue(target, op, v);
    if (isProblem(p)) return p;
    params.push(p);
  }
  if (compare) return { build: (a) => or(params.map((p) => sql`${sql.ref(`${a}.${column}`)} ${compare} ${p}`)) };
  return {
    build: (a) => {
      const c = sql.ref(`${a}.${column}`);
      const conds = LIST_KINDS.has(field.kind) ? params.map((p) => sql`${p} = ANY(${c})`) : params.map((p) => sql`${c} = ${p}`);
      if (nulls) conds.push(sql`${c} IS NULL`);
      if (!conds.length) return sql`false`;
      if (op !== 'n') return or(conds);
      // Not equal to any: a NULL column is not equal to a value (IS DISTINCT FROM), and not NULL when null was named.
      const distinct = LIST_KINDS.has(field.kind) ? params.map((p) => sql`NOT (${p} = ANY(COALESCE(${c}, '{}')))`) : params.map((p) => sql`${c} IS DISTINCT FROM ${p}`);
      if (nulls) distinct.push(sql`${c} IS NOT NULL`);
      return and(distinct);
    },
  };
}

/** A row's m2m (or generic m2m) relation holds one of `ids`, or any object at all when `ids` is null. */
function m2mExists(field: FieldDef, alias: string, ids: string[] | null): RawBuilder<unknown> {
  const t = field.through!;
  const fixed = field.kind === 'generic_m2m' ? Object.entries(field.generic!.fixed).map(([c, v]) => sql` AND ${sql.ref(`j.${c}`)} = ${v}`) : [];
  const which = ids === null ? sql`` : sql` AND ${sql.ref(`j.${t.to}`)} = ANY(${ids}::uuid[])`;
  return sql`EXISTS (SELECT 1 FROM ${sql.table(t.table)} j WHERE ${sql.ref(`j.${t.from}`)} = ${sql.ref(`${alias}.id`)}${which}${sql.join(fixed, sql``)})`;
}
