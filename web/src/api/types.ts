// Shapes of the public API answers the generic pages read. They come from the OpenAPI document: npm run build
// generates ./schema.gen.ts from the server's route schemas (scripts/openapi-types.ts), so these names are
// aliases of the server's own components and follow them.
import type { components, paths } from './schema.gen.ts';

type Schemas = components['schemas'];

/**
 * Any object of any model, as the generic list, detail and edit pages read it. The document describes every
 * model on its own (`components['schemas']['DcimDevice']` ...); pages that serve all models know only this much.
 */
export interface ApiObject {
  id: string;
  numid?: number;
  url?: string;
  display: string;
  [key: string]: unknown;
}

/** A reference to another object inside an answer (a device's `site`): the same minimal shape. */
export type Brief = ApiObject;

/** The one list envelope every list answers with; `results` typed by the caller (the document has no generics). */
export type Page<T = ApiObject> = Omit<paths['/api/sites/']['get']['responses'][200]['content']['application/json'], 'results'> & { results: T[] };

export type Me = Schemas['Me'];
export type Tenant = Me['tenants'][number];

export type ListFields = Schemas['ListFields'];
export type ListField = ListFields['fields'][number];
export type ListFieldKind = ListField['kind'];
export type CustomFieldColumn = ListFields['custom_fields'][number];
export type Option = NonNullable<ListField['options']>[number];

/** `filters` (kind `object`): list filters the picker adds; `$self` stands for the id of the object being edited, `$field:<key>` for the id the form's `<key>` picker holds. */
export type EditableField = Schemas['EditableField'];
/** `secret`: a password or key, set but never shown back; `json`: a JSON value; `list`: values separated by commas. */
export type EditableKind = EditableField['kind'];

/** One entry of /api/models/: a model the caller may see, with what they may do to it. */
export type ModelInfo = Schemas['ModelIndex']['models'][number];

export type BulkDeleteResult = Schemas['BulkDeleteResult'];
