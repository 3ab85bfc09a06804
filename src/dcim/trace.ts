// Cable tracing: from an interface (or a port) across its cable; at a front port through the panel to its rear
// port, at a rear port back out of the front port of the position the path came in on; until an interface, a
// port without a cable or an ambiguous rear port ends it. Many paths walk in step (an interface list's
// connected_endpoint for a whole page): each step costs one query for all of them, and a path is bounded
// (MAX_SEGMENTS, and no port visited twice), so a patch loop ends instead of spinning.
import { sql, type Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../db/types.ts';
import type { ComputedField } from '../core/registry.ts';
import { requireModel } from '../core/registry.ts';
import { inTenant } from '../core/access.ts';
import { DISPLAY_SEPARATOR } from '../core/crud/serialize.ts';
import { CABLEABLE_PORTS, type Termination } from './cabling.ts';

/** Cables followed at most in one path: far more than any real patching (NetBox's paths rarely pass 5). */
export const MAX_SEGMENTS = 32;

export interface TraceObject {
  id: string;
  object_type: string;
  display: string;
  url: string;
  name: string;
  device: { id: string; display: string; url: string } | null;
}

export interface TraceSegment {
  near_end: TraceObject;
  cable: TraceObject | null;
  far_end: TraceObject | null;
}

export interface Trace {
  origin: TraceObject;
  segments: TraceSegment[];
  /** The interface the path ends at, or null (no cable, a port left open, an ambiguous rear port, a loop). */
  destination: TraceObject | null;
  /** Why the walk stopped where it did. */
  ended: 'interface' | 'no_cable' | 'open_port' | 'ambiguous' | 'loop' | 'too_long';
}

interface RawSegment {
  near: Termination;
  cable: string | null;
  far: Termination | null;
  /** What a trace shows of the far end: read with the hop, so a path's end needs no query of its own. */
  farPort?: PortRow;
}

/** A port as describe reads it. */
interface PortRow {
  object_type: string;
  id: string;
  name: string;
  device_id: string;
  device: string;
}

interface Walk {
  segments: RawSegment[];
  near: Termination;
  /** Positions entered through front ports, innermost last: a rear port with several positions leaves by the last. */
  stack: number[];
  seen: Set<string>;
  ended: Trace['ended'] | null;
}

const keyOf = (t: Termination) => `${t.type}:${t.id}`;

/** Walks every start at once, within `tenantId`'s rows. */
export async function walkPaths(db: Kysely<DB>, tenantId: string, starts: Termination[]): Promise<Walk[]> {
  const walks: Walk[] = starts.map((s) => ({ segments: [], near: s, stack: [], seen: new Set([keyOf(s)]), ended: null }));
  for (let step = 0; step < MAX_SEGMENTS; step++) {
    const active = walks.filter((w) => !w.ended);
    if (active.length === 0) break;
    const hops = await cableHops(db, tenantId, active.map((w) => w.near));
    for (const w of active) {
      const hop = hops.get(keyOf(w.near));
      if (!hop) {
        w.segments.push({ near: w.near, cable: null, far: null });
        w.ended = 'no_cable';
        continue;
      }
      w.segments.push({ near: w.near, cable: hop.cable, far: hop.far, ...(hop.farPort ? { farPort: hop.farPort } : {}) });
      if (!hop.far) w.ended = 'open_port';
      else if (hop.far.type === 'dcim.interface') w.ended = 'interface';
      else if (w.seen.has(keyOf(hop.far))) w.ended = 'loop';
      else {
        w.seen.add(keyOf(hop.far));
        const next = throughPanel(w, hop.far, hop.panel);
        if (!next) continue;
        if (w.seen.has(keyOf(next))) w.ended = 'loop';
        else {
          w.seen.add(keyOf(next));
          w.near = next;
        }
      }
    }
  }
  for (const w of walks) if (!w.ended) w.ended = 'too_long';
  return walks;
}

/** How a port reached on a cable's far end leads through its panel (null when it does not, as a port left open). */
type Panel =
  | { kind: 'front'; rear: string; position: number; positions: number }
  | { kind: 'rear'; positions: number; fronts: Map<number, string> }
  | null;

/** The port on the other side of a panel from `at`, or null with the walk ended. */
function throughPanel(walk: Walk, at: Termination, panel: Panel): Termination | null {
  if (at.type === 'dcim.frontport') {
    if (panel?.kind !== 'front') {
      walk.ended = 'open_port';
      return null;
    }
    if (panel.positions > 1) walk.stack.push(panel.position);
    return { type: 'dcim.rearport', id: panel.rear };
  }
  const r = panel?.kind === 'rear' ? panel : null;
  const position = r && r.positions === 1 ? 1 : walk.stack.pop();
  const front = position === undefined ? undefined : r?.fronts.get(position);
  if (!front) {
    walk.ended = position === undefined ? 'ambiguous' : 'open_port';
    return null;
  }
  return { type: 'dcim.frontport', id: front };
}

interface Hop {
  cable: string;
  far: Termination | null;
  farPort: PortRow | null;
  panel: Panel;
}

/**
 * For each port, its cable and the first object on the cable's other end (interfaces first, then in name
 * order: a cable with several ends on one side is followed through one of them), with the way through that
 * object's panel: a front port's rear port (and how many positions it has), a rear port's front ports by
 * position. Read in the same statement, a step of a walk is one round trip, not two.
 */
async function cableHops(db: Kysely<DB>, tenantId: string, ports: Termination[]): Promise<Map<string, Hop>> {
  const { rows } = await sql<{ type: string; id: string; cable: string; far_type: string | null; far_id: string | null; far_name: string | null; far_device_id: string | null; far_device: string | null; rear: string | null; position: number | null; positions: number | null; fronts: Array<[number, string]> | null }>`
    SELECT DISTINCT ON (me.termination_type, me.termination_id) me.termination_type AS type, me.termination_id AS id, me.cable_id AS cable,
      p.object_type AS far_type, p.id AS far_id, p.name AS far_name, p.device_id AS far_device_id,
      (SELECT d.name FROM devices d WHERE d.id = p.device_id) AS far_device, p.rear_port_id AS rear, p.rear_port_position AS position,
      CASE p.object_type
        WHEN 'dcim.frontport' THEN (SELECT r.positions FROM rear_ports r WHERE r.id = p.rear_port_id AND ${inTenant(tenantId, 'r')})
        WHEN 'dcim.rearport' THEN p.positions END AS positions,
      CASE WHEN p.object_type = 'dcim.rearport' THEN (SELECT json_agg(json_build_array(f.rear_port_position, f.id)) FROM front_ports f
        WHERE f.rear_port_id = p.id AND ${inTenant(tenantId, 'f')}) END AS fronts
    FROM cable_terminations me
    JOIN cables c ON c.id = me.cable_id AND ${inTenant(tenantId, 'c')}
    LEFT JOIN (cable_terminations far JOIN ${CABLEABLE_PORTS} p ON p.object_type = far.termination_type AND p.id = far.termination_id AND ${inTenant(tenantId, 'p')})
      ON far.cable_id = me.cable_id AND far.cable_end <> me.cable_end
    WHERE (me.termination_type, me.termination_id) IN (SELECT * FROM unnest(${ports.map((p) => p.type)}::text[], ${ports.map((p) => p.id)}::uuid[]))
    ORDER BY me.termination_type, me.termination_id, p.object_type <> 'dcim.interface', p.name_natural NULLS LAST, p.id`.execute(db);
  const panelOf = (r: (typeof rows)[number]): Panel => {
    // A front port whose rear port is not the tenant's, or a rear port without front ports, leads nowhere.
    if (r.far_type === 'dcim.frontport') return r.rear && r.positions !== null ? { kind: 'front', rear: r.rear, position: r.position!, positions: r.positions } : null;
    if (r.far_type === 'dcim.rearport' && r.fronts?.length) return { kind: 'rear', positions: r.positions!, fronts: new Map(r.fronts) };
    return null;
  };
  return new Map(rows.map((r) => {
    const far = r.far_type && r.far_id ? { type: r.far_type, id: r.far_id } : null;
    const farPort = far ? { object_type: far.type, id: far.id, name: r.far_name!, device_id: r.far_device_id!, device: r.far_device! } : null;
    return [`${r.type}:${r.id}`, { cable: r.cable, far, farPort, panel: panelOf(r) }];
  }));
}

function portObject(r: PortRow, origin: string): TraceObject {
  return {
    id: r.id,
    object_type: r.object_type,
    display: `${r.device}${DISPLAY_SEPARATOR}${r.name}`,
    url: `${origin}${requireModel(r.object_type).path}${r.id}/`,
    name: r.name,
    device: { id: r.device_id, display: r.device, url: `${origin}${requireModel('dcim.device').path}${r.device_id}/` },
  };
}

/** Brief objects (with their device) of the ports and cables of paths: two queries whatever their number. */
async function describe(db: Kysely<DB>, tenantId: string, ports: Termination[], cables: string[], origin: string): Promise<Map<string, TraceObject>> {
  const out = new Map<string, TraceObject>();
  if (ports.length) {
    // The device by a lookup per port: as a join, PostgreSQL misjudged the ports found and hashed every device.
    const { rows } = await sql<PortRow>`
      SELECT p.object_type, p.id, p.name, p.device_id, (SELECT d.name FROM devices d WHERE d.id = p.device_id) AS device FROM ${CABLEABLE_PORTS} p
      WHERE (p.object_type, p.id) IN (SELECT * FROM unnest(${ports.map((p) => p.type)}::text[], ${ports.map((p) => p.id)}::uuid[])) AND ${inTenant(tenantId, 'p')}`.execute(db);
    for (const r of rows) out.set(`${r.object_type}:${r.id}`, portObject(r, origin));
  }
  if (cables.length) {
    const cableModel = requireModel('dcim.cable');
    const { rows } = await sql<{ id: string; label: string; numid: string }>`SELECT id, label, numid::text FROM cables c
      WHERE id = ANY(${cables}::uuid[]) AND ${inTenant(tenantId, 'c')}`.execute(db);
    for (const r of rows) {
      // A cable's display is its label; an unlabelled one is shown by its number, never its id.
      const display = r.label || `Cable #${r.numid}`;
      out.set(`dcim.cable:${r.id}`, { id: r.id, object_type: 'dcim.cable', display, url: `${origin}${cableModel.path}${r.id}/`, name: display, device: null });
    }
  }
  return out;
}

/** The whole path from one port, with each object described. */
export async function traceFrom(db: Kysely<DB>, tenantId: string, start: Termination, origin: string): Promise<Trace> {
  const [walk] = await walkPaths(db, tenantId, [start]);
  const ports = [start, ...walk!.segments.flatMap((s) => [s.near, ...(s.far ? [s.far] : [])])];
  const objects = await describe(db, tenantId, ports, walk!.segments.flatMap((s) => (s.cable ? [s.cable] : [])), origin);
  const segments = walk!.segments.map((s) => ({
    near_end: objects.get(keyOf(s.near))!,
    cable: s.cable ? objects.get(`dcim.cable:${s.cable}`) ?? null : null,
    far_end: s.far ? objects.get(keyOf(s.far)) ?? null : null,
  }));
  const last = walk!.segments[walk!.segments.length - 1];
  const destination = walk!.ended === 'interface' && last?.far ? objects.get(keyOf(last.far)) ?? null : null;
  return { origin: objects.get(keyOf(start))!, segments, destination, ended: walk!.ended! };
}

const traceObjectSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  object_type: Type.String(),
  display: Type.String(),
  url: Type.String(),
  name: Type.String(),
  device: Type.Union([Type.Object({ id: Type.String({ format: 'uuid' }), display: Type.String(), url: Type.String() }), Type.Null()]),
});
const maybe = Type.Union([traceObjectSchema, Type.Null()]);

/** GET <port>/trace/: the path in order, each segment a near end, the cable from it and the cable's far end. */
export const traceSchema = Type.Object({
  origin: traceObjectSchema,
  segments: Type.Array(Type.Object({ near_end: traceObjectSchema, cable: maybe, far_end: maybe })),
  destination: maybe,
  ended: Type.Union(['interface', 'no_cable', 'open_port', 'ambiguous', 'loop', 'too_long'].map((v) => Type.Literal(v))),
});

/** An interface's far end: the interface its trace ends at, through any patch panels, or null. */
export const connectedEndpointField: ComputedField = {
  label: 'Connected endpoint',
  kind: 'object',
  schema: maybe as unknown as Record<string, unknown>,
  async load({ db, ctx, rows, origin }) {
    const out = new Map<string, unknown>();
    if (!ctx.tenantId || rows.length === 0) return out;
    const walks = await walkPaths(db, ctx.tenantId, rows.map((r) => ({ type: 'dcim.interface', id: String(r.id) })));
    walks.forEach((w, i) => {
      // The far end came with the last hop: no query to describe it.
      const last = w.segments[w.segments.length - 1];
      if (w.ended === 'interface' && last?.farPort) out.set(String(rows[i]!.id), portObject(last.farPort, origin));
    });
    return out;
  },
};
