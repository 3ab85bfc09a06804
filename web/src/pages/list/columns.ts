// Which columns a list shows: the user's saved choice (preference `list:<model>`) or a default drawn from
// /api/list-fields/. Column keys are list-field keys or `custom_fields.<name>`.
import type { ListField, ListFields } from '../../api/types.ts';

export interface ListPreference {
  columns?: string[];
  limit?: number;
}

export const preferenceKey = (model: string) => `list:${model}`;

export interface ColumnDef {
  key: string;
  label: string;
  kind: string;
  related?: string;
  options?: ListField['options'];
  /** A vocabulary of /api/dcim/choices/ whose labels the values take (when there are no options). */
  choices?: string;
  sortable: boolean;
  custom: boolean;
}

function fieldColumn(f: ListField): ColumnDef {
  return {
    key: f.key,
    label: f.label,
    kind: f.kind,
    related: f.related,
    options: f.options,
    choices: f.choices,
    // The API says what it can order by (computed and many-valued columns it cannot); long text is not worth it.
    sortable: f.sortable && f.kind !== 'longtext',
    custom: false,
  };
}

/** The fields the list leaves out of its columns (a cable's length unit), for records that name them (a change). */
export function otherColumns(fields: ListFields): ColumnDef[] {
  return fields.other_fields.map(fieldColumn);
}

export function allColumns(fields: ListFields): ColumnDef[] {
  return [
    ...fields.fields.map(fieldColumn),
    ...fields.custom_fields.map((c) => ({
      key: c.key,
      label: c.label,
      kind: c.type === 'boolean' ? 'bool' : c.type,
      sortable: false,
      custom: true,
    })),
  ];
}

/** The first plain columns, then the columns a feature asks to show by default (`always`) when the list offers them. */
export function defaultColumns(fields: ListFields, always: readonly string[] = [], hidden: readonly string[] = []): string[] {
  const plain = fields.fields
    .filter((f) => f.kind !== 'longtext' && f.kind !== 'auto' && f.key !== 'created' && f.key !== 'last_updated' && !hidden.includes(f.key))
    .slice(0, 7)
    .map((f) => f.key);
  const extra = always.filter((k) => !plain.includes(k) && fields.fields.some((f) => f.key === k));
  return [...plain, ...extra];
}

export function columnValue(row: Record<string, unknown>, key: string): unknown {
  if (key.startsWith('custom_fields.')) {
    const cf = row.custom_fields;
    return cf && typeof cf === 'object' ? (cf as Record<string, unknown>)[key.slice('custom_fields.'.length)] : undefined;
  }
  return row[key];
}
