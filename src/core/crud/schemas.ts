// JSON Schemas of registry models for the OpenAPI document: the answer shape and the write shape.
import type { FieldDef, ModelDef } from '../registry.ts';
import { fieldLabel, findModel, isRequired } from '../registry.ts';
import { choiceOptions } from './field-values.ts';
import { naturalKeyColumn } from './natural-keys.ts';
import { listEnvelopeSchema } from '../list-envelope.ts';

type Schema = Record<string, unknown>;

export function schemaName(model: ModelDef): string {
  return model.name
    .split('.')
    .map((p) => p.replace(/(^|_|-)(\w)/g, (_m, _s, c: string) => c.toUpperCase()))
    .join('');
}

/** A related object as answers show it: its id, url and display, and the few fields that name it. */
export const briefSchema: Schema = {
  type: 'object',
  properties: { id: { type: 'string', format: 'uuid' }, url: { type: 'string' }, display: { type: 'string' } },
  additionalProperties: true,
};

function valueSchema(field: FieldDef, forWrite: boolean): Schema {
  switch (field.kind) {
    case 'string':
    case 'text':
    case 'slug':
    case 'url':
      return { type: 'string', ...(field.maxLength ? { maxLength: field.maxLength } : {}) };
    case 'color':
      return { type: 'string', pattern: '^[0-9a-fA-F]{6}$' };
    case 'integer':
      return { type: 'integer', ...(field.min !== undefined ? { minimum: field.min } : {}), ...(field.max !== undefined ? { maximum: field.max } : {}) };
    case 'decimal':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'json':
      return field.jsonObject ? { type: 'object', additionalProperties: true } : {};
    case 'custom_fields':
      return { type: 'object', additionalProperties: true };
    case 'choice':
      return { type: 'string', enum: choiceOptions(field).map((o) => o.value) };
    case 'inet':
    case 'cidr':
      return { type: 'string' };
    case 'uuid':
      return { type: 'string', format: 'uuid' };
    case 'fk': {
      if (!forWrite) return briefSchema;
      const target = field.target ? findModel(field.target) : undefined;
      const key = target ? naturalKeyColumn(target) : null;
      // An id, or the row's slug or unique name (natural-keys.ts).
      return key ? { type: 'string', description: `An id, or the ${target!.label}'s ${key}.` } : { type: 'string', format: 'uuid' };
    }
    case 'm2m':
    case 'tags':
      return { type: 'array', items: forWrite ? { type: 'string', format: 'uuid' } : briefSchema };
    case 'generic_m2m': {
      const ref = { type: 'object', properties: { object_type: { type: 'string', enum: [...field.generic!.targets] }, object_id: { type: 'string', format: 'uuid' } }, required: ['object_type', 'object_id'] };
      if (forWrite) return { type: 'array', items: { anyOf: [ref, { type: 'string', format: 'uuid', description: `An id of a ${field.target}.` }] } };
      // NetBox's shape, with the brief object's own keys beside it for clients that read `id` and `display`.
      return { type: 'array', items: { ...briefSchema, properties: { ...(briefSchema.properties as Schema), ...ref.properties, object: briefSchema } } };
    }
    case 'string_list':
      return { type: 'array', items: { type: 'string' } };
    case 'integer_list':
      return { type: 'array', items: { type: 'integer' } };
  }
}

function nullable(schema: Schema, field: FieldDef): Schema {
  if (!field.nullable) return schema;
  // An enum lists every value the field may hold, so a blank choice's null must be one of them.
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'], ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}) };
  return { anyOf: [schema, { type: 'null' }] };
}

export function outputSchema(model: ModelDef): Schema {
  const properties: Record<string, Schema> = {
    id: { type: 'string', format: 'uuid' },
    numid: { type: 'integer' },
    url: { type: 'string' },
    display: { type: 'string' },
  };
  for (const [key, field] of Object.entries(model.fields)) {
    if (field.writeOnly || field.secret) continue;
    properties[key] = { ...nullable(valueSchema(field, false), field), description: field.help ?? fieldLabel(key, field) };
  }
  for (const [key, c] of Object.entries(model.computed)) properties[key] = { ...c.schema, readOnly: true, description: c.label ?? key };
  if (model.timestamps) {
    properties.created = { type: 'string', format: 'date-time' };
    properties.last_updated = { type: 'string', format: 'date-time' };
  }
  return { type: 'object', properties };
}

export function writeSchema(model: ModelDef, partial: boolean): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(model.fields)) {
    if (field.readOnly) continue;
    properties[key] = { ...nullable(valueSchema(field, true), field), description: field.help ?? fieldLabel(key, field) };
    if (!partial && isRequired(field)) required.push(key);
  }
  return { type: 'object', properties, additionalProperties: false, ...(required.length ? { required } : {}) };
}

export function pageSchema(ref: Schema): Schema {
  return listEnvelopeSchema(ref) as Schema;
}

export function listQuerySchema(model: ModelDef): Schema {
  const properties: Record<string, Schema> = {
    limit: { type: 'integer', minimum: 1, maximum: 1000, description: 'Rows per page (default 50).' },
    offset: { type: 'integer', minimum: 0 },
    ordering: { type: 'string', description: 'Comma-separated field names; prefix with - for descending.' },
    q: { type: 'string', description: `Search ${model.searchFields.join(', ') || model.displayField}.` },
    export: { type: 'string', description: `Name or id of an export template of type ${model.name}: answers the rendered file of the filtered rows instead of a page.` },
  };
  for (const [key, field] of Object.entries(model.fields)) {
    if (field.writeOnly || field.secret || field.kind === 'json' || field.kind === 'custom_fields') continue;
    properties[key] = {
      type: 'string',
      description: `Filter by ${fieldLabel(key, field).toLowerCase()}; lookups __n, __ic, __isw, __iew, __ie, __gte, __lte, __gt, __lt, __in, __isnull.`,
    };
  }
  if ('tags' in model.fields) properties.tag = { type: 'string', description: 'Tag slug or id.' };
  return { type: 'object', properties, additionalProperties: true };
}

/** The list's filters, search and ordering, and `columns`: what a CSV download of the list takes. */
export function csvQuerySchema(model: ModelDef): Schema {
  const list = listQuerySchema(model) as { properties: Record<string, Schema> };
  const { limit: _limit, offset: _offset, export: _export, ...filters } = list.properties;
  return {
    type: 'object',
    properties: { ...filters, columns: { type: 'string', description: 'Comma-separated column keys (list-field keys); all columns when absent.' } },
    additionalProperties: true,
  };
}
