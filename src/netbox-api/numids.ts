// NetBox's integer ids are Cairn's per-tenant numbers (numid). A request names objects by number (or by name or
// slug); Cairn's reads and writes take ids. These lookups turn one into the other within the caller's fence, so a
// number of another tenant is one that does not exist.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import type { ModelDef } from '../core/registry.ts';
import { scopeCondition } from '../core/access.ts';

/** The ids of `model`'s rows the caller sees whose `column` is one of `values`; key: the value as text. */
export async function idsBy(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, column: string, values: readonly unknown[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!values.length) return out;
  const texts = [...new Set(values.map(String))];
  const { rows } = await sql<{ id: string; key: string }>`SELECT t.id::text AS id, ${sql.ref(`t.${column}`)}::text AS key FROM ${sql.table(model.table)} t
    WHERE ${sql.ref(`t.${column}`)}::text = ANY(${texts}::text[]) AND ${scopeCondition(ctx, model, 't')}`.execute(db);
  for (const r of rows) out.set(r.key, r.id);
  return out;
}

/** Whether `text` is a NetBox id (a positive whole number). */
export function isNumid(value: unknown): boolean {
  return (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) || (typeof value === 'string' && /^[1-9]\d{0,15}$/.test(value));
}

/** The id of one row by its number, or null. */
export async function idOfNumid(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, numid: string): Promise<string | null> {
  if (!isNumid(numid)) return null;
  return (await idsBy(db, ctx, model, 'numid', [numid])).get(String(Number(numid))) ?? null;
}
