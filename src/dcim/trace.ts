// Cable tracing: from an interface (or a port) across its cable; at a front port through the panel to its rear
// port, at a rear port back out of the front port of the position the path came in on; until an interface, a
// port without a cable or an ambiguous rear port ends it. Many paths walk in step (an interface list's
// connected_endpoint for a whole page): each step costs two queries for all of them, and a path is bounded
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
    const passing: Array<{ walk: Walk; at: Termination }> = [];
    for (const w of active) {
      const hop = hops.get(keyOf(w.near));
      if (!hop) {
        w.segments.push({ near: w.near, cable: null, far: null });
        w.ended = 'no_cable';
        continue;
      }
      w.segments.push({ near: w.near, cable: hop.cable, far: hop.far });
      if (!hop.far) w.ended = 'open_port';
      else if (hop.far.type === 'dcim.interface') w.ended = 'interface';
      else if (w.seen.has(keyOf(hop.far))) w.ended = 'loop';
      else {
        w.seen.add(keyOf(hop.far));
        passing.push({ walk: w, at: hop.far });
      }
    }
    if (passing.length === 0) continue;
    const through = await passThrough(db, tenantId, passing.map((p) => p.at));
    for (const { walk, at } of passing) {
      const next = throughPanel(walk, at, through);
      if (!next) continue;
      if (walk.seen.has(keyOf(next))) walk.ended = 'loop';
      else {
        walk.seen.add(keyOf(next));
        walk.near = next;
      }
    }
  }
  for (const w of walks) if (!w.ended) w.ended = 'too_long';
  return walks;
}

/** The port on the other side of a panel from `at`, or null with the walk ended. */
function throughPanel(walk: Walk, at: Termination, through: PanelMap): Termination | null {
  if (at.type === 'dcim.frontport') {
    const f = through.fronts.get(at.id);
    if (!f) {
      walk.ended = 'open_port';
      return null;
    }
    if (f.positions > 1) walk.stack.push(f.position);
    return { type: 'dcim.rearport', id: f.rear };
  }
  const r = through.rears.get(at.id);
  const position = r && r.positions === 1 ? 1 : walk.stack.pop();
  const front = position === undefined ? undefined : r?.fronts.get(position);
  if (!front) {
    walk.ended = position === undefined ? 'ambiguous' : 'open_port';
    return null;
  }
  return { type: 'dcim.frontport', id: front };
}

/**
 * For each port, its cable and the first object on the cable's other end (interfaces first, then in name
 * order: a cable with several ends on one side is followed through one of them).
 */
async function cableHops(db: Kysely<DB>, tenantId: string, ports: Termination[]): Promise<Map<string, { cable: string; far: Termination | null }>> {
  const { rows } = await sql<{ type: string; id: string; cable: string; far_type: string | null; far_id: string | null }>`
    SELECT DISTINCT ON (me.termination_type, me.termination_id) me.termination_type AS type, me.termination_id AS id, me.cable_id AS cable,
      p.object_type AS far_type, p.id AS far_id
    FROM cable_terminations me
    JOIN cables c ON c.id = me.cable_id AND ${inTenant(tenantId, 'c')}
    LEFT JOIN (cable_terminations far JOIN ${CABLEABLE_PORTS} p ON p.object_type = far.termination_type AND p.id = far.termination_id AND ${inTenant(tenantId, 'p')})
      ON far.cable_id = me.cable_id AND far.cable_end <> me.cable_end
    WHERE (me.termination_type, me.termination_id) IN (SELECT * FROM unnest(${ports.map((p) => p.type)}::text[], ${ports.map((p) => p.id)}::uuid[]))
    ORDER BY me.termination_type, me.termination_id, p.object_type <> 'dcim.interface', p.name_natural NULLS LAST, p.id`.execute(db);
  return new Map(rows.map((r) => [`${r.type}:${r.id}`, { cable: r.cable, far: r.far_type && r.far_id ? { type: r.far_type, id: r.far_id } : null }]));
}

interface PanelMap {
  fronts: Map<string, { rear: string; position: number; positions: number }>;
  rears: Map<string, { positions: number; fronts: Map<number, string> }>;
}

/** How the front and rear ports reached map to each other: one query for all of them. */
async function passThrough(db: Kysely<DB>, tenantId: string, ports: Termination[]): Promise<PanelMap> {
  const fronts = ports.filter((p) => p.type === 'dcim.frontport').map((p) => p.id);
  const rears = ports.filter((p) => p.type === 'dcim.rearport').map((p) => p.id);
  // Two index lookups, not one OR across both tables: that read every front port of the database (25 ms a step
  // at 60,000 of them) and grew with it.
  const { rows } = await sql<{ front: string; rear: string; position: number; positions: number }>`
    SELECT f.id AS front, r.id AS rear, f.rear_port_position AS position, r.positions
    FROM front_ports f JOIN rear_ports r ON r.id = f.rear_port_id
    WHERE f.id = ANY(${fronts}::uuid[]) AND ${inTenant(tenantId, 'f')} AND ${inTenant(tenantId, 'r')}
    UNION
    SELECT f.id, r.id, f.rear_port_position, r.positions
    FROM rear_ports r JOIN front_ports f ON f.rear_port_id = r.id
    WHERE r.id = ANY(${rears}::uuid[]) AND ${inTenant(tenantId, 'f')} AND ${inTenant(tenantId, 'r')}`.execute(db);
  const out: PanelMap = { fronts: new Map(), rears: new Map() };
  for (const r of rows) {
    out.fronts.set(r.front, { rear: r.rear, position: r.position, positions: r.positions });
    const rear = out.rears.get(r.rear) ?? { positions: r.positions, fronts: new Map<number, string>() };
    rear.fronts.set(r.position, r.front);
    out.rears.set(r.rear, rear);
  }
  return out;
}

/** Brief objects (with their device) of the ports and cables of paths: two queries whatever their number. */
async function describe(db: Kysely<DB>, tenantId: string, ports: Termination[], cables: string[], origin: string): Promise<Map<string, TraceObject>> {
  const out = new Map<string, TraceObject>();
  const devicePath = requireModel('dcim.device').path;
  if (ports.length) {
    // The device by a lookup per port: as a join, PostgreSQL misjudged the ports found and hashed every device.
    const { rows } = await sql<{ object_type: string; id: string; name: string; device_id: string; device: string }>`
      SELECT p.object_type, p.id, p.name, p.device_id, (SELECT d.name FROM devices d WHERE d.id = p.device_id) AS device FROM ${CABLEABLE_PORTS} p
      WHERE (p.object_type, p.id) IN (SELECT * FROM unnest(${ports.map((p) => p.type)}::text[], ${ports.map((p) => p.id)}::uuid[])) AND ${inTenant(tenantId, 'p')}`.execute(db);
    for (const r of rows) {
      out.set(`${r.object_type}:${r.id}`, {
        id: r.id,
        object_type: r.object_type,
        display: `${r.device}${DISPLAY_SEPARATOR}${r.name}`,
        url: `${origin}${requireModel(r.object_type).path}${r.id}/`,
        name: r.name,
        device: { id: r.device_id, display: r.device, url: `${origin}${devicePath}${r.device_id}/` },
      });
    }
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
    const starts = rows.map((r) => ({ type: 'dcim.interface', id: String(r.id) }));
    const walks = await walkPaths(db, ctx.tenantId, starts);
    const ends = new Map<string, Termination>();
    walks.forEach((w, i) => {
      const last = w.segments[w.segments.length - 1];
      if (w.ended === 'interface' && last?.far) ends.set(starts[i]!.id, last.far);
    });
    if (ends.size === 0) return out;
    const objects = await describe(db, ctx.tenantId, [...ends.values()], [], origin);
    for (const [id, end] of ends) out.set(id, objects.get(keyOf(end)) ?? null);
    return out;
  },
};
