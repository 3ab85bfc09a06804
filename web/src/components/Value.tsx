// Draws one field value the way every list cell and Overview row shows it, chosen by the list-field kind.
import { Link } from '@tanstack/react-router';
import type { Brief, ListFieldKind, Option } from '../api/types.ts';
import { paths } from '../app/paths.ts';
import { Badge } from './ui.tsx';
import { StatusBadge } from './StatusBadge.tsx';

function isBrief(v: unknown): v is Brief {
  return typeof v === 'object' && v !== null && 'id' in v && 'display' in v;
}

/** The model of a row that names its own (a cable end, an interface's far end: interface, front or rear port). */
function modelOf(item: Brief, related: string | undefined): string | undefined {
  return typeof item.object_type === 'string' ? item.object_type : related;
}

export function formatDateTime(v: string): string {
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? v : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/**
 * An address as NetBox shows it, always with its mask: PostgreSQL prints a host address (/32, /128) bare, so
 * `10.0.0.1` reads `10.0.0.1/32`. Text that does not start with an address is left as it is; a qualifier after the
 * address (` (VRF blue)`) stays.
 */
export function withHostMask(text: string): string {
  const m = /^([0-9]{1,3}(?:\.[0-9]{1,3}){3}|[0-9a-f]*:[0-9a-f:.]*)(?=$|\s)/i.exec(text);
  if (!m) return text;
  const address = m[1]!;
  return `${address}/${address.includes(':') ? 128 : 32}${text.slice(address.length)}`;
}

export interface ValueProps {
  value: unknown;
  kind: ListFieldKind | string;
  /** Model of the related rows, so object values link to their detail page. */
  related?: string;
  options?: Option[];
}

export function Value({ value, kind, related, options }: ValueProps) {
  if (value === null || value === undefined || value === '') return <span className="text-slate-400">—</span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className="text-slate-400">—</span>;
    return (
      <span className="flex flex-wrap gap-1">
        {value.map((item, i) =>
          isBrief(item) ? (
            kind === 'tags' ? (
              <Badge key={item.id} color={typeof item.color === 'string' ? item.color : undefined}>
                {item.display}
              </Badge>
            ) : modelOf(item, related) ? (
              <Link key={item.id} to={paths.detail(modelOf(item, related)!, item.id)} className="text-sky-700 hover:underline">
                {item.display}
              </Link>
            ) : (
              <span key={item.id}>{item.display}</span>
            )
          ) : (
            <Badge key={i}>{String(item)}</Badge>
          ),
        )}
      </span>
    );
  }
  if (isBrief(value)) {
    if (related === 'extras.status') return <StatusBadge status={value} />;
    const display = modelOf(value, related) === 'ipam.ipaddress' ? withHostMask(value.display) : value.display;
    return modelOf(value, related) ? (
      <Link to={paths.detail(modelOf(value, related)!, value.id)} className="text-sky-700 hover:underline">
        {display}
      </Link>
    ) : (
      <span>{display}</span>
    );
  }
  switch (kind) {
    case 'bool':
    case 'boolean':
      return value ? <span aria-label="Yes" className="text-green-700">✓ Yes</span> : <span aria-label="No" className="text-slate-500">✗ No</span>;
    case 'datetime':
      return <time dateTime={String(value)}>{formatDateTime(String(value))}</time>;
    case 'color':
      return (
        <span className="inline-flex items-center gap-1">
          <span className="size-3 rounded border border-slate-300" style={{ backgroundColor: `#${String(value)}` }} aria-hidden="true" />
          {String(value)}
        </span>
      );
    case 'choice':
      return <span>{options?.find((o) => o.value === String(value))?.label ?? String(value)}</span>;
    case 'ip':
      return <span className="font-mono">{withHostMask(String(value))}</span>;
    case 'longtext':
      return <span className="line-clamp-2 whitespace-pre-wrap">{String(value)}</span>;
    case 'percent': {
      const pct = Math.max(0, Math.min(100, Number(value)));
      // Amber from 80 %, red from 95 %: a pool running out should show before it is empty.
      const tone = pct >= 95 ? 'bg-red-500' : pct >= 80 ? 'bg-amber-500' : 'bg-sky-600';
      return (
        <span className="inline-flex items-center gap-2" title={`${pct} % used`}>
          <span className="h-2 w-20 overflow-hidden rounded bg-slate-200" role="meter" aria-valuenow={pct} aria-valuemin={0} aria-valuemax={100} aria-label="Utilisation">
            <span className={`block h-full ${tone}`} style={{ width: `${pct}%` }} />
          </span>
          <span className="tabular-nums">{pct} %</span>
        </span>
      );
    }
    default:
      if (typeof value === 'object') return <code className="text-xs">{JSON.stringify(value)}</code>;
      return <span>{String(value)}</span>;
  }
}
