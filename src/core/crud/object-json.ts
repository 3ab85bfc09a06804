// A model's API object written by PostgreSQL: one SQL expression, compiled from the same registry definition as
// serializeRows (serialize.ts), that yields the object's JSON text byte for byte as the server would write it. A
// list page is then one statement whose text goes to the socket without being parsed into objects and turned back
// into text (read.ts, listPageText).
//
// What it cannot write exactly it does not write: a model with a value only JavaScript computes (a computed field
// without a `json` form, a cable's ends, a brief extension without one, a display chain of unbounded depth) is
// written by serializeRows, and so is any page holding a value PostgreSQL's functions cannot be sure of (migration
// 0053 raises CJ001 for a number JavaScript would round; the caller catches it).
import { sql, type RawBuilder } from 'kysely';
import type { RequestContext } from '../context.ts';
import type { FieldDef, ModelDef } from '../registry.ts';
import { columnOf, displayColumn, displayColumns, isColumnField, requireModel } from '../registry.ts';
import { scopeCondition } from '../access.ts';
import { briefExtensionsOf, DISPLAY_SEPARATOR } from './serialize.ts';

/** SQLSTATE of a value PostgreSQL will not write as JavaScript would (migration 0053). */
export const NOT_EXACT = 'CJ001';

/** The page's origin (`scheme://host`), a column of the statement's own (see originSource). */
const ORIGIN = sql.ref('cairn_origin.o');

/** The FROM item every object expression reads its origin from: `, (SELECT $1::text AS o) cairn_origin`. */
export function originSource(origin: string): RawBuilder<unknown> {
  return sql`(SELECT ${origin}::text AS o) cairn_origin`;
}

/** Why `model`'s objects are written by serializeRows, or null when PostgreSQL writes them. */
export function objectJsonUnsupported(model: ModelDef): string | null {
  return (unsupported.has(model) ? unsupported.get(model) : computeUnsupported(model)) ?? null;
}
const unsupported = new WeakMap<ModelDef, string | null>();

function computeUnsupported(model: ModelDef): string | null {
  let why: string | null = null;
  for (const [key, field] of Object.entries(model.fields)) {
    if (field.writeOnly || field.secret) continue;
    if (field.kind === 'generic_m2m') why ??= `${key}: a list of objects of several models`;
    if (field.kind === 'fk') why ??= briefUnsupported(requireModel(field.target!));
    if (field.kind === 'm2m') why ??= displayUnsupported(requireModel(field.target!), false);
  }
  for (const [key, c] of Object.entries(model.computed)) if (!c.json) why ??= `${key}: computed in JavaScript`;
  why ??= displayUnsupported(model, true);
  unsupported.set(model, why);
  return why;
}

function briefUnsupported(target: ModelDef): string | null {
  if (briefExtensionsOf(target.name).some((e) => e.json === undefined)) return `${target.name}'s brief: an extension computed in JavaScript`;
  return displayUnsupported(target, true);
}

/** A display whose parents nest without a bound (a location in a location) is not one expression. */
function displayUnsupported(model: ModelDef, withParents: boolean, seen: ReadonlySet<ModelDef> = new Set()): string | null {
  if (!withParents || !model.displayParent?.length) return null;
  if (seen.has(model)) return `${model.name}'s display: parents of unbounded depth`;
  const next = new Set(seen).add(model);
  for (const key of model.displayParent) {
    const why = displayUnsupported(requireModel(model.fields[key]!.target!), true, next);
    if (why) return why;
  }
  return null;
}

/**
 * A fresh table alias for a nested read (never one a caller's alias or an inline read uses), counted from the start
 * of each object's compile: the same model compiles to the same text, one named statement (db/statement-names.ts).
 */
let aliases = 0;
const nextAlias = () => `cj${++aliases}`;

const ref = (alias: string, column: string) => sql.ref(`${alias}.${column}`);

/** `url`: the origin, the model's path, the id. */
function urlSql(model: ModelDef, alias: string): RawBuilder<unknown> {
  return sql`${ORIGIN} || ${model.path} || ${ref(alias, 'id')} || '/'`;
}

/** displayOf (serialize.ts) in SQL: the display field (and qualifier), else its kind and number, else its id. */
function ownDisplaySql(model: ModelDef, alias: string): RawBuilder<unknown> {
  const fallback = model.numbered
    ? sql`CASE WHEN ${ref(alias, 'numid')} IS NOT NULL THEN ${`${model.label.charAt(0).toUpperCase()}${model.label.slice(1)} #`} || ${ref(alias, 'numid')} ELSE ${ref(alias, 'id')}::text END`
    : sql`${ref(alias, 'id')}::text`;
  if (model.displayField === 'id') return fallback;
  const value = sql`${ref(alias, displayColumn(model))}::text`;
  let shown: RawBuilder<unknown> = value;
  if (model.displayQualifier) {
    const q = sql`${ref(alias, displayColumns(model)[1]!)}::text`;
    shown = sql`${value} || CASE WHEN ${q} IS NULL OR ${q} = '' THEN '' ELSE ' (' || ${q} || ')' END`;
  }
  return sql`CASE WHEN ${value} IS NOT NULL AND ${value} <> '' THEN ${shown} ELSE ${fallback} END`;
}

/**
 * The display text with its parents' in front (displaysOf): the first parent key set, read in the caller's scope;
 * a parent not found leaves the row's own text. A model named by no field of its own is shown as its parent.
 */
function displaySql(ctx: RequestContext, model: ModelDef, alias: string): RawBuilder<unknown> {
  const own = ownDisplaySql(model, alias);
  if (!model.displayParent?.length) return own;
  const arms = model.displayParent.map((key) => {
    const field = model.fields[key]!;
    const target = requireModel(field.target!);
    const p = nextAlias();
    const column = ref(alias, columnOf(key, field));
    return sql`WHEN ${column} IS NOT NULL THEN (SELECT ${displaySql(ctx, target, p)} FROM ${sql.table(target.table)} ${sql.raw(p)}
      WHERE ${ref(p, 'id')} = ${column} AND ${scopeCondition(ctx, target, p)})`;
  });
  const parent = sql`CASE ${sql.join(arms, sql` `)} END`;
  const joined = model.displayField === 'id' ? parent : sql`${parent} || ${DISPLAY_SEPARATOR} || ${own}`;
  return sql`coalesce(${joined}, ${own})`;
}

/** An object of `entries` (key, SQL value) as row_to_json writes it: no spaces, keys in this order. */
function objectOf(entries: ReadonlyArray<readonly [string, RawBuilder<unknown>]>): RawBuilder<unknown> {
  const seen = new Set<string>();
  const columns = entries.filter(([key]) => !seen.has(key) && seen.add(key)).map(([key, value]) => sql`${value} AS ${sql.id(key)}`);
  const o = nextAlias();
  return sql`(SELECT row_to_json(${sql.raw(o)}) FROM (SELECT ${sql.join(columns)}) ${sql.raw(o)})`;
}

/** A brief of the `model` row at `alias` (briefObject), with its display's parents where `withParents`. */
function briefSql(ctx: RequestContext, model: ModelDef, alias: string, withParents: boolean): RawBuilder<unknown> {
  const entries: Array<readonly [string, RawBuilder<unknown>]> = [
    ['id', ref(alias, 'id')],
    ['url', urlSql(model, alias)],
    ['display', withParents ? displaySql(ctx, model, alias) : ownDisplaySql(model, alias)],
  ];
  if (model.displayQualifier) entries.push([model.displayQualifier, ref(alias, displayColumns(model)[1]!)]);
  if (model.displayField !== 'id') entries.push([model.displayField, ref(alias, displayColumn(model))]);
  if ('slug' in model.fields) entries.push(['slug', ref(alias, 'slug')]);
  if ('color' in model.fields && model.name === 'extras.tag') entries.push(['color', ref(alias, 'color')]);
  if (withParents) {
    for (const extension of briefExtensionsOf(model.name)) {
      const own = extension.json!(alias);
      if (own) entries.push([own.key, own.value]);
    }
  }
  return objectOf(entries);
}

/** The brief a foreign key points at, in the caller's scope, or null. */
function fkSql(ctx: RequestContext, field: FieldDef, column: RawBuilder<unknown>): RawBuilder<unknown> {
  const target = requireModel(field.target!);
  const r = nextAlias();
  return sql`(SELECT ${briefSql(ctx, target, r, true)} FROM ${sql.table(target.table)} ${sql.raw(r)}
    WHERE ${ref(r, 'id')} = ${column} AND ${scopeCondition(ctx, target, r)})`;
}

/** A JSON array of `items` (each a json value) in `order`, `[]` when there are none. */
function arrayOf(item: RawBuilder<unknown>, order: RawBuilder<unknown>, from: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(SELECT ('[' || coalesce(string_agg((${item})::text, ',' ORDER BY ${order}), '') || ']')::json ${from})`;
}

/** A many-to-many field's briefs (no display parents, as groupBriefs writes them), in their ids' order. */
function m2mSql(ctx: RequestContext, field: FieldDef, alias: string): RawBuilder<unknown> {
  const t = field.through!;
  const target = requireModel(field.target!);
  const j = nextAlias();
  const r = nextAlias();
  return arrayOf(briefSql(ctx, target, r, false), ref(r, 'id'), sql`FROM ${sql.table(t.table)} ${sql.raw(j)} JOIN ${sql.table(target.table)} ${sql.raw(r)}
    ON ${ref(r, 'id')} = ${ref(j, t.to)} AND ${scopeCondition(ctx, target, r)} WHERE ${ref(j, t.from)} = ${ref(alias, 'id')}`);
}

/** An object's tags' briefs, by name. */
function tagsSql(ctx: RequestContext, model: ModelDef, alias: string): RawBuilder<unknown> {
  const tag = requireModel('extras.tag');
  const j = nextAlias();
  const r = nextAlias();
  return arrayOf(briefSql(ctx, tag, r, false), ref(r, 'name'), sql`FROM tagged_items ${sql.raw(j)} JOIN tags ${sql.raw(r)} ON ${ref(r, 'id')} = ${ref(j, 'tag_id')}
    WHERE ${ref(j, 'object_type')} = ${model.name} AND ${ref(j, 'object_id')} = ${ref(alias, 'id')}`);
}

/** A stored value as outputValue (serialize.ts) leaves it. */
function valueSql(field: FieldDef, column: RawBuilder<unknown>): RawBuilder<unknown> {
  switch (field.kind) {
    case 'decimal':
      return sql`cairn_json_number(${column})`;
    case 'datetime':
      return sql`cairn_json_time(${column})`;
    case 'json':
    case 'custom_fields':
      return sql`CASE WHEN ${column} = '{}'::jsonb THEN '{}'::json ELSE cairn_json_compact(${column}) END`;
    default:
      return column;
  }
}

/**
 * The API object of the `model` row at `alias` as a json value: serializeRows's object, key for key. Only for
 * models objectJsonUnsupported accepts; the statement must have originSource among its FROM items.
 */
export function objectJsonSql(ctx: RequestContext, model: ModelDef, alias: string): RawBuilder<unknown> {
  const why = objectJsonUnsupported(model);
  if (why) throw new Error(`objectJsonSql: ${model.name} is written by serializeRows (${why})`);
  aliases = 0;
  const entries: Array<readonly [string, RawBuilder<unknown>]> = [['id', ref(alias, 'id')]];
  if (model.numbered) entries.push(['numid', ref(alias, 'numid')]);
  entries.push(['url', urlSql(model, alias)], ['display', displaySql(ctx, model, alias)]);
  for (const [key, field] of Object.entries(model.fields)) {
    if (field.writeOnly || field.secret) continue;
    if (field.kind === 'fk') entries.push([key, fkSql(ctx, field, ref(alias, columnOf(key, field)))]);
    else if (field.kind === 'm2m') entries.push([key, m2mSql(ctx, field, alias)]);
    else if (field.kind === 'tags') entries.push([key, tagsSql(ctx, model, alias)]);
    else if (isColumnField(field)) entries.push([key, valueSql(field, ref(alias, columnOf(key, field)))]);
  }
  for (const [key, c] of Object.entries(model.computed)) entries.push([key, c.json!(ctx, alias)]);
  if (model.timestamps) entries.push(['created', valueSql({ kind: 'datetime' }, ref(alias, 'created'))], ['last_updated', valueSql({ kind: 'datetime' }, ref(alias, 'last_updated'))]);
  return objectOf(entries);
}
