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
import { allModels, columnOf, displayColumn, displayColumns, isColumnField, requireModel } from '../registry.ts';
import { scopeCondition } from '../access.ts';
import { briefExtensionsOf, DISPLAY_SEPARATOR } from './serialize.ts';

/** SQLSTATE of a value PostgreSQL will not write as JavaScript would (migration 0053). */
export const NOT_EXACT = 'CJ001';

/** The page's origin (`scheme://host`), a CTE of the page's statement (pageJsonSql), for a json form's urls. */
export const ORIGIN = sql.ref('cairn_origin.cj_origin');

/**
 * The list path of the model a text expression names (`dcim.device` → `/api/dcim/devices/`), for urls of objects
 * whose model is a value (a cable's far end); NULL for a name no model has.
 */
export function modelPathSql(name: RawBuilder<unknown>): RawBuilder<unknown> {
  const arms = allModels().map((m) => sql`WHEN ${sql.lit(m.name)} THEN ${sql.lit(m.path)}`);
  return sql`(CASE ${name} ${sql.join(arms, sql` `)} END)`;
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

/**
 * A display whose parents nest without a bound is one expression only where the nesting is a model's key to
 * itself (a location in a location: selfParentSql walks it); a cycle through other models is not.
 */
function displayUnsupported(model: ModelDef, withParents: boolean, seen: ReadonlySet<ModelDef> = new Set()): string | null {
  if (!withParents || !model.displayParent?.length) return null;
  if (seen.has(model)) return `${model.name}'s display: parents of unbounded depth`;
  const self = model.displayParent.filter((key) => model.fields[key]!.target === model.name);
  if (self.length > 1 || (self.length && model.displayField === 'id')) return `${model.name}'s display: parents of unbounded depth`;
  const next = new Set(seen).add(model);
  for (const key of model.displayParent) {
    if (self.includes(key)) continue;
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

/**
 * A field's value as text, as String() of what the driver reads: an inet as its output function writes it (no /32
 * on a host; `::text` always writes the mask).
 */
function textSql(model: ModelDef, key: string, alias: string): RawBuilder<unknown> {
  const field = model.fields[key];
  const column = ref(alias, field ? columnOf(key, field) : key);
  return field?.kind === 'inet' ? sql`abbrev(${column})` : sql`${column}::text`;
}

/** displayOf (serialize.ts) in SQL: the display field (and qualifier), else its kind and number, else its id. */
function ownDisplaySql(model: ModelDef, alias: string): RawBuilder<unknown> {
  const fallback = model.numbered
    ? sql`CASE WHEN ${ref(alias, 'numid')} IS NOT NULL THEN ${`${model.label.charAt(0).toUpperCase()}${model.label.slice(1)} #`} || ${ref(alias, 'numid')} ELSE ${ref(alias, 'id')}::text END`
    : sql`${ref(alias, 'id')}::text`;
  if (model.displayField === 'id') return fallback;
  const value = textSql(model, model.displayField, alias);
  let shown: RawBuilder<unknown> = value;
  if (model.displayQualifier) {
    const q = textSql(model, model.displayQualifier, alias);
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
  const parent = parentDisplaySql(ctx, model, alias);
  const joined = model.displayField === 'id' ? parent : sql`${parent} || ${DISPLAY_SEPARATOR} || ${own}`;
  return sql`coalesce(${joined}, ${own})`;
}

const columnRef = (model: ModelDef, key: string, alias: string) => ref(alias, columnOf(key, model.fields[key]!));

/** The first of the model's display parent keys set at `alias` is `key` (displayParentOf). */
function firstSetIs(model: ModelDef, key: string, alias: string): RawBuilder<unknown> {
  const keys = model.displayParent!;
  const before = keys.slice(0, keys.indexOf(key)).map((k) => sql`${columnRef(model, k, alias)} IS NULL`);
  return sql.join([...before, sql`${columnRef(model, key, alias)} IS NOT NULL`], sql` AND `);
}

/**
 * The display of the parent the row at `alias` is shown in (the first of `keys` set), or NULL when it has none in
 * scope.
 */
function parentDisplaySql(ctx: RequestContext, model: ModelDef, alias: string, keys: readonly string[] = model.displayParent!): RawBuilder<unknown> {
  const arms = keys.map((key) => {
    const target = requireModel(model.fields[key]!.target!);
    const column = columnRef(model, key, alias);
    if (target === model) return sql`WHEN ${column} IS NOT NULL THEN ${selfParentSql(ctx, model, key, alias)}`;
    const p = nextAlias();
    return sql`WHEN ${column} IS NOT NULL THEN (SELECT ${displaySql(ctx, target, p)} FROM ${sql.table(target.table)} ${sql.raw(p)}
      WHERE ${ref(p, 'id')} = ${column} AND ${scopeCondition(ctx, target, p)})`;
  });
  return sql`CASE ${sql.join(arms, sql` `)} END`;
}

/**
 * The display of the row's parent of its own model (a location's parent location), its ancestors' in front: the
 * chain walked up while each row is shown in its own model's parent, then the display of what the topmost is shown
 * in (a site), as displaysOf builds it level by level. NULL when the parent is not in scope.
 */
function selfParentSql(ctx: RequestContext, model: ModelDef, key: string, alias: string): RawBuilder<unknown> {
  const table = sql.table(model.table);
  const up = nextAlias();
  const p = nextAlias();
  const top = nextAlias();
  const step = (from: string) => sql`${ref(p, 'id')} = ${columnRef(model, key, from)} AND ${scopeCondition(ctx, model, p)}`;
  // Where the topmost row of the chain is shown: its first key set, unless that is the key to its own model (a
  // parent out of scope: nothing in front).
  const others = model.displayParent!.filter((k) => k !== key);
  const tail = others.length
    ? sql`(SELECT CASE WHEN ${firstSetIs(model, key, top)} THEN NULL ELSE ${parentDisplaySql(ctx, model, top, others)} END
        FROM ${sql.raw(up)} ${sql.raw(top)} ORDER BY ${ref(top, 'cj_depth')} DESC LIMIT 1)`
    : sql`NULL`;
  return sql`(WITH RECURSIVE ${sql.raw(up)} AS (
      SELECT ${sql.raw(p)}.*, 0 AS cj_depth FROM ${table} ${sql.raw(p)} WHERE ${step(alias)}
      UNION ALL
      SELECT ${sql.raw(p)}.*, ${ref(up, 'cj_depth')} + 1 FROM ${sql.raw(up)} JOIN ${table} ${sql.raw(p)} ON ${step(up)}
        WHERE ${firstSetIs(model, key, up)} AND ${ref(up, 'cj_depth')} < 1000)
    SELECT concat_ws(${DISPLAY_SEPARATOR}, ${tail}, string_agg(${ownDisplaySql(model, up)}, ${DISPLAY_SEPARATOR} ORDER BY ${ref(up, 'cj_depth')} DESC))
      FROM ${sql.raw(up)} HAVING count(*) > 0)`;
}

/** An object of `entries` (key, SQL value) as row_to_json writes it: no spaces, keys in this order. */
export function jsonObjectSql(entries: ReadonlyArray<readonly [string, RawBuilder<unknown>]>): RawBuilder<unknown> {
  return objectOf(entries);
}

function objectOf(entries: ReadonlyArray<readonly [string, RawBuilder<unknown>]>): RawBuilder<unknown> {
  const seen = new Set<string>();
  const columns = entries.filter(([key]) => !seen.has(key) && seen.add(key)).map(([key, value]) => sql`${value} AS ${sql.id(key)}`);
  const o = nextAlias();
  return sql`(SELECT row_to_json(${sql.raw(o)}) FROM (SELECT ${sql.join(columns)}) ${sql.raw(o)})`;
}

/** A brief of the `model` row at `alias` (briefObject), with its display's parents where `withParents`. */
function briefSql(ctx: RequestContext, model: ModelDef, alias: string, withParents: boolean, display?: RawBuilder<unknown>): RawBuilder<unknown> {
  const entries: Array<readonly [string, RawBuilder<unknown>]> = [
    ['id', ref(alias, 'id')],
    ['url', urlSql(model, alias)],
    ['display', display ?? (withParents ? displaySql(ctx, model, alias) : ownDisplaySql(model, alias))],
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

/** The brief of the `model` row at `alias` without its display's parents (serialize.ts briefObject of its row). */
export function plainBriefJsonSql(ctx: RequestContext, model: ModelDef, alias: string): RawBuilder<unknown> {
  return briefSql(ctx, model, alias, false);
}

/** A JSON array of `items` (each a json value) in `order`, `[]` when there are none. */
export function jsonArraySql(item: RawBuilder<unknown>, order: RawBuilder<unknown>, from: RawBuilder<unknown>): RawBuilder<unknown> {
  return arrayOf(item, order, from);
}

function arrayOf(item: RawBuilder<unknown>, order: RawBuilder<unknown>, from: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(SELECT ('[' || coalesce(string_agg((${item})::text, ',' ORDER BY ${order}), '') || ']')::json ${from})`;
}

/** A stored value as outputValue (serialize.ts) leaves it. */
export function jsonValueSql(kind: FieldDef['kind'], column: RawBuilder<unknown>): RawBuilder<unknown> {
  return valueSql({ kind }, column);
}

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
 * A page of `model`'s API objects as PostgreSQL writes them, serializeRows's objects key for key: one statement
 * over `page` (a SELECT of the page's rows, `t.*` with the page's count as __cairn_count and its order as cj_ord).
 * It answers one row per object (`n`: the count, `j`: the object's text), in the page's order.
 *
 * Shaped as serializeRows reads a page rather than row by row: each foreign key's briefs are written once per
 * distinct target (a CTE over the page's ids, joined back), a link list once per page (grouped by owner), and the
 * object's display reads its parent's from the brief it already has. Written as correlated subqueries per row, a
 * page of 50 devices cost PostgreSQL 5-7 ms against the server's 4-5 ms.
 */
export function pageJsonSql(ctx: RequestContext, model: ModelDef, page: RawBuilder<unknown>, origin: string): RawBuilder<{ n: string | null; j: string }> {
  const why = objectJsonUnsupported(model);
  if (why) throw new Error(`pageJsonSql: ${model.name} is written by serializeRows (${why})`);
  aliases = 0;
  const ctes: RawBuilder<unknown>[] = [sql`page AS (${page})`, sql`cairn_origin AS (SELECT ${origin}::text AS cj_origin)`];
  const joins: RawBuilder<unknown>[] = [];
  const entries: Array<readonly [string, RawBuilder<unknown>]> = [['id', sql`page.id`]];
  if (model.numbered) entries.push(['numid', sql`page.numid`]);
  entries.push(['url', urlSql(model, 'page')]);
  const displayAt = entries.length;
  /** Each foreign key's CTE, by key: its rows carry the brief's display (d) and text (j). */
  const briefs = new Map<string, string>();
  for (const [key, field] of Object.entries(model.fields)) {
    if (field.writeOnly || field.secret) continue;
    const column = columnOf(key, field);
    if (field.kind === 'fk') {
      const target = requireModel(field.target!);
      const b = nextAlias();
      const r = nextAlias();
      const q = nextAlias();
      ctes.push(sql`${sql.raw(b)} AS (SELECT ${ref(q, 'id')}, ${ref(q, 'cj_display')} AS d, ${briefSql(ctx, target, q, true, ref(q, 'cj_display'))} AS j
        FROM (SELECT ${sql.raw(r)}.*, ${displaySql(ctx, target, r)} AS cj_display FROM ${sql.table(target.table)} ${sql.raw(r)}
          WHERE ${ref(r, 'id')} IN (SELECT ${ref('page', column)} FROM page) AND ${scopeCondition(ctx, target, r)}) ${sql.raw(q)}, cairn_origin)`);
      joins.push(sql`LEFT JOIN ${sql.raw(b)} ON ${ref(b, 'id')} = ${ref('page', column)}`);
      briefs.set(key, b);
      entries.push([key, ref(b, 'j')]);
    } else if (field.kind === 'm2m' || field.kind === 'tags') {
      const m = nextAlias();
      ctes.push(sql`${sql.raw(m)} AS (${field.kind === 'm2m' ? m2mGroupsSql(ctx, field) : tagGroupsSql(ctx, model)})`);
      joins.push(sql`LEFT JOIN ${sql.raw(m)} ON ${ref(m, 'owner')} = page.id`);
      entries.push([key, sql`coalesce(${ref(m, 'j')}, '[]'::json)`]);
    } else if (isColumnField(field)) entries.push([key, valueSql(field, ref('page', column))]);
  }
  entries.splice(displayAt, 0, ['display', pageDisplaySql(ctx, model, briefs)]);
  for (const [key, c] of Object.entries(model.computed)) entries.push([key, c.json!(ctx, 'page')]);
  if (model.timestamps) entries.push(['created', valueSql({ kind: 'datetime' }, sql`page.created`)], ['last_updated', valueSql({ kind: 'datetime' }, sql`page.last_updated`)]);
  const seen = new Set<string>();
  const columns = entries.filter(([key]) => !seen.has(key) && seen.add(key)).map(([key, value]) => sql`${value} AS ${sql.id(key)}`);
  // The count read once (an InitPlan), the objects in the page's order: x keeps it (no join above it).
  return sql<{ n: string | null; j: string }>`WITH ${sql.join(ctes)}
    SELECT (SELECT page.__cairn_count FROM page LIMIT 1)::text AS n, row_to_json(x)::text AS j
    FROM (SELECT ${sql.join(columns)} FROM page CROSS JOIN cairn_origin ${sql.join(joins, sql` `)} ORDER BY page.cj_ord) x`;
}

/**
 * The page object's display: its own, behind its parent's, which the brief of that foreign key already carries
 * (displaysFromParents); a display parent that is not a foreign key shown on the object is read per row.
 */
function pageDisplaySql(ctx: RequestContext, model: ModelDef, briefs: ReadonlyMap<string, string>): RawBuilder<unknown> {
  if (!model.displayParent?.length || !model.displayParent.every((key) => briefs.has(key))) return displaySql(ctx, model, 'page');
  const own = ownDisplaySql(model, 'page');
  const arms = model.displayParent.map((key) => sql`WHEN ${columnRef(model, key, 'page')} IS NOT NULL THEN ${ref(briefs.get(key)!, 'd')}`);
  const parent = sql`CASE ${sql.join(arms, sql` `)} END`;
  const joined = model.displayField === 'id' ? parent : sql`${parent} || ${DISPLAY_SEPARATOR} || ${own}`;
  return sql`coalesce(${joined}, ${own})`;
}

/** A many-to-many field's briefs of the page's rows, grouped by owner (groupBriefs's lists: no display parents, in their ids' order). */
function m2mGroupsSql(ctx: RequestContext, field: FieldDef): RawBuilder<unknown> {
  const t = field.through!;
  const target = requireModel(field.target!);
  const j = nextAlias();
  const r = nextAlias();
  return sql`SELECT ${ref(j, t.from)} AS owner, ('[' || string_agg((${briefSql(ctx, target, r, false)})::text, ',' ORDER BY ${ref(r, 'id')}) || ']')::json AS j
    FROM ${sql.table(t.table)} ${sql.raw(j)} JOIN ${sql.table(target.table)} ${sql.raw(r)} ON ${ref(r, 'id')} = ${ref(j, t.to)} AND ${scopeCondition(ctx, target, r)}
    CROSS JOIN cairn_origin WHERE ${ref(j, t.from)} IN (SELECT id FROM page) GROUP BY ${ref(j, t.from)}`;
}

/** The tags of the page's rows, grouped by owner, by name (in name order, as serializeRows ranks them). */
function tagGroupsSql(ctx: RequestContext, model: ModelDef): RawBuilder<unknown> {
  const j = nextAlias();
  const r = nextAlias();
  return sql`SELECT ${ref(j, 'object_id')} AS owner, ('[' || string_agg((${briefSql(ctx, requireModel('extras.tag'), r, false)})::text, ',' ORDER BY ${ref(r, 'name')}) || ']')::json AS j
    FROM tagged_items ${sql.raw(j)} JOIN tags ${sql.raw(r)} ON ${ref(r, 'id')} = ${ref(j, 'tag_id')} CROSS JOIN cairn_origin
    WHERE ${ref(j, 'object_type')} = ${model.name} AND ${ref(j, 'object_id')} IN (SELECT id FROM page) GROUP BY ${ref(j, 'object_id')}`;
}
