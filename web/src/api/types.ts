// Shapes of the public API answers the generic pages read (see src/core/catalogs.ts and src/core/crud/*).

export interface Brief {
  id: string;
  url?: string;
  display: string;
  [key: string]: unknown;
}

export interface ApiObject {
  id: string;
  numid?: number;
  url?: string;
  display: string;
  [key: string]: unknown;
}

export interface Page<T = ApiObject> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export interface Tenant {
  id: string;
  name: string;
  slug: string;
}

export interface Me {
  user: { id: string; username: string; email?: string | null; is_superuser: boolean };
  tenants: Tenant[];
  active_tenant: Tenant | null;
  permissions: string[];
  via: 'session' | 'token';
  read_only: boolean;
  csrf_token: string | null;
}

export type ListFieldKind = 'text' | 'longtext' | 'ip' | 'number' | 'percent' | 'bool' | 'choice' | 'date' | 'datetime' | 'color' | 'object' | 'objects' | 'tags' | 'auto';

export interface Option {
  value: string;
  label: string;
}

export interface ListField {
  key: string;
  label: string;
  kind: ListFieldKind;
  group: 'fields' | 'related';
  options?: Option[];
  choices?: string;
  related?: string;
}

export interface CustomFieldColumn {
  key: string;
  name: string;
  label: string;
  type: string;
  choices: string[];
}

export interface ListFields {
  path: string;
  model: string;
  slug: string;
  cf_model: string | null;
  fields: ListField[];
  custom_fields: CustomFieldColumn[];
}

/** `secret`: a password or key, set but never shown back; `json`: a JSON value; `list`: values separated by commas. */
export type EditableKind = 'text' | 'int' | 'decimal' | 'bool' | 'choice' | 'status' | 'object' | 'objects' | 'generic_objects' | 'tags' | 'date' | 'datetime' | 'secret' | 'json' | 'list';

export interface EditableField {
  key: string;
  label: string;
  kind: EditableKind;
  nullable: boolean;
  choices?: string;
  options?: Option[];
  status_model?: string;
  object_model?: string;
  endpoint?: string;
  /** `object`: list filters the picker adds; `$self` stands for the id of the object being edited, `$field:<key>` for the id the form's `<key>` picker holds. */
  filters?: Record<string, string>;
  /** `list`: the kind of each item. */
  items?: 'int' | 'text';
  /** `generic_objects`: the kinds of object the list may hold (a cable end: interfaces, front ports, rear ports). */
  object_models?: Array<{ model: string; label: string; endpoint: string }>;
  hint?: string;
}

/** One entry of /api/models/: a model the caller may see, with what they may do to it. */
export interface ModelInfo {
  model: string;
  app: string;
  label: string;
  label_plural: string;
  path: string;
  tenant_scoped: boolean;
  has_custom_fields: boolean;
  has_journal: boolean;
  can: { view: boolean; add: boolean; change: boolean; delete: boolean };
}

export interface BulkDeleteResult {
  deleted: number;
  deleted_ids: string[];
  skipped: Array<{ id: string; name: string; reason: string }>;
  dry_run: boolean;
  impact?: Array<{ label: string; count: number }>;
}
