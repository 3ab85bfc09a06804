// Stored rows → API objects. A page's relations (foreign keys' briefs, many-to-many links, tags) are loaded in one
// statement for the whole page, each brief with its display parent and its extensions where they can be read
// beside it (deeper display parents cost one more per level), so a list costs the same few queries whatever its
// length and however many relations its model has. Computed values read beside the page's rows come with them.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../../db/types.ts';
import type { RequestContext } from '../context.ts';
import type { ComputedField, FieldDef, ModelDef } from '../registry.ts';
import { columnOf, displayColumn, displayColumns, isColumnField, requireModel } from '../registry.ts';
import { scopeCondition } from '../access.ts';
import { isoTime } from '../iso-time.ts';
import { noteRegistration } from '../provenance.ts';

export type Row = Record<string, unknown>;
export type ApiObject = Record<string, unknown>;

export interface SerializeOptions {
  /** `scheme://host` for absolute urls; '' gives paths. */
  origin: string;
  /** Related objects carry their `numid` too (the NetBox dialect's ids, src/netbox-api/): no lookup of its own. */
  briefNumids?: boolean;
}

export function objectUrl(model: ModelDef, id: unknown, origin: string): string {
  return `${origin}${model.path}${String(id)}/`;
}

export function displayOf(model: ModelDef, row: Row): string {
  const value = model.displayField === 'id' ? null : row[displayColumn(model)];
  if (value !== null && value !== undefined && value !== '') {
    const qualifier = model.displayQualifier ? row[displayColumns(model)[1]!] : null;
    return qualifier === null || qualifier === undefined || qualifier === '' ? String(value) : `${String(value)} (${String(qualifier)})`;
  }
  // Nothing to call it by (a cable without a label, a result row): its kind and number, never a raw id.
  if (row.numid !== null && row.numid !== undefined) return `${model.label.charAt(0).toUpperCase()}${model.label.slice(1)} #${String(row.numid)}`;
  return String(row.id);
}

/** Between a parent's display and its child's: `ams1-leaf1 › Ethernet1`. */
export const DISPLAY_SEPARATOR = ' › ';

/**
 * The display text of rows, with their display parent's in front where their model names one (see
 * ModelDef.displayParent): one query per parent level for the whole set, whatever its size.
 * Parents are read within the caller's scope when there is a caller (a parent is in its child's tenant).
 */
export async function displaysOf(db: Kysely<DB>, ctx: RequestContext | null, model: ModelDef, rows: Row[]): Promise<Map<string, string>> {
  return (await displaysOfSets(db, ctx, [{ model, rows }]))[0]!;
}

/** displaysOf for several models' rows at once: one query per parent level for all of them. */
async function displaysOfSets(db: Kysely<DB>, ctx: RequestContext | null, sets: Array<{ model: ModelDef; rows: Row[] }>): Promise<Array<Map<string, string>>> {
  const out = sets.map(({ model, rows }) => new Map(rows.map((r) => [String(r.id), displayOf(model, r)])));
  // Each row with a display parent: which parent, in which model.
  const parentOf = sets.map(() => new Map<string, { target: ModelDef; id: string }>());
  const wanted = new Map<ModelDef, Set<string>>();
  sets.forEach(({ model, rows }, i) => {
    if (!model.displayParent?.length) return;
    for (const row of rows) {
      const parent = displayParentOf(model, row);
      if (!parent) continue;
      parentOf[i]!.set(String(row.id), parent);
      wanted.set(parent.target, (wanted.get(parent.target) ?? new Set()).add(parent.id));
    }
  });
  if (wanted.size === 0) return out;
  const parentSets = [...wanted].map(([target, ids]) => ({ target, ids: [...ids] }));
  const parentRows = await briefRows(db, ctx, parentSets);
  const parentDisplays = new Map<string, string>();
  // A parent's own parent came with it where it could (briefBranch); deeper ones cost a query per level.
  const queried = parentSets.map((p, k) => ({ model: p.target, rows: parentReadWithBrief(p.target) ? [] : parentRows[k]! }));
  for (const shown of await displaysOfSets(db, ctx, queried)) for (const [id, display] of shown) parentDisplays.set(id, display);
  parentSets.forEach((p, k) => {
    if (parentReadWithBrief(p.target)) for (const row of parentRows[k]!) parentDisplays.set(String(row.id), displayWithParent(p.target, row));
  });
  sets.forEach(({ model }, i) => {
    for (const [id, parent] of parentOf[i]!) out[i]!.set(id, withParent(model, out[i]!.get(id)!, parentDisplays.get(parent.id)));
  });
  return out;
}

/** The columns a brief object and its display text are made of (see briefObject, displayOf, displaysOf). */
export function briefColumns(model: ModelDef): string[] {
  const cols = new Set(['id']);
  if (model.numbered) cols.add('numid');
  if (model.displayField !== 'id') for (const c of displayColumns(model)) cols.add(c);
  if ('slug' in model.fields) cols.add('slug');
  if ('color' in model.fields && model.name === 'extras.tag') cols.add('color');
  for (const key of model.displayParent ?? []) cols.add(columnOf(key, model.fields[key]!));
  return [...cols];
}

/**
 * One branch of a relation statement: rows as JSON arrays of `columns` (which keeps numbers numbers), read by
 * `query` (a `SELECT <g>, json_build_array(…)` of its own). See relationRows.
 */
interface Branch {
  columns: string[];
  query: (g: number) => RawBuilder<unknown>;
}

const jsonOf = (exprs: RawBuilder<unknown>[]) => sql`json_build_array(${sql.join(exprs)})`;
const columnsOf = (alias: string, columns: string[]) => columns.map((c) => sql.ref(`${alias}.${c}`));

/** The brief rows of `target` by id, within the caller's scope when there is a caller. */
function briefBranch(ctx: RequestContext | null, target: ModelDef, ids: string[]): Branch {
  const columns = briefColumns(target);
  const scope = ctx ? scopeCondition(ctx, target, 'r') : sql`true`;
  const nested = parentReadWithBrief(target);
  const extensions = briefExtensions.get(target.name) ?? [];
  return {
    columns: [...columns, ...(nested ? [PARENT_COLUMN] : []), ...extensions.map((_e, k) => extensionColumn(k))],
    query: (g) => sql`SELECT ${sql.lit(g)}::int AS g, ${jsonOf([
      ...columnsOf('r', columns),
      ...(nested ? [parentBriefJson(ctx, target, 'r')] : []),
      ...extensions.map((e) => e.select('r')),
    ])} AS v
      FROM ${sql.table(target.table)} r WHERE r.id = ANY(${ids}::uuid[]) AND ${scope}`,
  };
}

/** The brief column carrying a display parent's own brief columns (see parentBriefJson). */
const PARENT_COLUMN = '__parent';

/**
 * Whether `model`'s display parent is read inside its brief's own branch instead of a query per level: when it has
 * one and no model it may point at has one of its own (a rack's site, a port's device; not a location's parent
 * location, which may nest deeper).
 */
function parentReadWithBrief(model: ModelDef): boolean {
  return !!model.displayParent?.length && model.displayParent.every((key) => !requireModel(model.fields[key]!.target!).displayParent?.length);
}

/** The brief columns of the display parent of the row at `alias` (the first of its keys set, as displaysOf picks it). */
function parentBriefJson(ctx: RequestContext | null, model: ModelDef, alias: string): RawBuilder<unknown> {
  const arms = model.displayParent!.map((key) => {
    const target = requireModel(model.fields[key]!.target!);
    const id = sql.ref(`${alias}.${columnOf(key, model.fields[key]!)}`);
    return sql`WHEN ${id} IS NOT NULL THEN (SELECT ${jsonOf(columnsOf('pp', briefColumns(target)))} FROM ${sql.table(target.table)} pp
      WHERE pp.id = ${id} AND ${ctx ? scopeCondition(ctx, target, 'pp') : sql`true`})`;
  });
  return sql`CASE ${sql.join(arms, sql` `)} END`;
}

/** The display parent a row points at: the first of its model's displayParent keys that is set, or null. */
function displayParentOf(model: ModelDef, row: Row): { key: string; target: ModelDef; id: string } | null {
  for (const key of model.displayParent ?? []) {
    const field = model.fields[key]!;
    const id = row[columnOf(key, field)];
    if (typeof id === 'string') return { key, target: requireModel(field.target!), id };
  }
  return null;
}

/**
 * A row's display with its parent's in front, or its own when the parent is not shown (not found in the caller's
 * scope). A model without a name of its own (an OSPF interface, a VTEP) is shown as its parent: never as its id.
 */
function withParent(model: ModelDef, own: string, shown: string | undefined): string {
  if (shown === undefined) return own;
  return model.displayField === 'id' ? shown : `${shown}${DISPLAY_SEPARATOR}${own}`;
}

/** displaysOf for one row read by briefBranch with its parent's brief columns: the same text, no query. */
function displayWithParent(model: ModelDef, row: Row): string {
  const parent = displayParentOf(model, row);
  const values = row[PARENT_COLUMN];
  const shown = parent && Array.isArray(values) ? displayOf(parent.target, rowOf(briefColumns(parent.target), values)) : undefined;
  return withParent(model, displayOf(model, row), shown);
}

/**
 * Several branches' rows in one statement (UNION ALL): a list page's relations cost one round trip instead of one
 * per related model or link table. Under load, sending a query was a quarter of the server's time.
 */
async function relationRows(db: Kysely<DB>, branches: ReadonlyArray<Branch | null>): Promise<Row[][]> {
  const out: Row[][] = branches.map(() => []);
  const parts: RawBuilder<unknown>[] = [];
  branches.forEach((b, g) => {
    if (b) parts.push(b.query(g));
  });
  if (parts.length === 0) return out;
  const { rows } = await sql<{ g: number; v: unknown[] }>`${sql.join(parts, sql` UNION ALL `)}`.execute(db);
  for (const { g, v } of rows) out[g]!.push(rowOf(branches[g]!.columns, v));
  return out;
}

/** A row of `columns` from a JSON array of their values, in that order. */
function rowOf(columns: readonly string[], values: readonly unknown[]): Row {
  const row: Row = {};
  for (let k = 0; k < columns.length; k++) row[columns[k]!] = values[k];
  return row;
}

/** The brief columns of several models' rows by id, in one statement. */
function briefRows(db: Kysely<DB>, ctx: RequestContext | null, sets: ReadonlyArray<{ target: ModelDef; ids: string[] }>): Promise<Row[][]> {
  return relationRows(db, sets.map(({ target, ids }) => (ids.length ? briefBranch(ctx, target, ids) : null)));
}

/** The brief form of a related row: enough to show and link it. */
export function briefObject(model: ModelDef, row: Row, origin: string, withNumid = false): ApiObject {
  const out: ApiObject = { id: row.id, url: objectUrl(model, row.id, origin), display: displayOf(model, row) };
  if (withNumid && row.numid !== undefined) out.numid = row.numid;
  // NetBox's brief VLAN: {id, url, display, vid, name}.
  if (model.displayQualifier) out[model.displayQualifier] = row[displayColumns(model)[1]!];
  if (model.displayField !== 'id') out[model.displayField] = row[displayColumn(model)];
  if ('slug' in model.fields) out.slug = row.slug;
  if ('color' in model.fields && model.name === 'extras.tag') out.color = row.color;
  return out;
}

/**
 * A brief object of `model` read inside another statement: a JSON array of its brief columns from the row at
 * `alias` (see briefFromJson). json_build_array keeps numbers numbers and prints other values as their text.
 */
export function briefJson(model: ModelDef, alias: string): RawBuilder<unknown> {
  return jsonOf(columnsOf(alias, briefColumns(model)));
}

/** The brief object of what briefJson read, or null for SQL NULL. */
export function briefFromJson(model: ModelDef, values: unknown, origin: string): ApiObject | null {
  return Array.isArray(values) ? briefObject(model, rowOf(briefColumns(model), values), origin) : null;
}

function outputValue(value: unknown, kind: string): unknown {
  if (value instanceof Date) return isoTime(value);
  if (kind === 'decimal' && typeof value === 'string') return Number(value);
  return value ?? null;
}

/**
 * A value added to the brief objects of one model wherever they are nested (a platform's `eol` inside a device),
 * read in the briefs' own statement: one select-list expression over the brief's row, and what it sets on the
 * brief. Installed by the domain that owns the value, so the core never imports it.
 */
export interface BriefExtension {
  select(alias: string): RawBuilder<unknown>;
  apply(brief: ApiObject, selected: unknown): void;
}
const briefExtensions = new Map<string, BriefExtension[]>();

export function addBriefExtension(modelName: string, extension: BriefExtension): void {
  noteRegistration(modelName, 'brief extension', []);
  briefExtensions.set(modelName, [...(briefExtensions.get(modelName) ?? []), extension]);
}

/** The brief column carrying the value of `model`'s k-th brief extension. */
const extensionColumn = (k: number) => `__extension_${k}`;

/**
 * Brief objects of rows read by briefBranch, with their display parents (read with them, or a query per deeper
 * level) and their extensions.
 */
async function finishBriefs(db: Kysely<DB>, ctx: RequestContext, sets: ReadonlyArray<{ target: ModelDef; rows: Row[] }>, origin: string, withNumid = false): Promise<Array<Map<string, ApiObject>>> {
  const out = sets.map(({ target, rows }) => new Map(rows.map((row) => [String(row.id), briefObject(target, row, origin, withNumid)])));
  // Display parents came with the rows where they could (a rack's site); deeper ones cost a query per level.
  const shown = await displaysOfSets(db, ctx, sets.map((s) => ({ model: s.target, rows: s.target.displayParent && !parentReadWithBrief(s.target) ? s.rows : [] })));
  sets.forEach(({ target, rows }, i) => {
    if (parentReadWithBrief(target)) for (const row of rows) out[i]!.get(String(row.id))!.display = displayWithParent(target, row);
    else for (const [id, display] of shown[i]!) out[i]!.get(id)!.display = display;
  });
  sets.forEach(({ target, rows }, i) => {
    (briefExtensions.get(target.name) ?? []).forEach((extension, k) => {
      for (const row of rows) extension.apply(out[i]!.get(String(row.id))!, row[extensionColumn(k)]);
    });
  });
  return out;
}

/** Loads brief objects of several models' rows by id (one statement per display level), within the caller's scope. */
async function loadBriefSets(db: Kysely<DB>, ctx: RequestContext, sets: ReadonlyArray<{ target: ModelDef; ids: string[] }>, origin: string, withNumid = false): Promise<Array<Map<string, ApiObject>>> {
  const rows = await briefRows(db, ctx, sets);
  return finishBriefs(db, ctx, sets.map((s, i) => ({ target: s.target, rows: rows[i]! })), origin, withNumid);
}

/** The brief extensions of `target` read beside a link's brief columns (see groupBriefs), when asked for. */
function linkExtensions(target: ModelDef, withExtensions: boolean): { columns: string[]; selects: RawBuilder<unknown>[] } {
  const extensions = withExtensions ? (briefExtensions.get(target.name) ?? []) : [];
  return { columns: extensions.map((_e, k) => extensionColumn(k)), selects: extensions.map((e) => e.select('r')) };
}

/** A many-to-many field's links from `ownerIds`: the owner, then the target's brief columns. */
function m2mBranch(ctx: RequestContext, field: FieldDef, ownerIds: string[], withExtensions = false): Branch {
  const t = field.through!;
  const target = requireModel(field.target!);
  const columns = briefColumns(target);
  const ext = linkExtensions(target, withExtensions);
  return {
    columns: ['owner', ...columns, ...ext.columns],
    // Each target looked up by its key (LATERAL): as a join, PostgreSQL hashed every VLAN of the database for a
    // page's few links.
    query: (g) => sql`SELECT ${sql.lit(g)}::int AS g, ${jsonOf([sql.ref(`j.${t.from}`), ...columnsOf('r', columns), ...ext.selects])} AS v
      FROM ${sql.table(t.table)} j CROSS JOIN LATERAL (SELECT * FROM ${sql.table(target.table)} r
        WHERE r.id = ${sql.ref(`j.${t.to}`)} AND ${scopeCondition(ctx, target, 'r')} OFFSET 0) r
      WHERE ${sql.ref(`j.${t.from}`)} = ANY(${ownerIds}::uuid[])`,
  };
}

/** The tags of `ownerIds` (objects of `model`), each with its rank by name: the order a row shows them in. */
function tagsBranch(model: ModelDef, ownerIds: string[], withExtensions = false): Branch {
  const tag = requireModel('extras.tag');
  const columns = briefColumns(tag);
  const ext = linkExtensions(tag, withExtensions);
  return {
    columns: ['owner', 'rank', ...columns, ...ext.columns],
    query: (g) => sql`SELECT ${sql.lit(g)}::int AS g, ${jsonOf([sql.ref('ti.object_id'), sql`row_number() OVER (ORDER BY r.name)`, ...columnsOf('r', columns), ...ext.selects])} AS v
      FROM tagged_items ti JOIN tags r ON r.id = ti.tag_id WHERE ti.object_type = ${model.name} AND ti.object_id = ANY(${ownerIds}::uuid[])`,
  };
}

/**
 * displaysOf for a page whose display parents' briefs are already loaded (a display parent is one of the model's
 * foreign keys, whose briefs carry their own display): no query.
 */
function displaysFromParents(model: ModelDef, rows: Row[], related: ReadonlyMap<string, Map<string, ApiObject>>): Map<string, string> {
  const out = new Map<string, string>();
  for (const row of rows) {
    const parent = displayParentOf(model, row);
    const shown = parent ? related.get(parent.key)!.get(parent.id)?.display : undefined;
    out.set(String(row.id), withParent(model, displayOf(model, row), shown === undefined ? undefined : String(shown)));
  }
  return out;
}

/** The column a computed value read beside its row arrives in (never a real column: those do not start with `__`). */
export function inlineComputedColumn(key: string): string {
  return `__computed_${key}`;
}

/**
 * Select-list entries (each after a comma) reading every computed value of `model` that can be read beside its row
 * (ComputedField.inline), for rows of `alias`: serializeRows then builds them from the rows instead of a query each.
 * A device page's primary address, config template and compliance were three more round trips.
 */
export function inlineComputedSelect(ctx: RequestContext, model: ModelDef, alias: string): RawBuilder<unknown> {
  const parts = Object.entries(model.computed).flatMap(([key, c]) => (c.inline ? [sql`, ${c.inline.select(ctx, alias)} AS ${sql.ref(inlineComputedColumn(key))}`] : []));
  return parts.length ? sql.join(parts, sql``) : sql``;
}

export async function serializeRows(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, rows: Row[], opts: SerializeOptions): Promise<ApiObject[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => String(r.id));
  const related = new Map<string, Map<string, ApiObject>>();
  const many = new Map<string, Map<string, ApiObject[]>>();
  const plan = outputPlan(model);

  // Every foreign key's briefs, many-to-many link and tag in one statement; display parents one more per level.
  const fks: Array<{ key: string; target: ModelDef }> = [];
  const links: string[] = [];
  const branches: Array<Branch | null> = [];
  for (const step of plan) {
    if (step.kind !== 'fk') continue;
    const targetIds = [...new Set(rows.map((r) => r[step.column]).filter((v): v is string => typeof v === 'string'))];
    const target = requireModel(model.fields[step.key]!.target!);
    fks.push({ key: step.key, target });
    branches.push(targetIds.length ? briefBranch(ctx, target, targetIds) : null);
  }
  for (const step of plan) {
    if (step.fieldKind === 'm2m') {
      links.push(step.key);
      branches.push(m2mBranch(ctx, model.fields[step.key]!, ids, opts.briefNumids));
    } else if (step.fieldKind === 'tags') {
      links.push(step.key);
      branches.push(tagsBranch(model, ids, opts.briefNumids));
    }
  }
  const loaded = await relationRows(db, branches);
  const fkBriefs = await finishBriefs(db, ctx, fks.map(({ target }, i) => ({ target, rows: loaded[i]! })), opts.origin, opts.briefNumids);
  fks.forEach(({ key }, i) => related.set(key, fkBriefs[i]!));
  links.forEach((key, k) => {
    const field = model.fields[key]!;
    const found = loaded[fks.length + k]!;
    // Tags in name order (their rank); other links as the database returns them.
    if (field.kind === 'tags') found.sort((a, b) => Number(a.rank) - Number(b.rank));
    many.set(key, groupBriefs(field.kind === 'tags' ? requireModel('extras.tag') : requireModel(field.target!), found, opts.origin, opts.briefNumids));
  });
  for (const step of plan) {
    if (step.fieldKind === 'generic_m2m') many.set(step.key, await loadGenericLinks(db, ctx, model.fields[step.key]!, ids, opts.origin, opts.briefNumids));
  }

  // Read beside the rows (inlineComputedSelect) where the page's statement asked for it; else a query of its own.
  const computed: Array<{ key: string; column: string; inline: NonNullable<ComputedField['inline']> | null; loaded: Map<string, unknown> | null }> = [];
  for (const [key, c] of Object.entries(model.computed)) {
    const column = inlineComputedColumn(key);
    if (c.inline && column in rows[0]!) computed.push({ key, column, inline: c.inline, loaded: null });
    else computed.push({ key, column, inline: null, loaded: await c.load({ db, ctx, rows, origin: opts.origin }) });
  }
  const displays = !model.displayParent
    ? null
    : model.displayParent.every((key) => related.has(key))
      ? displaysFromParents(model, rows, related)
      : await displaysOf(db, ctx, model, rows);

  const sources = plan.map((step) => (step.kind === 'fk' ? related.get(step.key)! : step.kind === 'many' ? many.get(step.key)! : null));
  return rows.map((row) => {
    const id = String(row.id);
    const out: ApiObject = { id: row.id };
    if ('numid' in row) out.numid = row.numid;
    out.url = objectUrl(model, row.id, opts.origin);
    out.display = displays?.get(id) ?? displayOf(model, row);
    for (let i = 0; i < plan.length; i++) {
      const step = plan[i]!;
      if (step.kind === 'fk') {
        const target = row[step.column];
        out[step.key] = typeof target === 'string' ? ((sources[i] as Map<string, ApiObject>).get(target) ?? null) : null;
      } else if (step.kind === 'many') out[step.key] = (sources[i] as Map<string, ApiObject[]>).get(id) ?? [];
      else out[step.key] = outputValue(row[step.column], step.fieldKind);
    }
    for (const c of computed) out[c.key] = (c.inline ? c.inline.value(row[c.column], opts.origin) : c.loaded!.get(id)) ?? null;
    if ('created' in row) out.created = outputValue(row.created, 'datetime');
    if ('last_updated' in row) out.last_updated = outputValue(row.last_updated, 'datetime');
    return out;
  });
}

/** One field of a model's API objects: a foreign key's brief, a list of links, or a column's value. */
interface OutputStep {
  key: string;
  kind: 'fk' | 'many' | 'value';
  column: string;
  fieldKind: string;
}
const outputPlans = new WeakMap<ModelDef, OutputStep[]>();

/** The fields a model's API objects carry, in order: worked out once per model rather than for every row. */
function outputPlan(model: ModelDef): OutputStep[] {
  let plan = outputPlans.get(model);
  if (plan) return plan;
  plan = [];
  for (const [key, field] of Object.entries(model.fields)) {
    if (field.writeOnly || field.secret) continue;
    if (field.kind === 'fk') plan.push({ key, kind: 'fk', column: columnOf(key, field), fieldKind: field.kind });
    else if (field.kind === 'm2m' || field.kind === 'generic_m2m' || field.kind === 'tags') plan.push({ key, kind: 'many', column: '', fieldKind: field.kind });
    else if (isColumnField(field)) plan.push({ key, kind: 'value', column: columnOf(key, field), fieldKind: field.kind });
  }
  outputPlans.set(model, plan);
  return plan;
}

/**
 * The rows a generic_m2m field of `ownerIds` points at, in NetBox's shape ({object_type, object_id, object}) with
 * the brief object's keys beside it: one query for the links, then one per target model, each in the caller's
 * scope (a row the caller may not read is left out).
 */
async function loadGenericLinks(db: Kysely<DB>, ctx: RequestContext, field: FieldDef, ownerIds: string[], origin: string, withNumid = false): Promise<Map<string, ApiObject[]>> {
  const t = field.through!;
  const g = field.generic!;
  const fixed = Object.entries(g.fixed).map(([c, v]) => sql`${sql.ref(`j.${c}`)} = ${v}`);
  const { rows: links } = await sql<{ owner: string; type: string; id: string }>`SELECT ${sql.ref(`j.${t.from}`)} AS owner, ${sql.ref(`j.${g.typeColumn}`)} AS type,
      ${sql.ref(`j.${t.to}`)} AS id FROM ${sql.table(t.table)} j
    WHERE ${sql.ref(`j.${t.from}`)} = ANY(${ownerIds}::uuid[]) ${fixed.length ? sql`AND ${sql.join(fixed, sql` AND `)}` : sql``}`.execute(db);
  const byType = new Map<string, string[]>();
  for (const l of links) byType.set(l.type, [...(byType.get(l.type) ?? []), l.id]);
  const briefs = new Map<string, ApiObject>();
  const types = [...byType.keys()];
  const loaded = await loadBriefSets(db, ctx, types.map((type) => ({ target: requireModel(type), ids: byType.get(type)! })), origin, withNumid);
  types.forEach((type, i) => {
    for (const [id, b] of loaded[i]!) briefs.set(`${type}:${id}`, b);
  });
  const out = new Map<string, ApiObject[]>();
  for (const l of links) {
    const b = briefs.get(`${l.type}:${l.id}`);
    if (!b) continue;
    out.set(l.owner, [...(out.get(l.owner) ?? []), { ...b, object_type: l.type, object_id: l.id, object: b }]);
  }
  // Interfaces first, then by display, so an end reads the same on every request.
  for (const list of out.values()) list.sort((x, y) => String(x.object_type).localeCompare(String(y.object_type)) || String(x.display).localeCompare(String(y.display), 'en', { numeric: true }));
  return out;
}

/** Link briefs by owner; with their numbers (the NetBox dialect's reads), with the extensions their branch read too. */
function groupBriefs(target: ModelDef, links: Row[], origin: string, withNumid = false): Map<string, ApiObject[]> {
  const grouped = new Map<string, ApiObject[]>();
  const extensions = withNumid ? (briefExtensions.get(target.name) ?? []) : [];
  for (const link of links) {
    const owner = String(link.owner);
    const list = grouped.get(owner) ?? [];
    const brief = briefObject(target, link, origin, withNumid);
    extensions.forEach((extension, k) => extension.apply(brief, link[extensionColumn(k)]));
    list.push(brief);
    grouped.set(owner, list);
  }
  return grouped;
}

