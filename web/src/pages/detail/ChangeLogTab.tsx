// Change log: who changed the object, when, and which fields went from what to what: each field by its label,
// each custom field on a row of its own, related objects by name (the log stores their ids), choices by label.
// A field no list shows (a device's config template, written by id) is still described by the model's editable
// fields: its label, and its related model so its value reads as a name, never as a raw id.
import { useQuery } from '@tanstack/react-query';
import { get } from '../../api/client.ts';
import { useChoices, useEditableFields, useListFields, useModels } from '../../api/hooks.ts';
import type { ApiObject, Page } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { DataTable, type DataColumn } from '../../components/DataTable.tsx';
import { Empty, ErrorState, Loading } from '../../components/states.tsx';
import { Badge } from '../../components/ui.tsx';
import { Value, formatDateTime } from '../../components/Value.tsx';
import { allColumns, otherColumns } from '../list/columns.ts';

type Snapshot = Record<string, unknown> | null;
type Column = ReturnType<typeof allColumns>[number];

interface ChangedField {
  key: string;
  before: unknown;
  after: unknown;
}

const CUSTOM = 'custom_fields';
const ACTION_LABELS: Record<string, string> = { create: 'Created', update: 'Updated', delete: 'Deleted' };

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

function asObject(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** The fields an update changed; custom fields one by one, as `custom_fields.<name>`. */
export function changedFields(before: Snapshot, after: Snapshot): ChangedField[] {
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].filter((k) => k !== 'last_updated');
  const out: ChangedField[] = [];
  for (const key of keys.sort()) {
    if (same(before?.[key], after?.[key])) continue;
    if (key !== CUSTOM) {
      out.push({ key, before: before?.[key] ?? null, after: after?.[key] ?? null });
      continue;
    }
    const was = asObject(before?.[key]);
    const now = asObject(after?.[key]);
    for (const name of [...new Set([...Object.keys(was), ...Object.keys(now)])].sort()) {
      if (!same(was[name], now[name])) out.push({ key: `${CUSTOM}.${name}`, before: was[name] ?? null, after: now[name] ?? null });
    }
  }
  return out;
}

function fallbackLabel(key: string): string {
  const words = key.replace(/^custom_fields\./, '').replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function show(v: unknown): string {
  if (v === null || v === undefined || v === '') return '—';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * How the changed fields of one model's changes are drawn: each field by its label and kind, related objects by
 * name (the log keeps their ids; each related model's objects are read once, by id, for all the changes given).
 */
export function useChangeCells(modelName: string | undefined, changed: ChangedField[]) {
  const models = useModels();
  const path = models.data?.find((m) => m.model === modelName)?.path;
  const fields = useListFields(path);
  const editable = useEditableFields(modelName);
  const vocabularies = useChoices();
  // Every field the list-fields catalog describes, columns or not: a change of a cable's length unit reads "Meters".
  const columns = new Map<string, Column>((fields.data ? [...allColumns(fields.data), ...otherColumns(fields.data)] : []).map((c) => [c.key, c]));
  // Fields only a form edits (write-only, or shown under another name): described from the editable fields.
  for (const f of editable.data ?? []) {
    if (columns.has(f.key)) continue;
    const base = { key: f.key, label: f.label, sortable: false, custom: false };
    if (f.kind === 'object' && f.object_model) columns.set(f.key, { ...base, kind: 'object', related: f.object_model });
    else if (f.kind === 'choice') columns.set(f.key, { ...base, kind: 'choice', options: f.options, choices: f.choices });
    else if (f.kind === 'bool') columns.set(f.key, { ...base, kind: 'boolean' });
  }
  const wanted = new Map<string, Set<string>>();
  for (const f of changed) {
    const column = columns.get(f.key);
    if (column?.kind !== 'object' || !column.related) continue;
    for (const v of [f.before, f.after]) if (typeof v === 'string' && v) wanted.set(column.related, (wanted.get(column.related) ?? new Set()).add(v));
  }
  const lookups = [...wanted].map(([related, ids]) => ({ related, path: models.data?.find((m) => m.model === related)?.path, ids: [...ids].sort() }));
  const related = useQuery({
    queryKey: ['change-log-related', lookups.map((l) => [l.related, l.ids])],
    enabled: lookups.length > 0 && !!models.data,
    queryFn: async () => {
      const found = new Map<string, ApiObject>();
      for (const l of lookups) {
        // A model the caller may not list keeps its ids hidden: the value shows as a dash.
        if (!l.path) continue;
        const page = await get<Page>(l.path, { id__in: l.ids.join(','), limit: l.ids.length }).catch(() => null);
        for (const o of page?.results ?? []) found.set(o.id, o);
      }
      return found;
    },
  });
  const cell = (f: ChangedField, v: unknown) => {
    const column = columns.get(f.key);
    if (!column) return show(v);
    if (column.kind === 'object') {
      if (v === null || v === undefined || v === '') return '—';
      const found = typeof v === 'string' ? related.data?.get(v) : undefined;
      // Not (yet) found: the object was deleted since, or is out of reach; never its raw id.
      return found ? <Value value={found} kind="object" related={column.related} /> : <span className="text-slate-500">{related.isLoading ? '…' : 'an object no longer shown'}</span>;
    }
    return <Value value={v} kind={column.kind} related={column.related} options={column.options ?? (column.choices ? vocabularies.data?.[column.choices] : undefined)} />;
  };
  const label = (key: string) => columns.get(key)?.label ?? editable.data?.find((f) => f.key === key)?.label ?? fallbackLabel(key);
  /** A field the list of that model shows (or a custom field): what a created or deleted object's record lists. */
  const shown = (key: string) => columns.has(key) || key.startsWith(`${CUSTOM}.`);
  // The list's own column order (custom fields after), for a whole record read top to bottom.
  const order = new Map([...columns.keys()].map((key, i) => [key, i]));
  const position = (key: string) => order.get(key) ?? order.size;
  return { isLoading: models.isLoading || fields.isLoading || editable.isLoading, cell, label, shown, position };
}

/** Before and after of each field, one row a field; `only` one side (a created or deleted record's values). */
export function ChangeTable({ changed, cells, only }: { changed: ChangedField[]; cells: ReturnType<typeof useChangeCells>; only?: 'before' | 'after' }) {
  const field: DataColumn<ChangedField> = { key: 'field', header: 'Field', cell: (f) => cells.label(f.key), rowHeader: true, headerClassName: 'w-1/4' };
  const columns: Array<DataColumn<ChangedField>> = only
    ? [field, { key: 'value', header: 'Value', cell: (f) => cells.cell(f, f[only]), className: 'break-all' }]
    : [
        field,
        { key: 'before', header: 'Before', cell: (f) => cells.cell(f, f.before), className: 'break-all text-red-800' },
        { key: 'after', header: 'After', cell: (f) => cells.cell(f, f.after), className: 'break-all text-green-800' },
      ];
  return (
    <div className="mt-2">
      <DataTable compact columns={columns} rows={changed} rowKey={(f) => f.key} rowProps={(f) => ({ 'data-field': f.key })} empty={null} />
    </div>
  );
}

export function ChangeLogTab({ model, object }: DetailTabProps) {
  const changes = useQuery({
    queryKey: ['changes', model.model, object.id],
    queryFn: () => get<Page>('/api/changes/', { object_type: model.model, object_id: object.id, ordering: '-time', limit: 100 }),
  });
  const rows = (changes.data?.results ?? []).map((c) => ({
    change: c,
    fields: c.action === 'update' ? changedFields((c.before ?? null) as Snapshot, (c.after ?? null) as Snapshot) : [],
  }));
  const cells = useChangeCells(model.model, rows.flatMap((r) => r.fields));
  if (changes.isLoading || cells.isLoading) return <Loading />;
  if (changes.error) return <ErrorState error={changes.error} retry={() => void changes.refetch()} />;
  if (!changes.data?.results.length) return <Empty title="No recorded changes" />;

  return (
    <ol className="space-y-3">
      {rows.map(({ change: c, fields: changed }) => (
        <li key={c.id} className="rounded-lg border border-slate-200 bg-white p-3 text-sm" data-change={String(c.action)}>
          <div className="flex flex-wrap items-center gap-2">
            <Badge tone={c.action === 'delete' ? 'red' : c.action === 'create' ? 'green' : 'sky'}>{ACTION_LABELS[String(c.action)] ?? String(c.action)}</Badge>
            <span className="font-medium">{String(c.username ?? 'system')}</span>
            <time className="text-slate-500" dateTime={String(c.time)}>
              {formatDateTime(String(c.time))}
            </time>
          </div>
          {changed.length ? (
            <ChangeTable changed={changed} cells={cells} />
          ) : null}
        </li>
      ))}
    </ol>
  );
}
