// The self-describing catalogs: /api/editable-fields/ (what a caller may write, field by field: crud/editable.ts,
// the allow-list bulk-update enforces) and /api/list-fields/ (what columns a list can show). Everything is
// derived from the registry; nothing here is a second hand-kept list of fields.
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from './context.ts';
import type { FieldDef, ModelDef } from './registry.ts';
import { allModels, fieldLabel, findModel } from './registry.ts';
import { editableFieldSchema, editableFields } from './crud/editable.ts';
import { modelAllows } from './access.ts';
import { forbidden, notFound } from './errors.ts';
import { answeredAsBuilt, dbOf } from './http.ts';
import { choiceOptions } from './crud/field-values.ts';
import { orderableField } from './crud/list-query.ts';

export const LIST_FIELD_KINDS = ['text', 'longtext', 'ip', 'number', 'percent', 'bool', 'choice', 'date', 'datetime', 'color', 'object', 'objects', 'tags', 'auto'] as const;
export type ListFieldKind = (typeof LIST_FIELD_KINDS)[number];

export interface ListField {
  key: string;
  label: string;
  kind: ListFieldKind;
  group: 'fields' | 'related';
  /** The list can be ordered by it (`ordering=<key>`); computed values and many-valued fields cannot. */
  sortable: boolean;
  path?: string;
  options?: Array<{ value: string; label: string }>;
  choices?: string;
  related?: string;
}

const optionSchema = { type: 'object', properties: { value: { type: 'string' }, label: { type: 'string' } }, required: ['value', 'label'] };

const listFieldSchema = {
  type: 'object',
  properties: {
    key: { type: 'string' },
    label: { type: 'string' },
    kind: { type: 'string', enum: [...LIST_FIELD_KINDS] },
    group: { type: 'string', enum: ['fields', 'related'] },
    sortable: { type: 'boolean', description: 'The list can be ordered by it (ordering=<key>).' },
    path: { type: 'string' },
    options: { type: 'array', items: optionSchema },
    choices: { type: 'string', description: 'The vocabulary its values come from.' },
    related: { type: 'string', description: 'The model an object column points at.' },
  },
  required: ['key', 'label', 'kind', 'group', 'sortable'],
};

/**
 * The /api/list-fields/ answer, a named component (`ListFields`) the web UI's lists are typed from. The serializer
 * keeps only the properties named here: a property added to ListField is added here too.
 */
export const listFieldsSchema = {
  $id: 'ListFields',
  type: 'object',
  description: 'The columns and custom fields of the list.',
  properties: {
    path: { type: 'string' },
    model: { type: 'string' },
    slug: { type: 'string', description: 'The permission name of the model (app.model).' },
    cf_model: { type: ['string', 'null'], description: 'The model custom fields are defined on; null when it has none.' },
    fields: { type: 'array', items: listFieldSchema },
    other_fields: {
      type: 'array',
      items: listFieldSchema,
      description: "Fields the list leaves out of its columns (drawn inside another column, or a code nobody reads), described for records that name them (a change's before and after).",
    },
    custom_fields: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          key: { type: 'string' },
          name: { type: 'string' },
          label: { type: 'string' },
          type: { type: 'string' },
          choices: { type: 'array', items: { type: 'string' } },
          required: { type: 'boolean', description: 'A new object must have a value.' },
          default: { description: 'The value a new object gets when none is sent (null: none).' },
        },
        required: ['key', 'name', 'label', 'type', 'choices', 'required', 'default'],
      },
    },
  },
  required: ['path', 'model', 'slug', 'cf_model', 'fields', 'other_fields', 'custom_fields'],
};

function listKind(field: FieldDef): ListFieldKind | null {
  switch (field.kind) {
    case 'string':
    case 'slug':
    case 'url':
    case 'uuid':
      return 'text';
    case 'text':
      return 'longtext';
    case 'inet':
    case 'cidr':
      return 'ip';
    case 'integer':
    case 'decimal':
      return 'number';
    case 'boolean':
      return 'bool';
    case 'choice':
      return 'choice';
    case 'date':
      return 'date';
    case 'datetime':
      return 'datetime';
    case 'color':
      return 'color';
    case 'fk':
      return 'object';
    case 'm2m':
    case 'generic_m2m':
      return 'objects';
    case 'tags':
      return 'tags';
    default:
      return null;
  }
}

const KNOWN_LIST_KINDS = new Set<string>(LIST_FIELD_KINDS);
/** Kinds computed fields name by their JSON type: a flag reads as a flag (✓ Yes), not as the word true. */
const COMPUTED_KIND_ALIASES: Readonly<Record<string, string>> = { boolean: 'bool', string: 'text' };

export function listFields(model: ModelDef): ListField[] {
  return describedFields(model).filter((f) => !model.listColumnsExclude.includes(f.key));
}

/**
 * The fields a list leaves out of its columns (ModelDef.listColumnsExclude: drawn inside another column, as a
 * cable's length unit, or a code nobody reads), described still for records that name them: a change's before
 * and after reads "Length unit: Meters", not "length_unit: m".
 */
export function otherListFields(model: ModelDef): ListField[] {
  return describedFields(model).filter((f) => model.listColumnsExclude.includes(f.key));
}

function describedFields(model: ModelDef): ListField[] {
  const out: ListField[] = [];
  for (const [key, field] of Object.entries(model.fields)) {
    if (field.writeOnly || field.secret) continue;
    const kind = listKind(field);
    if (!kind) continue;
    const entry: ListField = { key, label: fieldLabel(key, field), kind, group: kind === 'object' || kind === 'objects' || kind === 'tags' ? 'related' : 'fields', sortable: !!orderableField(model, key) };
    if (field.kind === 'fk' || field.kind === 'm2m') entry.related = field.target!;
    if (field.kind === 'tags') entry.related = 'extras.tag';
    if (field.kind === 'choice') {
      if (field.vocabulary) entry.choices = field.vocabulary;
      else if (choiceOptions(field).length <= 40) entry.options = choiceOptions(field).map(({ value, label }) => ({ value, label }));
    }
    out.push(entry);
  }
  for (const [key, c] of Object.entries(model.computed)) {
    const named = COMPUTED_KIND_ALIASES[c.kind] ?? c.kind;
    const kind = (KNOWN_LIST_KINDS.has(named) ? named : 'auto') as ListFieldKind;
    const entry: ListField = { key, label: c.label ?? fieldLabel(key, { kind: 'string' }), kind, group: kind === 'object' || kind === 'objects' ? 'related' : 'fields', sortable: false };
    if (c.related) entry.related = c.related;
    if (c.options) entry.options = c.options.map(({ value, label }) => ({ value, label }));
    out.push(entry);
  }
  if (model.timestamps) {
    out.push({ key: 'created', label: 'Created', kind: 'datetime', group: 'fields', sortable: true }, { key: 'last_updated', label: 'Last updated', kind: 'datetime', group: 'fields', sortable: true });
  }
  return out;
}

/** The custom fields of the caller's tenant a model's list can show as columns (`custom_fields.<name>`), by label. */
export async function customFieldColumns(db: Kysely<DB>, ctx: RequestContext, model: ModelDef): Promise<CustomFieldColumn[]> {
  if (!ctx.tenantId || !Object.values(model.fields).some((f) => f.kind === 'custom_fields')) return [];
  const { rows } = await sql<{ name: string; label: string; type: string; choices: string[]; required: boolean; default: unknown }>`
    SELECT name, label, type, choices, required, "default" FROM custom_fields WHERE tenant_id = ${ctx.tenantId} AND ${model.name} = ANY(object_types) ORDER BY label, name`.execute(db);
  return rows.map((r) => ({ key: `custom_fields.${r.name}`, name: r.name, label: r.label || r.name, type: r.type, choices: r.choices, required: r.required, default: r.default ?? null }));
}

export interface CustomFieldColumn {
  key: string;
  name: string;
  label: string;
  type: string;
  choices: string[];
  /** A new object must have a value. */
  required: boolean;
  /** What a new object gets when none is sent (null: nothing). */
  default: unknown;
}

function modelForList(path: string): ModelDef {
  let p = path.split('?')[0]!.trim();
  if (!p.startsWith('/api/')) throw notFound('Not an API list path.');
  if (!p.endsWith('/')) p += '/';
  const model = allModels().find((m) => m.path === p);
  if (!model || !model.operations.list) throw notFound('Not a list endpoint.');
  return model;
}

export function registerCatalogRoutes(app: FastifyInstance): void {
  app.addSchema(editableFieldSchema);
  app.addSchema(listFieldsSchema);
  app.get('/api/editable-fields/', {
    schema: {
      tags: ['core'],
      summary: 'Editable fields: the models you may change, or the write allow-list of one model',
      querystring: { type: 'object', properties: { model: { type: 'string', maxLength: 100, description: 'app.model or the bare model name' } }, additionalProperties: false },
      response: {
        200: {
          description: 'Without `model`: {models: [...]}, the models you may change. With it: that model\'s editable fields.',
          oneOf: [
            {
              type: 'object',
              properties: {
                models: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { model: { type: 'string' }, slug: { type: 'string' }, label: { type: 'string' }, endpoint: { type: 'string' }, field_count: { type: 'integer' } },
                    required: ['model', 'slug', 'label', 'endpoint', 'field_count'],
                  },
                },
              },
              required: ['models'],
            },
            { type: 'array', items: { $ref: 'EditableField#' } },
          ],
        },
      },
    },
    ...answeredAsBuilt,
    handler: async (req) => {
      const ctx = req.ctx;
      const ref = (req.query as { model?: string }).model;
      if (ref === undefined) {
        const models = allModels()
          .filter((m) => m.operations.update && modelAllows(ctx, m, 'change'))
          .map((m) => ({ model: m.name, slug: m.permission, label: m.labelPlural.charAt(0).toUpperCase() + m.labelPlural.slice(1), endpoint: m.path, field_count: editableFields(m).length }))
          .filter((m) => m.field_count > 0)
          .sort((a, b) => a.label.localeCompare(b.label));
        return { models };
      }
      const model = findModel(ref.startsWith('api.') ? ref.slice(4) : ref);
      if (!model) throw notFound('Unknown object type.');
      if (!model.operations.update || !modelAllows(ctx, model, 'change')) throw forbidden(`${model.permission}.change required.`);
      return editableFields(model);
    },
  });

  app.get('/api/list-fields/', {
    schema: {
      tags: ['core'],
      summary: 'The columns a list endpoint can show, with their kinds, and the custom fields of its model',
      querystring: { type: 'object', properties: { path: { type: 'string', maxLength: 300 } }, required: ['path'], additionalProperties: false },
      response: { 200: { $ref: 'ListFields#' } },
    },
    ...answeredAsBuilt,
    handler: async (req) => {
      const model = modelForList((req.query as { path: string }).path);
      if (!modelAllows(req.ctx, model, 'view')) throw forbidden(`You do not have permission to view ${model.labelPlural}.`);
      const hasCustomFields = Object.values(model.fields).some((f) => f.kind === 'custom_fields');
      const customFields = await customFieldColumns(dbOf(req), req.ctx, model);
      return {
        path: model.path,
        model: model.name,
        slug: model.permission,
        cf_model: hasCustomFields ? model.name : null,
        fields: listFields(model),
        other_fields: otherListFields(model),
        custom_fields: customFields,
      };
    },
  });
}

