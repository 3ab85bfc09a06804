// Modules (NetBox's dcim/models/modules.py): module types, module bays on devices (and their templates on device
// types), and modules installed in them. Installing a module makes its components from the module type's
// templates (module-materialize.ts); deleting it takes them away.
import { sql } from 'kysely';
import { defineModel, type HookArgs } from '../core/registry.ts';
import { callerTenant } from '../core/access.ts';
import { ErrorCollector } from '../core/errors.ts';
import { materializeModuleComponents, releaseModuleComponents } from './module-materialize.ts';
import './module-choices.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

type ValidateArgs = HookArgs & { input: Record<string, unknown>; existing: Record<string, unknown> | null };

/** The value a write leaves in `key` (its column `column`): the input's when sent, else the stored one. */
function after(input: Record<string, unknown>, existing: Record<string, unknown> | null, key: string, column = `${key}_id`): unknown {
  return key in input ? input[key] : existing?.[column] ?? null;
}

export const moduleTypeModel = defineModel({
  name: 'dcim.moduletype',
  table: 'module_types',
  path: '/api/module-types/',
  label: 'module type',
  tenantScoped: true,
  displayField: 'model',
  fields: {
    manufacturer: { kind: 'fk', target: 'dcim.manufacturer', onDelete: 'protect' },
    model: { kind: 'string', maxLength: 100 },
    part_number: { kind: 'string', maxLength: 50, default: '', help: 'The discrete part number, if any.' },
    airflow: { kind: 'choice', vocabulary: 'module_airflows', nullable: true },
    description: { kind: 'string', maxLength: 200, default: '' },
    comments: { kind: 'text', default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['model', 'part_number', 'description'],
  defaultOrdering: ['model'],
});

export const moduleBayTemplateModel = defineModel({
  name: 'dcim.modulebaytemplate',
  table: 'module_bay_templates',
  path: '/api/module-bay-templates/',
  label: 'module bay template',
  tenantScoped: true,
  displayParent: ['device_type'],
  fields: {
    device_type: { kind: 'fk', target: 'dcim.devicetype', onDelete: 'cascade' },
    name: { kind: 'string', maxLength: 64, naturalOrder: true },
    label: { kind: 'string', maxLength: 64, default: '', help: 'The name printed on the device, if it differs.' },
    position: { kind: 'string', maxLength: 30, default: '', help: 'Replaces {module} in the names of the components of a module installed here.' },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'label', 'description'],
  defaultOrdering: ['device_type', 'name'],
});

/** A module bay sitting in a module sits in a module of its own device. */
async function checkModuleBay({ tx, ctx, input, existing }: ValidateArgs): Promise<void> {
  const module = after(input, existing, 'module');
  if (typeof module !== 'string') return;
  const device = after(input, existing, 'device');
  const { rows } = await sql<{ device_id: string; bay: string; module_bay_id: string }>`SELECT m.device_id, m.module_bay_id, b.name AS bay FROM modules m JOIN module_bays b ON b.id = m.module_bay_id
    WHERE m.id = ${module} AND ${callerTenant(ctx, 'm')}`.execute(tx);
  const errors = new ErrorCollector();
  if (rows[0] && rows[0].device_id !== device) errors.add('module', `The module in ${rows[0].bay} is in another device: a module bay sits in a module of its own device.`);
  else if (rows[0] && existing && rows[0].module_bay_id === existing.id) errors.add('module', 'A module bay cannot sit in the module installed in it.');
  errors.throwIfAny();
}

export const moduleBayModel = defineModel({
  name: 'dcim.modulebay',
  table: 'module_bays',
  path: '/api/module-bays/',
  label: 'module bay',
  tenantScoped: true,
  displayParent: ['device'],
  fields: {
    device: { kind: 'fk', target: 'dcim.device', onDelete: 'cascade' },
    module: { kind: 'fk', target: 'dcim.module', nullable: true, onDelete: 'cascade', help: 'The module this bay is part of (a bay of a line card), if any.', pickerFilters: { device_id: '$field:device' } },
    name: { kind: 'string', maxLength: 64, naturalOrder: true },
    label: { kind: 'string', maxLength: 64, default: '', help: 'The name printed on the device, if it differs.' },
    position: { kind: 'string', maxLength: 30, default: '', help: 'Replaces {module} in the names of the components of a module installed here.' },
    description: { kind: 'string', maxLength: 200, default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'label', 'description'],
  defaultOrdering: ['device', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    validate: checkModuleBay,
    // The module in the bay goes with it (cascade), and its components with it: their cables first.
    async beforeDelete({ tx, ctx, row }) {
      const { rows } = await sql<{ id: string }>`SELECT id FROM modules WHERE module_bay_id = ${row.id}`.execute(tx);
      await releaseModuleComponents(tx, ctx, rows.map((r) => r.id));
    },
    async beforeDeleteMany({ tx, ctx, rows: bays }) {
      const { rows } = await sql<{ id: string }>`SELECT id FROM modules WHERE module_bay_id = ANY(${bays.map((b) => String(b.id))}::uuid[])`.execute(tx);
      await releaseModuleComponents(tx, ctx, rows.map((r) => r.id));
    },
  },
});

/**
 * A module sits in a bay of its own device (NetBox's rule), and not in a bay of itself or of a module inside it.
 * Its device and type are fixed once installed: its components were made from that type on that device.
 */
async function checkModule({ tx, ctx, input, existing }: ValidateArgs): Promise<void> {
  const errors = new ErrorCollector();
  if (existing && 'device' in input && input.device !== existing.device_id) errors.add('device', 'A module stays in its device: delete it and install a new one in the other device.');
  if (existing && 'module_type' in input && input.module_type !== existing.module_type_id) errors.add('module_type', 'A module keeps its type (its components were made from it): delete it and install one of the other type.');
  errors.throwIfAny();
  const bay = after(input, existing, 'module_bay');
  const device = after(input, existing, 'device');
  if (typeof bay !== 'string' || typeof device !== 'string') return;
  const { rows } = await sql<{ device_id: string; name: string; device: string; inside: boolean }>`SELECT b.device_id, b.name, d.name AS device,
      (${existing?.id ?? null}::uuid IS NOT NULL AND EXISTS (
        WITH RECURSIVE up(module_id, depth) AS (SELECT b.module_id, 1 UNION ALL
          SELECT ob.module_id, up.depth + 1 FROM up JOIN modules om ON om.id = up.module_id JOIN module_bays ob ON ob.id = om.module_bay_id WHERE up.depth < 20)
        SELECT 1 FROM up WHERE up.module_id = ${existing?.id ?? null}::uuid)) AS inside
    FROM module_bays b JOIN devices d ON d.id = b.device_id WHERE b.id = ${bay} AND ${callerTenant(ctx, 'b')}`.execute(tx);
  const found = rows[0];
  // A bay of another tenant reads as missing: the generic reference check answers it.
  if (!found) return;
  if (found.device_id !== device) errors.add('module_bay', `${found.name} is a bay of ${found.device}: a module is installed in a bay of its own device.`);
  else if (found.inside) errors.add('module_bay', `${found.name} is part of this module: a module cannot sit in a bay of itself.`);
  else {
    const { rows: taken } = await sql<{ id: string }>`SELECT id FROM modules WHERE module_bay_id = ${bay} AND id IS DISTINCT FROM ${existing?.id ?? null}::uuid`.execute(tx);
    if (taken.length) errors.add('module_bay', `${found.name} already holds a module: one module per bay.`);
  }
  errors.throwIfAny();
}

export const moduleModel = defineModel({
  name: 'dcim.module',
  table: 'modules',
  path: '/api/modules/',
  label: 'module',
  tenantScoped: true,
  // Shown as its bay (`ams1-core1 › Slot 2`), as NetBox names a module by its bay.
  displayField: 'id',
  displayParent: ['module_bay'],
  fields: {
    device: { kind: 'fk', target: 'dcim.device', onDelete: 'cascade' },
    module_bay: { kind: 'fk', target: 'dcim.modulebay', onDelete: 'cascade', help: 'A free module bay of the same device.', pickerFilters: { device_id: '$field:device' } },
    module_type: { kind: 'fk', target: 'dcim.moduletype', onDelete: 'protect' },
    // NetBox's ModuleStatusChoices, a fixed list: Cairn's status catalog (extras.status) is per tenant and would
    // need every tenant's statuses extended; a module's status drives nothing else here.
    status: { kind: 'choice', vocabulary: 'module_statuses', default: 'active' },
    serial: { kind: 'string', maxLength: 50, default: '', label: 'Serial number' },
    asset_tag: { kind: 'string', maxLength: 50, nullable: true, unique: true, pattern: /\S/, patternMessage: 'Use null for a module without an asset tag.' },
    description: { kind: 'string', maxLength: 200, default: '' },
    comments: { kind: 'text', default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['serial', 'asset_tag', 'description'],
  defaultOrdering: ['module_bay'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    validate: checkModule,
    afterCreate: materializeModuleComponents,
    beforeDelete: ({ tx, ctx, row }) => releaseModuleComponents(tx, ctx, [String(row.id)]),
    beforeDeleteMany: ({ tx, ctx, rows }) => releaseModuleComponents(tx, ctx, rows.map((r) => String(r.id))),
  },
});
