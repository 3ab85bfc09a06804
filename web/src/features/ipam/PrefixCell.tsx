// A prefix in the prefix list, indented by its depth so the hierarchy reads at a glance (NetBox's list does the
// same); the depth is also said for screen readers.
import type { CellRendererProps } from '../../app/extensions.ts';

/** A whole address or network, which the prefix list's search answers with the prefixes holding it, closest first. */
const ADDRESS = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-f]*:[0-9a-f:.]*)(\/\d{1,3})?$/i;

/**
 * Whether the list's rows stand in tree order (parents before their children), so depth can be drawn. Outside a
 * list (a prefix's own page) there is no tree to draw: the depth is a field of its own there.
 */
function inTreeOrder(list: CellRendererProps['list']): boolean {
  if (!list) return false;
  return !list.ordering && !(list.q && ADDRESS.test(list.q.trim()) && (list.q.includes(':') || list.q.split('.').length === 4));
}

export function PrefixCell({ row, value, list }: CellRendererProps) {
  // Sorted otherwise, or searched by an address (closest first), an indented child would stand above its parent.
  const depth = inTreeOrder(list) && typeof row.depth === 'number' ? row.depth : 0;
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
