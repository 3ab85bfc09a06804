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

/**
 * The WHERE fragment every read of a model's rows carries, applied before any user-supplied filter or id:
 * the active tenant for tenant-scoped models, the model's own scope for global ones.
 */
export function scopeCondition(ctx: RequestContext, model: ModelDef, alias: string): RawBuilder<unknown> {
  if (model.tenantScoped) {
    if (!ctx.tenantId) return sql`false`;
    return sql`${sql.ref(`${alias}.tenant_id`)} = ${ctx.tenantId}`;
  }
  const scope = model.globalScope?.(ctx);
  if (!scope) return sql`true`;
  if (scope.values.length === 0) return sql`false`;
  return sql`${sql.ref(`${alias}.${scope.column}`)} = ANY(${scope.values}::uuid[])`;
}
