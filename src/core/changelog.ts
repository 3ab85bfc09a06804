// The change log: one row per create, update and delete, written in the same transaction as the change,
// in bulk (one INSERT for many rows). Snapshots carry stored values with secrets masked.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from './context.ts';
import type { ModelDef } from './registry.ts';
import { columnOf, isColumnField } from './registry.ts';
import { uuidv7 } from './ids.ts';

export type ChangeAction = 'create' | 'update' | 'delete' | 'reveal';

export interface ChangeEntry {
  model: ModelDef;
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
  for (const [key, field] of Object.entries(model.fields)) {
    if (!isColumnField(field)) continue;
    const value = row[columnOf(key, field)];
    if (field.secret || key === 'password') out[key] = value === null || value === undefined || value === '' ? value ?? null : SECRET_MASK;
    else out[key] = value instanceof Date ? value.toISOString() : value ?? null;
  }
  return { ...out, ...extra };
}

export async function recordChanges(tx: Kysely<DB>, ctx: RequestContext, entries: ChangeEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const systemUser = ctx.via === 'system';
  // One INSERT … SELECT FROM unnest with one array per column: the statement text and its 8 parameters stay
  // the same size whatever the number of rows (a multi-row VALUES list cost 11 parameters per row to build,
  // send and parse, which dominated 1,000-row bulk calls).
  const n = entries.length;
  const ids = new Array<string>(n);
  const tenants = new Array<string | null>(n);
  const actions = new Array<string>(n);
  const types = new Array<string>(n);
  const objectIds = new Array<string>(n);
  const reprs = new Array<string>(n);
  const befores = new Array<string | null>(n);
  const afters = new Array<string | null>(n);
  entries.forEach((e, i) => {
    ids[i] = uuidv7();
    tenants[i] = e.tenantId !== undefined ? e.tenantId : e.model.tenantScoped ? ctx.tenantId : null;
    actions[i] = e.action;
    types[i] = e.model.name;
    objectIds[i] = e.objectId;
    reprs[i] = e.repr.slice(0, 200);
    befores[i] = e.before === null ? null : JSON.stringify(e.before);
    afters[i] = e.after === null ? null : JSON.stringify(e.after);
  });
  await sql`INSERT INTO object_changes (id, tenant_id, user_id, username, request_id, action, object_type, object_id, object_repr, before, after)
    SELECT u.id, u.tenant_id, ${systemUser ? null : ctx.user?.id ?? null}::uuid, ${ctx.user?.username ?? ''}, ${ctx.requestId},
      u.action, u.object_type, u.object_id, u.repr, u.before::jsonb, u.after::jsonb
    FROM unnest(${ids}::uuid[], ${tenants}::uuid[], ${actions}::text[], ${types}::text[], ${objectIds}::uuid[], ${reprs}::text[],
      ${befores}::text[], ${afters}::text[]) AS u(id, tenant_id, action, object_type, object_id, repr, before, after)`.execute(tx);
}
