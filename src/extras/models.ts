// Extras: tags, the status catalog, custom-field definitions and config contexts.
import { sql } from 'kysely';
import { allModels, defineModel, type ModelDef } from '../core/registry.ts';
import { ErrorCollector, fieldError } from '../core/errors.ts';
import { onTenantCreated } from '../core/models.ts';
import { seedDefaultStatuses } from './statuses.ts';
import { CUSTOM_FIELD_NAME_RE, CUSTOM_FIELD_TYPES, customFieldModels, customFieldValueError } from './custom-fields.ts';
import { callerTenant, inTenant, tenantOf } from '../core/access.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

onTenantCreated(seedDefaultStatuses);

export const tagModel = defineModel({
  name: 'extras.tag',
  table: 'tags',
  path: '/api/tags/',
  label: 'tag',
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

export const statusModel = defineModel({
  name: 'extras.status',
  table: 'statuses',
  path: '/api/statuses/',
  label: 'status',
  labelPlural: 'statuses',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    color: { kind: 'color', default: '9e9e9e' },
    available_to: { kind: 'string_list', maxLength: 100, default: [], help: 'Object types (e.g. dcim.device) whose status may be this one.' },
    default_for: { kind: 'string_list', maxLength: 100, default: [], help: 'Object types that get this status when created without one.' },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, ctx, input, existing }) {
      const errors = new ErrorCollector();
      const available = (input.available_to ?? existing?.available_to ?? []) as string[];
      const defaults = (input.default_for ?? existing?.default_for ?? []) as string[];
      const statusModels = new Set(statusBearingModels());
      for (const [key, list] of [['available_to', available], ['default_for', defaults]] as const) {
        if (!(key in input)) continue;
        for (const name of list) if (!statusModels.has(name)) errors.add(key, `"${name}" is not an object type with a status.`);
      }
      for (const name of defaults) if (!available.includes(name)) errors.add('default_for', `${name} must also be in available_to.`);
      errors.throwIfAny();
      if ('default_for' in input && defaults.length) {
        // One default per object type: a second one would make creation ambiguous.
        const { rows } = await sql<{ name: string; t: string }>`SELECT name, t FROM statuses, unnest(default_for) AS t
          WHERE ${callerTenant(ctx)} AND id <> ${existing?.id ?? '00000000-0000-0000-0000-000000000000'} AND t = ANY(${defaults}::text[])`.execute(tx);
        if (rows[0]) throw fieldError('default_for', `Status "${rows[0].name}" is already the default for ${rows[0].t}; remove it there first.`);
      }
    },
  },
});

/** Models whose `status` field points at the catalog. */
export function statusBearingModels(): string[] {
  return allModels()
    .filter((m) => Object.values(m.fields).some((f) => f.kind === 'fk' && f.target === 'extras.status'))
    .map((m) => m.name);
}

export const customFieldModel = defineModel({
  name: 'extras.customfield',
  table: 'custom_fields',
  path: '/api/custom-fields/',
  netbox: { objectTypes: ['object_types'] },
  label: 'custom field',
  tenantScoped: true,
  fields: {
    name: {
      kind: 'string',
      maxLength: 50,
      unique: true,
      pattern: CUSTOM_FIELD_NAME_RE,
      patternMessage: 'Use lowercase letters, digits and underscores, starting with a letter (at most 50 characters).',
    },
    label: { kind: 'string', maxLength: 100, default: '' },
    type: { kind: 'choice', choices: CUSTOM_FIELD_TYPES, default: 'text' },
    object_types: { kind: 'string_list', maxLength: 100, default: [], help: 'Models the field applies to, e.g. dcim.device.' },
    required: { kind: 'boolean' },
    default: { kind: 'json', nullable: true, default: null },
    choices: { kind: 'string_list', maxLength: 100, default: [], help: 'Options of select and multiselect fields.' },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'label', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ input, existing }) {
      const errors = new ErrorCollector();
      const type = String(input.type ?? existing?.type ?? 'text');
      const choices = (input.choices ?? existing?.choices ?? []) as string[];
      if ('object_types' in input) {
        const allowed = new Set(customFieldModels().map((m) => m.name));
        for (const t of input.object_types as string[]) if (!allowed.has(t)) errors.add('object_types', `"${t}" is not an object type with custom fields.`);
      }
      if ((type === 'select' || type === 'multiselect') && choices.length === 0) errors.add('choices', `A ${type} field needs at least one choice.`);
      if (new Set(choices).size !== choices.length) errors.add('choices', 'Choices must be unique.');
      const dflt = 'default' in input ? input.default : existing?.default;
      if (dflt !== null && dflt !== undefined) {
        const problem = customFieldValueError({ type, choices }, dflt);
        if (problem) errors.add('default', problem);
      }
      errors.throwIfAny();
    },
    async afterUpdate({ tx, before, row }) {
      // Object types the field no longer applies to lose its values, as if it had been deleted for them.
      const kept = new Set(Array.isArray(row.object_types) ? (row.object_types as string[]) : []);
      const dropped = (Array.isArray(before.object_types) ? (before.object_types as string[]) : []).filter((t) => !kept.has(t));
      for (const m of modelsOfTypes(dropped)) {
        await sql`UPDATE ${sql.table(m.table)} SET custom_fields = custom_fields - ${String(before.name)}::text
          WHERE ${inTenant(tenantOf(row))} AND custom_fields ? ${String(before.name)}::text`.execute(tx);
      }
      // Renaming a field carries the stored values along, so objects keep their data under the new key.
      if (before.name === row.name) return;
      for (const m of modelsOfTypes(row.object_types)) {
        await sql`UPDATE ${sql.table(m.table)} SET custom_fields = (custom_fields - ${String(before.name)}::text)
            || jsonb_build_object(${String(row.name)}::text, custom_fields -> ${String(before.name)}::text)
          WHERE ${inTenant(tenantOf(row))} AND custom_fields ? ${String(before.name)}::text`.execute(tx);
      }
    },
    async beforeDelete({ tx, row }) {
      // Values of a deleted field would fail the next write as unknown: remove them with the definition.
      for (const m of modelsOfTypes(row.object_types)) {
        await sql`UPDATE ${sql.table(m.table)} SET custom_fields = custom_fields - ${String(row.name)}::text
          WHERE ${inTenant(tenantOf(row))} AND custom_fields ? ${String(row.name)}::text`.execute(tx);
      }
    },
  },
});

function modelsOfTypes(types: unknown): ModelDef[] {
  const names = new Set(Array.isArray(types) ? (types as string[]) : []);
  return customFieldModels().filter((m) => names.has(m.name));
}

export const configContextModel = defineModel({
  name: 'extras.configcontext',
  table: 'config_contexts',
  path: '/api/config-contexts/',
  label: 'config context',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    weight: { kind: 'integer', min: 0, max: 32767, default: 1000 },
    is_active: { kind: 'boolean', default: true, label: 'Active' },
    description: { kind: 'string', maxLength: 200, default: '' },
    data: { kind: 'json', jsonObject: true, default: {} },
    regions: { kind: 'm2m', target: 'organization.region', through: { table: 'config_context_regions', from: 'config_context_id', to: 'region_id' } },
    sites: { kind: 'm2m', target: 'organization.site', through: { table: 'config_context_sites', from: 'config_context_id', to: 'site_id' } },
    roles: { kind: 'm2m', target: 'dcim.devicerole', through: { table: 'config_context_roles', from: 'config_context_id', to: 'role_id' } },
    platforms: { kind: 'm2m', target: 'dcim.platform', through: { table: 'config_context_platforms', from: 'config_context_id', to: 'platform_id' } },
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['weight', 'name'],
});
