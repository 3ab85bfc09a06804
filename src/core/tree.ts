// Trees of one model (regions, owner groups, site groups, contact groups…): a row's parent may not be the row
// itself or one of its descendants. One walk for every tree, bounded by MAX_TREE_DEPTH.
import { sql } from 'kysely';
import type { ModelHooks } from './registry.ts';
import { callerTenant } from './access.ts';
import { fieldError } from './errors.ts';

/** Deep enough for any real hierarchy; also bounds the ancestor walks that guard against cycles. */
export const MAX_TREE_DEPTH = 50;

/**
 * A validate hook refusing a `parent` (or `parentKey`) that would put the row under itself. `label` names the
 * model in the message ("A region cannot be placed under itself…").
 */
export function treeParentCheck(table: string, label: string, parentKey = 'parent'): NonNullable<ModelHooks['validate']> {
  const parentColumn = `${parentKey}_id`;
  return async ({ tx, ctx, input, existing }) => {
    const parent = input[parentKey];
    if (typeof parent !== 'string' || !existing) return;
    const { rows } = await sql<{ id: string }>`WITH RECURSIVE up(id, parent_id, depth) AS (
        SELECT id, ${sql.ref(parentColumn)}, 1 FROM ${sql.table(table)} WHERE id = ${parent} AND ${callerTenant(ctx)}
        UNION ALL SELECT t.id, t.${sql.ref(parentColumn)}, up.depth + 1 FROM ${sql.table(table)} t JOIN up ON t.id = up.parent_id WHERE up.depth < ${MAX_TREE_DEPTH}
      ) SELECT id FROM up`.execute(tx);
    if (rows.some((r) => r.id === existing.id)) throw fieldError(parentKey, `A ${label} cannot be placed under itself or one of its children.`);
  };
}
