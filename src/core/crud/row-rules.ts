// The validate rules a write of many rows runs row by row (bulk loads; the NetBox import's updates): a model's rules
// that do not say how bulk loads honour them (core/registry.ts bulkLoadRules), so a rule added to a model holds on
// those paths as on a single write. Rows are given as stored columns; the rules see them as the fields they store.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import type { RequestContext } from '../context.ts';
import { bulkLoadRules, columnOf, isColumnField, type ModelDef } from '../registry.ts';
import { ApiError, type FieldErrors } from '../errors.ts';

/**
 * What the rules a model had before bulk loads ran rules at all say of them (`bulkLoadValidation`): the two loaders
 * plan their rows within them. Not a check: run row by row as the rows are loaded, several would refuse rows the
 * finished load satisfies (an assignment written before its site; a position whose face the database sets).
 */
export const PLANNED_BY_LOADERS =
  "not run row by row: demo data plans its rows within it, and `cairn import netbox` writes rows NetBox's own validation accepted, then checks set-wise the rules where Cairn is known to be stricter (rack units, primary addresses, LAGs and parents, VLAN scope: netbox-import/importer.ts)";

/** A row a validate rule refused: its place among the rows given (0-based) and the rule's field errors. */
export class RowRefused extends Error {
  constructor(
    readonly model: ModelDef,
    readonly row: number,
    readonly errors: FieldErrors,
  ) {
    super(`${model.label} (row ${row + 1} of the load): ${Object.entries(errors).map(([field, messages]) => `${field}: ${messages.join(' ')}`).join('; ')}`);
  }
}

/** For each of `columns`, the field key it stores (or null: id, numid, the tenant), and whether it holds JSON. */
function fieldsOfColumns(model: ModelDef, columns: readonly string[]): Array<{ key: string; json: boolean } | null> {
  const byColumn = new Map<string, { key: string; json: boolean }>();
  for (const [key, field] of Object.entries(model.fields)) {
    if (isColumnField(field)) byColumn.set(columnOf(key, field), { key, json: field.kind === 'json' || field.kind === 'custom_fields' });
  }
  return columns.map((c) => byColumn.get(c) ?? null);
}

/**
 * Runs the model's row rules for each row: `value(i, c)` is row i's value of `columns[c]`, `existing(i)` the stored
 * row an update changes (null for a new one). The first refusal stops it (RowRefused).
 */
export async function runRowRules(
  tx: Kysely<DB>,
  ctx: RequestContext,
  model: ModelDef,
  columns: readonly string[],
  count: number,
  value: (i: number, c: number) => unknown,
  existing: (i: number) => Record<string, unknown> | null = () => null,
): Promise<void> {
  const rules = bulkLoadRules(model.name);
  if (!rules.length) return;
  const fields = fieldsOfColumns(model, columns);
  for (let i = 0; i < count; i++) {
    const input: Record<string, unknown> = {};
    fields.forEach((f, c) => {
      if (!f) return;
      const v = value(i, c);
      // (A bulk load sends JSON as its text.)
      input[f.key] = f.json && typeof v === 'string' ? JSON.parse(v) : v;
    });
    for (const check of rules) {
      try {
        await check({ tx, ctx, model, input, existing: existing(i) });
      } catch (err) {
        if (err instanceof ApiError && err.status === 400) {
          throw new RowRefused(model, i, typeof err.body.detail === 'string' ? { non_field_errors: [err.body.detail] } : (err.body as FieldErrors));
        }
        throw err;
      }
    }
  }
}
