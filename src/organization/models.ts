// Organisation: regions (a tree) and the sites in them.
import { sql } from 'kysely';
import { defineModel } from '../core/registry.ts';
import { fieldError } from '../core/errors.ts';
import { statusHooks } from '../extras/statuses.ts';
import { callerTenant } from '../core/access.ts';

/** Deep enough for any real hierarchy; also bounds the ancestor walks that guard against cycles. */
export const MAX_REGION_DEPTH = 50;

export const regionModel = defineModel({
  name: 'organization.region',
  table: 'regions',
  path: '/api/regions/',
  label: 'region',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    parent: { kind: 'fk', target: 'organization.region', nullable: true, onDelete: 'protect' },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
  hooks: {
    async validate({ tx, ctx, input, existing }) {
      const parent = input.parent;
      if (typeof parent !== 'string' || !existing) return;
      // A region may not sit under itself or one of its own descendants.
      const { rows } = await sql<{ id: string }>`WITH RECURSIVE up(id, parent_id, depth) AS (
          SELECT id, parent_id, 1 FROM regions WHERE id = ${parent} AND ${callerTenant(ctx)}
          UNION ALL SELECT r.id, r.parent_id, up.depth + 1 FROM regions r JOIN up ON r.id = up.parent_id WHERE up.depth < ${MAX_REGION_DEPTH}
        ) SELECT id FROM up`.execute(tx);
      if (rows.some((r) => r.id === existing.id)) throw fieldError('parent', 'A region cannot be placed under itself or one of its children.');
    },
  },
});

export const siteModel = defineModel({
  name: 'organization.site',
  table: 'sites',
  path: '/api/sites/',
  label: 'site',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    region: { kind: 'fk', target: 'organization.region', nullable: true, onDelete: 'set_null' },
    status: { kind: 'fk', target: 'extras.status', nullable: true, onDelete: 'protect' },
    description: { kind: 'string', maxLength: 200, default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
  hooks: statusHooks('organization.site'),
});
