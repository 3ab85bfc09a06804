// The end-of-life status of a platform as a badge: used on the platform list and Overview (the `eol` column) and
// next to a device's platform. Null means end-of-life data is off, and nothing is drawn.
import { Link } from '@tanstack/react-router';
import { paths } from '../../app/paths.ts';
import { Badge } from '../../components/ui.tsx';

export interface Eol {
  status: 'supported' | 'ending' | 'eol' | 'unknown';
  product?: string;
  cycle?: string;
  eol_date?: string | null;
  missing?: boolean;
}

const LOOK = {
  supported: { tone: 'green', label: 'Supported' },
  ending: { tone: 'amber', label: 'End of life soon' },
  eol: { tone: 'red', label: 'End of life' },
  unknown: { tone: 'slate', label: 'EOL unknown' },
} as const;

export function EolBadge({ eol }: { eol: Eol | null | undefined }) {
  if (!eol) return null;
  const look = LOOK[eol.status] ?? LOOK.unknown;
  const what = eol.product ? `${eol.product} ${eol.cycle ?? ''}`.trim() : 'not mapped';
  return (
    <span className="inline-flex items-center gap-1" title={`${what}${eol.eol_date ? `, end of life ${eol.eol_date}` : ''}`}>
      <Badge tone={look.tone}>{look.label}</Badge>
      {eol.missing ? <Badge tone="amber">Not in catalog</Badge> : null}
    </span>
  );
}

/** Cell renderer for `dcim.platform` `eol`. */
export function EolCell({ value }: { value: unknown }) {
  return value && typeof value === 'object' ? <EolBadge eol={value as Eol} /> : <span className="text-slate-400">—</span>;
}

/** Cell renderer for `dcim.device` `platform`: the platform's name with its badge (the brief carries `eol`). */
export function DevicePlatformCell({ value }: { value: unknown }) {
  if (!value || typeof value !== 'object') return <span className="text-slate-400">—</span>;
  const brief = value as { id: string; display?: string; eol?: Eol | null };
  return (
    <span className="inline-flex flex-wrap items-center gap-1">
      <Link to={paths.detail('dcim.platform', brief.id)} className="text-sky-700 hover:underline">
        {brief.display}
      </Link>
      <EolBadge eol={brief.eol} />
    </span>
  );
}

/** Cell renderer for `dcim.device` `compliance`: a marker when the device has open violations. */
/** Violations in red; OK only where a rule checked the object; "No rules" where none applies (not a green OK). */
export function ComplianceCell({ value }: { value: unknown }) {
  const c = value && typeof value === 'object' ? (value as { violations?: number; rules?: number }) : {};
  const n = Number(c.violations ?? 0);
  if (n > 0) return <Badge tone="red">{n} {n === 1 ? 'violation' : 'violations'}</Badge>;
  return Number(c.rules ?? 0) > 0 ? <Badge tone="green">OK</Badge> : <span className="text-xs text-slate-500">No rules</span>;
}
