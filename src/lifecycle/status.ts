// The support status of a mapping, derived when read so it moves with the calendar without a refresh. The same
// rule exists twice, in TypeScript (for answers) and in SQL (for list filters and compliance), and must agree.
import { sql, type RawBuilder } from 'kysely';

export const EOL_STATUSES = ['supported', 'ending', 'eol', 'unknown'] as const;
export type EolStatus = (typeof EOL_STATUSES)[number];

export interface MappingFacts {
  eol_date: string | null;
  eol_reached: boolean | null;
  synced_at: string | Date | null;
}

let todayOverride: string | null = null;

/** Tests pin "today" (YYYY-MM-DD); null returns to the server's local calendar. */
export function setToday(date: string | null): void {
  todayOverride = date;
}

/** Today in the server's time zone, as the warning window is read by people there. */
export function today(): string {
  if (todayOverride) return todayOverride;
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/**
 * A dated end of life decides (on the day itself it is passed; exactly warning_days ahead is still ending);
 * the source's flag only speaks for cycles without a date, because the flag was computed when the catalog was
 * built and goes stale.
 */
export function statusOf(m: MappingFacts | null, warningDays: number, on = today()): EolStatus {
  if (!m || m.synced_at === null) return 'unknown';
  if (m.eol_date) {
    if (m.eol_date <= on) return 'eol';
    if (m.eol_date <= addDays(on, warningDays)) return 'ending';
    return 'supported';
  }
  if (m.eol_reached === true) return 'eol';
  if (m.eol_reached === false) return 'supported';
  return 'unknown';
}

/** The SQL form of statusOf over a mapping row `alias` (which may be absent: LEFT JOIN gives unknown). */
export function statusSql(alias: string, warningDays: RawBuilder<unknown> | number, on = today()): RawBuilder<string> {
  const m = (c: string) => sql.ref(`${alias}.${c}`);
  const edge = typeof warningDays === 'number' ? sql`${addDays(on, warningDays)}::date` : sql`(${on}::date + ${warningDays})`;
  return sql<string>`CASE
    WHEN ${m('id')} IS NULL OR ${m('synced_at')} IS NULL THEN 'unknown'
    WHEN ${m('eol_date')} IS NOT NULL THEN
      CASE WHEN ${m('eol_date')} <= ${on}::date THEN 'eol' WHEN ${m('eol_date')} <= ${edge} THEN 'ending' ELSE 'supported' END
    WHEN ${m('eol_reached')} IS TRUE THEN 'eol'
    WHEN ${m('eol_reached')} IS FALSE THEN 'supported'
    ELSE 'unknown' END`;
}

/** `supported,ending` → the statuses, or an error naming the allowed values. */
export function parseStatusList(values: string[]): EolStatus[] | { error: string } {
  const out = new Set<EolStatus>();
  for (const v of values.flatMap((x) => x.split(','))) {
    const s = v.trim();
    if (s === '') continue;
    if (!(EOL_STATUSES as readonly string[]).includes(s)) return { error: `One of ${EOL_STATUSES.join(', ')}.` };
    out.add(s as EolStatus);
  }
  if (out.size === 0) return { error: `One of ${EOL_STATUSES.join(', ')}.` };
  return [...out];
}
