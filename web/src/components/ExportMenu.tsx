// A list's Export menu: the list as CSV (the columns on screen, or every column) and each export template of the
// list's type, all over the rows the list selects: its filters, search and ordering, or the selected rows alone.
// Every entry is a plain download link the server answers with a streamed file (GET <list>csv/ and
// /api/export-templates/<id>/render/, both taking the list's own query), so a big list is never gathered page by
// page in the browser.
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { get, withQuery, type Query } from '../api/client.ts';
import type { ApiObject, ModelInfo, Page } from '../api/types.ts';

/** Rows one export-template render takes (src/templating/export.ts exportLimits.maxRows). */
const TEMPLATE_MAX_ROWS = 50_000;

interface TemplateRow extends ApiObject {
  name: string;
  description: string;
  file_extension: string;
}

export interface ExportMenuProps {
  model: ModelInfo;
  /** The list's filters, search and ordering (no paging): what every export follows. */
  query: Query;
  /** The column keys the list shows, in order. */
  columns: readonly string[];
  /** Selected rows: when any, the export takes those alone. */
  selectedIds: readonly string[];
  /** Rows the list selects (its count), to say what an export covers. */
  count: number | undefined;
}

export function ExportMenu({ model, query, columns, selectedIds, count }: ExportMenuProps) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const menuId = useId();
  // The templates of this type the caller may read; a caller without that permission gets the CSV entries alone.
  const templates = useQuery({
    queryKey: ['export-templates-of', model.model],
    queryFn: ({ signal }) => get<Page<TemplateRow>>('/api/export-templates/', { object_type: model.model, ordering: 'name', limit: 100 }, { signal }),
    enabled: open,
    retry: false,
    staleTime: 30_000,
  });

  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => {
      if (!menu.current?.contains(e.target as Node) && !button.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, [open]);
  useEffect(() => {
    if (open) menu.current?.querySelector<HTMLElement>('[role="menuitem"]:not([aria-disabled="true"])')?.focus();
  }, [open, templates.data]);

  const rows: Query = selectedIds.length ? { ...query, id: [...selectedIds] } : query;
  const scope = selectedIds.length
    ? `${selectedIds.length.toLocaleString()} selected ${selectedIds.length === 1 ? model.label : model.label_plural}`
    : count === undefined
      ? `The ${model.label_plural} of this list`
      : `All ${count.toLocaleString()} ${count === 1 ? model.label : model.label_plural} of this list`;
  const rowCount = selectedIds.length || count || 0;
  const tooMany = rowCount > TEMPLATE_MAX_ROWS;

  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]:not([aria-disabled="true"])') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'Escape') {
      e.preventDefault();
      setOpen(false);
      button.current?.focus();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = items[(at + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length];
      next?.focus();
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      items[e.key === 'Home' ? 0 : items.length - 1]?.focus();
    } else if (e.key === 'Tab') {
      setOpen(false);
    }
  };

  const item = 'block w-full px-3 py-1.5 text-left text-slate-800 hover:bg-slate-100 focus:bg-sky-50 focus:outline-none';
  const csvUrl = (cols: readonly string[] | null) => withQuery(`${model.path}csv/`, cols ? { ...rows, columns: cols.join(',') } : rows);
  const list = templates.data?.results ?? [];

  return (
    <div className="relative">
      <button
        ref={button}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' && !open) {
            e.preventDefault();
            setOpen(true);
          }
        }}
        className="inline-flex items-center gap-1 rounded-md px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-100"
      >
        Export <span aria-hidden="true">▾</span>
      </button>
      {open ? (
        <div
          ref={menu}
          id={menuId}
          role="menu"
          aria-label={`Export ${model.label_plural}`}
          onKeyDown={onKey}
          className="absolute right-0 z-30 mt-1 w-80 rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg"
        >
          <p className="px-3 py-1 text-xs text-slate-500" data-testid="export-scope">
            {scope}
            {selectedIds.length || count === undefined ? '' : ', with its filters'}
          </p>
          <a role="menuitem" tabIndex={-1} href={csvUrl(columns)} download className={item} onClick={() => setOpen(false)}>
            CSV: the columns shown ({columns.length})
          </a>
          <a role="menuitem" tabIndex={-1} href={csvUrl(null)} download className={item} onClick={() => setOpen(false)}>
            CSV: all columns
          </a>
          <div role="separator" className="my-1 border-t border-slate-100" />
          <p className="px-3 py-1 text-xs font-medium text-slate-500" id={`${menuId}-templates`}>
            Export templates
          </p>
          {templates.isLoading ? (
            <p className="px-3 py-1.5 text-slate-500">Loading…</p>
          ) : templates.error ? (
            <p className="px-3 py-1.5 text-slate-500">Export templates could not be listed.</p>
          ) : list.length === 0 ? (
            <p className="px-3 py-1.5 text-slate-500">No export template for {model.label_plural} yet.</p>
          ) : (
            list.map((t) =>
              tooMany ? (
                <span key={t.id} role="menuitem" aria-disabled="true" tabIndex={-1} className={`${item} cursor-not-allowed text-slate-400`} title={`A template renders at most ${TEMPLATE_MAX_ROWS.toLocaleString()} rows: narrow the list first.`}>
                  {t.name}
                </span>
              ) : (
                <a key={t.id} role="menuitem" tabIndex={-1} href={withQuery(`/api/export-templates/${t.id}/render/`, rows)} download className={item} title={t.description || undefined} onClick={() => setOpen(false)}>
                  {t.name}
                  {t.file_extension ? <span className="ml-1 text-xs text-slate-500">.{t.file_extension.replace(/^\./, '')}</span> : null}
                </a>
              ),
            )
          )}
          {tooMany && list.length ? <p className="px-3 py-1 text-xs text-amber-700">Templates render at most {TEMPLATE_MAX_ROWS.toLocaleString()} rows: narrow the list or select rows.</p> : null}
        </div>
      ) : null}
    </div>
  );
}
