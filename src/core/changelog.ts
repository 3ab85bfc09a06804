// The change log: one row per create, update and delete, written in the same transaction as the change,
// in bulk (one INSERT for many rows). Snapshots carry stored values with secrets masked.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from './context.ts';
import type { ModelDef } from './registry.ts';
import { columnOf, isColumnField } from './registry.ts';
import { uuidv7 } from './ids.ts';

export type ChangeAction = 'create' | 'update' | 'delete' | 'reveal';

/**
 * What the change log needs of a changed object's type: its name and whether it belongs to a tenant. Registry
 * models are one; settings documents and other non-model records name themselves with a ChangeSubject.
 */
export interface ChangeSubject {
  name: string;
  tenantScoped: boolean;
}

export interface ChangeEntry {
  model: ChangeSubject;
  action: ChangeAction;
  objectId: string;
  repr: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  /** Defaults to the active tenant for tenant-scoped models, none for global ones. */
  tenantId?: string | null;
}

export const SECRET_MASK = '********';

/** A row as the change log keeps it: field keys, stored values, secrets masked, relations as ids. */
export function snapshot(model: ModelDef, row: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { id: row.id };
  for (const { key, column, secret } of snapshotColumns(model)) {
    const value = row[column];
    if (secret) out[key] = value === null || value === undefined || value === '' ? value ?? null : SECRET_MASK;
    else out[key] = value instanceof Date ? value.toISOString() : value ?? null;
  }
  for (const k in extra) out[k] = extra[k];
  return out;
}

// Which columns a snapshot reads, worked out once per model: bulk calls take two snapshots per row.
const columnsOfModel = new WeakMap<ModelDef, Array<{ key: string; column: string; secret: boolean }>>();
function snapshotColumns(model: ModelDef): Array<{ key: string; column: string; secret: boolean }> {
  let columns = columnsOfModel.get(model);
  if (!columns) {
    columns = Object.entries(model.fields)
      .filter(([, field]) => isColumnField(field))
      .map(([key, field]) => ({ key, column: columnOf(key, field), secret: Boolean(field.secret) || key === 'password' }));
    columnsOfModel.set(model, columns);
  }
  return columns;
}

/** What a change listener gets of each recorded change row. */
export interface RecordedChange {
  id: string;
  tenant: string | null;
  action: ChangeAction;
  object_type: string;
}

/**
 * Runs inside the write's transaction right after its change rows are written, once per call (not per row), so
 * anything it writes commits or rolls back with the change (the webhook outbox).
 */
export type ChangeListener = (tx: Kysely<DB>, changes: RecordedChange[]) => Promise<void>;
const changeListeners: ChangeListener[] = [];

export function onChangesRecorded(listener: ChangeListener): void {
  changeListeners.push(listener);
}

/** Who made a change, as every change row records it: the user (none for the system's own), their name, the request. */
function changeAuthor(ctx: RequestContext): { userId: string | null; username: string; requestId: string } {
  return { userId: ctx.via === 'system' ? null : ctx.user?.id ?? null, username: ctx.user?.username ?? '', requestId: ctx.requestId };
}

/** Tells the change listeners (the webhook outbox) of change rows just written, unless the context is silent. */
async function notifyListeners(tx: Kysely<DB>, ctx: RequestContext, recorded: RecordedChange[]): Promise<void> {
  if (changeListeners.length === 0 || ctx.notify === false || recorded.length === 0) return;
  for (const listener of changeListeners) await listener(tx, recorded);
}

export async function recordChanges(tx: Kysely<DB>, ctx: RequestContext, entries: ChangeEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const author = changeAuthor(ctx);
  // One INSERT … SELECT FROM jsonb_to_recordset over a single JSON parameter: the statement stays the same size
  // whatever the number of rows, and the snapshots travel inside one document (one native JSON.stringify, one
  // jsonb parse) instead of a text[] of JSON strings, whose array-literal escaping on both ends cost more than
  // the insert itself for 1,000-row bulk calls.
  const rows = entries.map((e) => ({
    id: uuidv7(),
    tenant_id: e.tenantId !== undefined ? e.tenantId : e.model.tenantScoped ? ctx.tenantId : null,
    action: e.action,
    object_type: e.model.name,
    object_id: e.objectId,
    repr: e.repr.slice(0, 200),
    before: e.before,
    after: e.after,
  }));
  await sql`INSERT INTO object_changes (id, tenant_id, user_id, username, request_id, action, object_type, object_id, object_repr, before, after)
    SELECT u.id, u.tenant_id, ${author.userId}::uuid, ${author.username}, ${author.requestId},
      u.action, u.object_type, u.object_id, u.repr, u.before, u.after
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      AS u(id uuid, tenant_id uuid, action text, object_type text, object_id uuid, repr text, before jsonb, after jsonb)`.execute(tx);
  await notifyListeners(tx, ctx, rows.map((r): RecordedChange => ({ id: r.id, tenant: r.tenant_id, action: r.action, object_type: r.object_type })));
}

// ---------------------------------------------------------------- set-wise: snapshots written by the database

/** A table's column types (`pg_type.typname`, `_int4` for an array), as snapshotSql needs them. */
export type ColumnTypes = ReadonlyMap<string, string>;

/** The column types of `table`: one catalog read, which a bulk load does once per model. */
export async function columnTypesOf(db: Kysely<DB>, table: string): Promise<ColumnTypes> {
  const { rows } = await sql<{ name: string; type: string }>`SELECT a.attname AS name, t.typname AS type
    FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
    WHERE a.attrelid = to_regclass(${table}) AND a.attnum > 0 AND NOT a.attisdropped`.execute(db);
  return new Map(rows.map((r) => [r.name, r.type]));
}

/**
 * Column types whose value in a snapshot is what jsonb_build_object makes of the column itself: what pg's parsers
 * make of them in JavaScript (with database.ts's: int8 as a number, date as its ISO text) is what JSON.stringify
 * writes back.
 */
const PLAIN_JSON_TYPES = new Set(['text', 'varchar', 'bpchar', 'uuid', 'inet', 'cidr', 'macaddr', 'int2', 'int4', 'int8', 'bool', 'date', 'jsonb', 'json', '_text', '_varchar', '_int2', '_int4', '_uuid', '_bool']);

/**
 * snapshot() as an SQL expression over the row at `alias`: the jsonb that snapshot() of the row as pg reads it,
 * sent through JSON.stringify, gives. numeric as its text (pg reads it as a string); timestamptz as
 * Date#toISOString writes it (see isoMillis); float4 and float8 as their number, NaN and the infinities as null
 * (as JSON.stringify writes them); secrets masked. Each value is handed to jsonb_build_object as it is (no
 * to_jsonb of its own), which keeps it to one jsonb built per row. Null when a column's type is none of these: the
 * caller snapshots such a model's rows in JavaScript instead.
 */
export function snapshotSql(model: ModelDef, alias: string, types: ColumnTypes): RawBuilder<unknown> | null {
  const pairs: RawBuilder<unknown>[] = [sql`'id', ${sql.ref(`${alias}.id`)}`];
  for (const { key, column, secret } of snapshotColumns(model)) {
    const type = types.get(column);
    if (!type) return null;
    const ref = sql.ref(`${alias}.${column}`);
    let value: RawBuilder<unknown>;
    if (secret) value = sql`CASE WHEN ${ref} IS NULL THEN NULL WHEN ${ref}::text = '' THEN ''::text ELSE ${SECRET_MASK}::text END`;
    else if (PLAIN_JSON_TYPES.has(type)) value = ref;
    else if (type === 'numeric') value = sql`${ref}::text`;
    else if (type === 'float8' || type === 'float4') value = sql`CASE WHEN ${ref} IN ('NaN', 'Infinity', '-Infinity') THEN NULL ELSE ${ref} END`;
    else if (type === 'timestamptz') value = isoMillis(ref);
    else return null;
    pairs.push(sql`${sql.lit(key)}::text, ${value}`);
  }
  // jsonb_build_object takes at most 100 arguments: wide models are built in parts and joined.
  const parts: RawBuilder<unknown>[] = [];
  for (let i = 0; i < pairs.length; i += 50) parts.push(sql`jsonb_build_object(${sql.join(pairs.slice(i, i + 50))})`);
  return sql.join(parts, sql` || `);
}

/**
 * A timestamptz as the text Date#toISOString writes of the Date pg's parser makes of it (timestamptz.ts): whole
 * milliseconds, cut (the parser's 1000 × fraction, in doubles, is cut to the same millisecond as this integer
 * division for every one of the 10⁶ microsecond counts); infinity as null (the parser's Infinity, which
 * JSON.stringify writes so). Years outside 1000–9999, which toISOString writes otherwise, are not handled.
 */
function isoMillis(ref: RawBuilder<unknown>): RawBuilder<unknown> {
  const utc = sql`(${ref} AT TIME ZONE 'UTC')`;
  const millis = sql`(extract(microseconds FROM ${utc})::bigint % 1000000 / 1000)`;
  return sql`CASE WHEN isfinite(${ref}) THEN to_char(${utc}, 'YYYY-MM-DD"T"HH24:MI:SS.') || lpad(${millis}::text, 3, '0') || 'Z' END`;
}

/** Objects just created, by id, with the display text each is logged under (see recordCreatedObjects). */
export interface CreatedObjects {
  ids: string[];
  reprs: string[];
}

/**
 * The create entries of objects just written to `model`'s table, set-wise: one INSERT … SELECT whose snapshots
 * the database builds from the stored rows (snapshotSql), so the rows never travel to JavaScript and back. The
 * entries are those recordChanges writes for the same rows: the same snapshot, display text, tenant, author and
 * request, change ids in the order of `objects`. A model with a column snapshotSql cannot write falls back to
 * reading its rows and recordChanges.
 */
export async function recordCreatedObjects(tx: Kysely<DB>, ctx: RequestContext, model: ModelDef, types: ColumnTypes, objects: CreatedObjects): Promise<void> {
  const { ids, reprs } = objects;
  if (ids.length === 0) return;
  const after = snapshotSql(model, 't', types);
  if (!after) {
    const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(model.table)} WHERE id = ANY(${ids}::uuid[])`.execute(tx);
    const byId = new Map(rows.map((r) => [String(r.id), r]));
    await recordChanges(tx, ctx, ids.map((id, i) => {
      const row = byId.get(id)!;
      return { model, action: 'create' as const, objectId: id, repr: reprs[i]!, before: null, after: snapshot(model, row), tenantId: model.tenantScoped ? String(row.tenant_id) : null };
    }));
    return;
  }
  const author = changeAuthor(ctx);
  const changeIds = ids.map(() => uuidv7());
  const listening = changeListeners.length > 0 && ctx.notify !== false;
  const { rows } = await sql<{ id: string; tenant_id: string | null }>`INSERT INTO object_changes (id, tenant_id, user_id, username, request_id, action, object_type, object_id, object_repr, before, after)
    SELECT u.change_id, ${model.tenantScoped ? sql.ref('t.tenant_id') : sql`NULL::uuid`}, ${author.userId}::uuid, ${author.username}, ${author.requestId},
      'create', ${model.name}, t.id, u.repr, NULL, ${after}
    FROM unnest(${changeIds}::uuid[], ${ids}::uuid[], ${reprs.map((r) => r.slice(0, 200))}::text[]) AS u(change_id, object_id, repr)
    -- Each row found by its key: the planner, with no statistics for rows this transaction wrote, hashed the whole
    -- table for every chunk of a bulk load (a cost that grew with the table). OFFSET 0 keeps the lookup per row.
    CROSS JOIN LATERAL (SELECT * FROM ${sql.table(model.table)} x WHERE x.id = u.object_id OFFSET 0) t
    ${listening ? sql`RETURNING id, tenant_id` : sql``}`.execute(tx);
  if (listening) await notifyListeners(tx, ctx, rows.map((r): RecordedChange => ({ id: r.id, tenant: r.tenant_id, action: 'create', object_type: model.name })));
}
