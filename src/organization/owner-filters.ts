// `?owner_group=<id or slug>` on every model carrying an owner (NetBox's tenant_group filter): rows whose owner is
// in the group or any group below it. Installed once every model is defined (imported near the end of
// src/models.ts), so models of families defined later get it too.
import { sql } from 'kysely';
import { allModels } from '../core/registry.ts';
import { addListFilters } from '../core/crud/read.ts';
import type { CustomFilter } from '../core/crud/list-query.ts';
import { isUuid } from '../core/ids.ts';
import { MAX_TREE_DEPTH } from '../core/tree.ts';

/** The outer query keeps the tenant fence: ids and slugs of another tenant's groups reach none of its rows. */
const ownerGroup: CustomFilter = (values, alias) => {
  const ids = values.filter((v) => isUuid(v)).map((v) => v.toLowerCase());
  const slugs = values.filter((v) => !isUuid(v));
  return sql`${sql.ref(`${alias}.owner_id`)} IN (
    WITH RECURSIVE down(id, depth) AS (
      SELECT g.id, 1 FROM owner_groups g WHERE g.id = ANY(${ids}::uuid[]) OR g.slug = ANY(${slugs}::text[])
      UNION ALL SELECT c.id, down.depth + 1 FROM owner_groups c JOIN down ON c.parent_id = down.id WHERE down.depth < ${MAX_TREE_DEPTH}
    ) SELECT o.id FROM owners o WHERE o.group_id IN (SELECT id FROM down))`;
};

for (const model of allModels()) {
  const owner = model.fields.owner;
  if (owner?.kind === 'fk' && owner.target === 'tenancy.owner') addListFilters(model.name, { owner_group: ownerGroup });
}
