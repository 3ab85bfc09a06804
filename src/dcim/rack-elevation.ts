// A rack's elevation: every unit of one face, top to bottom as the rack is drawn, with the device that takes it.
// A full-depth device mounted on the other face takes this face's units too; a half-depth one leaves them free.
// A unit held by a rack reservation carries it (on both faces, as NetBox draws it), device or not.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { modelAllows, scopeCondition } from '../core/access.ts';
import { requireModel } from '../core/registry.ts';
import { briefObject, type ApiObject, type Row } from '../core/crud/serialize.ts';

export type RackFace = 'front' | 'rear';

export interface ElevationUnit {
  /** The unit number, as NetBox's elevation answers it. */
  id: number;
  name: string;
  face: RackFace;
  occupied: boolean;
  /** The device in the unit with where it is mounted, so a drawing can span its height. */
  device: (ApiObject & { face: RackFace; position: number; u_height: number; is_full_depth: boolean; role: (ApiObject & { color: string }) | null }) | null;
  /** The reservation holding the unit, with what it is for and who made it; null when none does. */
  reservation: (ApiObject & { description: string; user: string | null }) | null;
}

export const elevationUnitSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    face: { type: 'string', enum: ['front', 'rear'] },
    occupied: { type: 'boolean' },
    device: {
      type: ['object', 'null'],
      properties: {
        id: { type: 'string', format: 'uuid' },
        url: { type: 'string' },
        display: { type: 'string' },
        name: { type: 'string' },
        face: { type: 'string', enum: ['front', 'rear'] },
        position: { type: 'integer' },
        u_height: { type: 'integer' },
        is_full_depth: { type: 'boolean' },
        role: {
          type: ['object', 'null'],
          description: "The device's role with its colour (six hex digits), which an elevation fills the device with; null when the caller may not view roles.",
          properties: { id: { type: 'string', format: 'uuid' }, url: { type: 'string' }, display: { type: 'string' }, name: { type: 'string' }, color: { type: 'string' } },
        },
      },
    },
    reservation: {
      type: ['object', 'null'],
      properties: {
        id: { type: 'string', format: 'uuid' },
        url: { type: 'string' },
        display: { type: 'string' },
        description: { type: 'string' },
        user: { type: ['string', 'null'], description: 'The username of who made the reservation.' },
      },
    },
  },
};

/**
 * The units of `rack` on `face`; devices and reservations the caller may not view are left out (their units read
 * as free).
 */
export async function rackElevation(db: Kysely<DB>, ctx: RequestContext, rack: Row, face: RackFace, origin: string): Promise<ElevationUnit[]> {
  const devices = requireModel('dcim.device');
  const roles = requireModel('dcim.devicerole');
  // The role's colour fills the device; a caller who may not view roles sees the devices uncoloured.
  const roleJoin = modelAllows(ctx, roles, 'view') ? sql`LEFT JOIN device_roles r ON r.id = d.role_id AND ${scopeCondition(ctx, roles, 'r')}` : sql`LEFT JOIN device_roles r ON false`;
  const { rows } = await sql<Row & { type_height: number; is_full_depth: boolean; role_id: string | null; role_name: string | null; role_color: string | null }>`
    SELECT d.id, d.name, d.position, d.face, t.u_height AS type_height, t.is_full_depth, r.id AS role_id, r.name AS role_name, r.color AS role_color
    FROM devices d JOIN device_types t ON t.id = d.device_type_id ${roleJoin}
    WHERE d.rack_id = ${rack.id} AND d.position IS NOT NULL AND t.u_height > 0 AND (d.face = ${face} OR t.is_full_depth)
      AND ${scopeCondition(ctx, devices, 'd')}
    ORDER BY d.position`.execute(db);
  const byUnit = new Map<number, ElevationUnit['device']>();
  for (const r of rows) {
    const role = r.role_id ? { ...briefObject(roles, { id: r.role_id, name: r.role_name }, origin), color: String(r.role_color) } : null;
    const device = { ...briefObject(devices, r, origin), face: r.face as RackFace, position: Number(r.position), u_height: r.type_height, is_full_depth: r.is_full_depth, role };
    for (let u = device.position; u < device.position + device.u_height; u++) if (!byUnit.has(u)) byUnit.set(u, device);
  }
  const reservations = await reservationsByUnit(db, ctx, rack, origin);
  const bottom = Number(rack.starting_unit);
  const top = bottom + Number(rack.u_height) - 1;
  const units: ElevationUnit[] = [];
  for (let u = top; u >= bottom; u--) {
    const device = byUnit.get(u) ?? null;
    units.push({ id: u, name: `U${u}`, face, occupied: device !== null, device, reservation: reservations.get(u) ?? null });
  }
  // Descending units are numbered from the top: U1 is drawn first.
  return rack.desc_units ? units.reverse() : units;
}

/** Each reserved unit of `rack` with its reservation (none when the caller may not view reservations). */
async function reservationsByUnit(db: Kysely<DB>, ctx: RequestContext, rack: Row, origin: string): Promise<Map<number, ElevationUnit['reservation']>> {
  const out = new Map<number, ElevationUnit['reservation']>();
  const model = requireModel('dcim.rackreservation');
  if (!modelAllows(ctx, model, 'view')) return out;
  const { rows } = await sql<Row & { username: string | null }>`
    SELECT x.id, x.numid, x.description, x.units, u.username FROM rack_reservations x LEFT JOIN users u ON u.id = x.user_id
    WHERE x.rack_id = ${rack.id} AND ${scopeCondition(ctx, model, 'x')} ORDER BY x.created, x.id`.execute(db);
  for (const r of rows) {
    const reservation = { ...briefObject(model, r, origin), description: String(r.description), user: r.username };
    for (const unit of r.units as number[]) if (!out.has(unit)) out.set(unit, reservation);
  }
  return out;
}
