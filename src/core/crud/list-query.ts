// Query-string → SQL for list endpoints: field filters with lookups, `q` search, `tag`, ordering, paging.
// Every name and value is checked against the registry; anything unknown is a 400 naming the parameter.
import { sql, type RawBuilder } from 'kysely';
import type { FieldDef, ModelDef } from '../registry.ts';
import { columnOf, displayColumn, getModel, isColumnField, lookupTable } from '../registry.ts';
import { ErrorCollector } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { checkFieldValue } from './field-values.ts';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

export type Lookup = 'exact' | 'n' | 'ic' | 'nic' | 'isw' | 'iew' | 'ie' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'empty' | 'isnull';
const LOOKUPS = new Set<string>(['n', 'ic', 'nic', 'isw', 'iew', 'ie', 'gt', 'gte', 'lt', 'lte', 'in', 'empty', 'isnull']);
const RANGE_KINDS = new Set(['integer', 'decimal', 'date', 'datetime']);
const TEXT_KINDS = new Set(['string', 'text', 'slug', 'url', 'choice', 'color']);

/** Parameters a list endpoint understands besides field filters. Other features add theirs. */
export const RESERVED_PARAMS = new Set(['limit', 'offset', 'ordering', 'q', 'tag', 'brief']);

/** A filter a model adds beyond its fields (e.g. `has_primary_ip`); returns the SQL condition or an error. */
export type CustomFilter = (values: string[], alias: string) => RawBuilder<unknown> | { error: string };

/**
 * What `q` means to a model beyond matching its search fields' text (an address finds the prefixes holding it):
 * a condition OR'ed with the text match, and optionally the order its matches read best in (used when the
 * request names no ordering). Null when the text means nothing special.
 */
export type QuickSearch = (text: string, alias: string) => { where: RawBuilder<unknown>; orderBy?: RawBuilder<unknown> } | null;

/** One column of a list's ordering, as keyset reads need it (id, ascending, always comes last). */
export interface OrderKey {
  column: string;
  desc: boolean;
  nullable: boolean;
}

export interface ListQuery {
  where: RawBuilder<unknown>[];
  orderBy: RawBuilder<unknown>;
  /** The ordering's columns in order, id last; null when it starts with an expression (the quick search's order). */
  orderKeys: readonly OrderKey[] | null;
  limit: number;
  offset: number;
}

export type QueryValues = Record<string, string | string[] | undefined>;

function valuesOf(raw: string | string[] | undefined): string[] {
  if (raw === undefined) return [];
  return Array.isArray(raw) ? raw : [raw];
}

const AUDIT_FIELDS: Record<string, FieldDef> = lookupTable({
  id: { kind: 'uuid' },
  numid: { kind: 'integer' },
  created: { kind: 'datetime' },
  last_updated: { kind: 'datetime' },
});

function auditField(model: ModelDef, key: string): FieldDef | undefined {
  if (!model.timestamps && (key === 'created' || key === 'last_updated')) return undefined;
  return AUDIT_FIELDS[key];
}

export function filterableField(model: ModelDef, key: string): FieldDef | undefined {
  const field = model.fields[key] ?? auditField(model, key);
  if (!field || field.secret || field.writeOnly || field.kind === 'json' || field.kind === 'custom_fields') return undefined;
  return field;
}

/** The column of a model's custom fields, or null when it has none. */
function customFieldsColumn(model: ModelDef): string | null {
  const entry = Object.entries(model.fields).find(([, f]) => f.kind === 'custom_fields');
  return entry ? columnOf(entry[0], entry[1]) : null;
}

function parseFilterValue(key: string, field: FieldDef, text: string, lookup: Lookup): { value: unknown } | { error: string } {
  if (lookup === 'empty' || lookup === 'isnull') {
    if (text !== 'true' && text !== 'false') return { error: 'Expected true or false.' };
    return { value: text === 'true' };
  }
  switch (field.kind) {
    case 'integer':
    case 'integer_list':
      return /^-?\d+$/.test(text) ? { value: Number(text) } : { error: `"${text}" is not a whole number.` };
    case 'decimal':
      return /^-?\d+(\.\d+)?$/.test(text) ? { value: text } : { error: `"${text}" is not a number.` };
    case 'boolean':
      if (['true', '1', 'True'].includes(text)) return { value: true };
      if (['false', '0', 'False'].includes(text)) return { value: false };
      return { error: `"${text}" is not true or false.` };
    case 'choice':
      if (lookup === 'exact' || lookup === 'n') {
        const checked = checkFieldValue(key, field, text);
        return checked.ok ? { value: text } : { error: checked.message };
      }
      return { value: text };
    case 'inet':
    case 'cidr':
      if (lookup === 'exact' || lookup === 'n') {
        const checked = checkFieldValue(key, { kind: 'inet' }, text);
        return checked.ok ? { value: text } : { error: checked.message };
      }
      return { value: text };
    case 'date':
    case 'datetime': {
      const checked = checkFieldValue(key, field, text);
      return checked.ok ? { value: checked.value } : { error: checked.message };
    }
    case 'uuid':
      return isUuid(text) ? { value: text.toLowerCase() } : { error: `"${text}" is not a valid id.` };
    default:
      if (field.normalize && (lookup === 'exact' || lookup === 'n')) {
        const normal = field.normalize(text);
        return normal === null ? { error: `"${text.slice(0, 60)}": ${field.patternMessage ?? 'not a valid value.'}` } : { value: normal };
      }
      return { value: text };
  }
}

function textCondition(col: RawBuilder<unknown>, lookup: Lookup, value: string): RawBuilder<unknown> {
  const escaped = value.replace(/[\\%_]/g, (c) => `\\${c}`);
  switch (lookup) {
    case 'ic':
      return sql`${col}::text ILIKE ${`%${escaped}%`}`;
    case 'nic':
      return sql`${col}::text NOT ILIKE ${`%${escaped}%`}`;
    case 'isw':
      return sql`${col}::text ILIKE ${`${escaped}%`}`;
    case 'iew':
      return sql`${col}::text ILIKE ${`%${escaped}`}`;
    case 'ie':
      return sql`lower(${col}::text) = lower(${value})`;
    default:
      throw new Error('not a text lookup');
  }
}

/** The SQL for `<fk>=<value>`: an id, or the target's slug (or name) for humans. */
function relationCondition(col: RawBuilder<unknown>, field: FieldDef, text: string): RawBuilder<unknown> {
  if (text === 'null') return sql`${col} IS NULL`;
  if (isUuid(text)) return sql`${col} = ${text.toLowerCase()}`;
  const target = getModel(field.target!)!;
  const by = 'slug' in target.fields ? 'slug' : target.displayField;
  // Compared as text: a display field may be typed (an address is inet), and a malformed value then matches nothing.
  return sql`${col} IN (SELECT r.id FROM ${sql.table(target.table)} r WHERE ${sql.ref(`r.${by}`)}::text = ${text})`;
}

/** The caller's fence on another model's rows (tenant and permissions), for searches that read a parent's table. */
export type ScopeOf = (model: ModelDef, alias: string) => RawBuilder<unknown>;

/** The words of a search (`ams1-leaf07 › mgmt0` is two: the display's separator counts as a space), at most 8. */
const MAX_SEARCH_WORDS = 8;

function likeText(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * `q` on a model shown within its parent (ModelDef.displayParent: an interface in its device): the parent's name
 * and the row's own words together, as the row is displayed (`ams1-leaf07 mgmt0`, `par1-leaf30 Ethernet1/3`).
 * A search that starts with a parent's exact name (`ams1-leaf07`, alone or with more words) means that parent: it
 * finds that parent's rows only, never other rows whose description mentions the name (a spine's port described
 * `to ams1-leaf07`). Otherwise the row's own text matches as before, or a parent whose name holds the first words
 * with the row matching the rest. Null when the model has no parent to search by (or the caller gave no scope).
 */
function parentQualifiedSearch(model: ModelDef, text: string, alias: string, ownText: RawBuilder<unknown>, scopeOf?: ScopeOf): RawBuilder<unknown> | null {
  if (!scopeOf || !model.displayParent?.length) return null;
  const parents = model.displayParent
    .map((key) => ({ key, field: model.fields[key], target: model.fields[key]?.target ? getModel(model.fields[key]!.target!) : undefined }))
    .filter((p): p is { key: string; field: FieldDef; target: ModelDef } => p.field?.kind === 'fk' && p.target !== undefined && p.target.displayField !== 'id');
  if (!parents.length) return null;
  const words = text.split(/[\s\u203a]+/).filter(Boolean).slice(0, MAX_SEARCH_WORDS);
  if (!words.length) return null;
  const own = model.searchFields.length ? model.searchFields : [model.displayField];
  // The row's own words (each in one of its search fields); none left: any row of the parent.
  const rest = (tail: string[]) =>
    tail.length ? sql.join(tail.map((w) => sql`(${sql.join(own.map((f) => sql`${sql.ref(`${alias}.${columnOf(f, model.fields[f] ?? { kind: 'string' })}`)}::text ILIKE ${likeText(w)}`), sql` OR `)})`), sql` AND `) : sql`true`;
  const exact: RawBuilder<unknown>[] = [];
  const loose: RawBuilder<unknown>[] = [];
  const names: RawBuilder<unknown>[] = [];
  for (const { key, field, target } of parents) {
    const fk = sql.ref(`${alias}.${columnOf(key, field)}`);
    const name = sql.ref(`r.${displayColumn(target)}`);
    const table = sql.table(target.table);
    const heads = words.map((_, i) => words.slice(0, i + 1).join(' ').toLowerCase());
    names.push(sql`EXISTS (SELECT 1 FROM ${table} r WHERE ${scopeOf(target, 'r')} AND lower(${name}::text) = ANY(${heads}::text[]))`);
    for (let i = 1; i <= words.length; i++) {
      const head = words.slice(0, i).join(' ');
      exact.push(sql`(${fk} IN (SELECT r.id FROM ${table} r WHERE ${scopeOf(target, 'r')} AND lower(${name}::text) = ${head.toLowerCase()}) AND ${rest(words.slice(i))})`);
      if (i < words.length) loose.push(sql`(${fk} IN (SELECT r.id FROM ${table} r WHERE ${scopeOf(target, 'r')} AND ${name}::text ILIKE ${likeText(head)}) AND ${rest(words.slice(i))})`);
    }
  }
  const looseOr = loose.length ? sql` OR ${sql.join(loose, sql` OR `)}` : sql``;
  return sql`(${sql.join(exact, sql` OR `)} OR (NOT (${sql.join(names, sql` OR `)}) AND (${ownText}${looseOr})))`;
}

export function parseListQuery(
  model: ModelDef,
  query: QueryValues,
  alias: string,
  custom: Record<string, CustomFilter> = {},
  extraReserved: ReadonlySet<string> = new Set(),
  quickSearch?: QuickSearch,
  scopeOf?: ScopeOf,
): ListQuery {
  const errors = new ErrorCollector();
  const where: RawBuilder<unknown>[] = [];

  for (const [param, raw] of Object.entries(query)) {
    const values = valuesOf(raw);
    if (RESERVED_PARAMS.has(param) || extraReserved.has(param)) continue;
    const cfColumn = param.startsWith('cf_') ? customFieldsColumn(model) : null;
    if (cfColumn) {
      // `cf_<name>=<value>`: the custom field's value as text (`true`, `42`, `gold`); `null` for unset.
      const name = param.slice(3);
      if (!/^[a-z0-9_]{1,50}$/.test(name)) {
        errors.add(param, 'A custom-field filter is cf_<name>, the name in lower-case letters, digits and underscores.');
        continue;
      }
      const conditions = values.map((v) => (v === 'null' ? sql`NOT (${sql.ref(`${alias}.${cfColumn}`)} ? ${name})` : sql`${sql.ref(`${alias}.${cfColumn}`)} ->> ${name} = ${v}`));
      if (conditions.length) where.push(sql`(${sql.join(conditions, sql` OR `)})`);
      continue;
    }
    if (custom[param]) {
      const result = custom[param](values, alias);
      if ('error' in result && typeof result.error === 'string') errors.add(param, result.error);
      else where.push(result as RawBuilder<unknown>);
      continue;
    }
    const sep = param.lastIndexOf('__');
    const key = sep > 0 && LOOKUPS.has(param.slice(sep + 2)) ? param.slice(0, sep) : param;
    const lookup = (key === param ? 'exact' : param.slice(sep + 2)) as Lookup;
    const baseKey = key.endsWith('_id') && model.fields[key.slice(0, -3)]?.kind === 'fk' ? key.slice(0, -3) : key;
    const field = filterableField(model, baseKey);
    if (!field) {
      errors.add(param, `Unknown filter. ${model.labelPlural} can be filtered by their fields, q, tag, ordering, limit and offset.`);
      continue;
    }
    if (values.length === 0) continue;
    const condition = fieldCondition(model, baseKey, field, lookup, values, alias, errors, param);
    if (condition) where.push(condition);
  }

  const q = valuesOf(query.q)[0];
  let qOrder: RawBuilder<unknown> | undefined;
  if (q !== undefined) {
    if (q.length > 200) errors.add('q', 'Ensure the search text has no more than 200 characters.');
    else if (q.trim() !== '') {
      const escaped = `%${q.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const fields = model.searchFields.length ? model.searchFields : [model.displayField];
      const text = sql.join(fields.map((f) => sql`${sql.ref(`${alias}.${columnOf(f, model.fields[f] ?? { kind: 'string' })}`)}::text ILIKE ${escaped}`), sql` OR `);
      const quick = quickSearch?.(q.trim(), alias);
      const ownText = quick ? sql`${text} OR ${quick.where}` : text;
      where.push(parentQualifiedSearch(model, q.trim(), alias, ownText, scopeOf) ?? sql`(${ownText})`);
      qOrder = quick?.orderBy;
    }
  }

  const tags = valuesOf(query.tag);
  if (tags.length) {
    // Every named tag must be present (AND), as users narrowing by tags expect.
    for (const tag of tags) {
      where.push(sql`EXISTS (SELECT 1 FROM tagged_items ti JOIN tags tg ON tg.id = ti.tag_id
        WHERE ti.object_type = ${model.name} AND ti.object_id = ${sql.ref(`${alias}.id`)} AND ${isUuid(tag) ? sql`tg.id = ${tag}` : sql`tg.slug = ${tag}`})`);
    }
  }

  const parsed = parseOrdering(model, valuesOf(query.ordering)[0], alias, errors);
  const quickOrder = qOrder !== undefined && query.ordering === undefined;
  const orderBy = quickOrder ? sql`${qOrder}, ${parsed.orderBy}` : parsed.orderBy;
  const limit = parsePaging('limit', valuesOf(query.limit)[0], DEFAULT_LIMIT, 1, MAX_LIMIT, errors);
  const offset = parsePaging('offset', valuesOf(query.offset)[0], 0, 0, Number.MAX_SAFE_INTEGER, errors);
  errors.throwIfAny();
  return { where, orderBy, orderKeys: quickOrder ? null : parsed.keys, limit, offset };
}

function fieldCondition(
  model: ModelDef,
  key: string,
  field: FieldDef,
  lookup: Lookup,
  rawValues: string[],
  alias: string,
  errors: ErrorCollector,
  param: string,
): RawBuilder<unknown> | null {
  const values = lookup === 'in' ? rawValues.flatMap((v) => v.split(',')) : rawValues;
  if (field.kind === 'm2m') {
    const t = field.through!;
    const ids = values.filter((v) => isUuid(v));
    if (ids.length !== values.length) {
      errors.add(param, 'Expected ids.');
      return null;
    }
    return sql`EXISTS (SELECT 1 FROM ${sql.table(t.table)} j WHERE ${sql.ref(`j.${t.from}`)} = ${sql.ref(`${alias}.id`)} AND ${sql.ref(`j.${t.to}`)} = ANY(${ids}::uuid[]))`;
  }
  if (field.kind === 'generic_m2m') {
    const t = field.through!;
    const ids = values.filter((v) => isUuid(v));
    if (ids.length !== values.length) {
      errors.add(param, 'Expected ids.');
      return null;
    }
    const fixed = Object.entries(field.generic!.fixed).map(([c, v]) => sql`AND ${sql.ref(`j.${c}`)} = ${v}`);
    return sql`EXISTS (SELECT 1 FROM ${sql.table(t.table)} j WHERE ${sql.ref(`j.${t.from}`)} = ${sql.ref(`${alias}.id`)} AND ${sql.ref(`j.${t.to}`)} = ANY(${ids}::uuid[]) ${sql.join(fixed, sql` `)})`;
  }
  if (!isColumnField(field)) {
    errors.add(param, 'This field cannot be filtered.');
    return null;
  }
  const col = sql.ref(`${alias}.${columnOf(key, field)}`);
  if (lookup === 'isnull' || lookup === 'empty') {
    const parsed = parseFilterValue(key, field, values[0]!, lookup);
    if ('error' in parsed) {
      errors.add(param, parsed.error);
      return null;
    }
    if (lookup === 'isnull') return parsed.value ? sql`${col} IS NULL` : sql`${col} IS NOT NULL`;
    return parsed.value ? sql`(${col} IS NULL OR ${col}::text = '')` : sql`(${col} IS NOT NULL AND ${col}::text <> '')`;
  }
  if (field.kind === 'fk') {
    if (lookup !== 'exact' && lookup !== 'n' && lookup !== 'in') {
      errors.add(param, 'Relations can be filtered by id or slug only (exact, __n, __in).');
      return null;
    }
    const ors = sql.join(values.map((v) => relationCondition(col, field, v)), sql` OR `);
    return lookup === 'n' ? sql`NOT (${ors})` : sql`(${ors})`;
  }
  if (['ic', 'nic', 'isw', 'iew', 'ie'].includes(lookup)) {
    if (!TEXT_KINDS.has(field.kind) && field.kind !== 'inet' && field.kind !== 'cidr') {
      errors.add(param, `The ${lookup} lookup applies to text fields only.`);
      return null;
    }
    const conds = values.map((v) => textCondition(col, lookup, v));
    return lookup === 'nic' ? sql`(${sql.join(conds, sql` AND `)})` : sql`(${sql.join(conds, sql` OR `)})`;
  }
  if (['gt', 'gte', 'lt', 'lte'].includes(lookup) && !RANGE_KINDS.has(field.kind)) {
    errors.add(param, `The ${lookup} lookup applies to numbers and dates only.`);
    return null;
  }
  const parsed: unknown[] = [];
  for (const v of values) {
    const p = parseFilterValue(key, field, v, lookup);
    if ('error' in p) {
      errors.add(param, p.error);
      return null;
    }
    parsed.push(p.value);
  }
  const cast = field.kind === 'inet' || field.kind === 'cidr' ? sql`::inet` : sql``;
  if (field.kind === 'string_list' || field.kind === 'integer_list') {
    const conds = parsed.map((p) => sql`${p} = ANY(${col})`);
    return lookup === 'n' ? sql`NOT (${sql.join(conds, sql` OR `)})` : sql`(${sql.join(conds, sql` OR `)})`;
  }
  const op = { exact: sql`=`, in: sql`=`, n: sql`<>`, gt: sql`>`, gte: sql`>=`, lt: sql`<`, lte: sql`<=` }[lookup as 'exact'];
  if (lookup === 'n') return sql`(${sql.join(parsed.map((p) => sql`${col} IS DISTINCT FROM ${p}${cast}`), sql` AND `)})`;
  return sql`(${sql.join(parsed.map((p) => sql`${col} ${op} ${p}${cast}`), sql` OR `)})`;
}

/**
 * The stored natural-order key of a column (`eth2` before `eth10`): `<column>_natural`, kept by the database as
 * cairn_natural_key(<column>) (migration 0024) and indexed with the model's default ordering.
 */
export function naturalKeyColumn(column: string): string {
  return `${column}_natural`;
}

/** The field `ordering=<key>` sorts by: a column of the model's own table, not a secret or JSON value. */
export function orderableField(model: ModelDef, key: string): FieldDef | undefined {
  const field = model.fields[key] ?? auditField(model, key);
  if (!field || !isColumnField(field) || field.secret || field.writeOnly || field.kind === 'json') return undefined;
  return field;
}

function parseOrdering(model: ModelDef, raw: string | undefined, alias: string, errors: ErrorCollector): { orderBy: RawBuilder<unknown>; keys: OrderKey[] } {
  const items = raw ? raw.split(',').map((s) => s.trim()).filter(Boolean) : model.defaultOrdering;
  const parts: RawBuilder<unknown>[] = [];
  const keys: OrderKey[] = [];
  for (const item of items) {
    const desc = item.startsWith('-');
    const key = desc ? item.slice(1) : item;
    const field = orderableField(model, key);
    if (!field) {
      errors.add('ordering', `Cannot order by "${key}".`);
      continue;
    }
    const column = field.naturalOrder ? naturalKeyColumn(columnOf(key, field)) : columnOf(key, field);
    const ref = sql.ref(`${alias}.${column}`);
    keys.push({ column, desc, nullable: !!field.nullable });
    if (!field.nullable) {
      // NOT NULL (test/fk-indexes.test.ts): the NULLS clause changes nothing, and without it an index on
      // the column can serve the ordering (PostgreSQL's ascending indexes keep NULLs last).
      parts.push(desc ? sql`${ref} DESC` : sql`${ref} ASC`);
      continue;
    }
    parts.push(desc ? sql`${ref} DESC NULLS LAST` : sql`${ref} ASC NULLS FIRST`);
  }
  // The id (time-ordered) breaks ties so pages never overlap.
  parts.push(sql`${sql.ref(`${alias}.id`)} ASC`);
  keys.push({ column: 'id', desc: false, nullable: false });
  return { orderBy: sql.join(parts), keys };
}

function parsePaging(name: string, raw: string | undefined, fallback: number, min: number, max: number, errors: ErrorCollector): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    errors.add(name, `Expected a whole number from ${min} to ${max === Number.MAX_SAFE_INTEGER ? 'any' : max}.`);
    return fallback;
  }
  return Number(raw);
}
