// Cable tracing: from an interface (or a port) across its cable; at a front port through the panel to its rear
// port, at a rear port back out of the front port of the position the path came in on; until an interface, a
// port without a cable or an ambiguous rear port ends it. Many paths walk at once (an interface list's
// connected_endpoint for a whole page), all of them in one recursive statement, and a path is bounded
// (MAX_SEGMENTS, and no port visited twice), so a patch loop ends instead of spinning.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../db/types.ts';
import type { ComputedField } from '../core/registry.ts';
import { requireModel } from '../core/registry.ts';
import { inTenant, sameTenant } from '../core/access.ts';
import { DISPLAY_SEPARATOR } from '../core/crud/serialize.ts';
import type { Termination } from './cabling.ts';
import { cableablePorts, cableEndKinds, endpointTypes } from './cable-ends.ts';

/** Cables followed at most in one path: far more than any real patching (NetBox's paths rarely pass 5). */
export const MAX_SEGMENTS = 32;

export interface TraceObject {
  id: string;
  object_type: string;
  display: string;
  url: string;
  name: string;
  device: { id: string; display: string; url: string } | null;
  /** What the object belongs to: its device, or its power panel, circuit… */
  parent: { object_type: string; id: string; display: string; url: string } | null;
}

export interface TraceSegment {
  near_end: TraceObject;
  cable: TraceObject | null;
  far_end: TraceObject | null;
}

export interface Trace {
  origin: TraceObject;
  segments: TraceSegment[];
  /** The interface (or other endpoint: a console port, a power feed…) the path ends at, or null (no cable, a port left open, an ambiguous rear port, a loop). */
  destination: TraceObject | null;
  /** Why the walk stopped where it did: `interface` and `endpoint` are complete paths. */
  ended: 'interface' | 'endpoint' | 'no_cable' | 'open_port' | 'ambiguous' | 'loop' | 'too_long';
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
  /** What the port belongs to (a device, a power panel, a circuit…): its model, id and name. */
  parent_type: string;
  device_id: string;
  device: string;
}

interface Walk {
  segments: RawSegment[];
  ended: Trace['ended'] | null;
}

const keyOf = (t: Termination) => `${t.type}:${t.id}`;

/** One step of a walk as walkSteps reads it: the segment from `near_*` across `cable` (null: none) to `far_*`. */
interface StepRow {
  n: number;
  near_type: string;
  near_id: string;
  cable: string | null;
  far_type: string | null;
  far_id: string | null;
  far_name: string | null;
  far_device_id: string | null;
  far_device: string | null;
  far_parent_type: string | null;
  ended: Trace['ended'] | null;
}

/**
 * Walks every start at once, within `tenantId`'s rows: the whole walk is one recursive statement (a page of
 * interfaces patched through two panels was a round trip per cable followed).
 */
export async function walkPaths(db: Kysely<DB>, tenantId: string, starts: Termination[]): Promise<Walk[]> {
  const walks: Walk[] = starts.map(() => ({ segments: [], ended: null }));
  if (starts.length === 0) return walks;
  const { rows } = await walkSteps(tenantId, starts).execute(db);
  for (const r of rows) {
    const w = walks[r.n - 1]!;
    const near = { type: r.near_type, id: r.near_id };
    const far = r.far_type && r.far_id ? { type: r.far_type, id: r.far_id } : null;
    const farPort = far ? { object_type: far.type, id: far.id, name: r.far_name!, parent_type: r.far_parent_type!, device_id: r.far_device_id!, device: r.far_device! } : null;
    w.segments.push(r.cable === null ? { near, cable: null, far: null } : { near, cable: r.cable, far, ...(farPort ? { farPort } : {}) });
    w.ended = r.ended;
  }
  // A walk still going after MAX_SEGMENTS cables is cut there.
  for (const w of walks) if (!w.ended) w.ended = 'too_long';
  return walks;
}

/** The steps of walks from `starts` (their position in `n`, from 1), in order. */
function walkSteps(tenantId: string, starts: Termination[]) {
  return sql<StepRow>`${walkCte((alias) => inTenant(tenantId, alias), sql`unnest(${starts.map((p) => p.type)}::text[], ${starts.map((p) => p.id)}::uuid[]) WITH ORDINALITY AS s(type, id, n)`)}
    SELECT n, seg_type AS near_type, seg_id AS near_id, cable, far_type, far_id, far_name, far_device_id, far_device, far_parent_type, ended
    FROM walk WHERE step > 0 ORDER BY n, step`;
}

/**
 * `WITH RECURSIVE walk AS (…)`: the steps of walks from the rows of `starts`, a relation of (type, id, n), n
 * numbering the walks. Step 0 of each walk is its start; a step's segment is from seg_* across `cable` to far_*,
 * and near_* is where the next step leaves from. Each step takes the port's cable to the first object on its other
 * end (interfaces first, then in name order: a cable with several ends on one side is followed through one of
 * them), and through that object's panel: a front port leads to its rear port (remembering the position it came in
 * on when the rear port has several), a rear port to the front port of the position the path came in on, innermost
 * panel first (`stack`), or of its one position. A walk ends at an interface, at a port without a cable, at a port
 * leading nowhere (open_port), at a rear port of several positions the path did not come in through (ambiguous),
 * at a port it passed before (loop), or is cut after MAX_SEGMENTS steps.
 */
function walkCte(mine: (alias: string) => RawBuilder<unknown>, starts: RawBuilder<unknown>): RawBuilder<unknown> {
  // Kinds a path crosses without a cable (a circuit from one termination to the other, an outlet to its power port).
  const passing = cableEndKinds().filter((k) => k.passThrough);
  return sql`WITH RECURSIVE walk AS (
      SELECT s.n::int AS n, 0 AS step, s.type::text AS near_type, s.id::uuid AS near_id, '{}'::int[] AS stack, ARRAY[s.type || ':' || s.id] AS seen,
        NULL::text AS ended, NULL::text AS seg_type, NULL::uuid AS seg_id, NULL::uuid AS cable, NULL::text AS far_type,
        NULL::uuid AS far_id, NULL::text AS far_name, NULL::uuid AS far_device_id, NULL::text AS far_device, NULL::text AS far_parent_type
      FROM ${starts}
    UNION ALL
      SELECT w.n, w.step + 1, nx.near_type, nx.near_id, nx.stack, nx.seen, nx.ended, w.near_type, w.near_id,
        h.cable, h.far_type, h.far_id, h.far_name::text, h.far_device_id, h.far_device::text, h.far_parent_type::text
      FROM walk w
      LEFT JOIN LATERAL (
        SELECT me.cable_id AS cable, p.object_type AS far_type, p.id AS far_id, p.name AS far_name, p.parent_id AS far_device_id,
          p.parent_name AS far_device, p.parent_type AS far_parent_type, p.rear_port_id AS rear, p.rear_port_position AS position,
          CASE p.object_type
            WHEN 'dcim.frontport' THEN (SELECT r.positions FROM rear_ports r WHERE r.id = p.rear_port_id AND ${mine('r')})
            WHEN 'dcim.rearport' THEN p.positions END AS positions
        FROM cable_terminations me
        JOIN cables c ON c.id = me.cable_id AND ${mine('c')}
        LEFT JOIN (cable_terminations far JOIN ${cableablePorts()} p ON p.object_type = far.termination_type AND p.id = far.termination_id AND ${mine('p')})
          ON far.cable_id = me.cable_id AND far.cable_end <> me.cable_end
        WHERE me.termination_type = w.near_type AND me.termination_id = w.near_id
        ORDER BY p.object_type <> 'dcim.interface', p.name_natural NULLS LAST, p.id
        LIMIT 1
      ) h ON true
      -- (OFFSET 0 keeps each of these laterals a step of its own: inlined, every use of a value ran its lookup again.)
      CROSS JOIN LATERAL (SELECT h.far_type || ':' || h.far_id AS key,
        h.far_type = 'dcim.rearport' AND EXISTS (SELECT 1 FROM front_ports f WHERE f.rear_port_id = h.far_id AND ${mine('f')}) AS has_fronts OFFSET 0) k
      -- Through the panel: a rear port with front ports and one position leaves by it; any other rear port leaves
      -- by the position last entered (popped), which its front ports may not have.
      CROSS JOIN LATERAL (SELECT CASE WHEN k.has_fronts AND h.positions = 1 THEN 1 ELSE w.stack[cardinality(w.stack)] END AS position,
        CASE WHEN k.has_fronts AND h.positions = 1 THEN w.stack ELSE w.stack[1:cardinality(w.stack) - 1] END AS popped OFFSET 0) r
      CROSS JOIN LATERAL (SELECT CASE
          WHEN h.far_type = 'dcim.frontport' AND h.rear IS NOT NULL AND h.positions IS NOT NULL THEN 'dcim.rearport'
          WHEN h.far_type = 'dcim.rearport' THEN 'dcim.frontport'
          ${sql.join(passing.map((k) => sql`WHEN h.far_type = ${k.type} THEN ${k.passThrough!.type}`), sql` `)} END AS type,
        CASE
          WHEN h.far_type = 'dcim.frontport' AND h.positions IS NOT NULL THEN h.rear
          WHEN k.has_fronts THEN (SELECT f.id FROM front_ports f WHERE f.rear_port_id = h.far_id AND f.rear_port_position = r.position AND ${mine('f')} LIMIT 1)
          ${sql.join(passing.map((k) => sql`WHEN h.far_type = ${k.type} THEN (${k.passThrough!.next(sql`h.far_id`, mine)})`), sql` `)}
        END AS id OFFSET 0) nxt
      CROSS JOIN LATERAL (SELECT
        CASE
          WHEN h.cable IS NULL THEN 'no_cable'
          WHEN h.far_id IS NULL THEN 'open_port'
          WHEN h.far_type = 'dcim.interface' THEN 'interface'
          WHEN k.key = ANY(w.seen) THEN 'loop'
          WHEN nxt.id IS NULL THEN CASE WHEN h.far_type = ANY(${endpointTypes()}::text[]) THEN 'endpoint'
            WHEN h.far_type = 'dcim.rearport' AND r.position IS NULL THEN 'ambiguous' ELSE 'open_port' END
          WHEN nxt.type || ':' || nxt.id = k.key OR nxt.type || ':' || nxt.id = ANY(w.seen) THEN 'loop'
        END AS ended,
        coalesce(nxt.type, w.near_type) AS near_type, coalesce(nxt.id, w.near_id) AS near_id,
        CASE WHEN h.far_type = 'dcim.frontport' AND h.positions > 1 THEN w.stack || h.position
          WHEN h.far_type = 'dcim.rearport' THEN r.popped ELSE w.stack END AS stack,
        w.seen || k.key || (nxt.type || ':' || nxt.id) AS seen) nx
      WHERE w.ended IS NULL AND w.step < ${MAX_SEGMENTS}
    )`;
}

function portObject(r: PortRow, origin: string): TraceObject {
  const parent = { object_type: r.parent_type, id: r.device_id, display: r.device, url: `${origin}${requireModel(r.parent_type).path}${r.device_id}/` };
  return {
    id: r.id,
    object_type: r.object_type,
    display: `${r.device}${DISPLAY_SEPARATOR}${r.name}`,
    url: `${origin}${requireModel(r.object_type).path}${r.id}/`,
    name: r.name,
    device: r.parent_type === 'dcim.device' ? { id: parent.id, display: parent.display, url: parent.url } : null,
    parent,
  };
}

/** Brief objects (with their device) of the ports and cables of paths: two queries whatever their number. */
async function describe(db: Kysely<DB>, tenantId: string, ports: Termination[], cables: string[], origin: string): Promise<Map<string, TraceObject>> {
  const out = new Map<string, TraceObject>();
  if (ports.length) {
    // The device by a lookup per port: as a join, PostgreSQL misjudged the ports found and hashed every device.
    const { rows } = await sql<PortRow>`
      SELECT p.object_type, p.id, p.name, p.parent_type, p.parent_id AS device_id, p.parent_name AS device FROM ${cableablePorts()} p
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
      out.set(`dcim.cable:${r.id}`, { id: r.id, object_type: 'dcim.cable', display, url: `${origin}${cableModel.path}${r.id}/`, name: display, device: null, parent: null });
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
  const complete = walk!.ended === 'interface' || walk!.ended === 'endpoint';
  const destination = complete && last?.far ? objects.get(keyOf(last.far)) ?? null : null;
  return { origin: objects.get(keyOf(start))!, segments, destination, ended: walk!.ended! };
}

const traceObjectSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  object_type: Type.String(),
  display: Type.String(),
  url: Type.String(),
  name: Type.String(),
  device: Type.Union([Type.Object({ id: Type.String({ format: 'uuid' }), display: Type.String(), url: Type.String() }), Type.Null()]),
  parent: Type.Union([Type.Object({ object_type: Type.String(), id: Type.String({ format: 'uuid' }), display: Type.String(), url: Type.String() }), Type.Null()]),
});
const maybe = Type.Union([traceObjectSchema, Type.Null()]);

/** GET <port>/trace/: the path in order, each segment a near end, the cable from it and the cable's far end. */
export const traceSchema = Type.Object({
  origin: traceObjectSchema,
  segments: Type.Array(Type.Object({ near_end: traceObjectSchema, cable: maybe, far_end: maybe })),
  destination: maybe,
  ended: Type.Union(['interface', 'endpoint', 'no_cable', 'open_port', 'ambiguous', 'loop', 'too_long'].map((v) => Type.Literal(v))),
});

/**
 * A cable end's far end: the endpoint its trace ends at (an interface, a console server port, a power feed…), through
 * any patch panels and pass-throughs, or null.
 */
export function connectedEndpointOf(type: string): ComputedField {
  return {
    label: 'Connected endpoint',
    kind: 'object',
    schema: maybe as unknown as Record<string, unknown>,
    // Read beside each row of a page (one walk per row, within the page's statement): a page is no query more.
    inline: {
      select: (ctx, alias) => {
        if (!ctx.tenantId) return sql`NULL::json`;
        return sql`(${walkCte((other) => sameTenant(other, alias), sql`(SELECT ${type}::text AS type, ${sql.ref(`${alias}.id`)} AS id, 1 AS n) s`)}
          SELECT json_build_array(far_type, far_id, far_name, far_device_id, far_device, far_parent_type) FROM walk WHERE ended IN ('interface', 'endpoint'))`;
      },
      value: (selected, origin) => {
        if (!Array.isArray(selected)) return null;
        const [object_type, id, name, device_id, device, parent_type] = selected as [string, string, string, string, string, string];
        return portObject({ object_type, id, name, parent_type, device_id, device }, origin);
      },
    },
    async load({ db, ctx, rows, origin }) {
      const out = new Map<string, unknown>();
      if (!ctx.tenantId || rows.length === 0) return out;
      const walks = await walkPaths(db, ctx.tenantId, rows.map((r) => ({ type, id: String(r.id) })));
      walks.forEach((w, i) => {
        // The far end came with the last hop: no query to describe it.
        const last = w.segments[w.segments.length - 1];
        if ((w.ended === 'interface' || w.ended === 'endpoint') && last?.farPort) out.set(String(rows[i]!.id), portObject(last.farPort, origin));
      });
      return out;
    },
  };
}

/** An interface's far end: the interface its trace ends at, through any patch panels, or null. */
export const connectedEndpointField: ComputedField = connectedEndpointOf('dcim.interface');
