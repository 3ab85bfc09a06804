// Model-level permission checks and the tenant fence: the one place that decides which rows a caller sees.
import { sql, type RawBuilder } from 'kysely';
import type { RequestContext } from './context.ts';
import { can } from './context.ts';
import type { ModelDef } from './registry.ts';
import { forbidden } from './errors.ts';

export type Action = 'view' | 'add' | 'change' | 'delete';

export function modelAllows(ctx: RequestContext, model: ModelDef, action: Action | string): boolean {
  if (!ctx.user) return false;
  // A read-only token changes nothing, whatever its user's groups grant.
  if (ctx.readOnly && action !== 'view') return false;
  if (model.access) return model.access(ctx, action);
  if (model.adminOnly) return can(ctx, 'users.manage');
  return can(ctx, `${model.permission}.${action}`);
}

export function requireModelPermission(ctx: RequestContext, model: ModelDef, action: Action | string): void {
  if (!modelAllows(ctx, model, action)) {
    throw forbidden(`You do not have permission to ${action} ${model.labelPlural}.`);
  }
}

/** The column a tenant row's tenant is kept in: named here, so domain code asks the core rather than naming it. */
export const TENANT_COLUMN = 'tenant_id';

/** The tenant column of the table at `alias`, or unqualified. */
const tenantRef = (alias?: string) => sql.ref(alias ? `${alias}.${TENANT_COLUMN}` : TENANT_COLUMN);

/**
 * The WHERE fragment every read of a model's rows carries, applied before any user-supplied filter or id:
 * the active tenant for tenant-scoped models, the model's own scope for global ones.
 */
export function scopeCondition(ctx: RequestContext, model: ModelDef, alias: string): RawBuilder<unknown> {
  if (model.tenantScoped) {
    if (!ctx.tenantId) return sql`false`;
    return sql`${tenantRef(alias)} = ${ctx.tenantId}`;
  }
  const scope = model.globalScope?.(ctx);
  if (!scope) return sql`true`;
  if (scope.values.length === 0) return sql`false`;
  return sql`${sql.ref(`${alias}.${scope.column}`)} = ANY(${scope.values}::uuid[])`;
}

/**
 * Rows of one tenant, for work that runs for a tenant rather than for a caller (a background job, a hook on a
 * row already read in scope). `tenantId` null matches nothing. `alias` is the table's alias, or omitted for an
 * unqualified `tenant_id`.
 */
export function inTenant(tenantId: string | null, alias?: string): RawBuilder<unknown> {
  if (!tenantId) return sql`false`;
  return sql`${tenantRef(alias)} = ${tenantId}`;
}

/**
 * The tenant of a stored row of a tenant-scoped table (read already, in scope): for hooks and background work that
 * act for the row's tenant rather than a caller's.
 */
export function tenantOf(row: Readonly<Record<string, unknown>>): string {
  const tenant = storedTenant(row);
  if (tenant === null) throw new Error(`tenantOf: the row has no ${TENANT_COLUMN} (a deployment-wide row, or a column list without it)`);
  return tenant;
}

/**
 * The tenant a change-log entry of `row` (a row of `model`, as stored or as it was) is filed under: the row's own
 * tenant column, else the caller's tenant for a tenant-scoped model, else none (a deployment-wide row). The one
 * rule for every write path's entries: single and bulk writes, server-made rows and server updates.
 */
export function changeTenantOf(model: ModelDef, row: Readonly<Record<string, unknown>>, ctx: RequestContext): string | null {
  return storedTenant(row) ?? (model.tenantScoped ? ctx.tenantId : null);
}

/** The tenant column's value of a row as read, or null where it has none (a deployment-wide row, or not selected). */
function storedTenant(row: Readonly<Record<string, unknown>>): string | null {
  const tenant = row[TENANT_COLUMN];
  return typeof tenant === 'string' ? tenant : null;
}

/** A stored row's tenant column, as a type: for rows read whole (`SELECT x.*`); read the value with rowTenant. */
export type WithTenantColumn = { readonly [TENANT_COLUMN]: string | null };

/** The tenant of a stored row of a table that holds both tenant and deployment-wide rows (jobs): null for the latter. */
export function rowTenant(row: WithTenantColumn): string | null {
  return row[TENANT_COLUMN];
}

/**
 * The tenant column of `alias` in a SELECT or RETURNING list, as `name` (`tenant` unless told): for work that
 * handles several tenants' rows at once (background loops, the search index) and hands each row's tenant on.
 */
export function tenantAs(alias: string, name = 'tenant'): RawBuilder<unknown> {
  return sql`${tenantRef(alias)} AS ${sql.ref(name)}`;
}

/**
 * The tenant column in a column list (an INSERT's columns, an ON CONFLICT's SET, a UNION's select list), copied
 * from row to row, never compared: a comparison is inTenant, sameTenant, callerTenant or tenantKeys.
 */
export function tenantColumn(alias?: string): RawBuilder<unknown> {
  return tenantRef(alias);
}

/** `JOIN tenants <as> ON …`: the tenant record (slug, name) of the row at `alias`. */
export function joinTenantRecord(alias: string, as: string): RawBuilder<unknown> {
  return sql`JOIN tenants ${sql.ref(as)} ON ${sql.ref(`${as}.id`)} = ${tenantRef(alias)}`;
}

/**
 * An ORDER BY list that follows an index led by the tenant column (tenant, then `columns`), all in `direction`:
 * written out whole, tenant first, so the planner reads the index in order (a column fixed by `IS NULL` does not
 * count as constant for the ordering, so the columns before the varying one must be named).
 */
export function tenantLedOrder(alias: string, columns: readonly string[], direction: 'asc' | 'desc' = 'asc'): RawBuilder<unknown> {
  const dir = sql.raw(direction === 'desc' ? ' DESC' : '');
  return sql.join([tenantRef(alias), ...columns.map((c) => sql.ref(`${alias}.${c}`))].map((ref) => sql`${ref}${dir}`));
}

/** Two aliases in one tenant: joins between tenant rows never cross tenants. */
export function sameTenant(alias: string, other: string): RawBuilder<unknown> {
  return sql`${tenantRef(alias)} = ${tenantRef(other)}`;
}

/** SQL types a keyed relation's columns may have (see tenantKeys). */
export type KeyColumnType = 'uuid' | 'cidr' | 'inet' | 'text' | 'bool' | 'int';

/**
 * A relation of keys that each carry their tenant, one row per key, to join rows to with `sameTenant(row, alias)`:
 * `unnest` of the tenants and of each column's values (the same length), as `alias(tenant, column…)`. For writes
 * that touch several tenants' rows at once (a bulk load, background work): their keys name the tenant as data,
 * and this is where that column is spelt.
 */
export function tenantKeys(alias: string, tenants: readonly string[], columns: ReadonlyArray<{ name: string; type: KeyColumnType; values: readonly unknown[] }>): RawBuilder<unknown> {
  const arrays = [sql`${tenants}::uuid[]`, ...columns.map((c) => sql`${c.values}::${sql.raw(c.type)}[]`)];
  const names = [sql.ref(TENANT_COLUMN), ...columns.map((c) => sql.ref(c.name))];
  return sql`unnest(${sql.join(arrays)}) AS ${sql.ref(alias)}(${sql.join(names)})`;
}

/**
 * The caller's tenant on a table that is not a registry model (an outbox, the search index, a join table with a
 * tenant column): as scopeCondition does for tenant-scoped models.
 */
export function callerTenant(ctx: RequestContext, alias?: string): RawBuilder<unknown> {
  return inTenant(ctx.tenantId, alias);
}

/** Deployment-wide rows of a table that also holds tenant rows (jobs, for instance): no tenant at all. */
export function deploymentWide(alias?: string): RawBuilder<unknown> {
  return sql`${tenantRef(alias)} IS NULL`;
}
