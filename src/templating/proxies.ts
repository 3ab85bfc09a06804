// Row proxies: what a template sees of registry rows. A proxy answers only through the engine's host-object
// protocol and only with what the registry allows (fields minus secrets, listed computed values, relations inside
// the caller's tenant and view permission, `get_<field>_display()`); there is no JavaScript object behind an
// attribute for a template to walk.
//
// Data without N+1: rows come in groups (a chunk of the list, or every row one relation loaded for a chunk).
// Touching a foreign key, a computed value or a related list on one row of a group loads it for the whole group
// in one query, and the rows that load returns form the next group, so a template's query count depends on the
// relations it walks, not on the number of rows.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import pg from 'pg';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import type { FieldDef, ModelDef } from '../core/registry.ts';
import { allModels, columnOf, displayColumn, displayColumns, genericReversesOf, isColumnField, requireModel } from '../core/registry.ts';
import { modelAllows, scopeCondition, TENANT_COLUMN, tenantOf } from '../core/access.ts';
import { displayOf, inlineComputedColumn, type Row } from '../core/crud/serialize.ts';
import { choiceOptions } from '../core/crud/field-values.ts';
import { compileLookup, lookupTarget, splitLookup, type Operand } from '../core/lookups.ts';
import { naturalKeyColumn } from '../core/crud/list-query.ts';
import { Markup, PyFloat, TEMPLATE_OBJECT, TemplateError, UNDEFINED, isTemplateObject, type AttributeReads, type ItemReads, type TemplateObject } from './engine/index.ts';
import { CLOSED_NAME_FIELDS, isClosedModel, readableComputed } from './subjects.ts';

/** Tunables; an object so tests can lower them. */
export const proxyLimits = {
  /** Related rows of one model a render keeps for its later chunks (see RenderSession.relatedRows). */
  relatedRowsKept: 10_000,
};

/** Beyond this many keys read, custom field values are fetched whole (the narrowing SQL grows with the keys). */
const MAX_NARROWED_KEYS = 20;

/** timestamptz: read as text by render queries and parsed only when a template reads it (see selectList). */
const TIMESTAMPTZ_OID = 1184;
const parseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ_OID) as (text: string) => Date;

interface TableColumns {
  names: readonly string[];
  /** Column names of type timestamptz. */
  timestamps: ReadonlySet<string>;
  /** Column names of type text or varchar: read as they are stored, the text PostgreSQL takes them back as. */
  texts: ReadonlySet<string>;
}

const TEXT_OIDS: ReadonlySet<number> = new Set([25 /* text */, 1043 /* varchar */]);

/**
 * Columns of every table, read once per database handle. Render queries name their columns instead of `t.*` so
 * timestamptz columns come back as text: the pg type parsers are global, and parsing two timestamps per row into
 * Dates nobody prints was a measured share of a 50,000-row render. Migrations run before a server starts
 * serving, so a handle's catalog does not go stale; a table missing from it falls back to `*`.
 */
const catalogs = new WeakMap<Kysely<DB>, Promise<ReadonlyMap<string, TableColumns>>>();

function loadCatalog(db: Kysely<DB>): Promise<ReadonlyMap<string, TableColumns>> {
  let catalog = catalogs.get(db);
  if (!catalog) {
    catalog = sql<{ t: string; c: string; ty: number }>`SELECT c.relname AS t, a.attname AS c, a.atttypid::int AS ty
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY c.relname, a.attnum`
      .execute(db)
      .then(({ rows }) => {
        const out = new Map<string, { names: string[]; timestamps: Set<string>; texts: Set<string> }>();
        for (const r of rows) {
          let t = out.get(r.t);
          if (!t) out.set(r.t, (t = { names: [], timestamps: new Set(), texts: new Set() }));
          t.names.push(r.c);
          if (r.ty === TIMESTAMPTZ_OID) t.timestamps.add(r.c);
          if (TEXT_OIDS.has(r.ty)) t.texts.add(r.c);
        }
        return out;
      });
    // A failed read is not cached: the next render asks again.
    catalog.catch(() => catalogs.delete(db));
    catalogs.set(db, catalog);
  }
  return catalog;
}

/** A stored timestamp as the ISO text templates see, whether the row holds a Date or timestamptz text. */
function isoTimestamp(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return parseTimestamptz(value).toISOString();
  return value;
}

/** Who renders, against which database: the fence every query of a render carries. */
export class RenderSession {
  private readonly viewable = new Map<string, boolean>();
  private tenantProxy: NameProxy | null | undefined;
  private catalog: ReadonlyMap<string, TableColumns> | null = null;
  private readonly selects = new Map<string, RawBuilder<unknown>>();

  constructor(
    readonly db: Kysely<DB>,
    readonly ctx: RequestContext,
  ) {}

  /** Reads the column catalog (once per database handle); call before building queries with selectList. */
  async prepare(): Promise<void> {
    this.catalog ??= await loadCatalog(this.db);
  }

  /** Per model: the attribute accesses seen in this render (their columns are noted in `wanted`). */
  private readonly seenAccess = new Map<string, Map<string, Access>>();
  /** Per model: the columns templates read so far, or null once something needs whole rows. */
  private readonly wanted = new Map<string, Set<string> | null>();

  /** This render's attribute table for `model`: one Map lookup per attribute read, the first one noted. */
  accessTable(model: ModelDef): Map<string, Access> {
    let table = this.seenAccess.get(model.name);
    if (!table) this.seenAccess.set(model.name, (table = new Map()));
    return table;
  }

  firstAccess(model: ModelDef, name: string, table: Map<string, Access>): Access {
    const a = accessOf(model, name);
    this.note(model, a);
    if (a !== NO_ACCESS) table.set(name, a);
    return a;
  }

  /** Per model: computed values read beside the rows of a list (ComputedField.inline), once known to be read. */
  private readonly inlineWanted = new Map<string, Set<string>>();

  /**
   * What the template's source may read of `model`'s rows, noted before the first chunk is fetched: that chunk then
   * carries only those columns (and computed values it reads inline) instead of whole rows. A name the source
   * hides (a computed attribute name) makes every name count as mentioned; one missed still reads right, filled in.
   */
  expectReads(model: ModelDef, reads: AttributeReads): void {
    const table = this.accessTable(model);
    for (const key of Object.keys(model.fields)) {
      if (reads.mentions(key)) this.firstAccess(model, key, table);
      else if (reads.mentions(`get_${key}_display`)) this.firstAccess(model, key, table);
    }
    for (const key of ['id', 'numid', 'created', 'last_updated', 'tenant', ...readableComputed(model)]) if (reads.mentions(key)) this.firstAccess(model, key, table);
    for (const key of readableComputed(model)) if (model.computed[key]!.inline && reads.mentions(key)) this.noteInline(model, key);
    if (!this.wanted.has(model.name)) this.wanted.set(model.name, new Set());
  }

  private noteInline(model: ModelDef, key: string): void {
    let keys = this.inlineWanted.get(model.name);
    if (!keys) this.inlineWanted.set(model.name, (keys = new Set()));
    keys.add(key);
  }

  /** `, <expr> AS "__computed_<key>"` for each computed value list chunks of `model` carry, or nothing. */
  inlineSelect(model: ModelDef, alias: string): RawBuilder<unknown> {
    const keys = this.inlineWanted.get(model.name);
    if (!keys?.size) return sql``;
    return sql`, ${sql.join([...keys].map((k) => sql`${model.computed[k]!.inline!.select(this.ctx, alias)} AS ${sql.ref(inlineComputedColumn(k))}`))}`;
  }

  private note(model: ModelDef, a: Access): void {
    if (a.k === 'computed') {
      // Read beside the rows, the value needs none of the loader's columns (a chunk without it is filled in).
      if (model.computed[a.key]!.inline) return this.noteInline(model, a.key);
      const columns = computedColumns(model, a.key);
      if (columns === null) this.widen(model);
      else for (const c of columns) this.noteColumn(model, c);
    } else if (a.column !== null) this.noteColumn(model, a.column);
  }

  noteColumn(model: ModelDef, column: string): void {
    let cols = this.wanted.get(model.name);
    if (cols === null) return;
    if (!cols) this.wanted.set(model.name, (cols = new Set()));
    cols.add(column);
  }

  widen(model: ModelDef): void {
    this.wanted.set(model.name, null);
  }

  /**
   * The select list for a chunk of a list of `model`: only the columns the template's source mentions (see
   * expectReads) and any it has read since, plus id and display text. A 50,000-row render
   * otherwise parses and collects every column of every row; a column first read later is filled in per chunk
   * (RowGroup.fill). Null when whole rows are needed.
   */
  narrowSelect(model: ModelDef, alias: string): RawBuilder<unknown> | null {
    const cols = this.wanted.get(model.name);
    const table = this.catalog?.get(model.table);
    if (!cols || !table) return null;
    // The display column always: a row printed as text ({{ d }}) answers synchronously and cannot fill in.
    const keep = new Set(['id', ...displayColumns(model), ...cols]);
    const names = table.names.filter((c) => keep.has(c));
    return sql.join(names.map((c) => this.columnSql(model.table, table, alias, c)));
  }

  /**
   * Whether the rows of the next chunk of a list of `model` carry `column` as its text, the value a query can take
   * back as a parameter of the column's type (see narrowSelect): a text column the chunk selects.
   */
  carriesText(model: ModelDef, column: string): boolean {
    const table = this.catalog?.get(model.table);
    if (!table?.texts.has(column)) return false;
    const cols = this.wanted.get(model.name);
    if (!cols) return true; // whole rows
    return cols.has(column) || column === displayColumn(model);
  }

  /** Per `table.column` of custom field values: the keys the template reads (see useReads). */
  private readonly customFieldKeys = new Map<string, readonly string[]>();
  private lastCustomTable = '';
  private lastCustomColumn = '';
  private lastCustomKeys: readonly string[] | undefined = undefined;

  /**
   * Narrows custom field values to the keys the template reads, when its source shows that it reads nothing else
   * of them (`d.custom_fields.support_tier`): a 50,000-row render otherwise parses every row's whole JSON object,
   * a measured tenth of the render's CPU. Call before building queries.
   */
  useReads(reads: AttributeReads): void {
    this.customFieldKeys.clear();
    this.lastCustomTable = '';
    for (const model of allModels()) {
      for (const [key, field] of Object.entries(model.fields)) {
        if (field.kind !== 'custom_fields') continue;
        const keys = reads.keysBelow(key);
        if (keys && keys.size <= MAX_NARROWED_KEYS) this.customFieldKeys.set(`${model.table}.${columnOf(key, field)}`, [...keys]);
      }
    }
    this.selects.clear();
  }

  /** One column of a render query: timestamptz as text, custom field values narrowed to the keys read. */
  private columnSql(tableName: string, table: TableColumns, alias: string, c: string): RawBuilder<unknown> {
    const ref = sql.ref(`${alias}.${c}`);
    if (table.timestamps.has(c)) return sql`${ref}::text AS ${sql.ref(c)}`;
    const keys = this.customFieldKeys.get(`${tableName}.${c}`);
    if (!keys) return ref;
    // A key that is absent stays absent (it reads as undefined, not None); anything but an object is left whole.
    // One key comes as text in the form customFields() reads: a text value as is, without JSON to parse. Several
    // keys come as JSON, parsed once by the driver (a value read per key would parse it once per read).
    if (keys.length === 1) {
      const k = keys[0]!;
      return sql`CASE WHEN jsonb_typeof(${ref}) <> 'object' THEN 'W' || ${ref}::text WHEN NOT ${ref} ? ${k}::text THEN ''
        WHEN jsonb_typeof(${ref} -> ${k}::text) = 'string' THEN 's' || (${ref} ->> ${k}::text) ELSE 'j' || (${ref} -> ${k}::text)::text END AS ${sql.ref(c)}`;
    }
    const parts = keys.map((k) => sql`CASE WHEN ${ref} ? ${k}::text THEN jsonb_build_object(${k}::text, ${ref} -> ${k}::text) ELSE '{}'::jsonb END`);
    const picked = parts.length ? sql.join(parts, sql` || `) : sql`'{}'::jsonb`;
    return sql`CASE WHEN jsonb_typeof(${ref}) = 'object' THEN ${picked} ELSE ${ref} END AS ${sql.ref(c)}`;
  }

  /**
   * A custom field value as a template reads it. A column narrowed to one key (see columnSql) arrives as text:
   * '' (the key is absent), 's' + its text value, 'j' + the JSON of another value, 'W' + the JSON of a whole value
   * that is not an object. Built when read rather than when the rows arrive: JSON.parse of every row's object was
   * a measured eighth of a 50,000-row render, and an object built per read does not outlive its row.
   */
  customFields(table: string, column: string, value: unknown): unknown {
    if (typeof value !== 'string') return value;
    // Asked once per row of a list: the last column's keys are kept, not looked up by a key built per call.
    let keys = this.lastCustomKeys;
    if (table !== this.lastCustomTable || column !== this.lastCustomColumn) {
      keys = this.customFieldKeys.get(`${table}.${column}`);
      this.lastCustomTable = table;
      this.lastCustomColumn = column;
      this.lastCustomKeys = keys;
    }
    if (keys?.length !== 1) return value;
    if (value === '') return {};
    const tag = value.charCodeAt(0);
    if (tag === 87 /* W */) return JSON.parse(value.slice(1)) as unknown;
    const key = keys[0]!;
    return { [key]: tag === 115 /* s */ ? value.slice(1) : (JSON.parse(value.slice(1)) as unknown) };
  }

  /** `alias.col, …` of every column of `table`, timestamptz columns as text. */
  selectList(table: string, alias: string): RawBuilder<unknown> {
    const key = `${table} ${alias}`;
    let list = this.selects.get(key);
    if (!list) {
      const cols = this.catalog?.get(table);
      list = cols ? sql.join(cols.names.map((c) => this.columnSql(table, cols, alias, c))) : sql`${sql.ref(alias)}.*`;
      this.selects.set(key, list);
    }
    return list;
  }

  /** Per target model: related rows read so far in this render by id (null: read and not there), while few. */
  private readonly related = new Map<string, Map<string, TemplateObject | null> | null>();

  /**
   * The related rows of `model` this render has read, to add to; null once they outgrew proxyLimits (each
   * chunk then reads its own, so memory stays flat when a list points to as many rows as it has).
   */
  relatedRows(model: ModelDef): Map<string, TemplateObject | null> | null {
    let rows = this.related.get(model.name);
    if (rows === undefined) this.related.set(model.name, (rows = new Map()));
    if (rows && rows.size > proxyLimits.relatedRowsKept) this.related.set(model.name, (rows = null));
    return rows;
  }

  /** Whether related rows of `model` may be read at all: view permission, and never a closed model's rows. */
  canView(model: ModelDef): boolean {
    let ok = this.viewable.get(model.name);
    if (ok === undefined) {
      ok = !isClosedModel(model) && modelAllows(this.ctx, model, 'view');
      this.viewable.set(model.name, ok);
    }
    return ok;
  }

  /** The active tenant, name only (the one a render runs in; any other tenant reads as nothing). */
  async activeTenant(): Promise<NameProxy | null> {
    if (this.tenantProxy !== undefined) return this.tenantProxy;
    if (!this.ctx.tenantId) return (this.tenantProxy = null);
    const { rows } = await sql<{ name: string }>`SELECT name FROM tenants WHERE id = ${this.ctx.tenantId}`.execute(this.db);
    this.tenantProxy = rows[0] ? new NameProxy('name', rows[0].name) : null;
    return this.tenantProxy;
  }
}

// ------------------------------------------------------------------------------------------ relations

/** A related list reachable from a row: a reverse foreign key, a many-to-many field or the row's tags. */
export interface Relation {
  name: string;
  target: ModelDef;
  /** reverse: rows of `target` whose `column` holds the owner's id (and, for a generic reverse, `typeColumn` its model). */
  via: { kind: 'reverse'; column: string; typeColumn?: string; ownerType?: string } | { kind: 'm2m'; table: string; from: string; to: string } | { kind: 'tags'; ownerType: string };
}

const relationCache = new Map<string, ReadonlyMap<string, Relation>>();

/** Last path segment of a list path, as an attribute name: `/api/routing/static-routes/` → `static_routes`. */
function segmentName(model: ModelDef): string {
  const parts = model.path.split('/').filter(Boolean);
  return parts[parts.length - 1]!.replace(/-/g, '_');
}

/**
 * Related lists of `model`. A reverse relation is named by the FieldDef's `relatedName`, else by the list path of
 * the model holding the foreign key (`interface.device` → `device.interfaces`); when one model has two foreign
 * keys to the same target (a device's primary_ip4 and primary_ip6) each becomes `<list>_as_<field>`.
 */
export function relationsOf(model: ModelDef): ReadonlyMap<string, Relation> {
  const cached = relationCache.get(model.name);
  if (cached) return cached;
  const out = new Map<string, Relation>();
  const taken = (name: string) => name in model.fields || name in model.computed || out.has(name) || RESERVED_ATTRS.has(name);
  for (const [key, field] of Object.entries(model.fields)) {
    if (field.kind === 'm2m' && field.through) {
      out.set(key, { name: key, target: requireModel(field.target!), via: { kind: 'm2m', ...field.through } });
    } else if (field.kind === 'tags') {
      out.set(key, { name: key, target: requireModel('extras.tag'), via: { kind: 'tags', ownerType: model.name } });
    }
  }
  for (const source of allModels()) {
    if (isClosedModel(source)) continue;
    const fks = Object.entries(source.fields).filter(([, f]) => f.kind === 'fk' && f.target === model.name);
    for (const [key, field] of fks) {
      const explicit = field.relatedName;
      const name = explicit ?? (fks.length > 1 ? `${segmentName(source)}_as_${key}` : segmentName(source));
      if (taken(name)) continue;
      out.set(name, { name, target: source, via: { kind: 'reverse', column: columnOf(key, field) } });
    }
  }
  for (const g of genericReversesOf(model.name)) {
    const source = requireModel(g.source);
    if (isClosedModel(source) || taken(g.name)) continue;
    out.set(g.name, { name: g.name, target: source, via: { kind: 'reverse', column: g.idColumn, typeColumn: g.typeColumn, ownerType: model.name } });
  }
  relationCache.set(model.name, out);
  return out;
}

/** Names a row answers before (or instead of) a relation of that name: its id, numbers, times and tenant. */
export const RESERVED_ATTRS: ReadonlySet<string> = new Set(['id', 'pk', 'numid', 'created', 'last_updated', 'tenant']);
const DATETIME: FieldDef = { kind: 'datetime' };

// ------------------------------------------------------------------------------------------ value helpers

function fieldValue(field: FieldDef, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (field.kind === 'datetime' || value instanceof Date) return isoTimestamp(value);
  // A decimal column holds floats: a whole one prints as Python prints a float (3.0), not as an int.
  if (field.kind === 'decimal' && (typeof value === 'string' || typeof value === 'number')) return new PyFloat(Number(value));
  return value;
}

function notAllowed(message: string): TemplateError {
  return new TemplateError('security', message);
}

function typeProblem(message: string): TemplateError {
  return new TemplateError('type', message);
}

/** Loads once per key and then answers synchronously: later rows of a group read the loaded value without a Promise hop. */
class Batches<T> {
  /** Read directly by the hot paths: a loaded value costs one Map lookup, no closure and no Promise. */
  readonly done = new Map<string, T>();
  private readonly pending = new Map<string, Promise<T>>();

  get(key: string, load: () => Promise<T>): T | Promise<T> {
    const d = this.done.get(key);
    if (d !== undefined) return d;
    let p = this.pending.get(key);
    if (!p) {
      p = load().then((v) => {
        this.done.set(key, v);
        this.pending.delete(key);
        return v;
      });
      this.pending.set(key, p);
    }
    return p;
  }
}

function then<T, U>(v: T | Promise<T>, f: (x: T) => U): U | Promise<U> {
  return v instanceof Promise ? v.then(f) : f(v);
}

// ------------------------------------------------------------------------------------------ proxies

/** An account, group or the tenant reached through a relation: one name, nothing else. */
export class NameProxy implements TemplateObject {
  readonly [TEMPLATE_OBJECT] = true as const;
  constructor(
    private readonly attr: string,
    private readonly value: string,
  ) {}
  getAttr(name: string): unknown {
    return name === this.attr ? this.value : UNDEFINED;
  }
  callMethod(name: string): never {
    throw notAllowed(`'${name}' cannot be called here.`);
  }
  toTemplateString(): string {
    return this.value;
  }
}

/**
 * What an attribute name means on a row of one model, worked out once per (model, name): a list render asks the
 * same few names on every row, and the registry lookups, string tests and key building behind the answer were a
 * measured share of render time when repeated per row.
 */
type Access =
  | { k: 'none'; column: null }
  | { k: 'id'; column: 'id' }
  | { k: 'numid'; column: 'numid' }
  | { k: 'time'; column: string }
  | { k: 'value'; field: FieldDef; column: string }
  | { k: 'fk'; key: string; field: FieldDef; column: string; target: ModelDef; nameField: string | undefined; closed: boolean; touchKey: string }
  | { k: 'set'; rel: Relation; column: 'id' }
  | { k: 'computed'; key: string; touchKey: string; inlineKey: string; column: null }
  | { k: 'tenant'; column: typeof TENANT_COLUMN }
  | { k: 'prefixlen'; column: 'address' };

const NO_ACCESS: Access = { k: 'none', column: null };

/**
 * Row columns a computed value's loader reads, for computed values templates may read (subjects.ts). A narrowed
 * chunk (RenderSession.narrowSelect) carries these when the value is used; a computed value missing here makes
 * its model's chunks carry every column. Keep in step with the loaders (a test renders each narrowed and not).
 */
const COMPUTED_COLUMNS: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  'dcim.device': { primary_ip: ['primary_ip4_id', 'primary_ip6_id'] },
  'virtualization.virtualmachine': { primary_ip: ['primary_ip4_id', 'primary_ip6_id'] },
};

function computedColumns(model: ModelDef, key: string): readonly string[] | null {
  const known = COMPUTED_COLUMNS[model.name];
  return known && Object.hasOwn(known, key) ? known[key]! : null;
}
const accessTables = new Map<string, Map<string, Access>>();

function accessOf(model: ModelDef, name: string): Access {
  let table = accessTables.get(model.name);
  if (!table) accessTables.set(model.name, (table = new Map()));
  let a = table.get(name);
  if (!a) {
    a = resolveAccess(model, name);
    // Names come from templates: only names that mean something are remembered, so the table stays bounded.
    if (a !== NO_ACCESS) table.set(name, a);
  }
  return a;
}

function resolveAccess(model: ModelDef, name: string): Access {
  if (name.startsWith('_')) return NO_ACCESS;
  if (name === 'id' || name === 'pk') return { k: 'id', column: 'id' };
  if (name === 'numid') return { k: 'numid', column: 'numid' };
  if ((name === 'created' || name === 'last_updated') && model.timestamps) return { k: 'time', column: name };
  const field = Object.hasOwn(model.fields, name) ? model.fields[name] : undefined;
  if (field) {
    if (field.secret || field.writeOnly) return NO_ACCESS;
    if (field.kind === 'fk') {
      const target = requireModel(field.target!);
      const closed = isClosedModel(target) || target.name === 'tenancy.tenant';
      return { k: 'fk', key: name, field, column: columnOf(name, field), target, nameField: CLOSED_NAME_FIELDS[target.name], closed, touchKey: `fk:${name}` };
    }
    if (field.kind === 'm2m' || field.kind === 'tags') {
      const rel = relationsOf(model).get(name);
      return rel ? { k: 'set', rel, column: 'id' } : NO_ACCESS;
    }
    if (!isColumnField(field)) return NO_ACCESS;
    return { k: 'value', field, column: columnOf(name, field) };
  }
  if (Object.hasOwn(model.computed, name) && readableComputed(model).includes(name)) return { k: 'computed', key: name, touchKey: `computed:${name}`, inlineKey: inlineComputedColumn(name), column: null };
  if (name === 'tenant' && model.tenantScoped) return { k: 'tenant', column: TENANT_COLUMN };
  // An address's prefix length: the mask length of the most specific prefix holding it, in its VRF (SPEC "Address
  // filters": an address without a mask of its own takes its prefix's).
  if (name === 'prefix_length' && model.name === 'ipam.ipaddress') return { k: 'prefixlen', column: 'address' };
  const rel = relationsOf(model).get(name);
  if (rel) return { k: 'set', rel, column: 'id' };
  return NO_ACCESS;
}

type FkAccess = Extract<Access, { k: 'fk' }>;
type ComputedAccess = Extract<Access, { k: 'computed' }>;

/** Rows of one model loaded together; relations touched on one of them load for all of them. */
/** The key of the prefix lengths of a group of addresses among its loaded values. */
const PREFIX_LENGTHS = 'prefix_length';

export class RowGroup {
  readonly proxies: RowProxy[];
  private readonly fks = new Batches<ReadonlyMap<string, TemplateObject | null>>();
  private readonly computed = new Batches<Map<string, unknown>>();
  private readonly setRows = new Batches<Map<string, RowProxy[]>>();
  private readonly setCounts = new Batches<Map<string, number>>();
  /** Loads this group has started, replayable on the next chunk so its queries run while this chunk renders. */
  private readonly touched = new Map<string, (next: RowGroup) => unknown>();
  /** Rows carry every column of their table; false for a narrowed chunk of a list (RenderSession.narrowSelect). */
  full: boolean;
  private filling: Promise<void> | null = null;
  private readonly access: Map<string, Access>;
  /** Per inline column: each row's computed value, once read (NOT_BUILT until then). */
  private readonly inlineBuilt = new Map<string, unknown[]>();

  constructor(
    readonly session: RenderSession,
    readonly model: ModelDef,
    rows: Row[],
    full = true,
  ) {
    this.full = full;
    this.access = session.accessTable(model);
    const proxies = new Array<RowProxy>(rows.length);
    for (let i = 0; i < rows.length; i++) proxies[i] = new RowProxy(this, rows[i]!, i);
    this.proxies = proxies;
  }

  /**
   * Starts on `next` every load this group needed. A list render walks the same relations on every row, so the
   * next chunk's queries can overlap with rendering this one instead of waiting for its first row.
   */
  warm(next: RowGroup): void {
    for (const replay of this.touched.values()) {
      const r = replay(next);
      // A prefetch nobody awaits must not become an unhandled rejection; the render that reads it sees the error.
      if (r instanceof Promise) r.catch(() => undefined);
    }
  }

  /**
   * Records a load to replay on the next chunk. The replay records itself on the group it warms: that group's
   * rows then find the load done and skip this bookkeeping, yet it still warms the chunk after it.
   */
  private touch(key: string, load: (g: RowGroup) => unknown): void {
    if (this.touched.has(key)) return;
    const replay = (g: RowGroup): unknown => {
      if (!g.touched.has(key)) g.touched.set(key, replay);
      return load(g);
    };
    this.touched.set(key, replay);
  }

  get rows(): Row[] {
    return this.proxies.map((p) => p.row);
  }

  attr(proxy: RowProxy, name: string): unknown {
    const a = this.access.get(name) ?? this.session.firstAccess(this.model, name, this.access);
    const row = proxy.row;
    // A narrowed chunk lacks a column nothing had read when it was fetched: complete the whole chunk, then answer.
    if (!this.full && a.column !== null && row[a.column] === undefined) return this.attrAfterFill(proxy, name);
    switch (a.k) {
      case 'value':
        if (a.field.kind === 'custom_fields') return this.session.customFields(this.model.table, a.column, row[a.column]);
        return fieldValue(a.field, row[a.column]);
      case 'fk':
        return this.foreignKey(row, a);
      case 'computed':
        return this.computedValue(proxy, a);
      case 'id':
        return row.id;
      case 'numid':
        return row.numid ?? UNDEFINED;
      case 'time':
        return fieldValue(DATETIME, row[a.column]);
      case 'set':
        return new RelatedSet(this, proxy, a.rel, EMPTY_SPEC);
      case 'tenant':
        // Every tenant-scoped row belongs to the active tenant (the fence), so this is the active tenant's name.
        return tenantOf(row) === this.session.ctx.tenantId ? this.session.activeTenant() : null;
      case 'prefixlen':
        return this.prefixLength(row);
      default:
        return UNDEFINED;
    }
  }

  private prefixLength(row: Row): unknown {
    const loaded = this.computed.done.get(PREFIX_LENGTHS);
    if (loaded) return loaded.get(String(row.id)) ?? null;
    this.touch(PREFIX_LENGTHS, (g) => g.loadPrefixLengths());
    return then(this.loadPrefixLengths(), (m) => m.get(String(row.id)) ?? null);
  }

  /** The containing prefix's length of every address of the group, one query; none without view on prefixes. */
  private loadPrefixLengths(): Map<string, unknown> | Promise<Map<string, unknown>> {
    return this.computed.get(PREFIX_LENGTHS, async () => {
      const prefixes = requireModel('ipam.prefix');
      const out = new Map<string, unknown>();
      if (!this.session.canView(prefixes) || this.proxies.length === 0) return out;
      const ids = this.proxies.map((p) => String(p.row.id));
      const { rows } = await sql<{ id: string; len: number | null }>`SELECT r.id, (SELECT masklen(p.prefix) FROM prefixes p
          WHERE p.prefix >>= r.address AND p.vrf_id IS NOT DISTINCT FROM r.vrf_id AND ${scopeCondition(this.session.ctx, prefixes, 'p')}
          ORDER BY masklen(p.prefix) DESC LIMIT 1) AS len
        FROM ip_addresses r WHERE r.id = ANY(${ids}::uuid[])`.execute(this.session.db);
      for (const r of rows) out.set(r.id, r.len);
      return out;
    });
  }

  // The continuations below are methods of their own: an arrow in attr, foreignKey or computedValue closing over
  // their parameters would make V8 allocate a context on every call (once per attribute read of every row).
  private attrAfterFill(proxy: RowProxy, name: string): Promise<unknown> {
    return this.fill().then(() => this.attr(proxy, name));
  }

  call(proxy: RowProxy, name: string, args: unknown[], kwargs: Record<string, unknown>): unknown {
    const m = /^get_(\w+)_display$/.exec(name);
    const key = m?.[1];
    const field = key !== undefined && Object.hasOwn(this.model.fields, key) ? this.model.fields[key] : undefined;
    if (!field || field.kind !== 'choice' || field.secret || field.writeOnly) {
      throw notAllowed(`'${name}' cannot be called on a ${this.model.label}: rows offer only get_<field>_display() for choice fields.`);
    }
    if (args.length || Object.keys(kwargs).length) throw typeProblem(`${name}() takes no arguments`);
    const column = columnOf(key!, field);
    this.session.noteColumn(this.model, column);
    if (!this.full && proxy.row[column] === undefined) return this.fill().then(() => this.call(proxy, name, args, kwargs));
    const value = proxy.row[column];
    if (value === null || value === undefined) return null;
    return choiceOptions(field).find((o) => o.value === value)?.label ?? String(value);
  }

  private foreignKey(row: Row, a: FkAccess): unknown {
    const id = row[a.column];
    if (typeof id !== 'string') return null;
    if (a.closed) {
      if (!a.nameField) return null;
      if (a.target.name === 'tenancy.tenant') return id === this.session.ctx.tenantId ? this.session.activeTenant() : null;
    } else if (!this.session.canView(a.target)) return null;
    const loaded = this.fks.done.get(a.key);
    if (loaded) return loaded.get(id) ?? null;
    return this.loadForeignKey(id, a);
  }

  private loadForeignKey(id: string, a: FkAccess): unknown {
    const load = (g: RowGroup) => g.fks.get(a.key, () => (a.closed ? g.loadNames(a.target, a.nameField!, a.key, a.field) : g.loadRelated(a.target, a.key, a.field)));
    // A narrowed chunk fetched before this column was first read cannot be warmed: its ids are not there yet.
    this.touch(a.touchKey, (g) => (g.hasColumns([a.column]) ? load(g) : undefined));
    return then(load(this), (m) => m.get(id) ?? null);
  }

  /** The distinct ids the group's rows hold in the foreign key `key`, leaving out those `known` already has. */
  private idsOf(key: string, field: FieldDef, known?: ReadonlyMap<string, unknown> | null): string[] {
    const col = columnOf(key, field);
    const ids = new Set<string>();
    // Neighbouring rows of a list often share the id (a site's devices sort together): compared with the row
    // before's, it is not hashed again (every id the driver hands over is a fresh string).
    let last: unknown = null;
    for (const p of this.proxies) {
      const v = p.row[col];
      if (v === last) continue;
      last = v;
      if (typeof v === 'string' && !known?.has(v)) ids.add(v);
    }
    return [...ids];
  }

  /**
   * The related rows a foreign key column points to. Rows read for an earlier chunk of the render are reused
   * (RenderSession.relatedRows): a list's chunks mostly point to the same sites, roles and platforms, and reading
   * them again for every chunk was most of the rows such a render parsed besides its own.
   */
  private async loadRelated(target: ModelDef, key: string, field: FieldDef): Promise<ReadonlyMap<string, TemplateObject | null>> {
    const known = this.session.relatedRows(target);
    const out = known ?? new Map<string, TemplateObject | null>();
    // Only the ids not read yet: a chunk's rows mostly point to rows an earlier chunk read.
    const missing = this.idsOf(key, field, known);
    if (!missing.length) return out;
    const { rows } = await sql<Row>`SELECT ${this.session.selectList(target.table, 'r')} FROM ${sql.table(target.table)} r
      WHERE r.id = ANY(${missing}::uuid[]) AND ${scopeCondition(this.session.ctx, target, 'r')}`.execute(this.session.db);
    const group = new RowGroup(this.session, target, rows);
    for (const p of group.proxies) out.set(String(p.row.id), p);
    // An id read and not found (another tenant's row, or gone) reads as nothing, and is not asked for again.
    if (known) for (const id of missing) if (!known.has(id)) known.set(id, null);
    return out;
  }

  /** Accounts and groups show one name; no permission is needed for that, and nothing else is read. */
  private async loadNames(target: ModelDef, nameField: string, key: string, field: FieldDef): Promise<Map<string, TemplateObject>> {
    const ids = this.idsOf(key, field);
    const out = new Map<string, TemplateObject>();
    if (!ids.length) return out;
    const { rows } = await sql<{ id: string; n: string }>`SELECT r.id, ${sql.ref(`r.${nameField}`)} AS n FROM ${sql.table(target.table)} r
      WHERE r.id = ANY(${ids}::uuid[])`.execute(this.session.db);
    for (const r of rows) out.set(r.id, new NameProxy(nameField, r.n));
    return out;
  }

  private loadComputed(key: string): Map<string, unknown> | Promise<Map<string, unknown>> {
    return this.computed.get(key, () => this.model.computed[key]!.load({ db: this.session.db, ctx: this.session.ctx, rows: this.rows, origin: '' }));
  }

  private computedValue(proxy: RowProxy, a: ComputedAccess): unknown {
    const { key, inlineKey: column } = a;
    const row = proxy.row;
    const selected = row[column];
    if (selected !== undefined) {
      // Read beside the row: built once per row, on first read, and kept beside the rows rather than written into
      // them, so rows keep the one shape the driver gave them.
      let built = this.inlineBuilt.get(column);
      if (!built) this.inlineBuilt.set(column, (built = new Array<unknown>(this.proxies.length).fill(NOT_BUILT)));
      const known = built[proxy.index];
      if (known !== NOT_BUILT) return known;
      return (built[proxy.index] = plainValue(this.model.computed[key]!.inline!.value(selected, '')));
    }
    const loaded = this.computed.done.get(key);
    if (loaded) return plainValue(loaded.get(String(row.id)) ?? null);
    return this.loadComputedValue(proxy, a);
  }

  private loadComputedValue(proxy: RowProxy, a: ComputedAccess): unknown {
    const { key, touchKey, inlineKey: column } = a;
    const row = proxy.row;
    // A loader reads the rows as stored: a narrowed chunk without its columns is completed first.
    const columns = computedColumns(this.model, key);
    if (!this.full && (columns === null || columns.some((c) => row[c] === undefined))) return this.fill().then(() => this.computedValue(proxy, a));
    // Warming the next chunk: not when its rows carry the value inline.
    this.touch(touchKey, (g) => (!g.carries(column) && (columns === null ? g.full : g.hasColumns(columns)) ? g.loadComputed(key) : undefined));
    return then(this.loadComputed(key), (m) => plainValue(m.get(String(row.id)) ?? null));
  }

  /**
   * The group's rows as plain objects of `plan`'s attributes (see RecordPlan), read attribute by attribute over the
   * whole group so each relation loads once, before the first row needs it. Null when some value cannot be held
   * plainly or a read fails: the loop then gets the proxies, and a failure surfaces where the template reads it.
   */
  async records(plan: RecordPlan): Promise<Record<string, unknown>[] | null> {
    const n = this.proxies.length;
    const columns: unknown[][] = [];
    try {
      for (let k = 0; k < plan.names.length; k++) {
        const name = plan.names[k]!;
        const keys = plan.below[k]!;
        const column = new Array<unknown>(n);
        columns.push(column);
        // A column's value, the most common read, is taken for the whole group in one loop (what attr() answers).
        const a = this.access.get(name) ?? this.session.firstAccess(this.model, name, this.access);
        if (a.k === 'value' && a.field.kind !== 'custom_fields' && this.hasColumns([a.column])) {
          for (let i = 0; i < n; i++) column[i] = fieldValue(a.field, this.proxies[i]!.row[a.column]);
          continue;
        }
        // A foreign key's value depends on its id alone, and a list's neighbouring rows often share it (a site's
        // devices sort together): the id compared with the row before's saves a Map lookup by a fresh string.
        const idColumn = a.k === 'fk' && this.hasColumns([a.column]) ? a.column : null;
        let lastId: unknown = NOT_BUILT;
        let last: unknown = null;
        for (let i = 0; i < n; i++) {
          if (idColumn !== null) {
            const id = this.proxies[i]!.row[idColumn];
            if (id === lastId) {
              column[i] = last;
              continue;
            }
            lastId = id;
          }
          let v = this.attr(this.proxies[i]!, name);
          if (v instanceof Promise) v = await v;
          if (keys !== null && isTemplateObject(v)) {
            v = plan.plainOf(v, keys);
            if (v instanceof Promise) v = await v;
          }
          if (!isRecordValue(v)) return null;
          column[i] = last = v;
        }
      }
    } catch {
      return null;
    }
    const out = new Array<Record<string, unknown>>(n);
    for (let i = 0; i < n; i++) {
      const o: Record<string, unknown> = {};
      for (let k = 0; k < columns.length; k++) o[plan.names[k]!] = columns[k]![i];
      out[i] = o;
    }
    return out;
  }

  /** Whether the rows came with this column (a computed value read inline); rows of one query all have the same ones. */
  carries(column: string): boolean {
    return this.proxies.length > 0 && column in this.proxies[0]!.row;
  }

  /** Whether the rows carry these columns (rows of one query all have the same ones). */
  hasColumns(columns: readonly string[]): boolean {
    if (this.full || this.proxies.length === 0) return true;
    const row = this.proxies[0]!.row;
    return columns.every((c) => c in row);
  }

  /** Reads the columns a narrowed chunk left out, for every row of the chunk at once (one query). */
  private fill(): Promise<void> {
    this.filling ??= (async () => {
      this.session.widen(this.model);
      const ids = this.proxies.map((p) => String(p.row.id));
      const { rows } = await sql<Row>`SELECT ${this.session.selectList(this.model.table, 'r')} FROM ${sql.table(this.model.table)} r
        WHERE r.id = ANY(${ids}::uuid[]) AND ${scopeCondition(this.session.ctx, this.model, 'r')}`.execute(this.session.db);
      const byId = new Map(rows.map((r) => [String(r.id), r]));
      for (const p of this.proxies) {
        const whole = byId.get(String(p.row.id));
        if (!whole) continue;
        for (const k of Object.keys(whole)) if (!(k in p.row)) p.row[k] = whole[k];
      }
      this.full = true;
    })();
    return this.filling;
  }

  relatedRows(rel: Relation, spec: SetSpec): Map<string, RowProxy[]> | Promise<Map<string, RowProxy[]>> {
    const key = `${rel.name}|${spec.sig}`;
    const loaded = this.setRows.done.get(key);
    if (loaded) return loaded;
    this.touch(`rows:${key}`, (g) => g.relatedRows(rel, spec));
    return this.setRows.get(key, async () => {
      const out = new Map<string, RowProxy[]>();
      const ids = this.proxies.map((p) => String(p.row.id));
      if (spec.none || !ids.length || !this.session.canView(rel.target)) return out;
      const { from, owner, where } = setSource(this.session, rel, ids, spec);
      const { rows } = await sql<Row>`SELECT ${owner} AS __owner, ${this.session.selectList(rel.target.table, 'r')} FROM ${from} WHERE ${where} ORDER BY ${setOrder(rel.target, spec)}`.execute(this.session.db);
      const group = new RowGroup(this.session, rel.target, rows);
      for (const p of group.proxies) {
        const o = String(p.row.__owner);
        delete p.row.__owner;
        const list = out.get(o);
        if (list) list.push(p);
        else out.set(o, [p]);
      }
      return out;
    });
  }

  relatedCounts(rel: Relation, spec: SetSpec): Map<string, number> | Promise<Map<string, number>> {
    const key = `${rel.name}|${spec.sig}`;
    const loaded = this.setCounts.done.get(key);
    if (loaded) return loaded;
    this.touch(`count:${key}`, (g) => g.relatedCounts(rel, spec));
    return this.setCounts.get(key, async () => {
      const out = new Map<string, number>();
      const ids = this.proxies.map((p) => String(p.row.id));
      if (spec.none || !ids.length || !this.session.canView(rel.target)) return out;
      const { from, owner, where } = setSource(this.session, rel, ids, spec);
      const { rows } = await sql<{ o: string; n: number }>`SELECT ${owner} AS o, count(*)::int AS n FROM ${from} WHERE ${where} GROUP BY 1`.execute(this.session.db);
      for (const r of rows) out.set(String(r.o), r.n);
      return out;
    });
  }
}

// ------------------------------------------------------------------------------------------ plain records

/**
 * The attributes a list render's loop reads of each row, when that is all it does with them (ItemReads): each chunk
 * is then handed to the loop as plain objects holding those values, which the engine reads several times faster
 * than it asks a proxy. A related row read only below (`d.site.name`) becomes a plain object of those keys, made
 * once per related row. Null when the loop reads a name rows do not answer: that read's failure must name the row.
 */
export class RecordPlan {
  /** Plain objects made of related rows, by proxy, while few (related rows repeat across a list: sites, roles). */
  private readonly made = new Map<TemplateObject, Record<string, unknown>>();

  private constructor(
    readonly names: readonly string[],
    /** Per name: the keys read below it, or null when its value is used whole. */
    readonly below: ReadonlyArray<readonly string[] | null>,
  ) {}

  static of(model: ModelDef, reads: ItemReads): RecordPlan | null {
    const names: string[] = [];
    const below: Array<readonly string[] | null> = [];
    for (const [name, keys] of reads) {
      if (accessOf(model, name) === NO_ACCESS) return null;
      names.push(name);
      below.push(keys === null ? null : [...keys]);
    }
    return new RecordPlan(names, below);
  }

  /** `host`'s values of `keys` as a plain object; NO_RECORD when one of them is not a value (the proxy must answer). */
  plainOf(host: TemplateObject, keys: readonly string[]): Record<string, unknown> | Promise<Record<string, unknown> | typeof NO_RECORD> {
    return this.made.get(host) ?? this.make(host, keys);
  }

  private async make(host: TemplateObject, keys: readonly string[]): Promise<Record<string, unknown> | typeof NO_RECORD> {
    const o: Record<string, unknown> = {};
    for (const key of keys) {
      const v = await host.getAttr(key);
      if (!isRecordValue(v)) return NO_RECORD;
      o[key] = v;
    }
    if (this.made.size >= proxyLimits.relatedRowsKept) this.made.clear();
    this.made.set(host, o);
    return o;
  }
}

/** What RecordPlan.plainOf answers for a related row that cannot be read plainly. */
const NO_RECORD: unique symbol = Symbol('no record');

/** A value a plain record may hold: what the engine would take from the proxy as is (not a missing attribute). */
function isRecordValue(v: unknown): boolean {
  return v !== undefined && v !== UNDEFINED && v !== NO_RECORD && typeof v !== 'function';
}

/** A computed value read inline that no read has built yet. */
const NOT_BUILT: unique symbol = Symbol('not built');

/** Computed values are API-shaped JSON (brief objects, strings); Dates become strings like every other value. */
function plainValue(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString();
  return v;
}

export class RowProxy implements TemplateObject {
  readonly [TEMPLATE_OBJECT] = true as const;
  constructor(
    readonly group: RowGroup,
    readonly row: Row,
    /** Position in its group. */
    readonly index: number,
  ) {}
  getAttr(name: string): unknown {
    return this.group.attr(this, name);
  }
  callMethod(name: string, args: unknown[], kwargs: Record<string, unknown>): unknown {
    return this.group.call(this, name, args, kwargs);
  }
  toTemplateString(): string {
    return displayOf(this.group.model, this.row);
  }
  truthy(): boolean {
    return true;
  }
  typeName(): string {
    const label = this.group.model.label;
    return label.charAt(0).toUpperCase() + label.slice(1);
  }
}

// ------------------------------------------------------------------------------------------ related lists

interface Condition {
  key: string;
  build: (alias: string) => RawBuilder<unknown>;
}

interface SetSpec {
  filters: readonly Condition[];
  excludes: readonly Condition[];
  order: readonly string[] | null;
  reversed: boolean;
  none: boolean;
  sig: string;
}

function withSig(s: Omit<SetSpec, 'sig'>): SetSpec {
  const sig = JSON.stringify([s.filters.map((c) => c.key), s.excludes.map((c) => c.key), s.order, s.reversed, s.none]);
  return { ...s, sig };
}

const EMPTY_SPEC: SetSpec = withSig({ filters: [], excludes: [], order: null, reversed: false, none: false });

function setSource(session: RenderSession, rel: Relation, ownerIds: string[], spec: SetSpec): { from: RawBuilder<unknown>; owner: RawBuilder<unknown>; where: RawBuilder<unknown> } {
  const target = rel.target;
  const conds: RawBuilder<unknown>[] = [scopeCondition(session.ctx, target, 'r')];
  for (const c of spec.filters) conds.push(c.build('r'));
  for (const c of spec.excludes) conds.push(sql`NOT COALESCE((${c.build('r')}), false)`);
  const via = rel.via;
  let from: RawBuilder<unknown>;
  let owner: RawBuilder<unknown>;
  if (via.kind === 'reverse') {
    from = sql`${sql.table(target.table)} r`;
    owner = sql.ref(`r.${via.column}`);
    conds.unshift(sql`${owner} = ANY(${ownerIds}::uuid[])`);
    if (via.typeColumn) conds.unshift(sql`${sql.ref(`r.${via.typeColumn}`)} = ${via.ownerType ?? ''}`);
  } else if (via.kind === 'm2m') {
    from = sql`${sql.table(via.table)} j JOIN ${sql.table(target.table)} r ON r.id = ${sql.ref(`j.${via.to}`)}`;
    owner = sql.ref(`j.${via.from}`);
    conds.unshift(sql`${owner} = ANY(${ownerIds}::uuid[])`);
  } else {
    from = sql`tagged_items j JOIN ${sql.table(target.table)} r ON r.id = j.tag_id`;
    owner = sql`j.object_id`;
    conds.unshift(sql`j.object_type = ${via.ownerType} AND j.object_id = ANY(${ownerIds}::uuid[])`);
  }
  return { from, owner, where: sql.join(conds, sql` AND `) };
}

function setOrder(target: ModelDef, spec: SetSpec): RawBuilder<unknown> {
  const keys = spec.order ?? target.defaultOrdering;
  const parts: RawBuilder<unknown>[] = [];
  for (const item of keys) {
    const desc = item.startsWith('-') !== spec.reversed;
    const col = orderColumn(target, item.replace(/^-/, ''));
    if (col) parts.push(desc ? sql`${sql.ref(`r.${col}`)} DESC NULLS LAST` : sql`${sql.ref(`r.${col}`)} ASC NULLS FIRST`);
  }
  parts.push(spec.reversed ? sql`r.id DESC` : sql`r.id ASC`);
  return sql.join(parts);
}

function orderColumn(model: ModelDef, key: string): string | null {
  if (key === 'pk' || key === 'id') return 'id';
  if (key === 'numid') return 'numid';
  if ((key === 'created' || key === 'last_updated') && model.timestamps) return key;
  const field = Object.hasOwn(model.fields, key) ? model.fields[key] : undefined;
  if (!field || field.secret || field.writeOnly || !isColumnField(field) || field.kind === 'json' || field.kind === 'custom_fields') return null;
  // A naturally ordered name sorts by its stored key, as the model's lists do (`Ethernet1/2` before `Ethernet1/10`).
  return field.naturalOrder ? naturalKeyColumn(columnOf(key, field)) : columnOf(key, field);
}

/** A template value as a lookup operand: a row stands for its id. */
function operand(v: unknown, whole: string): Operand {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw typeProblem(`'${whole}': not a usable number.`);
    return v;
  }
  if (v instanceof Markup) return v.s;
  if (v instanceof PyFloat) return v.value;
  if (v instanceof RowProxy) return String(v.row.id);
  throw typeProblem(`'${whole}' takes a string, a number, a boolean, None or a row.`);
}

/**
 * Compiles `key=value` of filter/exclude/get into SQL on one field of the row, in the lookup language lists use
 * (src/core/lookups.ts); a path into another table is refused.
 */
function compileTemplateLookup(model: ModelDef, key: string, value: unknown): Condition {
  const { key: head, op } = splitLookup(key);
  if (head.includes('__')) throw notAllowed(`'${key}' walks a relation: lookups name one field of this row (e.g. name__startswith).`);
  const target = lookupTarget(model, head);
  if ('refused' in target) {
    throw notAllowed(target.error === 'not a field' ? `'${key}' is not a field of this row.` : target.error === 'cannot be read' ? `'${key}' cannot be read.` : `'${key}' cannot be used in a lookup.`);
  }
  let operands: Operand[];
  if (op === 'in') {
    if (!Array.isArray(value)) throw typeProblem(`'${key}' expects a list.`);
    if (value.length > 10_000) throw new TemplateError('limit', `'${key}' takes at most 10,000 values.`);
    operands = value.map((v) => operand(v, key));
    if (!operands.length) return { key: `${head}__in=[]`, build: () => sql`false` };
  } else operands = [operand(value, key)];
  const compiled = compileLookup(target, op, operands);
  if ('error' in compiled) throw typeProblem(`'${key}': ${compiled.error}`);
  // Rows inside a list (`id__in=[a, b]`) are keyed by their id too: a row proxy links back to its group.
  return { key: `${target.key}__${op}=${JSON.stringify(operands)}`, build: (a) => compiled.build(a) };
}

const SET_METHODS = 'all, count, exists, first, last, filter, exclude, get, order_by, reverse, distinct and none';

/** A related list (`device.interfaces`): a lazily built query; terminal calls load it for the owner's whole group. */
export class RelatedSet implements TemplateObject {
  readonly [TEMPLATE_OBJECT] = true as const;
  constructor(
    private readonly group: RowGroup,
    private readonly owner: RowProxy,
    private readonly rel: Relation,
    private readonly spec: SetSpec,
  ) {}

  private with(change: Partial<Omit<SetSpec, 'sig'>>): RelatedSet {
    const { sig: _sig, ...rest } = this.spec;
    return new RelatedSet(this.group, this.owner, this.rel, withSig({ ...rest, ...change }));
  }

  private rows(): RowProxy[] | Promise<RowProxy[]> {
    return then(this.group.relatedRows(this.rel, this.spec), (m) => m.get(String(this.owner.row.id)) ?? []);
  }

  private count(): number | Promise<number> {
    return then(this.group.relatedCounts(this.rel, this.spec), (m) => m.get(String(this.owner.row.id)) ?? 0);
  }

  getAttr(): unknown {
    return UNDEFINED;
  }

  getItem(key: unknown): unknown {
    if (typeof key !== 'number' || !Number.isInteger(key)) return UNDEFINED;
    return then(this.rows(), (rows) => rows[key < 0 ? rows.length + key : key] ?? UNDEFINED);
  }

  iterate(): AsyncIterable<unknown> {
    const self = this;
    return {
      async *[Symbol.asyncIterator]() {
        for (const r of await self.rows()) yield r;
      },
    };
  }

  length(): number | Promise<number> {
    return this.count();
  }

  truthy(): boolean {
    return true;
  }

  toTemplateString(): string {
    return `${this.rel.target.labelPlural} of ${displayOf(this.group.model, this.owner.row)}`;
  }

  callMethod(name: string, args: unknown[], kwargs: Record<string, unknown>): unknown {
    const kwKeys = Object.keys(kwargs);
    const noArgs = () => {
      if (args.length || kwKeys.length) throw typeProblem(`${name}() takes no arguments`);
    };
    const lookups = (): Condition[] => {
      if (args.length) throw notAllowed(`${name}() takes field=value lookups only.`);
      if (kwKeys.length > 20) throw new TemplateError('limit', `${name}() takes at most 20 lookups.`);
      return kwKeys.map((k) => compileTemplateLookup(this.rel.target, k, kwargs[k]));
    };
    switch (name) {
      case 'all':
        noArgs();
        return this;
      case 'distinct':
        // Rows of a related list are distinct already; the fields Django takes here would name other tables.
        if (kwKeys.length) throw notAllowed('distinct() takes no lookups.');
        return this;
      case 'none':
        noArgs();
        return this.with({ none: true });
      case 'reverse':
        noArgs();
        return this.with({ reversed: !this.spec.reversed });
      case 'filter':
        return this.with({ filters: [...this.spec.filters, ...lookups()] });
      case 'exclude':
        return this.with({ excludes: [...this.spec.excludes, ...lookups()] });
      case 'order_by': {
        if (kwKeys.length) throw notAllowed('order_by() takes field names only.');
        if (args.length > 10) throw new TemplateError('limit', 'order_by() takes at most 10 fields.');
        const order = args.map((a) => {
          const text = typeof a === 'string' ? a : a instanceof Markup ? a.s : null;
          if (text === null) throw typeProblem('order_by() takes field names.');
          const key = text.replace(/^-/, '');
          if (key.includes('__')) throw notAllowed(`order_by('${text}') walks a relation.`);
          if (!orderColumn(this.rel.target, key)) throw notAllowed(`order_by('${text}'): '${key}' is not a field of this row that can be ordered by.`);
          return text;
        });
        return this.with({ order, reversed: false });
      }
      case 'count':
        noArgs();
        return this.count();
      case 'exists':
        noArgs();
        return then(this.count(), (n) => n > 0);
      case 'first':
        noArgs();
        return then(this.rows(), (rows) => rows[0] ?? null);
      case 'last':
        noArgs();
        return then(this.rows(), (rows) => rows[rows.length - 1] ?? null);
      case 'get': {
        const narrowed = this.with({ filters: [...this.spec.filters, ...lookups()] });
        return then(narrowed.rows(), (rows) => {
          if (rows.length === 1) return rows[0];
          const label = this.rel.target.label;
          if (rows.length === 0) throw typeProblem(`${label.charAt(0).toUpperCase()}${label.slice(1)} matching query does not exist.`);
          throw typeProblem(`get() returned more than one ${label} -- it returned ${rows.length}!`);
        });
      }
      default:
        throw notAllowed(`'${name}' is not available on a related list; use ${SET_METHODS}.`);
    }
  }
}
