// The pager under a paged table (DataTable draws it): Previous, where it is, Next, and a page-size picker when the
// list lets the reader choose (the generic model lists, which remember the choice).
import { Button } from './ui.tsx';

export interface PagerProps {
  offset: number;
  pageSize: number;
  count: number;
  onOffset: (offset: number) => void;
  /** The page sizes offered; the picker is shown with `onPageSize`. */
  pageSizes?: readonly number[];
  onPageSize?: (pageSize: number) => void;
  /** The navigation's name: "Pages", or whose pages when a page has more than one paged table. */
  label?: string;
}

export function Pager({ offset, pageSize, count, onOffset, pageSizes, onPageSize, label = 'Pages' }: PagerProps) {
  return (
    <nav aria-label={label} className="flex flex-wrap items-center gap-2 text-sm">
      <Button disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - pageSize))}>
        ← Previous
      </Button>
      <span data-testid="page-range">
        {(offset + 1).toLocaleString()}–{Math.min(offset + pageSize, count).toLocaleString()} of {count.toLocaleString()}
      </span>
      <Button disabled={offset + pageSize >= count} onClick={() => onOffset(offset + pageSize)}>
        Next →
      </Button>
      {pageSizes && onPageSize ? (
        <label className="ml-auto flex items-center gap-1">
          Per page
          <select className="rounded border border-slate-300 px-1 py-0.5" value={pageSize} onChange={(e) => onPageSize(Number(e.target.value))}>
            {pageSizes.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
      ) : null}
    </nav>
  );
}
