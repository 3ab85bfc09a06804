// A prefix in the prefix list, indented by its depth so the hierarchy reads at a glance (NetBox's list does the
// same); the depth is also said for screen readers.
import type { CellRendererProps } from '../../app/extensions.ts';

export function PrefixCell({ row, value }: CellRendererProps) {
  const depth = typeof row.depth === 'number' ? row.depth : 0;
  return (
    <span className="font-mono" style={{ paddingLeft: `${depth * 1.25}rem` }} title={depth ? `Inside ${depth} ${depth === 1 ? 'prefix' : 'prefixes'}` : undefined}>
      {depth ? (
        <span aria-hidden="true" className="mr-1 text-slate-400">
          └
        </span>
      ) : null}
      {String(value ?? row.display)}
    </span>
  );
}
