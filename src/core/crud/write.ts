// Create, update and delete of registry models: one transaction each, with reference checks inside the
// tenant, the model's hooks, and the change-log row written in the same transaction. The stages written over a
// list of rows (setColumns, writeRelations, tagSlugsOf, logChanges) are shared with bulk-update and bulk-delete
// (bulk.ts), which run them once for N rows.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../../db/types.ts';
import type { RequestContext } from '../context.ts';
import type { FieldDef, ModelDef } from '../registry.ts';
import { allModels, columnOf, requireModel } from '../registry.ts';
import { ApiError, ErrorCollector, badRequest, conflict, notFound, type FieldErrors } from '../errors.ts';
import { changeTenantOf, scopeCondition } from '../access.ts';
import { uuidv7 } from '../ids.ts';
import { numidCounterStep } from '../numids.ts';
import { recordChanges, snapshot, type ChangeEntry } from '../changelog.ts';
import { checkInput, type CheckedInput, type WriteMode } from './input.ts';
import { displaysOf, type Row } from './serialize.ts';
import { translateDbError } from './db-errors.ts';
import { resolveNaturalKeys } from './natural-keys.ts';

function sqlValue(field: FieldDef | undefined, value: unknown): unknown {
  if (field && (field.kind === 'json' || field.kind === 'custom_fields') && value !== null) return JSON.stringify(value);
  return value;
}

function fieldByColumn(model: ModelDef, column: string): FieldDef | undefined {
  for (const [key, field] of Object.entries(model.fields)) if (columnOf(key, field) === column) return field;
  return undefined;
}

function valueSql(model: ModelDef, column: string, value: unknown): RawBuilder<unknown> {
  const field = fieldByColumn(model, column);
  if (field && (field.kind === 'json' || field.kind === 'custom_fields')) return sql`${sqlValue(field, value)}::jsonb`;
  return sql`${value}`;
}

/**
 * The SET list of an update of `columns` (column → value), `last_updated` included. `customFields`: 'replace'
 * stores the values settled for the one row written (settleCustomFields merged and checked them); 'merge' lays the
 * keys sent over each row's stored ones in SQL, keys sent as null removed, for one statement over many rows.
 */
export function setColumns(model: ModelDef, columns: Record<string, unknown>, customFields: 'replace' | 'merge'): RawBuilder<unknown>[] {
  const sets = Object.keys(columns).map((n) => {
    const v = columns[n];
    if (customFields === 'merge' && fieldByColumn(model, n)?.kind === 'custom_fields') {
      const obj = v as Record<string, unknown>;
      const cleared = Object.keys(obj).filter((k) => obj[k] === null);
      const kept = Object.fromEntries(Object.entries(obj).filter(([, x]) => x !== null));
      return sql`${sql.ref(n)} = (COALESCE(${sql.ref(n)}, '{}'::jsonb) || ${JSON.stringify(kept)}::jsonb) - ${cleared}::text[]`;
    }
    return sql`${sql.ref(n)} = ${valueSql(model, n, v)}`;
  });
  sets.push(sql`last_updated = now()`);
  return sets;
}

/** Tag slugs of rows of `model` by id ([] for a row without tags), or null when the model has no tags: one query. */
export async function tagSlugsOf(tx: Kysely<DB>, model: ModelDef, ids: string[]): Promise<Map<string, string[]> | null> {
  if (!Object.values(model.fields).some((f) => f.kind === 'tags')) return null;
  const { rows } = await sql<{ object_id: string; slug: string }>`SELECT ti.object_id, t.slug FROM tagged_items ti JOIN tags t ON t.id = ti.tag_id
    WHERE ti.object_type = ${model.name} AND ti.object_id = ANY(${ids}::uuid[]) ORDER BY t.slug`.execute(tx);
  const out = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const r of rows) out.get(r.object_id)!.push(r.slug);
  return out;
}

/**
 * The change-log entries of a write of rows of `model`, in one INSERT (recordChanges): each object's state before
 * and after (null for a create's before and a delete's after), with its tags where the model has them, its text
 * (the display, with its display parent's in front: one query per parent level for all rows) and its tenant.
 */
export async function logChanges(
  tx: Kysely<DB>,
  ctx: RequestContext,
  model: ModelDef,
  action: 'create' | 'update' | 'delete',
  changes: ReadonlyArray<{ before: Row | null; after: Row | null }>,
  tags: { before?: Map<string, string[]> | null; after?: Map<string, string[]> | null } = {},
): Promise<void> {
  const shown = changes.map((c) => (c.after ?? c.before)!);
  const reprs = await displaysOf(tx, ctx, model, shown);
  const snap = (row: Row | null, byId: Map<string, string[]> | null | undefined) => (row ? snapshot(model, row, byId ? { tags: byId.get(String(row.id)) } : {}) : null);
  const entries: ChangeEntry[] = changes.map((c, i) => {
    const row = shown[i]!;
    const id = String(row.id);
    return { model, action, objectId: id, repr: reprs.get(id)!, before: snap(c.before, tags.before), after: snap(c.after, tags.after), tenantId: changeTenantOf(model, row, ctx) };
  });
  await recordChanges(tx, ctx, entries);
}

/** Loads one row inside the caller's scope, or throws 404 exactly as for an id that does not exist. */
export async function loadScopedRow(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, id: string, forUpdate = false): Promise<Row> {
  const { rows } = await sql<Row>`SELECT * FROM ${sql.table(model.table)} t WHERE t.id = ${id} AND ${scopeCondition(ctx, model, 't')}
    ${forUpdate ? sql`FOR UPDATE` : sql``}`.execute(db);
  if (!rows[0]) throw notFound();
  return rows[0];
}

/** Every referenced row must exist in the caller's scope: another tenant's id reads as one that does not exist. */
export async function checkReferences(tx: Kysely<DB>, ctx: RequestContext, model: ModelDef, inputs: CheckedInput[]): Promise<void> {
  const errors = new ErrorCollector();
  for (const [key, field] of Object.entries(model.fields)) {
    if (field.kind !== 'fk' && field.kind !== 'm2m' && field.kind !== 'tags') continue;
    const wanted = new Set<string>();
    for (const input of inputs) {
      const v = field.kind === 'fk' ? input.columns[columnOf(key, field)] : field.kind === 'tags' ? input.tags : input.relations[key];
      if (typeof v === 'string') wanted.add(v);
      else if (Array.isArray(v)) for (const id of v) wanted.add(id as string);
    }
    if (wanted.size === 0) continue;
    const target = requireModel(field.kind === 'tags' ? 'extras.tag' : field.target!);
    const ids = [...wanted];
    const { rows } = await sql<{ id: string }>`SELECT r.id FROM ${sql.table(target.table)} r WHERE r.id = ANY(${ids}::uuid[]) AND ${scopeCondition(ctx, target, 'r')}`.execute(tx);
    const found = new Set(rows.map((r) => r.id));
    for (const id of ids) if (!found.has(id)) errors.add(key, `Related object ${id} does not exist.`);
  }
  for (const [key, field] of Object.entries(model.fields)) {
    if (field.kind !== 'generic_m2m') continue;
    const wanted = new Map<string, Set<string>>();
    for (const input of inputs) for (const ref of input.links[key] ?? []) wanted.set(ref.object_type, (wanted.get(ref.object_type) ?? new Set()).add(ref.object_id));
    for (const [type, idSet] of wanted) {
      const target = requireModel(type);
      const ids = [...idSet];
      const { rows } = await sql<{ id: string }>`SELECT r.id FROM ${sql.table(target.table)} r WHERE r.id = ANY(${ids}::uuid[]) AND ${scopeCondition(ctx, target, 'r')}`.execute(tx);
      const found = new Set(rows.map((r) => r.id));
      for (const id of ids) if (!found.has(id)) errors.add(key, `Related object ${id} does not exist.`);
    }
  }
  errors.throwIfAny();
}

/**
 * Writes the rows of generic_m2m fields: all of the owner's old rows go first (an end may move to the other
 * field in the same write), then the new ones. A row another owner holds is refused by the join table's unique
 * key, not by a prior SELECT, so two concurrent writes can never both take it: the second waits for the first
 * and then inserts nothing for it, and the write fails naming the row.
 */
async function writeLinks(tx: Kysely<DB>, ctx: RequestContext, model: ModelDef, id: string, input: Pick<CheckedInput, 'links'>, replacing: boolean): Promise<void> {
  const keys = Object.keys(input.links);
  if (replacing) {
    for (const key of keys) {
      const { through: t, generic: g } = model.fields[key]!;
      const fixed = Object.entries(g!.fixed).map(([c, v]) => sql`${sql.ref(c)} = ${v}`);
      await sql`DELETE FROM ${sql.table(t!.table)} WHERE ${sql.ref(t!.from)} = ${id} ${fixed.length ? sql`AND ${sql.join(fixed, sql` AND `)}` : sql``}`.execute(tx);
    }
  }
  const errors = new ErrorCollector();
  for (const key of keys) {
    const refs = input.links[key]!;
    if (refs.length === 0) continue;
    const { through: t, generic: g } = model.fields[key]!;
    const fixedCols = Object.keys(g!.fixed);
    const { rows } = await sql<{ type: string; id: string }>`INSERT INTO ${sql.table(t!.table)}
        (${sql.join([t!.from, ...fixedCols, g!.typeColumn, t!.to].map((c) => sql.ref(c)))})
      SELECT ${id}, ${sql.join(fixedCols.map((c) => sql`${g!.fixed[c]}`))}${fixedCols.length ? sql`,` : sql``} x.type, x.id
      FROM unnest(${refs.map((r) => r.object_type)}::text[], ${refs.map((r) => r.object_id)}::uuid[]) AS x(type, id)
      ON CONFLICT DO NOTHING RETURNING ${sql.ref(g!.typeColumn)} AS type, ${sql.ref(t!.to)}::text AS id`.execute(tx);
    if (rows.length === refs.length) continue;
    const inserted = new Set(rows.map((r) => `${r.type}:${r.id}`));
    for (const ref of refs) {
      if (inserted.has(`${ref.object_type}:${ref.object_id}`)) continue;
      const target = requireModel(ref.object_type);
      const { rows: taken } = await sql<Row>`SELECT * FROM ${sql.table(target.table)} WHERE id = ${ref.object_id}`.execute(tx);
      const shown = taken[0] ? (await displaysOf(tx, ctx, target, taken)).get(ref.object_id)! : ref.object_id;
      errors.add(key, `${shown} is already on another ${model.label}.`);
    }
  }
  errors.throwIfAny();
}

/** Tag changes of a write: `set` replaces the rows' tags (null: left as they are), then `add` and `remove`. */
export interface TagChanges {
  set: string[] | null;
  add?: string[];
  remove?: string[];
}

/**
 * Writes the relations of `ids` (rows of `model` that all get the same values): generic_m2m links (one owner at a
 * time: a single write's), many-to-many rows and tags, a statement per relation whatever the number of rows.
 * `replacing`: the rows' old relations named in the write go first (an update; a create has none).
 */
export async function writeRelations(tx: Kysely<DB>, ctx: RequestContext, model: ModelDef, ids: string[], input: Pick<CheckedInput, 'links' | 'relations'>, tags: TagChanges, replacing: boolean): Promise<void> {
  for (const id of Object.keys(input.links).length ? ids : []) await writeLinks(tx, ctx, model, id, input, replacing);
  for (const [key, relIds] of Object.entries(input.relations)) {
    const t = model.fields[key]!.through!;
    if (replacing) await sql`DELETE FROM ${sql.table(t.table)} WHERE ${sql.ref(t.from)} = ANY(${ids}::uuid[])`.execute(tx);
    if (relIds.length) {
      await sql`INSERT INTO ${sql.table(t.table)} (${sql.ref(t.from)}, ${sql.ref(t.to)})
        SELECT o, x FROM unnest(${ids}::uuid[]) AS o CROSS JOIN unnest(${relIds}::uuid[]) AS x`.execute(tx);
    }
  }
  if (tags.set && replacing) await sql`DELETE FROM tagged_items WHERE object_type = ${model.name} AND object_id = ANY(${ids}::uuid[])`.execute(tx);
  const toAdd = [...(tags.set ?? []), ...(tags.add ?? [])];
  if (toAdd.length) {
    await sql`INSERT INTO tagged_items (tenant_id, tag_id, object_type, object_id)
      SELECT ${ctx.tenantId}, x, ${model.name}, o FROM unnest(${ids}::uuid[]) AS o CROSS JOIN unnest(${toAdd}::uuid[]) AS x
      ON CONFLICT DO NOTHING`.execute(tx);
  }
  if (tags.remove?.length) {
    await sql`DELETE FROM tagged_items WHERE object_type = ${model.name} AND object_id = ANY(${ids}::uuid[]) AND tag_id = ANY(${tags.remove}::uuid[])`.execute(tx);
  }
}

async function applyTransforms(model: ModelDef, input: CheckedInput): Promise<void> {
  for (const [key, field] of Object.entries(model.fields)) {
    const col = columnOf(key, field);
    if (field.transform && col in input.columns && input.columns[col] !== null) input.columns[col] = await field.transform(input.columns[col]);
  }
}

/**
 * Checks a model's custom-field values against the tenant's definitions and returns what to store (defaults
 * filled in). Installed by the extras domain, which owns the definitions; the core only knows when to call it.
 */
export type CustomFieldsCheck = (args: {
  tx: Kysely<DB>;
  ctx: RequestContext;
  model: ModelDef;
  key: string;
  values: Record<string, unknown>;
  creating: boolean;
  /** Keys the request sent (PATCH); stored keys outside it are not the caller's doing. Absent: every key. */
  sentKeys?: ReadonlySet<string>;
}) => Promise<Record<string, unknown>>;

let customFieldsCheck: CustomFieldsCheck | null = null;

export function setCustomFieldsCheck(check: CustomFieldsCheck): void {
  customFieldsCheck = check;
}

/** Runs the installed custom-field check (the values as they would be stored), if a domain installed one. */
export async function runCustomFieldsCheck(args: Parameters<CustomFieldsCheck>[0]): Promise<Record<string, unknown>> {
  return customFieldsCheck ? customFieldsCheck(args) : args.values;
}

const customFieldsSent = new WeakMap<CheckedInput, Record<string, unknown>>();

/** PATCH semantics for custom fields: sent keys replace stored ones, a key sent as null is removed. */
export function mergeCustomFields(stored: unknown, sent: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : {}) };
  for (const [k, v] of Object.entries(sent)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

/**
 * Settles every `custom_fields` field of a write: merged into the stored values on PATCH, checked on every
 * create and on any update that sends them (so a newly required field does not block unrelated edits).
 */
async function settleCustomFields(tx: Kysely<DB>, ctx: RequestContext, model: ModelDef, input: CheckedInput, before: Row | null, mode: WriteMode): Promise<void> {
  // A bulk update applies one checked input to many rows: merge each row with what was sent, not with the
  // previous row's merged values.
  const sentColumns = customFieldsSent.get(input) ?? { ...input.columns };
  customFieldsSent.set(input, sentColumns);
  for (const [key, field] of Object.entries(model.fields)) {
    if (field.kind !== 'custom_fields') continue;
    const col = columnOf(key, field);
    const sent = sentColumns[col] as Record<string, unknown> | undefined;
    if (before && sent === undefined) continue;
    let values = mode === 'patch' ? mergeCustomFields(before?.[col], sent ?? {}) : mergeCustomFields({}, sent ?? {});
    const sentKeys = mode === 'patch' ? new Set(Object.keys(sent ?? {})) : undefined;
    values = await runCustomFieldsCheck({ tx, ctx, model, key, values, creating: before === null, sentKeys });
    input.columns[col] = values;
    input.values[key] = values;
  }
}

/**
 * Runs the model's validate hook and answers with its field errors instead of throwing them (anything else it
 * throws is thrown), so the write can still learn what the database would say of the same row.
 */
async function validateCollecting(tx: Kysely<DB>, ctx: RequestContext, model: ModelDef, input: CheckedInput, existing: Row | null): Promise<FieldErrors | null> {
  try {
    await model.hooks.validate?.({ tx, ctx, model, input: input.values, existing });
    return null;
  } catch (err) {
    if (err instanceof ApiError && err.status === 400 && typeof err.body.detail !== 'string') return err.body as FieldErrors;
    throw err;
  }
}

/**
 * A write the validate hook refused is still tried, inside a savepoint that is always rolled back, so a unique
 * key of the database on the same row (a name already taken) is reported in the same 400 as the hook's errors (a
 * rack unit taken) instead of on the next submit. Nothing of the attempt is kept; it costs a statement only on a
 * write that is refused anyway.
 */
async function refusedWithConstraints<T>(tx: Kysely<DB>, refused: FieldErrors | null, write: () => Promise<T>): Promise<T> {
  if (!refused) return write();
  await sql`SAVEPOINT cairn_refused_write`.execute(tx);
  const errors = new ErrorCollector();
  for (const [k, messages] of Object.entries(refused)) for (const m of messages) errors.add(k, m);
  try {
    await write();
  } catch (err) {
    // Only a unique key taken (a name already used): a null or a check the hook would have filled or explained
    // would only add noise to what the hook said.
    const said = (err as { code?: string }).code === '23505' ? translateDbError(err) : null;
    if (said instanceof ApiError && said.status === 400 && typeof said.body.detail !== 'string') {
      for (const [k, messages] of Object.entries(said.body as FieldErrors)) if (k !== 'non_field_errors' && !errors.errors[k]) for (const m of messages) errors.add(k, m);
    }
  }
  await sql`ROLLBACK TO SAVEPOINT cairn_refused_write`.execute(tx);
  await sql`RELEASE SAVEPOINT cairn_refused_write`.execute(tx);
  throw badRequest(errors.errors);
}

export async function inTransaction<T>(db: Kysely<DB>, work: (tx: Kysely<DB>) => Promise<T>): Promise<T> {
  try {
    return await db.transaction().execute(work);
  } catch (err) {
    throw translateDbError(err);
  }
}

/** `serverColumns` are values only the server sets (a token's hash, an author); they win over the defaults. */
export async function createObject(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, body: unknown, serverColumns: Record<string, unknown> = {}): Promise<Row> {
  const input = await prepareCreate(ctx, model, body);
  return inTransaction(db, (tx) => createRowInTx(tx, ctx, model, input, serverColumns));
}

/** Checks a request body for a create (no database access): the first half of createObject. */
export async function prepareCreate(ctx: RequestContext, model: ModelDef, body: unknown): Promise<CheckedInput> {
  if (model.tenantScoped && !ctx.tenantId) throw badRequest('No active tenant: join a tenant or choose one with POST /api/auth/tenant/.');
  const input = checkInput(model, body, 'create');
  await applyTransforms(model, input);
  return input;
}

/** Creates one row from a checked input inside the caller's transaction: the second half of createObject. */
export async function createRowInTx(tx: Kysely<DB>, ctx: RequestContext, model: ModelDef, input: CheckedInput, serverColumns: Record<string, unknown> = {}): Promise<Row> {
  await resolveNaturalKeys(tx, ctx, model, [input]);
  await settleCustomFields(tx, ctx, model, input, null, 'create');
  // References first: a hook may read the rows an input names, and must only ever see the caller's own.
  await checkReferences(tx, ctx, model, [input]);
  const refused = await validateCollecting(tx, ctx, model, input, null);
  const id = uuidv7();
  const scope = model.tenantScoped ? ctx.tenantId! : 'global';
  const columns: Record<string, unknown> = { ...(model.createDefaults?.(ctx) ?? {}), ...input.columns, ...serverColumns, id };
  delete columns.numid;
  if (model.tenantScoped) columns.tenant_id = ctx.tenantId;
  const names = Object.keys(columns);
  // The row's number is taken in the insert's own statement (numids.ts for the counter): one round trip, not two.
  const { rows } = await refusedWithConstraints(tx, refused, () =>
    sql<Row>`WITH n AS (${numidCounterStep(scope, model.table, 1)})
    INSERT INTO ${sql.table(model.table)} (${sql.join([...names.map((n) => sql.ref(n)), sql.ref('numid')])})
    SELECT ${sql.join(names.map((n) => valueSql(model, n, columns[n])))}, n.last FROM n RETURNING *`.execute(tx),
  );
  const row = rows[0]!;
  await writeRelations(tx, ctx, model, [id], input, { set: input.tags }, false);
  await model.hooks.afterCreate?.({ tx, ctx, model, row });
  await logChanges(tx, ctx, model, 'create', [{ before: null, after: row }], { after: await tagSlugsOf(tx, model, [id]) });
  return row;
}

export async function updateObject(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, id: string, body: unknown, mode: Exclude<WriteMode, 'create'>): Promise<Row> {
  const input = await prepareUpdate(model, body, mode);
  return inTransaction(db, (tx) => updateRowInTx(tx, ctx, model, id, input, mode));
}

/** Checks a request body for an update (no database access): the first half of updateObject. */
export async function prepareUpdate(model: ModelDef, body: unknown, mode: Exclude<WriteMode, 'create'>): Promise<CheckedInput> {
  const input = checkInput(model, body, mode);
  await applyTransforms(model, input);
  return input;
}

/**
 * Applies a checked update to one row inside the caller's transaction: the second half of updateObject.
 * `serverColumns` are values only the server sets (read-only facts it derives from the input), as on create.
 */
export async function updateRowInTx(
  tx: Kysely<DB>,
  ctx: RequestContext,
  model: ModelDef,
  id: string,
  input: CheckedInput,
  mode: Exclude<WriteMode, 'create'>,
  serverColumns: Record<string, unknown> = {},
): Promise<Row> {
  const before = await loadScopedRow(tx, ctx, model, id, true);
  await resolveNaturalKeys(tx, ctx, model, [input]);
  await settleCustomFields(tx, ctx, model, input, before, mode);
  await checkReferences(tx, ctx, model, [input]);
  const refused = await validateCollecting(tx, ctx, model, input, before);
  const tagsBefore = await tagSlugsOf(tx, model, [id]);
  const columns = { ...input.columns, ...serverColumns };
  let row = before;
  if (Object.keys(columns).length || refused) {
    const sets = setColumns(model, columns, 'replace');
    const { rows } = await refusedWithConstraints(tx, refused, () => sql<Row>`UPDATE ${sql.table(model.table)} SET ${sql.join(sets)} WHERE id = ${id} RETURNING *`.execute(tx));
    row = rows[0]!;
  }
  await writeRelations(tx, ctx, model, [id], input, { set: input.tags }, true);
  await model.hooks.afterUpdate?.({ tx, ctx, model, before, row });
  await logChanges(tx, ctx, model, 'update', [{ before, after: row }], { before: tagsBefore, after: await tagSlugsOf(tx, model, [id]) });
  return row;
}

/** Models whose foreign keys point at `model` with on-delete protect: they must be empty first. */
function protectingReferences(model: ModelDef): Array<{ model: ModelDef; key: string; field: FieldDef }> {
  const out: Array<{ model: ModelDef; key: string; field: FieldDef }> = [];
  for (const m of allModels()) {
    for (const [key, field] of Object.entries(m.fields)) {
      if (field.kind === 'fk' && field.target === model.name && field.onDelete === 'protect') out.push({ model: m, key, field });
    }
  }
  return out;
}

/** Counts of rows that keep `ids` from being deleted, by referencing model; one query per protecting relation. */
export async function protectedBy(tx: Kysely<DB>, model: ModelDef, ids: string[]): Promise<Map<string, Array<{ label: string; count: number }>>> {
  const out = new Map<string, Array<{ label: string; count: number }>>();
  for (const ref of protectingReferences(model)) {
    const col = columnOf(ref.key, ref.field);
    const { rows } = await sql<{ target: string; n: number }>`SELECT ${sql.ref(col)} AS target, count(*)::int AS n FROM ${sql.table(ref.model.table)}
      WHERE ${sql.ref(col)} = ANY(${ids}::uuid[]) GROUP BY 1`.execute(tx);
    for (const r of rows) {
      const list = out.get(r.target) ?? [];
      list.push({ label: r.n === 1 ? ref.model.label : ref.model.labelPlural, count: r.n });
      out.set(r.target, list);
    }
  }
  return out;
}

export function inUseMessage(uses: Array<{ label: string; count: number }>): string {
  return `In use: ${uses.map((u) => `${u.count} ${u.label}`).join(', ')}`;
}

export async function deleteObject(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, id: string): Promise<void> {
  await inTransaction(db, async (tx) => {
    const row = await loadScopedRow(tx, ctx, model, id, true);
    const uses = (await protectedBy(tx, model, [id])).get(id);
    if (uses) throw conflict(`Cannot delete this ${model.label}. ${inUseMessage(uses)}.`);
    await model.hooks.beforeDelete?.({ tx, ctx, model, row });
    await deleteRowsInTx(tx, ctx, model, [row]);
  });
}

/**
 * The delete of rows locked in scope and cleared to go (nothing protects them, their before-delete hooks ran): a
 * single delete's one row or a bulk delete's many. Their tags and journal go with them; the after-delete hook and
 * the change log see them all at once.
 */
export async function deleteRowsInTx(tx: Kysely<DB>, ctx: RequestContext, model: ModelDef, rows: Row[]): Promise<void> {
  const ids = rows.map((r) => String(r.id));
  const tags = await tagSlugsOf(tx, model, ids);
  await sql`DELETE FROM tagged_items WHERE object_type = ${model.name} AND object_id = ANY(${ids}::uuid[])`.execute(tx);
  await sql`DELETE FROM journal_entries WHERE object_type = ${model.name} AND object_id = ANY(${ids}::uuid[])`.execute(tx);
  await sql`DELETE FROM ${sql.table(model.table)} WHERE id = ANY(${ids}::uuid[])`.execute(tx);
  await model.hooks.afterDelete?.({ tx, ctx, model, rows });
  await logChanges(tx, ctx, model, 'delete', rows.map((row) => ({ before: row, after: null })), { before: tags });
}

