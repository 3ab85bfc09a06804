// Site groups: NetBox's dcim.sitegroup, an arbitrary grouping of sites (corporate and customer sites, offices and
// data centres) beside the geographic regions. Like regions they nest; a site sits in at most one (Site.group).
import { defineModel } from '../core/registry.ts';
import { treeParentCheck } from '../core/tree.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

export const siteGroupModel = defineModel({
  name: 'dcim.sitegroup',
  table: 'site_groups',
  path: '/api/site-groups/',
  label: 'site group',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    // As for regions and owner groups: a group with subgroups cannot be deleted (NetBox cascades to them).
    parent: { kind: 'fk', target: 'dcim.sitegroup', nullable: true, onDelete: 'protect' },
    description: { kind: 'string', maxLength: 200, default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: { validate: treeParentCheck('site_groups', 'site group') },
});
