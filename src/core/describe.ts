// `cairn models describe <model>`: one model's whole behaviour in one place. Its definition says its fields; other
// domains add hooks, filters, computed values and more by registering (src/core/provenance.ts notes each with its
// file), so this lists what the model is made of and which file said so, in the order they were registered.
import { columnOf, fieldLabel, findModel, isRequired, validateRulesOf, type FieldDef, type ModelDef } from './registry.ts';
import { registrationsOf, type Registration } from './provenance.ts';
import { listFiltersOf } from './crud/read.ts';

export interface FieldDescription {
  key: string;
  label: string;
  kind: string;
  column: string | null;
  required: boolean;
  /** What the field is: `fk → dcim.site`, `choice (interface_types)`, `string ≤ 64`, `read-only`… */
  detail: string;
}

export interface ModelDescription {
  name: string;
  label: string;
  labelPlural: string;
  table: string;
  path: string;
  tenantScoped: boolean;
  ordering: string[];
  searchFields: string[];
  fields: FieldDescription[];
  computed: string[];
  /** Filters beyond the ones every field gets. */
  listFilters: string[];
  /** Its validate rules, in order, each with how bulk loads honour it (null: they run it for every row). */
  validateRules: Array<{ bulkLoads: string | null }>;
  registrations: Registration[];
}

function fieldDetail(field: FieldDef): string {
  const parts: string[] = [field.kind];
  if (field.target) parts.push(`→ ${field.target}`);
  if (field.vocabulary) parts.push(`(${field.vocabulary})`);
  else if (field.choices) parts.push(`(${field.choices.map((c) => c.value).join(', ')})`);
  if (field.maxLength !== undefined) parts.push(`≤ ${field.maxLength}`);
  if (field.min !== undefined || field.max !== undefined) parts.push(`${field.min ?? '…'}–${field.max ?? '…'}`);
  if (field.unique) parts.push('unique');
  if (field.nullable) parts.push('nullable');
  if (field.default !== undefined) parts.push(`default ${JSON.stringify(field.default)}`);
  if (field.readOnly) parts.push('read-only');
  if (field.writeOnly) parts.push('write-only');
  if (field.onDelete) parts.push(`on delete ${field.onDelete}`);
  return parts.join(' ');
}

/** The model named by `ref` (`dcim.device`, or its API path), or null. */
export function describeModel(ref: string): ModelDescription | null {
  const model: ModelDef | undefined = findModel(ref);
  if (!model) return null;
  return {
    name: model.name,
    label: model.label,
    labelPlural: model.labelPlural,
    table: model.table,
    path: model.path,
    tenantScoped: model.tenantScoped,
    ordering: model.defaultOrdering,
    searchFields: model.searchFields,
    fields: Object.entries(model.fields).map(([key, field]) => ({
      key,
      label: fieldLabel(key, field),
      kind: field.kind,
      column: field.kind === 'm2m' || field.kind === 'generic_m2m' || field.kind === 'tags' ? null : columnOf(key, field),
      required: isRequired(field),
      detail: fieldDetail(field),
    })),
    computed: Object.keys(model.computed),
    listFilters: Object.keys(listFiltersOf(model.name)),
    validateRules: validateRulesOf(model.name).map((r) => ({ bulkLoads: r.covered ?? null })),
    registrations: registrationsOf(model.name),
  };
}

function pad(text: string, width: number): string {
  return text.length >= width ? `${text} ` : text + ' '.repeat(width - text.length);
}

/** The description as a terminal reads it. */
export function formatDescription(d: ModelDescription): string {
  const lines = [
    `${d.name}: ${d.label} (${d.labelPlural})`,
    `  table ${d.table} · API ${d.path} · ${d.tenantScoped ? 'per tenant' : 'global'} · ordered by ${d.ordering.join(', ') || 'id'}` +
      (d.searchFields.length ? ` · search on ${d.searchFields.join(', ')}` : ''),
    '',
    `Fields (${d.fields.length})`,
  ];
  const width = Math.max(...d.fields.map((f) => f.key.length), 8) + 2;
  for (const f of d.fields) lines.push(`  ${pad(f.key, width)}${f.detail}${f.required ? ', required' : ''}`);
  if (d.computed.length) lines.push('', `Computed (read-only): ${d.computed.join(', ')}`);
  if (d.listFilters.length) lines.push('', `List filters beyond each field's: ${d.listFilters.join(', ')}`);
  if (d.validateRules.length) {
    // Rules are functions: they are told apart by their place (the files that added them are listed below).
    lines.push('', `Validate rules (${d.validateRules.length}) in bulk loads (demo data, the NetBox import)`);
    const said = new Map<string, number>();
    for (const r of d.validateRules) said.set(r.bulkLoads ?? 'run for every row', (said.get(r.bulkLoads ?? 'run for every row') ?? 0) + 1);
    for (const [what, n] of said) lines.push(`  ${n} of ${d.validateRules.length}: ${what}`);
  }
  lines.push('', 'Registered by (in registration order)');
  const byFile = new Map<string, string[]>();
  for (const r of d.registrations) {
    const what = r.what === 'definition' ? `definition (${r.names.length} fields)` : r.names.length ? `${r.what}: ${r.names.join(', ')}` : r.what;
    byFile.set(r.file, [...(byFile.get(r.file) ?? []), what]);
  }
  const fileWidth = Math.max(...[...byFile.keys()].map((f) => f.length), 8) + 2;
  for (const [file, whats] of byFile) lines.push(`  ${pad(file, fileWidth)}${whats.join('; ')}`);
  return `${lines.join('\n')}\n`;
}
