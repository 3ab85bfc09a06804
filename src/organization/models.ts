// Organisation: regions (a tree) and the sites in them.
import { defineModel } from '../core/registry.ts';
import { MAX_TREE_DEPTH, treeParentCheck } from '../core/tree.ts';
import { ownerField } from './owners.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

/** Deep enough for any real hierarchy; also bounds the ancestor walks that guard against cycles. */
export const MAX_REGION_DEPTH = MAX_TREE_DEPTH;

export const regionModel = defineModel({
  name: 'organization.region',
  table: 'regions',
  path: '/api/regions/',
  netbox: { name: 'dcim.region' },
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
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: { validate: treeParentCheck('regions', 'region') },
});

export const siteModel = defineModel({
  name: 'organization.site',
  table: 'sites',
  path: '/api/sites/',
  netbox: { name: 'dcim.site', counts: { device_count: 'dcim.device.site', prefix_count: 'ipam.prefix.site', rack_count: 'dcim.rack.site', vlan_count: 'ipam.vlan.site', virtualmachine_count: 'virtualization.virtualmachine.site' } },
  label: 'site',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    region: { kind: 'fk', target: 'organization.region', nullable: true, onDelete: 'set_null' },
    // NetBox's Site.group: deleting a site group leaves its sites ungrouped (site-groups.ts).
    group: { kind: 'fk', target: 'dcim.sitegroup', label: 'Site group', nullable: true, onDelete: 'set_null' },
    // A catalog status: its rules come from wireStatusFields (src/extras/statuses.ts), as every status field's do.
    status: { kind: 'fk', target: 'extras.status', nullable: true, onDelete: 'protect' },
    description: { kind: 'string', maxLength: 200, default: '' },
    owner: ownerField,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
});
