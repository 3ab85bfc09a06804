// The change log: one row per create, update and delete, written in the same transaction as the change,
// in bulk (one INSERT for many rows). Snapshots carry stored values with secrets masked.
import { sql, type Kysely } from 'kysely';
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

export async function recordChanges(tx: Kysely<DB>, ctx: RequestContext, entries: ChangeEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const systemUser = ctx.via === 'system';
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
    SELECT u.id, u.tenant_id, ${systemUser ? null : ctx.user?.id ?? null}::uuid, ${ctx.user?.username ?? ''}, ${ctx.requestId},
      u.action, u.object_type, u.object_id, u.repr, u.before, u.after
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      AS u(id uuid, tenant_id uuid, action text, object_type text, object_id uuid, repr text, before jsonb, after jsonb)`.execute(tx);
  if (changeListeners.length === 0 || ctx.notify === false) return;
  const recorded = rows.map((r): RecordedChange => ({ id: r.id, tenant: r.tenant_id, action: r.action, object_type: r.object_type }));
  for (const listener of changeListeners) await listener(tx, recorded);
}
