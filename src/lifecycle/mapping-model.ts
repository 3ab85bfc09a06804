// A platform's end-of-life mapping as an object of the registry: which catalog cycle the platform runs, and the
// facts copied from it. People choose the product and cycle (PUT /api/eol/platforms/{id}/, one mapping per
// platform); the facts are the server's, copied from the catalog on every change and refresh (service.ts), so
// they are read-only here and the generic routes only list and read. Every write goes through the write service.
import { defineModel } from '../core/registry.ts';

export const eolMappingModel = defineModel({
  name: 'lifecycle.eolmapping',
  table: 'eol_mappings',
  path: '/api/eol/mappings/',
  label: 'end-of-life mapping',
  tenantScoped: true,
  // Whoever may see or change platforms may see or change their mappings, as on the platform's own endpoint.
  permission: 'platform',
  displayField: 'label',
  displayParent: ['platform'],
  fields: {
    platform: { kind: 'fk', target: 'dcim.platform', onDelete: 'cascade', unique: true },
    product: { kind: 'string', maxLength: 128 },
    cycle: { kind: 'string', maxLength: 64 },
    source: { kind: 'string', maxLength: 64, help: 'The catalog the cycle comes from (endoflife.date).' },
    label: { kind: 'string', maxLength: 200, readOnly: true, help: 'The product and cycle: `cisco-ios-xe 17.9`.' },
    release_date: { kind: 'date', nullable: true, readOnly: true },
    support_until: { kind: 'date', nullable: true, readOnly: true, label: 'Active support until' },
    eol_date: { kind: 'date', nullable: true, readOnly: true, label: 'End of life' },
    eol_reached: { kind: 'boolean', nullable: true, readOnly: true, label: 'End of life reached', help: "The catalog's own word for cycles without an end-of-life date." },
    lts: { kind: 'boolean', readOnly: true, label: 'LTS' },
    latest_version: { kind: 'string', maxLength: 64, readOnly: true, default: '' },
    synced_at: { kind: 'datetime', nullable: true, readOnly: true, help: 'When the facts were last copied from the catalog; empty until the product is in it.' },
    missing: { kind: 'boolean', readOnly: true, help: 'The product or cycle has left the catalog; the facts are the last ones it gave.' },
  },
  searchFields: ['product', 'cycle'],
  // The label repeats the product and cycle beside it.
  listColumnsExclude: ['label'],
  defaultOrdering: ['product', 'cycle'],
  operations: { create: false, update: false, delete: false },
});
