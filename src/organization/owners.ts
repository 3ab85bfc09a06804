// Owners: NetBox's "tenant", the customer or department an object belongs to, under another name because Cairn's
// tenant is the isolation boundary (see migration 0039). Objects NetBox lets carry a tenant carry an `owner`
// (ownerField); owner groups form a tree.
import { defineModel, type FieldDef } from '../core/registry.ts';
import { treeParentCheck } from '../core/tree.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

/** The `owner` field of every model NetBox lets carry a tenant: nullable, and an owner in use cannot be deleted. */
export const ownerField: FieldDef = {
  kind: 'fk',
  target: 'tenancy.owner',
  nullable: true,
  onDelete: 'protect',
  label: 'Owner',
  help: 'The customer or department this belongs to (NetBox\'s tenant).',
};

export const ownerGroupModel = defineModel({
  name: 'tenancy.ownergroup',
  table: 'owner_groups',
  path: '/api/owner-groups/',
  netbox: { name: 'tenancy.tenantgroup' },
  label: 'owner group',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    parent: { kind: 'fk', target: 'tenancy.ownergroup', nullable: true, onDelete: 'protect' },
    description: { kind: 'string', maxLength: 200, default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: { validate: treeParentCheck('owner_groups', 'owner group') },
});

export const ownerModel = defineModel({
  name: 'tenancy.owner',
  table: 'owners',
  path: '/api/owners/',
  netbox: { name: 'tenancy.tenant' },
  label: 'owner',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    group: { kind: 'fk', target: 'tenancy.ownergroup', nullable: true, onDelete: 'set_null' },
    description: { kind: 'string', maxLength: 200, default: '' },
    comments: { kind: 'text', default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
});
