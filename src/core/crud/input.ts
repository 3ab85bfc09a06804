// Request bodies → column values, checked field by field against the registry. Every bad field is reported
// at once as `{field: [message]}`; nothing reaches the database before this passes.
import type { FieldDef, ModelDef } from '../registry.ts';
import { columnOf, isColumnField, isRequired } from '../registry.ts';
import { ErrorCollector, badRequest } from '../errors.ts';
import { checkFieldValue, type GenericRef } from './field-values.ts';

export type WriteMode = 'create' | 'update' | 'patch';

export interface CheckedInput {
  /** Column name → stored value, for the model's own table. */
  columns: Record<string, unknown>;
  /** m2m field key → ids (replaces the set). */
  relations: Record<string, string[]>;
  /** generic_m2m field key → the rows it points at (replaces the set). */
  links: Record<string, GenericRef[]>;
  /** Tag ids, when the body sent `tags`. */
  tags: string[] | null;
  /** Field key → value as accepted (for hooks that reason in field names). */
  values: Record<string, unknown>;
}

/** Keys the API shows but never accepts; sending them is an error, so a typo is never silently dropped. */
const SERVER_KEYS = new Set(['id', 'numid', 'url', 'display', 'created', 'last_updated']);

export function checkInput(model: ModelDef, body: unknown, mode: WriteMode): CheckedInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest({ non_field_errors: ['Expected a JSON object of field values.'] });
  }
  const input = body as Record<string, unknown>;
  const errors = new ErrorCollector();
  const out: CheckedInput = { columns: {}, relations: {}, links: {}, tags: null, values: {} };

  for (const [key, value] of Object.entries(input)) {
    const field = model.fields[key];
    if (!field) {
      errors.add(key, SERVER_KEYS.has(key) || key in model.computed ? 'This field is read-only.' : 'Unknown field.');
      continue;
    }
    if (field.readOnly) {
      errors.add(key, 'This field is read-only.');
      continue;
    }
    const checked = checkFieldValue(key, field, value);
    if (!checked.ok) {
      errors.add(key, checked.message);
      continue;
    }
    assign(out, key, field, checked.value);
  }

  if (mode !== 'patch') {
    for (const [key, field] of Object.entries(model.fields)) {
      if (key in input || field.readOnly) continue;
      if (mode === 'create' && isRequired(field)) errors.add(key, 'This field is required.');
      else if (mode === 'create' && field.default !== undefined) assign(out, key, field, structuredClone(field.default));
      else if (mode === 'create' && field.kind === 'boolean') assign(out, key, field, false);
      else if (mode === 'update' && isRequired(field)) errors.add(key, 'This field is required.');
    }
  }
  errors.throwIfAny();
  return out;
}

function assign(out: CheckedInput, key: string, field: FieldDef, value: unknown): void {
  out.values[key] = value;
  if (field.kind === 'tags') out.tags = value as string[];
  else if (field.kind === 'm2m') out.relations[key] = value as string[];
  else if (field.kind === 'generic_m2m') out.links[key] = value as GenericRef[];
  else if (isColumnField(field)) out.columns[columnOf(key, field)] = value;
}
