// A list as CSV, written by the server: the rows a list request selects (same tenant fence, permission, filters
// and ordering, every page of them), read a chunk at a time by keyset and serialized as the list's rows are, so a
// 100,000-row export holds one chunk in memory and the browser receives one streamed file.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import type { RequestContext } from '../context.ts';
import type { ModelDef } from '../registry.ts';
import { customFieldColumns, listFields } from '../catalogs.ts';
import { fieldError } from '../errors.ts';
import { choiceOptions } from './field-values.ts';
import { keysetAfter, keysetColumns } from './keyset.ts';
import { listConditions } from './read.ts';
import type { QueryValues } from './list-query.ts';
import { inlineComputedSelect, serializeRows, type ApiObject, type Row } from './serialize.ts';

/** Tunables; an object so a test can make chunks small enough to cross a few with a few rows. */
export const csvExportLimits = {
  /** Rows read and serialized at a time. */
  chunkRows: 1000,
};

/** Query parameters of an export that are not list filters. */
const EXPORT_PARAMS: ReadonlySet<string> = new Set(['columns', 'export']);

interface CsvColumn {
  key: string;
  label: string;
  /** Value → label, for choices (what the list shows: "Active", not "active"). */
  labels: ReadonlyMap<string, string> | null;
  /** Holds addresses: written with their mask, as NetBox and the list show them (10.0.0.1/32). */
  ip: boolean;
}

/** The columns a list of `model` can export, in the list's order: its fields, computed values, then custom fields. */
async function exportColumns(db: Kysely<DB>, ctx: RequestContext, model: ModelDef): Promise<CsvColumn[]> {
  const out: CsvColumn[] = listFields(model).map((f) => {
    const field = model.fields[f.key];
    const options = field?.kind === 'choice' ? choiceOptions(field) : (model.computed[f.key]?.options ?? f.options ?? []);
    return { key: f.key, label: f.label, labels: options.length ? new Map(options.map((o) => [o.value, o.label])) : null, ip: f.kind === 'ip' || f.related === 'ipam.ipaddress' };
  });
  for (const c of await customFieldColumns(db, ctx, model)) out.push({ key: c.key, label: c.label, labels: null, ip: false });
  return out;
}

/** `columns=a,b,c` (list-field keys, as the list page's column choice names them); absent: every column. */
function chosenColumns(all: CsvColumn[], raw: QueryValues[string]): CsvColumn[] {
  const text = Array.isArray(raw) ? raw.join(',') : raw;
  if (text === undefined || text.trim() === '') return all;
  const byKey = new Map(all.map((c) => [c.key, c]));
  const out: CsvColumn[] = [];
  for (const key of text.split(',').map((k) => k.trim()).filter(Boolean)) {
    const column = byKey.get(key);
    if (!column) throw fieldError('columns', `Unknown column "${key.slice(0, 100)}". The columns of this list are: ${all.map((c) => c.key).join(', ')}.`);
    if (!out.includes(column)) out.push(column);
  }
  return out;
}

/** PostgreSQL prints a host address bare (10.0.0.1); NetBox, the list and search show its mask (10.0.0.1/32). */
function withHostMask(text: string): string {
  const m = /^([0-9]{1,3}(?:\.[0-9]{1,3}){3}|[0-9a-f]*:[0-9a-f:.]*)(?=$|\s)/i.exec(text);
  return m ? `${m[1]}/${m[1]!.includes(':') ? 128 : 32}${text.slice(m[1]!.length)}` : text;
}

/**
 * A cell's text: an object by its display, a list of them joined, a choice by its label, a flag as true/false,
 * an address with its mask; a value made of several (a config template's own and resolved one) as `key: value`.
 */
function cellText(value: unknown, column: CsvColumn): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((v) => cellText(v, column)).filter((t) => t !== '').join(', ');
  if (typeof value === 'object') {
    const display = (value as ApiObject).display;
    if (display !== undefined && display !== null) return column.ip ? withHostMask(String(display)) : String(display);
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => [k, cellText(v, column)])
      .filter(([, t]) => t !== '')
      .map(([k, t]) => `${k}: ${t}`)
      .join('; ');
  }
  const text = String(value);
  if (column.ip) return withHostMask(text);
  return column.labels?.get(text) ?? text;
}

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. Text a spreadsheet would run as a
 * formula (=, +, -, @ first, not a number) gets a leading apostrophe, as OWASP's CSV-injection advice has it.
 */
export function csvField(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) && !/^[-+]?\d+(\.\d+)?$/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) || safe !== safe.trim() ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function csvLine(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

function valueOf(object: ApiObject, key: string): unknown {
  if (key.startsWith('custom_fields.')) {
    const cf = object.custom_fields;
    return cf && typeof cf === 'object' ? (cf as Record<string, unknown>)[key.slice('custom_fields.'.length)] : undefined;
  }
  return object[key];
}

export interface CsvExport {
  /** For the download's name: `ip-addresses.csv`. */
  fileName: string;
  /** The header line and the rows, a chunk of lines at a time. */
  lines: AsyncIterable<string>;
}

/**
 * Prepares the CSV of a list request: checks the columns and the filters (a bad one is a 400 naming it, before any
 * byte is sent) and reads the first chunk; the rest is read as the client takes the file.
 */
export async function exportListCsv(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, query: QueryValues, origin: string): Promise<CsvExport> {
  const columns = chosenColumns(await exportColumns(db, ctx, model), query.columns);
  const { where, orderBy, orderKeys } = listConditions(ctx, model, query, 't', EXPORT_PARAMS);
  const table = sql.table(model.table);
  // In the list's ordering after the last row read (keyset, off the ordering's index); a search ranked by relevance
  // has no keys to continue after, so its chunks are read by offset.
  const read = async (after: Row | null, offset: number): Promise<Row[]> => {
    const continueAt = orderKeys && after ? sql` AND ${keysetAfter(orderKeys, after, 't')}` : sql``;
    const skip = orderKeys ? sql`` : sql` OFFSET ${offset}`;
    const { rows } = await sql<Row>`SELECT t.*${inlineComputedSelect(ctx, model, 't')}${orderKeys ? keysetColumns(orderKeys, 't') : sql``}
      FROM ${table} t WHERE ${where}${continueAt} ORDER BY ${orderBy} LIMIT ${csvExportLimits.chunkRows}${skip}`.execute(db);
    return rows;
  };
  const first = await read(null, 0);
  async function* lines(): AsyncGenerator<string> {
    yield csvLine(columns.map((c) => c.label));
    let rows = first;
    let offset = 0;
    while (rows.length) {
      const objects = await serializeRows(db, ctx, model, rows, { origin });
      let text = '';
      for (const object of objects) text += csvLine(columns.map((c) => cellText(valueOf(object, c.key), c)));
      yield text;
      if (rows.length < csvExportLimits.chunkRows) break;
      offset += rows.length;
      rows = await read(rows[rows.length - 1]!, offset);
    }
  }
  return { fileName: `${model.labelPlural.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.csv`, lines: lines() };
}
