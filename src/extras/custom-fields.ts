// Custom fields: the per-tenant definitions and the check every model's `custom_fields` value passes on write.
// Values are keyed by definition name; errors name `custom_fields.<name>` so a form can point at the input.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { ChoiceOption, ModelDef } from '../core/registry.ts';
import { allModels } from '../core/registry.ts';
import { ErrorCollector } from '../core/errors.ts';
import { isValidDate } from '../core/crud/field-values.ts';
import { setCustomFieldsCheck } from '../core/crud/write.ts';
import { setCustomFieldDefaults } from '../core/crud/insert-rows.ts';
import { inTenant } from '../core/access.ts';

export const CUSTOM_FIELD_TYPES: readonly ChoiceOption[] = [
  { value: 'text', label: 'Text' },
  { value: 'longtext', label: 'Text (long)' },
  { value: 'integer', label: 'Integer' },
  { value: 'decimal', label: 'Decimal' },
  { value: 'boolean', label: 'Boolean (true/false)' },
  { value: 'date', label: 'Date' },
  { value: 'url', label: 'URL' },
  { value: 'select', label: 'Selection' },
  { value: 'multiselect', label: 'Multiple selection' },
  { value: 'json', label: 'JSON' },
];

/** A clean Jinja variable and Ansible group name. */
export const CUSTOM_FIELD_NAME_RE = /^[a-z][a-z0-9_]{0,49}$/;

export interface CustomFieldDefinition {
  name: string;
  type: string;
  required: boolean;
  default: unknown;
  choices: string[];
}

/** Models whose rows carry custom-field values: the valid `object_types` of a definition. */
export function customFieldModels(): ModelDef[] {
  return allModels().filter((m) => Object.values(m.fields).some((f) => f.kind === 'custom_fields'));
}

/** Why `value` is not a valid value for a field of this definition, or null when it is. */
export function customFieldValueError(def: Pick<CustomFieldDefinition, 'type' | 'choices'>, value: unknown): string | null {
  switch (def.type) {
    case 'text':
      return typeof value === 'string' && value.length <= 1000 ? null : 'Expected a text of at most 1000 characters.';
    case 'longtext':
      return typeof value === 'string' && value.length <= 100_000 ? null : 'Expected a text.';
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) ? null : 'Expected an integer.';
    case 'decimal':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'Expected a number.';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'Expected true or false.';
    case 'date':
      return typeof value === 'string' && isValidDate(value) ? null : 'Expected a date as YYYY-MM-DD.';
    case 'url': {
      if (typeof value !== 'string') return 'Expected a URL.';
      try {
        const u = new URL(value);
        return u.protocol === 'http:' || u.protocol === 'https:' ? null : 'Expected a URL starting with http:// or https://.';
      } catch {
        return 'Expected a URL starting with http:// or https://.';
      }
    }
    case 'select':
      return typeof value === 'string' && def.choices.includes(value) ? null : `Expected one of: ${def.choices.join(', ')}.`;
    case 'multiselect':
      return Array.isArray(value) && value.every((v) => typeof v === 'string' && def.choices.includes(v))
        ? null
        : `Expected a list of: ${def.choices.join(', ')}.`;
    case 'json':
      return JSON.stringify(value).length <= 100_000 ? null : 'JSON value is larger than 100 KB.';
    default:
      return `Unknown custom field type ${def.type}.`;
  }
}

async function definitionsFor(tx: Kysely<DB>, tenantId: string | null, modelName: string): Promise<CustomFieldDefinition[]> {
  const { rows } = await sql<CustomFieldDefinition>`SELECT name, type, required, "default", choices FROM custom_fields
    WHERE ${inTenant(tenantId)} AND ${modelName} = ANY(object_types) ORDER BY name`.execute(tx);
  return rows;
}

/** The values a new row of `modelName` starts with: every definition's default (rows made in bulk use this). */
export async function customFieldDefaults(tx: Kysely<DB>, tenantId: string, modelName: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const def of await definitionsFor(tx, tenantId, modelName)) if (def.default !== null && def.default !== undefined) out[def.name] = def.default;
  return out;
}

/**
 * Validates a row's complete custom-field values (already merged for PATCH). On create, absent fields take
 * their default. Required fields must hold a value. Throws one 400 listing every bad key.
 */
export async function checkCustomFieldValues(
  tx: Kysely<DB>,
  tenantId: string | null,
  model: ModelDef,
  key: string,
  values: Record<string, unknown>,
  creating: boolean,
  sentKeys?: ReadonlySet<string>,
): Promise<Record<string, unknown>> {
  const defs = await definitionsFor(tx, tenantId, model.name);
  const byName = new Map(defs.map((d) => [d.name, d]));
  const errors = new ErrorCollector();
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const def = byName.get(name);
    // A stored value the request did not touch is not the caller's error: a key whose definition no longer
    // applies is dropped, a value that predates a change of type is kept as it is.
    const sent = !sentKeys || sentKeys.has(name);
    if (!def) {
      if (sent) errors.add(`${key}.${name}`, `Unknown custom field "${name}" for ${model.labelPlural}.`);
      continue;
    }
    const problem = customFieldValueError(def, value);
    if (problem && sent) errors.add(`${key}.${name}`, problem);
    else out[name] = value;
  }
  for (const def of defs) {
    if (def.name in values) continue;
    if (creating && def.default !== null && def.default !== undefined) out[def.name] = structuredClone(def.default);
    else if (def.required) errors.add(`${key}.${def.name}`, 'This custom field is required.');
  }
  errors.throwIfAny();
  return out;
}

setCustomFieldsCheck(({ tx, ctx, model, key, values, creating, sentKeys }) => checkCustomFieldValues(tx, ctx.tenantId, model, key, values, creating, sentKeys));
setCustomFieldDefaults(customFieldDefaults);
