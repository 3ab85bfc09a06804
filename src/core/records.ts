// The write path for records the server keeps about objects (job runs, webhook deliveries, check results and
// events, deploy runs, config pushes, compliance violations): facts appended by the server, not objects a person
// creates, so they take no input check, validation hook or change log. What they share with objects is decided
// here and nowhere else: ids, per-tenant numbers and the tenant column, one INSERT for any number of rows, in the
// caller's transaction.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import { uuidv7 } from './ids.ts';
import { allocateNumids } from './numids.ts';
import type { Row } from './crud/serialize.ts';

/** A column value the database fills in at insert time rather than the process (one clock for every process). */
export const NOW = Symbol('now');

export type RecordValue = string | number | boolean | null | Date | typeof NOW | readonly unknown[] | { readonly [k: string]: unknown };

export interface AppendOptions {
  /** A row repeating this unique key updates the `update` columns (only where they differ) instead of failing. */
  upsert?: { on: readonly string[]; update: readonly string[] };
  /** false: the rows are not sent back (an evaluation appending thousands has no use for them). Default true. */
  returning?: boolean;
}

export interface RecordTable {
  readonly table: string;
  /**
   * Appends `rows` (column → value; every row the same columns) to the table for `tenantId` (null: a
   * deployment-wide record); returns them as stored (inserted or updated; none with `returning: false`). A row may
   * bring its own `id`; `numid` and `tenant_id` are always set here.
   */
  append(db: Kysely<DB>, tenantId: string | null, rows: ReadonlyArray<Record<string, RecordValue>>, opts?: AppendOptions): Promise<Row[]>;
}

/** Declares a record table: `numbered` when its rows carry a per-tenant `numid` people refer to them by. */
export function recordTable(table: string, declared: { numbered: boolean }): RecordTable {
  return {
    table,
    async append(db, tenantId, rows, opts = {}) {
      if (rows.length === 0) return [];
      if (declared.numbered && tenantId === null) throw new Error(`${table}: numbered records belong to a tenant`);
      if ('tenant_id' in rows[0]! || 'numid' in rows[0]!) throw new Error(`${table}: tenant_id and numid are set by recordTable().append, not by its caller`);
      const columns = [...new Set(['id', ...(declared.numbered ? ['numid'] : []), 'tenant_id', ...Object.keys(rows[0]!)])];
      const atNow = new Set(columns.filter((c) => rows[0]![c] === NOW));
      for (const row of rows) for (const c of columns) if ((row[c] === NOW) !== atNow.has(c)) throw new Error(`${table}.${c}: NOW in some rows only`);
      const first = declared.numbered ? await allocateNumids(db, tenantId!, table, rows.length) : 0;
      const records = rows.map((row, i) => {
        const record: Record<string, unknown> = { id: uuidv7() };
        for (const [column, value] of Object.entries(row)) if (value !== NOW) record[column] = value;
        if (declared.numbered) record.numid = first + i;
        record.tenant_id = tenantId;
        return record;
      });
      const upsert = opts.upsert
        ? sql`ON CONFLICT (${sql.join(opts.upsert.on.map((c) => sql.ref(c)))}) DO UPDATE SET ${sql.join(opts.upsert.update.map((c) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`))}
            WHERE (${sql.join(opts.upsert.update.map((c) => sql.ref(`${table}.${c}`)))}) IS DISTINCT FROM (${sql.join(opts.upsert.update.map((c) => sql.ref(`excluded.${c}`)))})`
        : sql``;
      return insertRecordset(db, table, columns, records, { atNow, conflict: upsert, returning: opts.returning !== false });
    },
  };
}

/**
 * One INSERT of `records` (objects with the listed `columns`; a column missing from them is null) through
 * jsonb_populate_recordset, which types every value by the table's own columns (dates, uuids, jsonb, arrays).
 * Columns in `atNow` take the statement's now(); `conflict` is an ON CONFLICT clause. Shared by
 * recordTable().append and insertRows.
 */
export async function insertRecordset(
  db: Kysely<DB>,
  table: string,
  columns: readonly string[],
  records: ReadonlyArray<Record<string, unknown>>,
  opts: { atNow?: ReadonlySet<string>; conflict?: RawBuilder<unknown>; returning: boolean },
): Promise<Row[]> {
  const { rows } = await sql<Row>`INSERT INTO ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))})
    SELECT ${sql.join(columns.map((c) => (opts.atNow?.has(c) ? sql`now()` : sql.ref(`x.${c}`))))}
    FROM jsonb_populate_recordset(NULL::${sql.table(table)}, ${recordsetJson(records)}::jsonb) AS x
    ${opts.conflict ?? sql``} ${opts.returning ? sql`RETURNING *` : sql``}`.execute(db);
  return rows;
}

/**
 * Rows as the JSON document jsonb_populate_recordset reads. A lone UTF-16 surrogate (JSON allows one, `"\ud800"`)
 * becomes U+FFFD, as it does in a query parameter: PostgreSQL's jsonb refuses it, which would turn a stray byte in
 * someone's input into a failed write.
 */
export function recordsetJson(rows: ReadonlyArray<unknown>): string {
  // JSON.stringify writes paired surrogates as they are and escapes only lone ones; an escape is a `\u` preceded by
  // an even number of other backslashes.
  return JSON.stringify(rows).replace(/(\\+)u(d[89a-f][0-9a-f]{2})/g, (all, slashes: string) => (slashes.length % 2 ? `${slashes.slice(0, -1)}\\ufffd` : all));
}

/** The first `max` characters of `text` (whole characters: a surrogate pair is never cut in two). */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
