// How much of its power a feed, a panel or a rack uses. A power port draws its allocated draw (else its maximum);
// a port with neither (a PDU's inlet) draws what the ports cabled to its outlets draw, down through chained PDUs
// (NetBox's PowerPort.get_power_draw). A feed's utilisation is the draw of the ports cabled to it over its
// available power; a panel's sums its feeds, a rack's the feeds that serve it. One statement for a whole page.
import { sql } from 'kysely';
import type { ComputedField } from '../core/registry.ts';
import { inTenant } from '../core/access.ts';

/** PDUs chained deeper than this are not followed (a cycle of outlets is cut by the path check before). */
const MAX_PDU_DEPTH = 8;

export interface PowerUtilization {
  /** Watts drawn: allocated draw, or maximum draw where no allocation is set. */
  allocated_w: number;
  /** Watts the feeds may deliver: volts × amps × max utilisation (× √3 for three-phase). */
  available_w: number;
  /** allocated / available, in percent with one decimal; 0 when nothing is available. */
  percent: number;
  /** A three-phase feed's draw per leg (the feed leg of the PDU outlets), each leg carrying a third of the feed. */
  legs?: Array<{ leg: string; allocated_w: number; percent: number }>;
}

const SCOPES = { feed: 'id', panel: 'power_panel_id', rack: 'rack_id' } as const;

export function powerUtilizationOf(scope: keyof typeof SCOPES): ComputedField {
  const key = sql.ref(`f.${SCOPES[scope]}`);
  return {
    label: 'Power utilisation',
    kind: 'power_utilization',
    schema: {
      type: ['object', 'null'],
      description: scope === 'feed' ? 'The draw on this feed over its available power.' : `The draw on the feeds of this ${scope} over their available power; null without feeds.`,
      properties: {
        allocated_w: { type: 'integer' },
        available_w: { type: 'integer' },
        percent: { type: 'number' },
        ...(scope === 'feed'
          ? { legs: { type: 'array', description: 'Three-phase feeds: the draw per leg.', items: { type: 'object', properties: { leg: { type: 'string' }, allocated_w: { type: 'integer' }, percent: { type: 'number' } } } } }
          : {}),
      },
    },
    async load({ db, ctx, rows }) {
      const out = new Map<string, unknown>();
      if (!ctx.tenantId || rows.length === 0) return out;
      const t = ctx.tenantId;
      const peers = (endType: string, endId: ReturnType<typeof sql.ref>, port: string) => sql`JOIN cable_terminations me ON me.termination_type = ${endType} AND me.termination_id = ${endId}
        JOIN cable_terminations far ON far.cable_id = me.cable_id AND far.cable_end <> me.cable_end AND far.termination_type = 'dcim.powerport'
        JOIN power_ports ${sql.raw(port)} ON ${sql.ref(`${port}.id`)} = far.termination_id AND ${inTenant(t, port)}`;
      const { rows: found } = await sql<{ key: string; available: number; allocated: number; legs: Array<{ leg: string; w: number }> | null }>`
        WITH RECURSIVE feeds AS (
          SELECT f.id, ${key} AS key, f.available_power, f.phase FROM power_feeds f WHERE ${key} = ANY(${rows.map((r) => String(r.id))}::uuid[]) AND ${inTenant(t, 'f')}
        ), draw(feed_id, port_id, allocated, maximum, path, leg) AS (
          SELECT fd.id, p.id, p.allocated_draw, p.maximum_draw, ARRAY[p.id], NULL::text FROM feeds fd ${peers('dcim.powerfeed', sql.ref('fd.id'), 'p')}
        UNION ALL
          -- A port below a PDU is on the leg of the outlet it hangs from at the first PDU.
          SELECT d.feed_id, q.id, q.allocated_draw, q.maximum_draw, d.path || q.id, coalesce(d.leg, o.feed_leg)
          FROM draw d JOIN power_outlets o ON o.power_port_id = d.port_id AND ${inTenant(t, 'o')}
          ${peers('dcim.poweroutlet', sql.ref('o.id'), 'q')}
          WHERE d.allocated IS NULL AND d.maximum IS NULL AND NOT q.id = ANY(d.path) AND cardinality(d.path) < ${MAX_PDU_DEPTH}
        ), legs AS (
          SELECT feed_id, json_agg(json_build_object('leg', leg, 'w', w) ORDER BY leg) AS legs FROM (
            SELECT d.feed_id, d.leg, sum(coalesce(d.allocated, d.maximum))::int AS w FROM draw d
            JOIN feeds fl ON fl.id = d.feed_id AND fl.phase = 'three-phase' WHERE d.leg IS NOT NULL GROUP BY d.feed_id, d.leg) per_leg
          GROUP BY feed_id
        )
        SELECT fd.key, sum(fd.available_power)::int AS available, coalesce(sum(dr.watts), 0)::int AS allocated,
          ${scope === 'feed' ? sql`(array_agg(lg.legs))[1]` : sql`NULL::json`} AS legs
        FROM feeds fd LEFT JOIN (SELECT feed_id, sum(coalesce(allocated, maximum)) AS watts FROM draw GROUP BY feed_id) dr ON dr.feed_id = fd.id
        LEFT JOIN legs lg ON lg.feed_id = fd.id
        GROUP BY fd.key`.execute(db);
      for (const r of found) {
        const percent = (w: number, of: number) => (of > 0 ? Math.round((w * 1000) / of) / 10 : 0);
        const value: PowerUtilization = { allocated_w: r.allocated, available_w: r.available, percent: percent(r.allocated, r.available) };
        if (r.legs) value.legs = r.legs.map((l) => ({ leg: l.leg, allocated_w: l.w, percent: percent(l.w, r.available / 3) }));
        out.set(String(r.key), value);
      }
      return out;
    },
  };
}
