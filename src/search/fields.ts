// What the search index holds, derived from the registry: every tenant model a user can list, and of each the
// fields people type to find a row (names, slugs, descriptions, serials, asset tags, addresses, VLAN ids,
// custom-field text), plus whatever the model declares in searchFields. Nothing secret or write-only.
import { sql, type RawBuilder } from 'kysely';
import { allModels, columnOf, displayColumns, type FieldDef, type ModelDef } from '../core/registry.ts';

/** Field names searched on every model that has them, beyond the model's own searchFields. */
const COMMON_FIELDS = new Set(['name', 'slug', 'description', 'serial', 'asset_tag', 'label', 'dns_name', 'model', 'part_number']);
/** Numbers people search by: VLAN ids, AS numbers, VXLAN network ids. */
const NUMBER_FIELDS = new Set(['vid', 'asn', 'vni']);
const TEXT_KINDS = new Set(['string', 'text', 'slug', 'url']);
/** Long text (comments) is matched on its start only: a trigram index over whole documents serves nobody. */
export const INDEXED_TEXT_MAX = 500;

export type SearchFieldKind = 'text' | 'host' | 'network' | 'list' | 'custom_fields';

export interface SearchField {
  key: string;
  column: string;
  kind: SearchFieldKind;
}

export interface SearchableModel {
  model: ModelDef;
  fields: SearchField[];
  /** Columns whose change needs a re-index (the fields and the display columns). */
  columns: string[];
  displayColumn: string;
  /** The column written in parentheses after the display column (ModelDef.displayQualifier), if any. */
  qualifierColumn?: string;
}

function kindOf(key: string, field: FieldDef, declared: boolean): SearchFieldKind | null {
  if (field.secret || field.writeOnly) return null;
  if (field.kind === 'inet') return 'host';
  if (field.kind === 'cidr') return 'network';
  if (field.kind === 'custom_fields') return 'custom_fields';
  if (field.kind === 'string_list' && declared) return 'list';
  if (TEXT_KINDS.has(field.kind) && (declared || COMMON_FIELDS.has(key))) return 'text';
  if (field.kind === 'integer' && (NUMBER_FIELDS.has(key) || declared)) return 'text';
  return null;
}

export function searchFieldsOf(model: ModelDef): SearchField[] {
  const out: SearchField[] = [];
  for (const [key, field] of Object.entries(model.fields)) {
    const declared = model.searchFields.includes(key) || (model.displayField === key && field.kind !== 'integer');
    const kind = kindOf(key, field, declared);
    if (kind) out.push({ key, column: columnOf(key, field), kind });
  }
  return out;
}

/**
 * Models searched: tenant-scoped, listable, read through the generic grant check. Models with their own
 * access rule (tokens) or scope are left out: the index cannot express "only your own rows".
 */
function isCandidate(model: ModelDef): boolean {
  // core models are the change log and journal: records about objects, not objects to find.
  return !model.name.startsWith('core.') && model.tenantScoped && model.operations.list && !model.access && !model.globalScope;
}

let cache: SearchableModel[] | null = null;

export function searchableModels(): SearchableModel[] {
  if (cache) return cache;
  const out: SearchableModel[] = [];
  for (const model of allModels()) {
    if (!isCandidate(model)) continue;
    const fields = searchFieldsOf(model);
    // Models with nothing but custom fields (history rows) are not worth an index entry each.
    if (!fields.some((f) => f.kind !== 'custom_fields')) continue;
    const [displayColumn, qualifierColumn] = model.fields[model.displayField] ? displayColumns(model) : ['id'];
    const columns = [...new Set([...fields.map((f) => f.column), displayColumn!, ...(qualifierColumn ? [qualifierColumn] : [])])];
    out.push({ model, fields, columns, displayColumn: displayColumn!, ...(qualifierColumn ? { qualifierColumn } : {}) });
  }
  cache = out;
  return out;
}

export function searchableModel(name: string): SearchableModel | undefined {
  return searchableModels().find((s) => s.model.name === name);
}

/**
 * The (field, value, address) rows of one table row `t`, as a LATERAL subquery body. Field names are inlined as
 * literals (they come from the registry): the write triggers embed this SQL in a function body, which takes no
 * parameters.
 */
export function valuesSql(s: SearchableModel): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  for (const f of s.fields) {
    const col = sql.ref(`t.${f.column}`);
    switch (f.kind) {
      case 'text':
        parts.push(sql`SELECT ${sql.lit(f.key)}::text, ${col}::text, NULL::inet`);
        break;
      case 'list':
        parts.push(sql`SELECT ${sql.lit(f.key)}::text, array_to_string(${col}, ' '), NULL::inet`);
        break;
      case 'host':
        // A host address as /32 or /128: 10.1.2.5/24 must not "contain" 10.1.2.3.
        parts.push(sql`SELECT ${sql.lit(f.key)}::text, host(${col}), host(${col})::inet`);
        break;
      case 'network':
        parts.push(sql`SELECT ${sql.lit(f.key)}::text, ${col}::text, ${col}::inet`);
        break;
      case 'custom_fields':
        parts.push(sql`SELECT 'cf.'::text || e.key, e.value #>> '{}', NULL::inet FROM jsonb_each(coalesce(${col}, '{}'::jsonb)) e
          WHERE jsonb_typeof(e.value) IN ('string', 'number')`);
        break;
    }
  }
  return sql.join(parts, sql` UNION ALL `);
}
