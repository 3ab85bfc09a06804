// Where devices stand: locations (a tree of halls, rooms and cages inside a site), rack roles and racks. A
// device's place in a rack (rack, position, face) is a field of the device; its rules are in rack-rules.ts.
import { defineModel } from '../core/registry.ts';
import { ownerField } from '../organization/owners.ts';
import { defineVocabulary } from '../core/vocabularies.ts';
import type { ChoiceOption } from '../core/registry.ts';
import { checkLocationPlacement, checkRackChange, rackResized } from './rack-rules.ts';
import { checkRackTypeAttributes, copyRackTypeAttributes } from './rack-reservation-models.ts';
import { powerUtilizationOf } from './power-utilization.ts';
import { rackUtilizationField } from './rack-utilization.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

const options = (name: string, pairs: ReadonlyArray<readonly [string, string]>): ChoiceOption[] => pairs.map(([value, label]) => ({ value, label, group: name }));

// NetBox's values, so imports and scripts carry over.
export const LOCATION_STATUSES = options('Status', [
  ['planned', 'Planned'],
  ['staging', 'Staging'],
  ['active', 'Active'],
  ['decommissioning', 'Decommissioning'],
  ['retired', 'Retired'],
]);
export const RACK_STATUSES = options('Status', [
  ['reserved', 'Reserved'],
  ['available', 'Available'],
  ['planned', 'Planned'],
  ['active', 'Active'],
  ['deprecated', 'Deprecated'],
]);
export const RACK_WIDTHS = options('Width', [
  ['10', '10 inches'],
  ['19', '19 inches'],
  ['21', '21 inches'],
  ['23', '23 inches'],
]);
export const RACK_FACES = options('Face', [
  ['front', 'Front'],
  ['rear', 'Rear'],
]);

defineVocabulary('location_statuses', LOCATION_STATUSES);
defineVocabulary('rack_statuses', RACK_STATUSES);
defineVocabulary('rack_widths', RACK_WIDTHS);
defineVocabulary('rack_faces', RACK_FACES);

export const locationModel = defineModel({
  name: 'dcim.location',
  table: 'locations',
  path: '/api/locations/',
  label: 'location',
  tenantScoped: true,
  // A room named "Hall A" exists in many sites: shown as `AMS1 › Hall A`, or under its parent location.
  displayParent: ['parent', 'site'],
  fields: {
    site: { kind: 'fk', target: 'organization.site', onDelete: 'protect' },
    parent: { kind: 'fk', target: 'dcim.location', nullable: true, onDelete: 'protect', label: 'Parent location', help: 'A location of the same site.', pickerFilters: { site_id: '$field:site' } },
    // Unique per site (database constraints), not per tenant.
    name: { kind: 'string', maxLength: 100 },
    slug: { kind: 'slug', maxLength: 100 },
    status: { kind: 'choice', vocabulary: 'location_statuses', default: 'active' },
    description: { kind: 'string', maxLength: 200, default: '' },
    owner: ownerField,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['site', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: { validate: checkLocationPlacement },
});

export const rackRoleModel = defineModel({
  name: 'dcim.rackrole',
  table: 'rack_roles',
  path: '/api/rack-roles/',
  label: 'rack role',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    color: { kind: 'color', default: '9e9e9e' },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
});

export const rackModel = defineModel({
  name: 'dcim.rack',
  table: 'racks',
  path: '/api/racks/',
  label: 'rack',
  tenantScoped: true,
  displayParent: ['site'],
  fields: {
    site: { kind: 'fk', target: 'organization.site', onDelete: 'protect' },
    location: { kind: 'fk', target: 'dcim.location', nullable: true, onDelete: 'protect', help: 'A location of the same site.', pickerFilters: { site_id: '$field:site' } },
    // Unique per site (a database constraint), as NetBox has it per location; R01 exists in every site.
    name: { kind: 'string', maxLength: 100, naturalOrder: true },
    facility_id: { kind: 'string', maxLength: 50, nullable: true, label: 'Facility ID', help: 'The identifier the facility gives the rack.' },
    status: { kind: 'choice', vocabulary: 'rack_statuses', default: 'active' },
    role: { kind: 'fk', target: 'dcim.rackrole', nullable: true, onDelete: 'set_null' },
    rack_type: { kind: 'fk', target: 'dcim.racktype', nullable: true, onDelete: 'protect', help: 'Its make and model: sets the width, height and unit numbering.' },
    u_height: { kind: 'integer', min: 1, max: 100, default: 42, label: 'Height (U)' },
    starting_unit: { kind: 'integer', min: 1, max: 1000, default: 1, help: 'The number of the lowest unit.' },
    desc_units: { kind: 'boolean', label: 'Descending units', help: 'Units numbered from the top down.' },
    width: { kind: 'choice', vocabulary: 'rack_widths', default: '19', help: 'Rail-to-rail width.' },
    serial: { kind: 'string', maxLength: 50, default: '', label: 'Serial number' },
    asset_tag: { kind: 'string', maxLength: 50, nullable: true, unique: true, pattern: /\S/, patternMessage: 'Use null for a rack without an asset tag.' },
    description: { kind: 'string', maxLength: 200, default: '' },
    comments: { kind: 'text', default: '' },
    owner: ownerField,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  // The units used (rack-utilization.ts) and the draw on the power feeds that serve the rack over their
  // available power (power-utilization.ts).
  computed: { utilization: rackUtilizationField, power_utilization: powerUtilizationOf('rack') },
  searchFields: ['name', 'facility_id', 'serial', 'asset_tag', 'description'],
  defaultOrdering: ['site', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate(args) {
      await checkRackChange(args);
      await checkRackTypeAttributes(args);
    },
    afterCreate: (args) => copyRackTypeAttributes({ ...args, rows: [args.row] }),
    // The type's attributes first, so the resize check sees the rack as it ends up.
    async afterUpdate(args) {
      if (!args.inBulk) await copyRackTypeAttributes({ ...args, rows: [args.row] });
      await rackResized.afterUpdate(args);
    },
    async afterUpdateMany(args) {
      await copyRackTypeAttributes({ ...args, rows: args.rows.map((r) => r.row) });
      await rackResized.afterUpdateMany(args);
    },
  },
});
