// The pager under a list a page fetches itself (limit/offset): where it is, Previous and Next. The generic model
// lists have their own, with a page-size picker.
import { Button } from './ui.tsx';

export function Pager({ offset, pageSize, count, onOffset }: { offset: number; pageSize: number; count: number; onOffset: (offset: number) => void }) {
  return (
    <div className="flex items-center gap-3 text-sm">
      <span>
        {offset + 1}–{Math.min(offset + pageSize, count)} of {count}
      </span>
      <Button disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - pageSize))}>
        Previous
      </Button>
      <Button disabled={offset + pageSize >= count} onClick={() => onOffset(offset + pageSize)}>
        Next
      </Button>
    </div>
  );
}
