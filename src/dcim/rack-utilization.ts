// How much of a rack's height is taken: units a device occupies (on either face, as NetBox's Rack.get_utilization
// counts them) or a reservation holds, over the rack's units, in percent with one decimal. Read beside each row of
// a rack list page as one scalar subquery (no query per row); `load` answers the same for a single rack.
import { sql, type RawBuilder } from 'kysely';
import type { ComputedField } from '../core/registry.ts';
import type { RequestContext } from '../core/context.ts';
import { requireModel } from '../core/registry.ts';
import { scopeCondition } from '../core/access.ts';

/** The percent of the units of the rack at `alias` that are used, one decimal (0 for a rack with no units). */
function rackUtilizationSql(ctx: RequestContext, alias: string): RawBuilder<unknown> {
  const rack = (column: string) => sql.ref(`${alias}.${column}`);
  const devices = requireModel('dcim.device');
  const reservations = requireModel('dcim.rackreservation');
  return sql`(SELECT CASE WHEN ${rack('u_height')} > 0 THEN round(100.0 * count(DISTINCT uu.unit) / ${rack('u_height')}, 1) ELSE 0 END
    FROM (
      SELECT generate_series(ud.position, ud.position + ut.u_height - 1) AS unit
      FROM devices ud JOIN device_types ut ON ut.id = ud.device_type_id
      WHERE ud.rack_id = ${rack('id')} AND ud.position IS NOT NULL AND ut.u_height > 0 AND ${scopeCondition(ctx, devices, 'ud')}
      UNION ALL
      SELECT unnest(ur.units) FROM rack_reservations ur WHERE ur.rack_id = ${rack('id')} AND ${scopeCondition(ctx, reservations, 'ur')}
    ) uu
    WHERE uu.unit >= ${rack('starting_unit')} AND uu.unit < ${rack('starting_unit')} + ${rack('u_height')})`;
}

export const rackUtilizationField: ComputedField = {
  label: 'Space utilisation',
  kind: 'percent',
  schema: { type: 'number', minimum: 0, maximum: 100, description: 'Percent of the rack\'s units a device takes (either face) or a reservation holds, one decimal.' },
  async load({ db, ctx, rows }) {
    const ids = rows.map((r) => String(r.id));
    const out = new Map<string, unknown>();
    if (ids.length === 0) return out;
    const { rows: found } = await sql<{ id: string; pct: string }>`SELECT r.id, ${rackUtilizationSql(ctx, 'r')} AS pct
      FROM racks r WHERE r.id = ANY(${ids}::uuid[]) AND ${scopeCondition(ctx, requireModel('dcim.rack'), 'r')}`.execute(db);
    for (const f of found) out.set(f.id, Number(f.pct));
    return out;
  },
  inline: {
    select: (ctx, alias) => rackUtilizationSql(ctx, alias),
    value: (selected) => (selected === null || selected === undefined ? 0 : Number(selected)),
  },
};
