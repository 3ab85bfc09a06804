// The rules of racks and locations: a location's parent and a rack's location belong to its site; a device in a
// rack is in the rack's site, its position fits the rack's units for its type's height, and two devices never
// share a unit on one face (a full-depth type takes both faces). Checked before the write for one row (with an
// advisory lock on the rack, so two concurrent writes cannot both take a free unit), and after the write for
// changes that move many devices at once (bulk updates, a rack or device type changing its height).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import type { HookArgs } from '../core/registry.ts';
import { fieldError } from '../core/errors.ts';
import { callerTenant } from '../core/access.ts';
import { MAX_REGION_DEPTH } from '../organization/models.ts';

type ValidateArgs = HookArgs & { input: Record<string, unknown>; existing: Record<string, unknown> | null };
type UpdateArgs = HookArgs & { before: Record<string, unknown>; row: Record<string, unknown>; inBulk?: boolean };
type UpdateManyArgs = HookArgs & { rows: Array<{ before: Record<string, unknown>; row: Record<string, unknown> }> };

/** The value a write leaves: the input's when sent, else the stored one. */
function merged(input: Record<string, unknown>, existing: Record<string, unknown> | null, key: string, column = key): unknown {
  if (key in input) return input[key] ?? null;
  return existing?.[column] ?? null;
}

const changes = (input: Record<string, unknown>, existing: Record<string, unknown> | null, key: string, column = key) =>
  key in input && (!existing || String(input[key] ?? '') !== String(existing[column] ?? ''));

/** Serialises every placement into one rack until the transaction ends. */
async function lockRack(tx: Kysely<DB>, rackId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`cairn.dcim.rack:${rackId}`}, 0))`.execute(tx);
}

export async function checkLocationPlacement({ tx, ctx, input, existing }: ValidateArgs): Promise<void> {
  const site = merged(input, existing, 'site', 'site_id');
  const parent = merged(input, existing, 'parent', 'parent_id');
  if (typeof parent === 'string' && (changes(input, existing, 'parent', 'parent_id') || changes(input, existing, 'site', 'site_id'))) {
    // Ids of another tenant read as missing here and are answered by the generic reference check.
    const { rows } = await sql<{ name: string; site_id: string }>`SELECT name, site_id FROM locations WHERE id = ${parent} AND ${callerTenant(ctx)}`.execute(tx);
    if (rows[0] && rows[0].site_id !== site) throw fieldError('parent', `${rows[0].name} is a location of another site; a parent location must be in the same site.`);
    if (existing) {
      const { rows: up } = await sql<{ id: string }>`WITH RECURSIVE up(id, parent_id, depth) AS (
          SELECT id, parent_id, 1 FROM locations WHERE id = ${parent} AND ${callerTenant(ctx)}
          UNION ALL SELECT l.id, l.parent_id, up.depth + 1 FROM locations l JOIN up ON l.id = up.parent_id WHERE up.depth < ${MAX_REGION_DEPTH}
        ) SELECT id FROM up`.execute(tx);
      if (up.some((r) => r.id === existing.id)) throw fieldError('parent', 'A location cannot be placed under itself or one of its own locations.');
    }
  }
  if (existing && changes(input, existing, 'site', 'site_id')) {
    const { rows } = await sql<{ racks: number; children: number }>`SELECT
        (SELECT count(*)::int FROM racks WHERE location_id = ${existing.id}) AS racks,
        (SELECT count(*)::int FROM locations WHERE parent_id = ${existing.id}) AS children`.execute(tx);
    const held = rows[0]!;
    if (held.racks || held.children) {
      throw fieldError('site', `${String(existing.name)} holds ${held.racks} rack(s) and ${held.children} location(s) of its site: move them first.`);
    }
  }
}

export async function checkRackChange({ tx, ctx, input, existing }: ValidateArgs): Promise<void> {
  const site = merged(input, existing, 'site', 'site_id');
  const location = merged(input, existing, 'location', 'location_id');
  if (typeof location === 'string' && (changes(input, existing, 'location', 'location_id') || changes(input, existing, 'site', 'site_id'))) {
    const { rows } = await sql<{ name: string; site_id: string }>`SELECT name, site_id FROM locations WHERE id = ${location} AND ${callerTenant(ctx)}`.execute(tx);
    if (rows[0] && rows[0].site_id !== site) throw fieldError('location', `${rows[0].name} is a location of another site; a rack's location must be in the rack's site.`);
  }
  if (existing && changes(input, existing, 'site', 'site_id')) {
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM devices WHERE rack_id = ${existing.id}`.execute(tx);
    if (rows[0]!.n) throw fieldError('site', `${String(existing.name)} holds ${rows[0]!.n} device(s) of its site: take them out before moving the rack.`);
  }
  if (existing && (changes(input, existing, 'u_height') || changes(input, existing, 'starting_unit'))) await lockRack(tx, String(existing.id));
}

interface Placement {
  rack: string;
  position: number | null;
  face: string | null;
}

/** A device's rack, position and face as the write leaves them; refuses the combinations that mean nothing. */
function placementOf(input: Record<string, unknown>, existing: Record<string, unknown> | null): Placement | null {
  const rack = merged(input, existing, 'rack', 'rack_id');
  const position = merged(input, existing, 'position');
  const face = merged(input, existing, 'face');
  if (typeof rack !== 'string') {
    if (position !== null) throw fieldError('position', 'A position needs a rack: set rack too, or clear position.');
    if (face !== null) throw fieldError('face', 'A face needs a rack: set rack too, or clear face.');
    return null;
  }
  if (position !== null && face === null) throw fieldError('face', 'A device with a position needs a face: front or rear.');
  return { rack, position: position === null ? null : Number(position), face: face === null ? null : String(face) };
}

/** Device validate: the rack of the device's site, a position inside the rack, a unit nobody else holds. */
export async function checkDevicePlacement({ tx, ctx, input, existing }: ValidateArgs): Promise<void> {
  const keys = ['rack', 'position', 'face', 'site', 'device_type'];
  if (existing && !keys.some((k) => changes(input, existing, k, k === 'rack' || k === 'site' || k === 'device_type' ? `${k}_id` : k))) return;
  const place = placementOf(input, existing);
  if (!place) return;
  const site = merged(input, existing, 'site', 'site_id');
  const type = merged(input, existing, 'device_type', 'device_type_id');
  const { rows: racks } = await sql<{ name: string; site_id: string; site: string; u_height: number; starting_unit: number }>`
    SELECT r.name, r.site_id, s.name AS site, r.u_height, r.starting_unit FROM racks r JOIN sites s ON s.id = r.site_id
    WHERE r.id = ${place.rack} AND ${callerTenant(ctx, 'r')}`.execute(tx);
  const rack = racks[0];
  // A rack of another tenant reads as missing: the generic reference check answers it.
  if (!rack) return;
  if (rack.site_id !== site) throw fieldError('rack', `Rack ${rack.name} is in ${rack.site}, not in the device's site.`);
  if (place.position === null) return;
  const { rows: types } = await sql<{ model: string; u_height: number; is_full_depth: boolean }>`
    SELECT model, u_height, is_full_depth FROM device_types WHERE id = ${type} AND ${callerTenant(ctx)}`.execute(tx);
  const deviceType = types[0];
  if (!deviceType) return;
  if (deviceType.u_height === 0) throw fieldError('position', `A ${deviceType.model} is 0U: it takes no unit, so leave position empty.`);
  const top = rack.starting_unit + rack.u_height - 1;
  const last = place.position + deviceType.u_height - 1;
  if (place.position < rack.starting_unit || last > top) {
    const span = deviceType.u_height === 1 ? `U${place.position}` : `U${place.position}–U${last}`;
    throw fieldError('position', `${span} is outside rack ${rack.name} (U${rack.starting_unit}–U${top}).`);
  }
  await lockRack(tx, place.rack);
  const { rows: taken } = await sql<{ name: string; unit: number; face: string }>`
    SELECT d.name, greatest(d.position, ${place.position}::int) AS unit,
      CASE WHEN d.face = ${place.face} OR t.is_full_depth THEN ${place.face} ELSE d.face END AS face
    FROM devices d JOIN device_types t ON t.id = d.device_type_id
    WHERE d.rack_id = ${place.rack} AND d.position IS NOT NULL AND d.id IS DISTINCT FROM ${existing?.id ?? null}::uuid AND t.u_height > 0
      AND d.position <= ${last}::int AND d.position + t.u_height - 1 >= ${place.position}::int
      AND (d.face = ${place.face} OR t.is_full_depth OR ${deviceType.is_full_depth}::boolean)
      AND ${callerTenant(ctx, 'd')}
    ORDER BY d.position LIMIT 1`.execute(tx);
  if (taken[0]) throw fieldError('position', `U${taken[0].unit} ${taken[0].face} is taken by ${taken[0].name}.`);
}

/**
 * The placement rules as conditions, for checks over many devices at once (placementProblem, and the NetBox import
 * over a whole tenant). `device`, `type` and `rack` are aliases of a placed device, its type and its rack: outside
 * the rack's units, or a position on a 0U device.
 */
export function placedOutside(device: string, type: string, rack: string): RawBuilder<unknown> {
  const [d, t, r] = [device, type, rack].map((a) => (c: string) => sql.ref(`${a}.${c}`));
  return sql`(${d!('position')} < ${r!('starting_unit')} OR ${d!('position')} + ${t!('u_height')} - 1 > ${r!('starting_unit')} + ${r!('u_height')} - 1
    OR ${t!('u_height')} = 0)`;
}

/** Two placed devices of one rack (aliases, with their types') holding a unit in common, on one face or both. */
export function unitsShared(a: string, aType: string, b: string, bType: string): RawBuilder<unknown> {
  const ref = (alias: string, c: string) => sql.ref(`${alias}.${c}`);
  return sql`${ref(aType, 'u_height')} > 0 AND ${ref(bType, 'u_height')} > 0
    AND ${ref(b, 'position')} <= ${ref(a, 'position')} + ${ref(aType, 'u_height')} - 1 AND ${ref(a, 'position')} <= ${ref(b, 'position')} + ${ref(bType, 'u_height')} - 1
    AND (${ref(a, 'face')} = ${ref(b, 'face')} OR ${ref(aType, 'is_full_depth')} OR ${ref(bType, 'is_full_depth')})`;
}

/** The face on which `a` meets `b` (a full-depth `b` holds `a`'s face too). */
export function sharedFace(a: string, b: string, bType: string): RawBuilder<unknown> {
  return sql`CASE WHEN ${sql.ref(`${a}.face`)} = ${sql.ref(`${b}.face`)} OR ${sql.ref(`${bType}.is_full_depth`)} THEN ${sql.ref(`${a}.face`)} ELSE ${sql.ref(`${b}.face`)} END`;
}

/**
 * After a write that may move many devices at once: the first device of `devices` (a condition on alias `a`)
 * outside its rack or sharing a unit with another, as the stored rows now are; null when all is well.
 */
async function placementProblem(tx: Kysely<DB>, ctx: RequestContext, devices: RawBuilder<unknown>): Promise<string | null> {
  const { rows: outside } = await sql<{ name: string; rack: string; position: number; last: number; bottom: number; top: number }>`
    SELECT a.name, r.name AS rack, a.position, a.position + t.u_height - 1 AS last, r.starting_unit AS bottom, r.starting_unit + r.u_height - 1 AS top
    FROM devices a JOIN device_types t ON t.id = a.device_type_id JOIN racks r ON r.id = a.rack_id
    WHERE ${devices} AND a.position IS NOT NULL AND ${callerTenant(ctx, 'a')} AND ${placedOutside('a', 't', 'r')}
    ORDER BY a.name LIMIT 1`.execute(tx);
  const o = outside[0];
  if (o) return o.last < o.position ? `${o.name} is 0U and cannot hold a position.` : `${o.name} at U${o.position}–U${o.last} would be outside rack ${o.rack} (U${o.bottom}–U${o.top}).`;
  const { rows: shared } = await sql<{ name: string; occupant: string; unit: number; face: string }>`
    SELECT a.name, b.name AS occupant, greatest(a.position, b.position) AS unit, ${sharedFace('a', 'b', 'bt')} AS face
    FROM devices a JOIN device_types at ON at.id = a.device_type_id
    JOIN devices b ON b.rack_id = a.rack_id AND b.id <> a.id AND b.position IS NOT NULL
    JOIN device_types bt ON bt.id = b.device_type_id
    WHERE ${devices} AND a.position IS NOT NULL AND ${callerTenant(ctx, 'a')} AND ${unitsShared('a', 'at', 'b', 'bt')}
    ORDER BY a.name, b.name LIMIT 1`.execute(tx);
  const s = shared[0];
  return s ? `${s.name}: U${s.unit} ${s.face} is taken by ${s.occupant}.` : null;
}

const ids = (rows: Array<{ row: Record<string, unknown> }>) => rows.map((r) => String(r.row.id));

/** Devices bulk-updated into one rack: each was checked against the others as stored, not against each other. */
export async function checkDevicesPlacedTogether({ tx, ctx, rows }: UpdateManyArgs): Promise<void> {
  const moved = rows.filter(({ before, row }) => row.rack_id !== before.rack_id || row.position !== before.position || row.face !== before.face || row.device_type_id !== before.device_type_id);
  if (moved.length < 2) return;
  const problem = await placementProblem(tx, ctx, sql`a.id = ANY(${ids(moved)}::uuid[])`);
  if (problem) throw fieldError('position', problem);
}

/** A rack made shorter, or renumbered, keeps every device inside it. */
export const rackResized = {
  async afterUpdate({ tx, ctx, before, row, inBulk }: UpdateArgs): Promise<void> {
    if (inBulk || (row.u_height === before.u_height && row.starting_unit === before.starting_unit)) return;
    const problem = await placementProblem(tx, ctx, sql`a.rack_id = ${row.id}`);
    if (problem) throw fieldError('u_height', problem);
  },
  async afterUpdateMany({ tx, ctx, rows }: UpdateManyArgs): Promise<void> {
    const resized = rows.filter(({ before, row }) => row.u_height !== before.u_height || row.starting_unit !== before.starting_unit);
    if (resized.length === 0) return;
    const problem = await placementProblem(tx, ctx, sql`a.rack_id = ANY(${ids(resized)}::uuid[])`);
    if (problem) throw fieldError('u_height', problem);
  },
};

/** A device type made taller or full-depth keeps its mounted devices inside their racks and apart. */
export const deviceTypeResized = {
  async afterUpdate({ tx, ctx, before, row, inBulk }: UpdateArgs): Promise<void> {
    if (inBulk || (row.u_height === before.u_height && row.is_full_depth === before.is_full_depth)) return;
    const problem = await placementProblem(tx, ctx, sql`a.device_type_id = ${row.id}`);
    if (problem) throw fieldError(row.u_height !== before.u_height ? 'u_height' : 'is_full_depth', problem);
  },
  async afterUpdateMany({ tx, ctx, rows }: UpdateManyArgs): Promise<void> {
    const resized = rows.filter(({ before, row }) => row.u_height !== before.u_height || row.is_full_depth !== before.is_full_depth);
    if (resized.length === 0) return;
    const problem = await placementProblem(tx, ctx, sql`a.device_type_id = ANY(${ids(resized)}::uuid[])`);
    if (problem) throw fieldError('u_height', problem);
  },
};
