// The generic list of one model: server-side paging, sorting and filtering; the user's saved columns; row
// selection with bulk edit and bulk delete. State lives in `search` (the page URL for the list page; a feature
// tab can keep its own and pass fixed filters).
import { useMemo, useState } from 'react';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { get } from '../../api/client.ts';
import { useChoices, useListFields, usePreferences, useSavePreferences } from '../../api/hooks.ts';
import type { ApiObject, ModelInfo, Page } from '../../api/types.ts';
import { paths } from '../../app/paths.ts';
import { cellRendererFor, defaultColumnsFor, hiddenColumnsFor } from '../../app/extensions.ts';
import { DataTable, type DataColumn } from '../../components/DataTable.tsx';
import { Empty, ErrorState, Loading, errorMessage } from '../../components/states.tsx';
import { Button } from '../../components/ui.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { ExportMenu } from '../../components/ExportMenu.tsx';
import { Value } from '../../components/Value.tsx';
import { allColumns, columnValue, defaultColumns, preferenceKey, type ListPreference } from './columns.ts';
import { FilterBar, RESERVED } from './FilterBar.tsx';
import { ColumnPicker } from './ColumnPicker.tsx';
import { BulkEditDialog } from './BulkEditDialog.tsx';
import { BulkDeleteDialog } from './BulkDeleteDialog.tsx';

export type ListState = Record<string, string | number | undefined>;

const PAGE_SIZES = [25, 50, 100, 250];
/** List-field kinds whose cells link to other objects. */
const RELATED_KINDS = new Set(['object', 'objects', 'tags']);

export function ModelList({ model, state, onState, fixedFilters = {} }: { model: ModelInfo; state: ListState; onState: (next: ListState) => void; fixedFilters?: Record<string, string> }) {
  const client = useQueryClient();
  const toast = useToast();
  const listFields = useListFields(model.path);
  // Vocabulary fields (an interface's type) carry the vocabulary's name: its labels come from the choices catalog.
  const vocabularies = useChoices();
  const prefs = usePreferences();
  const savePrefs = useSavePreferences();
  const pref = (prefs.data?.[preferenceKey(model.model)] ?? {}) as ListPreference;
  const limit = Number(state.limit ?? pref.limit ?? 50);
  const offset = Number(state.offset ?? 0);
  const ordering = typeof state.ordering === 'string' ? state.ordering : undefined;
  const q = typeof state.q === 'string' ? state.q : '';
  const filters = Object.fromEntries(Object.entries(state).filter(([k, v]) => !RESERVED.has(k) && v !== undefined).map(([k, v]) => [k, String(v)]));
  const [selection, setSelection] = useState<ReadonlySet<string>>(new Set());
  const [dialog, setDialog] = useState<'columns' | 'edit' | 'delete' | null>(null);

  const query = { ...filters, ...fixedFilters, limit, offset, ordering, q: q || undefined };
  const page = useQuery({
    queryKey: ['list', model.path, query],
    queryFn: ({ signal }) => get<Page>(model.path, query, { signal }),
    placeholderData: keepPreviousData,
  });

  const columnsAll = useMemo(() => (listFields.data ? allColumns(listFields.data) : []), [listFields.data]);
  const chosen = useMemo(() => {
    if (!listFields.data) return [];
    const saved = (pref.columns ?? []).filter((k) => columnsAll.some((c) => c.key === k));
    return saved.length ? saved : defaultColumns(listFields.data, defaultColumnsFor(model.model), hiddenColumnsFor(model.model));
  }, [listFields.data, pref.columns, columnsAll, model.model]);

  const setOrdering = (key: string) => {
    const next = ordering === key ? `-${key}` : ordering === `-${key}` ? undefined : key;
    onState({ ...state, ordering: next, offset: undefined });
  };

  // The column that opens the object: the first one holding the row's own value. A related object's column links
  // to that object, and a link inside the row's link would take the click (the parent opened, not the row).
  const openKey = useMemo(() => {
    const own = chosen.find((key) => !RELATED_KINDS.has(columnsAll.find((c) => c.key === key)?.kind ?? ''));
    return own ?? null;
  }, [chosen, columnsAll]);

  const columns = useMemo<Array<DataColumn<ApiObject>>>(() => {
    const data = chosen.map((key): DataColumn<ApiObject> => {
      const def = columnsAll.find((c) => c.key === key)!;
      const Custom = cellRendererFor(model.model, key);
      return {
        key,
        header: def.label,
        sortKey: def.sortable ? def.key : undefined,
        cell: (row) => {
          const value = columnValue(row, key);
          const shown = Custom ? <Custom row={row} value={value} list={{ ordering, q }} /> : <Value value={value} kind={def.kind} related={def.related} options={def.options ?? (def.choices ? vocabularies.data?.[def.choices] : undefined)} />;
          return key === openKey ? (
            <Link to={paths.detail(model.model, row.id)} className="font-medium whitespace-nowrap text-sky-700 hover:underline">
              {value === null || value === undefined || value === '' ? row.display : shown}
            </Link>
          ) : (
            shown
          );
        },
      };
    });
    // Only related columns chosen: the row's display (with its parent) opens it, in a column of its own.
    const opener: DataColumn<ApiObject> = {
      key: '__open',
      header: model.label.charAt(0).toUpperCase() + model.label.slice(1),
      cell: (row) => (
        <Link to={paths.detail(model.model, row.id)} className="font-medium whitespace-nowrap text-sky-700 hover:underline">
          {row.display}
        </Link>
      ),
    };
    return openKey === null ? [opener, ...data] : data;
  }, [chosen, columnsAll, model.model, model.label, openKey, vocabularies.data, ordering, q]);

  const selectedIds = [...selection];
  const count = page.data?.count ?? 0;

  const refresh = () => {
    setSelection(new Set());
    setDialog(null);
    void client.invalidateQueries({ queryKey: ['list', model.path] });
  };

  const saveColumns = (cols: string[] | null) => {
    savePrefs.mutate(
      { [preferenceKey(model.model)]: cols === null && !pref.limit ? null : { ...pref, columns: cols ?? undefined } },
      { onSuccess: () => setDialog(null), onError: (err) => toast.show({ message: errorMessage(err), tone: 'error' }) },
    );
  };
  const setLimit = (n: number) => {
    onState({ ...state, limit: n, offset: undefined });
    savePrefs.mutate({ [preferenceKey(model.model)]: { ...pref, limit: n } });
  };

  if (listFields.isLoading) return <Loading />;
  if (listFields.error) return <ErrorState error={listFields.error} retry={() => void listFields.refetch()} />;

  const filtered = q !== '' || Object.keys(filters).length > 0;

  return (
    <div>
      <FilterBar fields={listFields.data!} filters={filters} q={q} onChange={({ q: nq, filters: nf }) => onState({ ...nf, q: nq, ordering, limit: state.limit, offset: undefined })} />
      <div className="mb-2 flex flex-wrap items-center gap-2 text-sm">
        {selectedIds.length ? (
          <>
            <span className="font-medium" aria-live="polite">
              {selectedIds.length} selected
            </span>
            {model.can.change ? (
              <Button onClick={() => setDialog('edit')} variant="secondary">
                Edit selected
              </Button>
            ) : null}
            {model.can.delete ? (
              <Button onClick={() => setDialog('delete')} variant="danger">
                Delete selected
              </Button>
            ) : null}
            <Button variant="ghost" onClick={() => setSelection(new Set())}>
              Clear selection
            </Button>
          </>
        ) : (
          <span className="text-slate-500">{page.data ? `${count.toLocaleString()} ${count === 1 ? model.label : model.label_plural}` : ''}</span>
        )}
        <span className="ml-auto" />
        <ExportMenu model={model} query={{ ...filters, ...fixedFilters, ordering, q: q || undefined }} columns={chosen} selectedIds={selectedIds} count={page.data?.count} />
        <Button variant="ghost" onClick={() => setDialog('columns')}>
          Columns
        </Button>
      </div>
      {/* Where "Skip to results" (ListPage) lands when there is no row to focus. */}
      <div data-list-results tabIndex={-1} className="focus:outline-none">
        <DataTable
          testId="model-list"
          columns={columns}
          rows={page.data?.results}
          rowKey={(r) => r.id}
          loading={page.isLoading}
          error={page.error}
          retry={() => void page.refetch()}
          stale={page.isPlaceholderData}
          busy={page.isFetching}
          sort={{ ordering: ordering ?? '', onSort: setOrdering }}
          selection={{ selected: selection, onChange: setSelection, allLabel: 'Select all rows on this page', rowLabel: (r) => `Select ${r.display}` }}
          pager={page.data ? { offset, pageSize: limit, count, onOffset: (o) => onState({ ...state, offset: o || undefined }), pageSizes: PAGE_SIZES, onPageSize: setLimit } : undefined}
          empty={
            <Empty title={filtered ? `No ${model.label_plural} match these filters` : `No ${model.label_plural} yet`}>
              {filtered ? (
                <button type="button" className="text-sky-700 underline" onClick={() => onState({})}>
                  Clear the filters
                </button>
              ) : model.can.add ? (
                <Link to={paths.create(model.model)} className="text-sky-700 underline">
                  Add the first one
                </Link>
              ) : null}
            </Empty>
          }
        />
      </div>
      {dialog === 'columns' ? <ColumnPicker open all={columnsAll} selected={chosen} onClose={() => setDialog(null)} onSave={saveColumns} saving={savePrefs.isPending} /> : null}
      <BulkEditDialog
        model={model}
        ids={selectedIds}
        open={dialog === 'edit'}
        onClose={() => setDialog(null)}
        onDone={(n) => {
          toast.show({ message: `Updated ${n} ${n === 1 ? model.label : model.label_plural}.`, tone: 'success' });
          refresh();
        }}
      />
      <BulkDeleteDialog
        model={model}
        ids={selectedIds}
        open={dialog === 'delete'}
        onClose={() => setDialog(null)}
        onDone={(r) => {
          toast.show({ message: `Deleted ${r.deleted} ${r.deleted === 1 ? model.label : model.label_plural}${r.skipped.length ? `; kept ${r.skipped.length} in use` : ''}.`, tone: 'success' });
          refresh();
        }}
      />
    </div>
  );
}
