// `POST <list>import/`: rows from a spreadsheet (CSV with a header row of field names, or a JSON or YAML list of
// objects) created, or updated where a row has an `id` (the object's id or its number). Related objects by id,
// number, slug or unique name. Every row is checked, then all are written in one transaction through the write
// path (hooks, change log, webhooks) or none are: the answer lists each refused row's number, field and message.
// `dry_run` checks and writes nothing, for a preview.
import { sql, type Kysely } from 'kysely';
import { parse as parseYaml } from 'yaml';
import type { DB } from '../../db/types.ts';
import type { RequestContext } from '../context.ts';
import { findModel, type FieldDef, type ModelDef } from '../registry.ts';
import { ApiError, badRequest, forbidden } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { modelAllows, scopeCondition } from '../access.ts';
import { createRowInTx, inTransaction, prepareCreate, prepareUpdate, updateRowInTx } from './write.ts';
import { MAX_BULK_IDS } from './bulk.ts';
import { translateDbError } from './db-errors.ts';

export interface ImportBody {
  format: 'csv' | 'json' | 'yaml';
  data: string;
  dry_run?: boolean;
}

export interface RowError {
  /** 1-based: the n-th data row (the header row is not counted). */
  row: number;
  field: string;
  message: string;
}

export interface ImportResult {
  created: number;
  updated: number;
  ids: string[];
  dry_run: boolean;
}

/** Thrown inside the transaction to roll back a dry run or a refused row. */
class Rollback extends Error {}

/** RFC 4180 CSV: quoted fields with doubled quotes and line breaks; the first row names the fields. */
export function parseCsv(text: string): Array<Record<string, string>> {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      field = '';
      if (row.some((f) => f !== '')) rows.push(row);
      row = [];
    } else field += c;
  }
  row.push(field);
  if (row.some((f) => f !== '')) rows.push(row);
  const [header, ...data] = rows;
  if (!header) return [];
  const names = header.map((h) => h.trim());
  return data.map((r) => Object.fromEntries(names.map((n, i) => [n, r[i] ?? ''])));
}

function parseRows(body: ImportBody): Array<Record<string, unknown>> {
  let rows: unknown;
  try {
    rows = body.format === 'csv' ? parseCsv(body.data) : body.format === 'json' ? JSON.parse(body.data) : parseYaml(body.data);
  } catch (err) {
    throw badRequest({ data: [`Not valid ${body.format.toUpperCase()}: ${(err as Error).message.split('\n')[0]}`] });
  }
  if (!Array.isArray(rows) || rows.length === 0 || rows.some((r) => typeof r !== 'object' || r === null || Array.isArray(r))) {
    throw badRequest({ data: ['Send at least one row: a header row and data rows (CSV), or a list of objects (JSON, YAML).'] });
  }
  if (rows.length > MAX_BULK_IDS) throw badRequest({ data: [`At most ${MAX_BULK_IDS} rows per import.`] });
  return rows as Array<Record<string, unknown>>;
}

/** A spreadsheet cell (text) as the API takes the field: numbers, booleans and lists from their spelling. */
function cellValue(def: FieldDef, text: string): unknown {
  const t = text.trim();
  switch (def.kind) {
    case 'integer':
    case 'decimal':
      return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
    case 'boolean':
      return /^(true|yes|1)$/i.test(t) ? true : /^(false|no|0)$/i.test(t) ? false : t;
    case 'string_list':
    case 'm2m':
    case 'tags':
      return t === '' ? [] : t.split(',').map((s) => s.trim());
    case 'integer_list':
      return t === '' ? [] : t.split(',').map((s) => (/^-?\d+$/.test(s.trim()) ? Number(s.trim()) : s.trim()));
    case 'json':
    case 'custom_fields':
      try {
        return JSON.parse(t);
      } catch {
        return t;
      }
    default:
      return def.nullable && t === '' ? null : text;
  }
}

/** Object numbers (`17`) standing for related rows, turned into ids (one query per related model). */
async function resolveNumbers(tx: Kysely<DB>, ctx: RequestContext, model: ModelDef, rows: Array<Record<string, unknown>>): Promise<void> {
  for (const [key, def] of Object.entries(model.fields)) {
    if (def.kind !== 'fk' && def.kind !== 'm2m') continue;
    const target = def.target ? findModel(def.target) : undefined;
    if (!target?.numbered) continue;
    const isNumber = (v: unknown) => (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && /^\d+$/.test(v));
    const numbers = new Set<number>();
    for (const r of rows) for (const v of [r[key]].flat()) if (isNumber(v)) numbers.add(Number(v));
    if (numbers.size === 0) continue;
    const { rows: found } = await sql<{ id: string; numid: string }>`SELECT t.id, t.numid FROM ${sql.table(target.table)} t
      WHERE t.numid = ANY(${[...numbers]}::int8[]) AND ${scopeCondition(ctx, target, 't')}`.execute(tx);
    const byNumber = new Map(found.map((f) => [Number(f.numid), f.id]));
    for (const r of rows) {
      const v = r[key];
      if (Array.isArray(v)) r[key] = v.map((x) => (isNumber(x) ? (byNumber.get(Number(x)) ?? x) : x));
      else if (isNumber(v)) r[key] = byNumber.get(Number(v)) ?? v;
    }
  }
}

function rowErrors(err: unknown, row: number): RowError[] {
  if (!(err instanceof ApiError) || err.status !== 400) throw err;
  return Object.entries(err.body).flatMap(([field, messages]) =>
    (Array.isArray(messages) ? messages : [String(messages)]).map((message) => ({ row, field: field === 'detail' ? 'non_field_errors' : field, message: String(message) })),
  );
}

export async function importSpreadsheet(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, body: ImportBody): Promise<ImportResult> {
  const parsed = parseRows(body);
  const rows = parsed.map((r) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(r)) {
      const def = model.fields[k];
      if (body.format === 'csv' && typeof v === 'string') {
        if (v.trim() === '') continue; // an empty cell leaves the field to its default, or as it is
        out[k] = k === 'id' || !def ? v.trim() : cellValue(def, v);
      } else out[k] = v;
    }
    return out;
  });
  if (rows.some((r) => r.id !== undefined) && !modelAllows(ctx, model, 'change')) throw forbidden();
  await resolveNumbers(db, ctx, model, rows);
  // Every row's fields are checked first (no writes): all the errors of a sheet at once.
  const errors: RowError[] = [];
  const prepared: Array<{ id: unknown; input: Awaited<ReturnType<typeof prepareCreate>> } | null> = [];
  for (const [i, r] of rows.entries()) {
    const { id, ...fields } = r;
    try {
      prepared.push({ id, input: id === undefined ? await prepareCreate(ctx, model, fields) : await prepareUpdate(model, fields, 'patch') });
    } catch (err) {
      errors.push(...rowErrors(err, i + 1));
      prepared.push(null);
    }
  }
  if (errors.length) throw new ApiError(400, { errors });
  const result: ImportResult = { created: 0, updated: 0, ids: [], dry_run: Boolean(body.dry_run) };
  try {
    await inTransaction(db, async (tx) => {
      const wanted = rows.map((r) => r.id).filter((id) => id !== undefined && !isUuid(id)).map(Number).filter(Number.isInteger);
      const idOfNumber = new Map<number, string>();
      if (wanted.length) {
        const { rows: found } = await sql<{ id: string; numid: string }>`SELECT t.id, t.numid FROM ${sql.table(model.table)} t
          WHERE t.numid = ANY(${wanted}::int8[]) AND ${scopeCondition(ctx, model, 't')}`.execute(tx);
        for (const f of found) idOfNumber.set(Number(f.numid), f.id);
      }
      for (const [i, p] of prepared.entries()) {
        // Then written in order: the first row the rules or the database refuse stops the import (a refused
        // statement ends what a PostgreSQL transaction can do), and nothing is kept.
        try {
          if (p!.id === undefined) {
            const row = await createRowInTx(tx, ctx, model, p!.input);
            result.ids.push(String(row.id));
            result.created++;
          } else {
            const uuid = isUuid(p!.id) ? p!.id.toLowerCase() : idOfNumber.get(Number(p!.id));
            if (!uuid) {
              errors.push({ row: i + 1, field: 'id', message: `No ${model.label} ${String(p!.id)}.` });
              throw new Rollback();
            }
            const row = await updateRowInTx(tx, ctx, model, uuid, p!.input, 'patch');
            result.ids.push(String(row.id));
            result.updated++;
          }
        } catch (err) {
          if (!(err instanceof Rollback)) errors.push(...rowErrors(translateDbError(err), i + 1));
          throw new Rollback();
        }
      }
      if (body.dry_run) throw new Rollback();
    });
  } catch (err) {
    if (!(err instanceof Rollback)) throw err;
  }
  if (errors.length) throw new ApiError(400, { errors });
  return result;
}

/** The answers of every list's import, as named components. */
export const spreadsheetImportSchemas = [
  {
    $id: 'SpreadsheetImportResult',
    type: 'object',
    properties: { created: { type: 'integer' }, updated: { type: 'integer' }, ids: { type: 'array', items: { type: 'string' } }, dry_run: { type: 'boolean' } },
    required: ['created', 'updated', 'ids', 'dry_run'],
  },
  {
    $id: 'SpreadsheetImportErrors',
    type: 'object',
    description: 'The rows refused (row 1 is the first data row), or a field of the request itself.',
    properties: {
      errors: { type: 'array', items: { type: 'object', properties: { row: { type: 'integer' }, field: { type: 'string' }, message: { type: 'string' } }, required: ['row', 'field', 'message'] } },
    },
    additionalProperties: { type: 'array', items: { type: 'string' } },
  },
] as const;
