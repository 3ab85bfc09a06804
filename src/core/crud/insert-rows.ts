// The write path for rows the server makes from other rows, many at once (a new device's interfaces, ports and
// services from its type's templates): ids, per-tenant numbers, the tenant, custom-field defaults, one INSERT for
// all rows, the change log (whose listeners queue the webhooks) and the search index (kept by the tables'
// triggers), in the caller's transaction. The caller hands rows its own rules already satisfy: per-row
// validation hooks do not run here, which is what keeps the cost at a fixed number of statements for any N.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import type { RequestContext } from '../context.ts';
import type { ModelDef } from '../registry.ts';
import { badRequest } from '../errors.ts';
import { uuidv7 } from '../ids.ts';
import { allocateNumids } from '../numids.ts';
import { recordChanges, snapshot } from '../changelog.ts';
import { insertRecordset } from '../records.ts';
import { displaysOf, type Row } from './serialize.ts';

/** The custom-field values a new row of a model starts with; installed by the domain that owns the definitions. */
export type CustomFieldDefaults = (tx: Kysely<DB>, tenantId: string, modelName: string) => Promise<Record<string, unknown>>;
let customFieldDefaults: CustomFieldDefaults | null = null;

export function setCustomFieldDefaults(provider: CustomFieldDefaults): void {
  customFieldDefaults = provider;
}

/** The custom-field values a new row of `modelName` starts with in a tenant ({} before extras installs its provider). */
export async function customFieldDefaultsFor(tx: Kysely<DB>, tenantId: string, modelName: string): Promise<Record<string, unknown>> {
  return customFieldDefaults ? customFieldDefaults(tx, tenantId, modelName) : {};
}

export interface InsertRowsOptions {
  /**
   * A unique key (columns), or 'any' unique key: rows that would repeat an existing one are skipped, not an error
   * (idempotent makes, and makes that race a concurrent one).
   */
  skipExistingOn?: string[] | 'any';
}

/**
 * Inserts `rows` (column → value, the same columns in every row) as new objects of `model` in the active tenant;
 * returns the rows created (without those skipped), as stored.
 */
export async function insertRows(tx: Kysely<DB>, ctx: RequestContext, model: ModelDef, rows: Array<Record<string, unknown>>, opts: InsertRowsOptions = {}): Promise<Row[]> {
  if (rows.length === 0) return [];
  if (model.tenantScoped && !ctx.tenantId) throw badRequest('No active tenant: join a tenant or choose one with POST /api/auth/tenant/.');
  const scope = model.tenantScoped ? ctx.tenantId! : 'global';
  const hasCustomFields = Object.values(model.fields).some((f) => f.kind === 'custom_fields');
  const defaults = hasCustomFields && customFieldDefaults && model.tenantScoped ? await customFieldDefaults(tx, scope, model.name) : null;
  const first = await allocateNumids(tx, scope, model.table, rows.length);
  const records = rows.map((row, i) => ({
    ...(defaults && !('custom_fields' in row) ? { custom_fields: defaults } : {}),
    ...row,
    id: uuidv7(),
    numid: first + i,
    ...(model.tenantScoped ? { tenant_id: scope } : {}),
  }));
  const skip = opts.skipExistingOn;
  const conflict = skip === 'any' ? sql`ON CONFLICT DO NOTHING` : skip ? sql`ON CONFLICT (${sql.join(skip.map((c) => sql.ref(c)))}) DO NOTHING` : undefined;
  // Columns not listed keep their defaults.
  const created = await insertRecordset(tx, model.table, Object.keys(records[0]!), records, { conflict, returning: true });
  await logCreated(tx, ctx, model, created);
  return created;
}

/** The change-log entries of rows just created, as the API shows them (one query per parent level, one INSERT). */
export async function logCreated(tx: Kysely<DB>, ctx: RequestContext, model: ModelDef, created: Row[]): Promise<void> {
  const reprs = await displaysOf(tx, ctx, model, created);
  await recordChanges(
    tx,
    ctx,
    created.map((r) => ({ model, action: 'create' as const, objectId: String(r.id), repr: reprs.get(String(r.id))!, before: null, after: snapshot(model, r), tenantId: model.tenantScoped ? String(r.tenant_id) : null })),
  );
}
