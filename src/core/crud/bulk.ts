// Bulk delete and bulk update by ids on every list. All input is checked before anything is touched; each
// call is one transaction; ids outside the caller's scope fall out silently, as in a list; the change log
// is written with one INSERT; the number of queries does not grow with the number of ids (models whose
// hooks query per row are the documented exception). The SET list, relation and tag writes, tag reads and
// change-log entries are write.ts's, the same code a single update runs for its one row.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import type { RequestContext } from '../context.ts';
import type { ModelDef } from '../registry.ts';
import { allModels, columnOf } from '../registry.ts';
import { ApiError, ErrorCollector, badRequest, conflict, namingItem, notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { scopeCondition } from '../access.ts';
import { bulkEditableKeys } from './editable.ts';
import { displayOf, type Row } from './serialize.ts';
import { checkReferences, createRowInTx, deleteRowsInTx, inTransaction, inUseMessage, logChanges, mergeCustomFields, prepareCreate, prepareUpdate, protectedBy, runCustomFieldsCheck, setColumns, tagSlugsOf, updateRowInTx, writeRelations } from './write.ts';
import type { CheckedInput } from './input.ts';
import { resolveNaturalKeys } from './natural-keys.ts';
import { translateDbError } from './db-errors.ts';

export const MAX_BULK_IDS = 1000;

function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** `{ids: [...]}` → unique lower-case ids, or a 400 naming the offending value. */
export function checkIds(body: unknown): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest({ ids: ['Send a JSON object: {"ids": [...]}.'] });
  }
  const ids = (body as { ids?: unknown }).ids;
  if (!Array.isArray(ids) || ids.length === 0) throw badRequest({ ids: ['Provide a non-empty list of ids.'] });
  if (ids.length > MAX_BULK_IDS) throw badRequest({ ids: [`At most ${MAX_BULK_IDS} ids per call.`] });
  for (const id of ids) if (!isUuid(id)) throw badRequest({ ids: [`${shown(id)} is not an id.`] });
  return [...new Set((ids as string[]).map((i) => i.toLowerCase()))];
}

/** Models whose rows a delete of `model` would remove too (ON DELETE CASCADE), with counts. */
async function cascadeImpact(tx: Kysely<DB>, model: ModelDef, ids: string[]): Promise<Array<{ label: string; count: number }>> {
  const impact: Array<{ label: string; count: number }> = [];
  for (const m of allModels()) {
    for (const [key, field] of Object.entries(m.fields)) {
      if (field.kind !== 'fk' || field.target !== model.name || field.onDelete !== 'cascade') continue;
      const col = columnOf(key, field);
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(m.table)} WHERE ${sql.ref(col)} = ANY(${ids}::uuid[])`.execute(tx);
      if (rows[0]!.n > 0) impact.push({ label: rows[0]!.n === 1 ? m.label : m.labelPlural, count: rows[0]!.n });
    }
  }
  return impact;
}

export interface BulkDeleteResult {
  deleted: number;
  deleted_ids: string[];
  skipped: Array<{ id: string; name: string; reason: string }>;
  dry_run: boolean;
  impact?: Array<{ label: string; count: number }>;
}

/** The bulk-delete answer of every model, one named component (`BulkDeleteResult`). */
export const bulkDeleteResultSchema = {
  $id: 'BulkDeleteResult',
  type: 'object',
  properties: {
    deleted: { type: 'integer' },
    deleted_ids: { type: 'array', items: { type: 'string' } },
    skipped: {
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, reason: { type: 'string' } }, required: ['id', 'name', 'reason'] },
    },
    dry_run: { type: 'boolean' },
    impact: {
      type: 'array',
      description: 'Dry run only: what the cascade would remove besides the rows named.',
      items: { type: 'object', properties: { label: { type: 'string' }, count: { type: 'integer' } }, required: ['label', 'count'] },
    },
  },
  required: ['deleted', 'deleted_ids', 'skipped', 'dry_run'],
};

/** Thrown inside the transaction to roll a dry run back while keeping its answer. */
class DryRun extends Error {
  constructor(readonly result: BulkDeleteResult) {
    super('dry run');
  }
}

/** `allOrNothing`: a skipped row or an id not found refuses the whole call (the NetBox list form). */
export async function bulkDelete(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, body: unknown, allOrNothing = false): Promise<BulkDeleteResult> {
  const ids = checkIds(body);
  const dryRun = (body as { dry_run?: unknown }).dry_run;
  if (dryRun !== undefined && typeof dryRun !== 'boolean') throw badRequest({ dry_run: ['Must be true or false.'] });
  const extra = Object.keys(body as object).filter((k) => k !== 'ids' && k !== 'dry_run');
  if (extra.length) throw badRequest(Object.fromEntries(extra.map((k) => [k, ['Unknown field.']])));
  try {
    return await db.transaction().execute(async (tx) => {
      const { rows } = await sql<Row>`SELECT * FROM ${sql.table(model.table)} t WHERE t.id = ANY(${ids}::uuid[]) AND ${scopeCondition(ctx, model, 't')}
        ORDER BY t.id FOR UPDATE`.execute(tx);
      const uses = await protectedBy(tx, model, rows.map((r) => String(r.id)));
      const skipped: BulkDeleteResult['skipped'] = [];
      const doomed: Row[] = [];
      for (const row of rows) {
        const id = String(row.id);
        const inUse = uses.get(id);
        if (inUse) {
          skipped.push({ id, name: displayOf(model, row), reason: inUseMessage(inUse) });
          continue;
        }
        if (model.hooks.beforeDelete && !model.hooks.beforeDeleteMany) {
          try {
            await model.hooks.beforeDelete({ tx, ctx, model, row });
          } catch (err) {
            if (!(err instanceof ApiError)) throw err;
            skipped.push({ id, name: displayOf(model, row), reason: err.message });
            continue;
          }
        }
        doomed.push(row);
      }
      const doomedIds = doomed.map((r) => String(r.id));
      if (allOrNothing && skipped.length) throw conflict({ detail: 'Nothing was deleted: some rows are still in use.', skipped } as unknown as Record<string, string[]>);
      if (allOrNothing && rows.length !== ids.length) throw notFound('Nothing was deleted: one or more ids do not exist.');
      if (dryRun === true) {
        throw new DryRun({ deleted: 0, deleted_ids: doomedIds, skipped, dry_run: true, impact: doomedIds.length ? await cascadeImpact(tx, model, doomedIds) : [] });
      }
      if (doomedIds.length) {
        await model.hooks.beforeDeleteMany?.({ tx, ctx, model, rows: doomed });
        await deleteRowsInTx(tx, ctx, model, doomed);
      }
      return { deleted: doomedIds.length, deleted_ids: doomedIds, skipped, dry_run: false };
    });
  } catch (err) {
    if (err instanceof DryRun) return err.result;
    throw translateDbError(err);
  }
}

/** A 400 about one of many rows, with the row's name in each message so the caller knows which failed. */
function namingRow(err: unknown, model: ModelDef, row: Row): unknown {
  if (!(err instanceof ApiError) || err.status !== 400) return err;
  return badRequest(Object.fromEntries(Object.entries(err.body).map(([k, v]) => [k, (Array.isArray(v) ? v : [v]).map((m) => `${displayOf(model, row)}: ${String(m)}`)])));
}

export interface BulkUpdateResult {
  updated: number;
  ids: string[];
}

function checkTagIds(key: string, value: unknown, errors: ErrorCollector): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    errors.add(key, 'Expected a list of tag ids.');
    return [];
  }
  for (const v of value) {
    if (!isUuid(v)) {
      errors.add(key, `${shown(v)} is not an id.`);
      return [];
    }
  }
  return [...new Set((value as string[]).map((v) => v.toLowerCase()))];
}

export async function bulkUpdate(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, body: unknown): Promise<BulkUpdateResult> {
  const ids = checkIds(body);
  const b = body as Record<string, unknown>;
  const errors = new ErrorCollector();
  for (const k of Object.keys(b)) if (!['ids', 'fields', 'add_tags', 'remove_tags'].includes(k)) errors.add(k, 'Unknown field.');
  const hasTags = Object.values(model.fields).some((f) => f.kind === 'tags');
  const addTags = checkTagIds('add_tags', b.add_tags, errors);
  const removeTags = checkTagIds('remove_tags', b.remove_tags, errors);
  if (!hasTags && (b.add_tags !== undefined || b.remove_tags !== undefined)) errors.add(b.add_tags !== undefined ? 'add_tags' : 'remove_tags', `${model.labelPlural} have no tags.`);
  const fields = b.fields ?? {};
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) errors.add('fields', 'Expected an object of field values.');
  else if (Object.keys(fields).length === 0 && addTags.length === 0 && removeTags.length === 0) {
    errors.add('fields', 'Provide at least one field to update.');
  }
  if (typeof fields === 'object' && fields !== null) {
    const allowed = bulkEditableKeys(model);
    for (const k of Object.keys(fields)) {
      if (model.fields[k] && !model.fields[k]!.readOnly && !allowed.has(k)) errors.add(`fields.${k}`, `${model.labelPlural} cannot change this field in bulk.`);
    }
  }
  errors.throwIfAny();
  // The same checks and field transforms (password hashing, secret encryption) as a single update.
  const input = await prepareUpdate(model, fields, 'patch');
  const patch = input.values;

  try {
    return await db.transaction().execute(async (tx) => {
      const { rows: before } = await sql<Row>`SELECT * FROM ${sql.table(model.table)} t WHERE t.id = ANY(${ids}::uuid[]) AND ${scopeCondition(ctx, model, 't')}
        ORDER BY t.id FOR UPDATE`.execute(tx);
      if (before.length === 0) return { updated: 0, ids: [] };
      await resolveNaturalKeys(tx, ctx, model, [input]);
      const rowIds = before.map((r) => String(r.id));
      if (model.hooks.validate) {
        for (const existing of before) {
          try {
            await model.hooks.validate({ tx, ctx, model, input: patch, existing });
          } catch (err) {
            throw namingRow(err, model, existing);
          }
        }
      }
      await checkReferences(tx, ctx, model, [{ ...input, tags: [...addTags, ...removeTags] }]);
      // Custom fields are checked as each row would store them (merged), naming the row that fails; this costs
      // a query per row, and only when the call changes custom fields.
      for (const [key, field] of Object.entries(model.fields)) {
        const col = columnOf(key, field);
        if (field.kind !== 'custom_fields' || input.columns[col] === undefined) continue;
        for (const existing of before) {
          const values = mergeCustomFields(existing[col], input.columns[col] as Record<string, unknown>);
          try {
            await runCustomFieldsCheck({ tx, ctx, model, key, values, creating: false });
          } catch (err) {
            throw namingRow(err, model, existing);
          }
        }
      }
      const tagsBefore = await tagSlugsOf(tx, model, rowIds);
      let after = before;
      const names = Object.keys(input.columns);
      if (names.length) {
        // The single update's SET, with custom fields merged like a PATCH in SQL (each row keeps its other keys).
        const sets = setColumns(model, input.columns, 'merge');
        // Only the columns that changed come back (as stored: merged custom fields, canonical inet text, …) and
        // are laid over the locked row: returning and parsing every column again doubled the cost of the call.
        const { rows } = await sql<Row>`UPDATE ${sql.table(model.table)} SET ${sql.join(sets)} WHERE id = ANY(${rowIds}::uuid[])
          RETURNING ${sql.join(['id', ...names, 'last_updated'].map((n) => sql.ref(n)))}`.execute(tx);
        const byId = new Map(rows.map((r) => [String(r.id), r]));
        after = before.map((r) => ({ ...r, ...byId.get(String(r.id))! }));
      }
      const setTags = input.tags;
      await writeRelations(tx, ctx, model, rowIds, input, { set: setTags, add: addTags, remove: removeTags }, true);
      if (model.hooks.afterUpdate) {
        for (let i = 0; i < before.length; i++) await model.hooks.afterUpdate({ tx, ctx, model, before: before[i]!, row: after[i]!, inBulk: true });
      }
      await model.hooks.afterUpdateMany?.({ tx, ctx, model, rows: before.map((b0, i) => ({ before: b0, row: after[i]! })) });
      // Tags read again only when this call changed them.
      const tagsAfter = setTags || addTags.length || removeTags.length ? await tagSlugsOf(tx, model, rowIds) : tagsBefore;
      await logChanges(tx, ctx, model, 'update', before.map((b0, i) => ({ before: b0, after: after[i]! })), { before: tagsBefore, after: tagsAfter });
      return { updated: rowIds.length, ids: rowIds };
    });
  } catch (err) {
    const translated = translateDbError(err);
    // Many rows set to one value collide on a unique field: a conflict, not a malformed request.
    if (translated instanceof ApiError && (err as { code?: string }).code === '23505') {
      const field = Object.keys(translated.body)[0] ?? 'non_field_errors';
      throw conflict({ [field]: ['Two rows would end up the same: change fewer at a time or pick other values.'] });
    }
    throw translated;
  }
}

/** NetBox-style list bodies: `[{id, ...}]`. Validates every item before anything is touched. */
function checkItems(body: unknown): Array<Record<string, unknown> & { id: string }> {
  if (!Array.isArray(body) || body.length === 0) throw badRequest({ non_field_errors: ['Send a non-empty JSON list of objects, each with an "id".'] });
  if (body.length > MAX_BULK_IDS) throw badRequest({ ids: [`At most ${MAX_BULK_IDS} ids per call.`] });
  const seen = new Set<string>();
  body.forEach((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw badRequest({ [`[${i}]`]: ['Expected an object with an "id".'] });
    const id = (item as { id?: unknown }).id;
    if (!isUuid(id)) throw badRequest({ ids: [`${shown(id)} is not an id.`] });
    if (seen.has(id.toLowerCase())) throw badRequest({ ids: [`${id} is listed twice.`] });
    seen.add(id.toLowerCase());
  });
  return body as Array<Record<string, unknown> & { id: string }>;
}

/** `POST <list>` with `[{...fields}, …]`: each row through the create path, all in one transaction, all or none. */
export async function createList(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, body: unknown[]): Promise<Row[]> {
  if (body.length === 0) throw badRequest({ non_field_errors: ['Send a non-empty JSON list of objects.'] });
  if (body.length > MAX_BULK_IDS) throw badRequest({ non_field_errors: [`At most ${MAX_BULK_IDS} objects per call.`] });
  const prepared: CheckedInput[] = [];
  for (const [i, item] of body.entries()) {
    try {
      prepared.push(await prepareCreate(ctx, model, item));
    } catch (err) {
      throw namingItem(err, i);
    }
  }
  return inTransaction(db, async (tx) => {
    const rows: Row[] = [];
    for (const [i, input] of prepared.entries()) {
      try {
        rows.push(await createRowInTx(tx, ctx, model, input));
      } catch (err) {
        throw namingItem(err, i);
      }
    }
    return rows;
  });
}

/**
 * `PATCH <list>` with `[{id, ...fields}]`: each row its own values, all in one transaction. With mode `update`
 * (NetBox's bulk PUT) each item is checked as a PUT is: every required field must be sent.
 */
export async function patchList(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, body: unknown, mode: 'patch' | 'update' = 'patch'): Promise<Row[]> {
  const items = checkItems(body);
  const prepared: Array<{ id: string; input: Awaited<ReturnType<typeof prepareUpdate>> }> = [];
  for (const [i, item] of items.entries()) {
    const { id, ...fields } = item;
    try {
      prepared.push({ id: id.toLowerCase(), input: await prepareUpdate(model, fields, mode) });
    } catch (err) {
      throw namingItem(err, i);
    }
  }
  return inTransaction(db, async (tx) => {
    const rows: Row[] = [];
    for (const p of prepared) rows.push(await updateRowInTx(tx, ctx, model, p.id, p.input, mode));
    return rows;
  });
}

/** `DELETE <list>` with `[{id}]`: all rows or none; a row still in use refuses the whole call with 409. */
export async function deleteList(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, body: unknown): Promise<void> {
  const ids = checkItems(body).map((item) => item.id);
  await bulkDelete(db, ctx, model, { ids }, true);
}
