// The one data table of the UI: the generic model list (pages/list/ModelList.tsx), the pages that fetch their own
// rows (jobs, backups, tokens…) and a device's component tabs. Its loading, error and empty states, sortable headers
// that are buttons (Enter or Space sorts, aria-sort says how), and the Previous/Next pager under a paged list, so
// every table looks and reads the same.
import type { HTMLAttributes, ReactNode } from 'react';
import { Empty, ErrorState, Loading } from './states.tsx';
import { Pager } from './Pager.tsx';

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
  /** A page of a longer list: the pager goes under the table. */
  pager?: { offset: number; pageSize: number; count: number; onOffset: (offset: number) => void };
  /** Server-side sorting: `ordering` is `key` or `-key`; `onSort` gets the column's sortKey. */
  sort?: { ordering: string; onSort: (sortKey: string) => void };
  /** Dims the rows while a new page is on its way (placeholder data shown). */
  stale?: boolean;
  /**
   * A table inside a card of its own (a change's fields): no frame, small type, a fixed layout so long values wrap
   * instead of widening the card, and no row highlight on hover.
   */
  compact?: boolean;
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

const LOOK = {
  framed: {
    table: 'min-w-full text-sm',
    head: 'bg-slate-50 text-left text-slate-600',
    th: 'border-b border-slate-200 px-3 py-2 font-medium whitespace-nowrap',
    row: 'border-b border-slate-100 last:border-0 hover:bg-slate-50',
    td: 'px-3 py-1.5',
  },
  compact: {
    table: 'w-full table-fixed text-xs',
    head: 'text-left text-slate-500',
    th: 'py-1 pr-2 font-medium last:pr-0',
    row: 'border-t border-slate-100',
    td: 'py-1 pr-2 last:pr-0',
  },
};

export function DataTable<T>({ columns, rows, rowKey, rowProps, caption, loading, error, renderError, retry, empty, pager, sort, stale, compact, align = 'top', testId }: DataTableProps<T>) {
  if (error) return <>{renderError ? renderError(error) : <ErrorState error={error} retry={retry} />}</>;
  if (loading || rows === undefined) return <Loading />;
  if (rows.length === 0) return typeof empty === 'string' ? <Empty title={empty} /> : <>{empty}</>;
  const shown = columns.filter((c): c is DataColumn<T> => Boolean(c));
  const look = compact ? LOOK.compact : LOOK.framed;
  const td = `${look.td} ${align === 'top' ? 'align-top' : 'align-middle'}`;
  const table = (
    <table className={look.table} data-testid={testId}>
      {caption ? <caption className="sr-only">{caption}</caption> : null}
      <thead className={look.head}>
        <tr>
          {shown.map((c) => {
            const sortable = sort && c.sortKey ? c.sortKey : null;
            const order = sortable ? orderOf(sort!.ordering, sortable) : 'none';
            return (
              <th key={c.key} scope="col" className={`${look.th} ${c.headerClassName ?? ''}`} aria-sort={sortable ? order : undefined}>
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
          return (
            <tr key={rowKey(row)} {...extra} className={`${look.row} ${extra.className ?? ''}`}>
              {cellsOf(shown, row).map(({ column: c, span }) =>
                c.rowHeader ? (
                  <th key={c.key} scope="row" colSpan={span} className={`${td} text-left font-medium ${c.className ?? ''}`}>
                    {c.cell(row)}
                  </th>
                ) : (
                  <td key={c.key} colSpan={span} className={`${td} ${c.className ?? ''}`}>
                    {c.cell(row)}
                  </td>
                ),
              )}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
  return (
    <div className="space-y-3">
      {compact ? table : <div className={`overflow-x-auto rounded-lg border border-slate-200 bg-white ${stale ? 'opacity-60' : ''}`}>{table}</div>}
      {pager ? <Pager {...pager} /> : null}
    </div>
  );
}
