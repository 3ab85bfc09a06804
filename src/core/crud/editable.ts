// The fields a client may change on a model, described for forms: the one list /api/editable-fields/ answers
// and bulk-update accepts. Derived from the registry; nothing here is a second hand-kept list of fields.
import type { FieldDef, ModelDef } from '../registry.ts';
import { fieldLabel, findModel, isRequired } from '../registry.ts';
import { choiceOptions } from './field-values.ts';

export const EDITABLE_KINDS = ['text', 'int', 'decimal', 'bool', 'choice', 'status', 'object', 'objects', 'generic_objects', 'tags', 'date', 'datetime', 'secret', 'json', 'list'] as const;

export interface EditableField {
  key: string;
  label: string;
  /**
   * How a form edits it. `secret`: write-only (a password or a key), never shown back; `json`: a JSON value;
   * `list`: a list of `items` values.
   */
  kind: (typeof EDITABLE_KINDS)[number];
  nullable: boolean;
  /** The create form must fill it (the API answers "This field is required." without it). */
  required: boolean;
  /**
   * The value a create stores when the field is not sent: what an add form shows (and sends) before anything is
   * typed. Absent when nothing is stored (an empty optional field). A boolean without a declared default is false.
   */
  default?: unknown;
  /** A dedicated editor: `rack_unit` picks among the free units of the rack the form's `rack` field holds. */
  widget?: 'rack_unit';
  choices?: string;
  options?: Array<{ value: string; label: string }>;
  status_model?: string;
  object_model?: string;
  endpoint?: string;
  /** `object` and `objects`: list filters the picker adds (`$self`: the id of the object being edited; `$field:<key>`: the id the form's `<key>` picker holds). */
  filters?: Record<string, string>;
  items?: 'int' | 'text';
  /** `generic_objects`: the models a picker offers, each with its list endpoint; values are {object_type, object_id}. */
  object_models?: Array<{ model: string; label: string; endpoint: string; scope?: PickerScope }>;
  /** `object`: the parent a picker may choose first to list only its rows (a device, then its interfaces). */
  scope?: PickerScope;
  hint?: string;
  /** Where the field stands in the model's definition: a form lays fields out in this order (`length`, then `length_unit`). */
  position: number;
}

/**
 * The parent every row of a model belongs to (ModelDef.displayParent, a required relation: an interface's device, a
 * VM interface's virtual machine): a picker offers it first and lists that parent's rows (`filter=<id>`), as NetBox's
 * forms pick a device, then its interface.
 */
export interface PickerScope {
  key: string;
  label: string;
  object_model: string;
  endpoint: string;
  filter: string;
}

export function pickerScope(model: ModelDef): PickerScope | undefined {
  for (const key of model.displayParent ?? []) {
    const field = model.fields[key];
    if (field?.kind !== 'fk' || field.nullable) continue;
    const parent = findModel(field.target!);
    if (!parent || parent.name === model.name || !parent.operations.list) continue;
    return { key, label: fieldLabel(key, field), object_model: parent.name, endpoint: parent.path, filter: `${key}_id` };
  }
  return undefined;
}

const scopeSchema = {
  type: 'object',
  description: 'The parent a picker may choose first (a device), then listing its rows only with `filter=<parent id>`.',
  properties: { key: { type: 'string' }, label: { type: 'string' }, object_model: { type: 'string' }, endpoint: { type: 'string' }, filter: { type: 'string' } },
  required: ['key', 'label', 'object_model', 'endpoint', 'filter'],
};

const optionSchema = { type: 'object', properties: { value: { type: 'string' }, label: { type: 'string' } }, required: ['value', 'label'] };

/**
 * The answer's schema, a named component (`EditableField`) the web UI's forms are typed from. The serializer
 * keeps only the properties named here: a property added to EditableField is added here too.
 */
export const editableFieldSchema = {
  $id: 'EditableField',
  type: 'object',
  properties: {
    key: { type: 'string' },
    label: { type: 'string' },
    kind: { type: 'string', enum: [...EDITABLE_KINDS], description: 'How a form edits it. `secret`: write-only, never shown back; `json`: a JSON value; `list`: a list of `items` values.' },
    nullable: { type: 'boolean' },
    required: { type: 'boolean', description: 'A create must send it.' },
    default: { description: 'What a create stores when the field is not sent (absent: nothing, or null).' },
    widget: { type: 'string', enum: ['rack_unit'], description: '`rack_unit`: an integer picked among the free units of the rack in the form\'s `rack` field.' },
    choices: { type: 'string', description: 'The vocabulary its values come from.' },
    options: { type: 'array', items: optionSchema },
    status_model: { type: 'string' },
    object_model: { type: 'string' },
    endpoint: { type: 'string' },
    filters: { type: 'object', additionalProperties: { type: 'string' }, description: '`object` and `objects`: list filters the picker adds (`$self`: the id of the object being edited; `$field:<key>`: the id the form\'s `<key>` picker holds).' },
    items: { type: 'string', enum: ['int', 'text'] },
    object_models: {
      type: 'array',
      description: '`generic_objects`: the models a picker offers, each with its list endpoint; values are {object_type, object_id}.',
      items: { type: 'object', properties: { model: { type: 'string' }, label: { type: 'string' }, endpoint: { type: 'string' }, scope: scopeSchema }, required: ['model', 'label', 'endpoint'] },
    },
    scope: scopeSchema,
    hint: { type: 'string' },
    position: { type: 'integer', description: "Where the field stands in the model's definition: the order a form lays fields out in." },
  },
  required: ['key', 'label', 'kind', 'nullable', 'required', 'position'],
};

/** The write allow-list of a model: every field a client may set, sorted by label. */
export function editableFields(model: ModelDef): EditableField[] {
  const out: EditableField[] = [];
  for (const [position, [key, field]] of Object.entries(model.fields).entries()) {
    const d = editableDescriptor(model, key, field);
    if (d) out.push({ ...d, position });
  }
  return out.sort((a, b) => a.label.localeCompare(b.label, 'en', { sensitivity: 'base' }));
}

const bulkKeys = new WeakMap<ModelDef, ReadonlySet<string>>();

/**
 * The keys bulk-update accepts in `fields`: the editable fields, plus `custom_fields` (merged key by key; a form
 * describes each custom field from /api/list-fields/).
 */
export function bulkEditableKeys(model: ModelDef): ReadonlySet<string> {
  let keys = bulkKeys.get(model);
  if (!keys) {
    // A generic_m2m's rows are held by one owner at a time (a port on one cable): never the same for many rows.
    keys = new Set([...editableFields(model).filter((f) => f.kind !== 'generic_objects').map((f) => f.key), ...Object.entries(model.fields).filter(([, f]) => f.kind === 'custom_fields' && !f.readOnly).map(([k]) => k)]);
    bulkKeys.set(model, keys);
  }
  return keys;
}

function editableDescriptor(model: ModelDef, key: string, field: FieldDef): Omit<EditableField, 'position'> | null {
  if (field.readOnly) return null;
  const shown = field.default !== undefined && field.default !== null ? field.default : field.default === undefined && field.kind === 'boolean' ? false : undefined;
  const base = {
    key,
    label: fieldLabel(key, field),
    nullable: field.nullable ?? false,
    required: isRequired(field),
    ...(shown !== undefined ? { default: shown } : {}),
    ...(field.widget ? { widget: field.widget } : {}),
    ...(field.help ? { hint: field.help } : {}),
  };
  // Passwords and keys are set, never read back: the form offers a masked input and shows nothing stored.
  if ((field.writeOnly || field.secret) && (field.kind === 'string' || field.kind === 'text')) return { ...base, kind: 'secret' };
  switch (field.kind) {
    case 'string':
    case 'text':
    case 'slug':
    case 'url':
    case 'color':
    case 'inet':
    case 'cidr':
    case 'uuid':
      return { ...base, kind: 'text' };
    case 'integer':
      return { ...base, kind: 'int' };
    case 'decimal':
      return { ...base, kind: 'decimal' };
    case 'boolean':
      return { ...base, kind: 'bool' };
    case 'date':
      return { ...base, kind: 'date' };
    case 'datetime':
      return { ...base, kind: 'datetime' };
    case 'json':
      return { ...base, kind: 'json' };
    case 'integer_list':
      return { ...base, kind: 'list', items: 'int' };
    case 'string_list':
      return { ...base, kind: 'list', items: 'text' };
    case 'choice':
      return field.vocabulary
        ? { ...base, kind: 'choice', choices: field.vocabulary }
        : { ...base, kind: 'choice', options: choiceOptions(field).map(({ value, label }) => ({ value, label })) };
    case 'fk': {
      const target = findModel(field.target!);
      if (!target) return null;
      if (target.name === 'extras.status') return { ...base, kind: 'status', status_model: model.name };
      // A picker already narrowed by its own filters (a LAG among the interface's siblings) needs no parent first.
      const scope = field.pickerFilters ? undefined : pickerScope(target);
      return { ...base, kind: 'object', object_model: target.name, endpoint: target.path, ...(field.pickerFilters ? { filters: field.pickerFilters } : {}), ...(scope ? { scope } : {}) };
    }
    case 'm2m': {
      const target = findModel(field.target!);
      return target ? { ...base, kind: 'objects', object_model: target.name, endpoint: target.path, ...(field.pickerFilters ? { filters: field.pickerFilters } : {}) } : null;
    }
    case 'generic_m2m': {
      const targets = field.generic!.targets.map((name) => findModel(name)).filter((m): m is ModelDef => m !== undefined);
      return {
        ...base,
        kind: 'generic_objects',
        object_models: targets.map((m) => {
          const scope = pickerScope(m);
          return { model: m.name, label: m.label, endpoint: m.path, ...(scope ? { scope } : {}) };
        }),
      };
    }
    case 'tags':
      return { ...base, kind: 'tags', object_model: 'extras.tag', endpoint: '/api/tags/' };
    case 'custom_fields':
      // Edited through their own definitions (see bulkEditableKeys).
      return null;
  }
}
