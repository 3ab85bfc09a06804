// The one data table of the UI: the generic model list (pages/list/ModelList.tsx), the pages that fetch their own
// rows (jobs, backups, tokens…) and a device's component tabs. Its loading, error and empty states, sortable headers
// that are buttons (Enter or Space sorts, aria-sort says how), and the Previous/Next pager under a paged list, so
// every table looks and reads the same.
import type { HTMLAttributes, ReactNode } from 'react';
import { Empty, ErrorState, Loading } from './states.tsx';
import { Pager, type PagerProps } from './Pager.tsx';

export interface DataColumn<T> {
  /** Unique among the columns. */
  key: string;
  /** The header; a column of row actions passes an sr-only label. */
  header: ReactNode;
  cell: (row: T) => ReactNode;
  /** The `ordering` value that sorts by this column; the header becomes a button when `sort` is given. */
  sortKey?: string;
  /** Extra classes on this column's cells (`whitespace-nowrap`, `max-w-xs break-words`, `text-right`…). */
  className?: string;
  /** Extra classes on the header cell alone (a width under a compact table's fixed layout). */
  headerClassName?: string;
  /** The cell names its row (`<th scope="row">`), so a screen reader announces it with each of the row's values. */
  rowHeader?: boolean;
  /** Stays at the left edge when a wide table scrolls sideways: the one column that names the row. */
  sticky?: boolean;
  /**
   * How many columns, from this one on, this row's cell takes: a row of another kind among the rows (a free block
   * among prefixes) has one value where the others have several. The columns it covers draw nothing for that row.
   */
  span?: (row: T) => number;
}

export interface DataTableProps<T> {
  columns: ReadonlyArray<DataColumn<T> | false | null | undefined>;
  /** Undefined while the first page loads. */
  rows: readonly T[] | undefined;
  rowKey: (row: T) => string;
  /** Attributes of a row's <tr> (a data- attribute tests find it by, a highlight class). */
  rowProps?: (row: T) => HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string | undefined>;
  /** What the table lists, for screen readers (a visually hidden caption). */
  caption?: string;
  loading?: boolean;
  error?: unknown;
  /** Shows the error; ErrorState (with `retry`) when not given. */
  renderError?: (error: unknown) => ReactNode;
  retry?: () => void;
  /** Shown instead of the table when there are no rows: a string is the Empty state's title. */
  empty: ReactNode;
  /**
   * A page of a longer list: the pager goes under the table, and under the empty state of a page past the last
   * row (the rows on it were deleted), so the reader can page back.
   */
  pager?: PagerProps;
  /** Server-side sorting: `ordering` is `key` or `-key`; `onSort` gets the column's sortKey. */
  sort?: { ordering: string; onSort: (sortKey: string) => void };
  /** Dims the rows while a new page is on its way (placeholder data shown). */
  stale?: boolean;
  /** A fetch is under way (aria-busy), a new page or a refresh of this one. */
  busy?: boolean;
  /**
   * A table inside a card of its own (a change's fields): no frame, small type, a fixed layout so long values wrap
   * instead of widening the card, and no row highlight on hover.
   */
  compact?: boolean;
  /**
   * Rows picked with a checkbox each, and one in the header for every row shown. `selected` holds rowKeys and may
   * hold rows not shown (another page, rows a filter hides): the header box picks or drops the shown ones only.
   */
  selection?: {
    selected: ReadonlySet<string>;
    onChange: (next: ReadonlySet<string>) => void;
    /** The header checkbox's label, saying which rows it picks ("Select all rows on this page"). */
    allLabel: string;
    /** A row's checkbox label ("Select ams1-leaf1"). */
    rowLabel: (row: T) => string;
  };
  /** Cells sit at the top of a row of several lines (the default); `middle` lines up a row of buttons with text. */
  align?: 'top' | 'middle';
  testId?: string;
}

type Order = 'ascending' | 'descending' | 'none';

function orderOf(ordering: string, key: string): Order {
  return ordering === key ? 'ascending' : ordering === `-${key}` ? 'descending' : 'none';
}

/** The cells of one row: a column that spans several hides the ones it covers. */
function cellsOf<T>(columns: ReadonlyArray<DataColumn<T>>, row: T): Array<{ column: DataColumn<T>; span: number | undefined }> {
  const out: Array<{ column: DataColumn<T>; span: number | undefined }> = [];
  for (let i = 0; i < columns.length; ) {
    const column = columns[i]!;
    const span = Math.min(Math.max(1, column.span?.(row) ?? 1), columns.length - i);
    out.push({ column, span: span > 1 ? span : undefined });
    i += span;
  }
  return out;
}

/** The header's checkbox: checked when every row shown is picked, mixed when some are. */
function SelectAll({ label, checked, mixed, onChange }: { label: string; checked: boolean; mixed: boolean; onChange: () => void }) {
  return (
    <input
      type="checkbox"
      aria-label={label}
      checked={checked}
      ref={(el) => {
        if (el) el.indeterminate = mixed;
      }}
      onChange={onChange}
    />
  );
}

// A sticky cell needs a background of its own, or the cells scrolling under it show through.
const STICKY = 'sticky left-0 z-[1]';

const LOOK = {
  framed: {
    table: 'min-w-full text-sm',
    head: 'bg-slate-50 text-left text-slate-600',
    th: 'border-b border-slate-200 px-3 py-2 font-medium whitespace-nowrap',
    row: 'border-b border-slate-100 last:border-0',
    hover: 'hover:bg-slate-50',
    td: 'px-3 py-1.5',
  },
  compact: {
    table: 'w-full table-fixed text-xs',
    head: 'text-left text-slate-500',
    th: 'py-1 pr-2 font-medium last:pr-0',
    row: 'border-t border-slate-100',
    hover: '',
    td: 'py-1 pr-2 last:pr-0',
  },
};

export function DataTable<T>({ columns, rows, rowKey, rowProps, caption, loading, error, renderError, retry, empty, pager, sort, stale, busy, compact, selection, align = 'top', testId }: DataTableProps<T>) {
  if (error) return <>{renderError ? renderError(error) : <ErrorState error={error} retry={retry} />}</>;
  if (loading || rows === undefined) return <Loading />;
  // Two paged tables on one page (open violations above the rules list) are two navigations, told apart by name.
  const paging = pager ? <Pager label={caption ? `${caption}, pages` : undefined} {...pager} /> : null;
  if (rows.length === 0) {
    const none = typeof empty === 'string' ? <Empty title={empty} /> : <>{empty}</>;
    if (!pager || pager.count === 0) return none;
    return (
      <div className="space-y-3">
        {none}
        {paging}
      </div>
    );
  }
  const shown = columns.filter((c): c is DataColumn<T> => Boolean(c));
  const look = compact ? LOOK.compact : LOOK.framed;
  const td = `${look.td} ${align === 'top' ? 'align-top' : 'align-middle'}`;
  const anySticky = shown.some((c) => c.sticky);
  const isPicked = (row: T) => selection?.selected.has(rowKey(row)) ?? false;
  const pickedShown = rows.filter(isPicked).length;
  const allPicked = pickedShown === rows.length;
  const pickAll = () => {
    const next = new Set(selection!.selected);
    for (const row of rows) {
      if (allPicked) next.delete(rowKey(row));
      else next.add(rowKey(row));
    }
    selection!.onChange(next);
  };
  const pick = (row: T) => {
    const next = new Set(selection!.selected);
    if (next.has(rowKey(row))) next.delete(rowKey(row));
    else next.add(rowKey(row));
    selection!.onChange(next);
  };
  const table = (
    <table className={look.table} data-testid={testId}>
      {caption ? <caption className="sr-only">{caption}</caption> : null}
      <thead className={look.head}>
        <tr>
          {selection ? (
            <th scope="col" className={`${look.th} w-8`}>
              <SelectAll label={selection.allLabel} checked={allPicked} mixed={pickedShown > 0 && !allPicked} onChange={pickAll} />
            </th>
          ) : null}
          {shown.map((c) => {
            const sortable = sort && c.sortKey ? c.sortKey : null;
            const order = sortable ? orderOf(sort!.ordering, sortable) : 'none';
            return (
              <th key={c.key} scope="col" className={`${look.th} ${c.sticky ? `${STICKY} bg-slate-50` : ''} ${c.headerClassName ?? ''}`} aria-sort={sortable ? order : undefined}>
                {sortable ? (
                  <button type="button" className="inline-flex items-center gap-1 hover:text-slate-900" onClick={() => sort!.onSort(sortable)}>
                    {c.header}
                    <span aria-hidden="true">{order === 'ascending' ? '▲' : order === 'descending' ? '▼' : '↕'}</span>
                  </button>
                ) : (
                  c.header
                )}
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const extra = rowProps?.(row) ?? {};
          const picked = isPicked(row);
          // A sticky cell follows its row's highlight (hover, picked) over the white that hides what scrolls under it.
          const sticky = `${STICKY} ${picked ? 'bg-sky-50' : `bg-white ${look.hover ? 'group-hover:bg-slate-50' : ''}`}`;
          return (
            <tr key={rowKey(row)} {...extra} className={`${anySticky ? 'group' : ''} ${look.row} ${picked ? 'bg-sky-50' : look.hover} ${extra.className ?? ''}`}>
              {selection ? (
                <td className={td}>
                  <input type="checkbox" aria-label={selection.rowLabel(row)} checked={picked} onChange={() => pick(row)} />
                </td>
              ) : null}
              {cellsOf(shown, row).map(({ column: c, span }) => {
                const className = `${td} ${c.sticky ? sticky : ''} ${c.className ?? ''}`;
                return c.rowHeader ? (
                  <th key={c.key} scope="row" colSpan={span} className={`${className} text-left font-medium`}>
                    {c.cell(row)}
                  </th>
                ) : (
                  <td key={c.key} colSpan={span} className={className}>
                    {c.cell(row)}
                  </td>
                );
              })}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
  return (
    <div className="space-y-3">
      {compact ? table : <div className={`overflow-x-auto rounded-lg border border-slate-200 bg-white ${stale ? 'opacity-60' : ''}`} aria-busy={busy}>
          {table}
        </div>}
      {paging}
    </div>
  );
}
