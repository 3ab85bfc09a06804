// Rack types (NetBox 4.1: a make and model of rack whose physical attributes a rack copies) and rack reservations
// (units of a rack held for someone, drawn on the rack's elevation). A reservation's units exist in its rack and
// no unit is held by two reservations of one rack; checked under the rack's lock, as device placements are.
import { sql } from 'kysely';
import { defineModel, requireModel, type ComputedField, type HookArgs, type ModelHooks } from '../core/registry.ts';
import { callerTenant } from '../core/access.ts';
import { fieldError } from '../core/errors.ts';
import { ownerField } from '../organization/owners.ts';
import './rack-type-choices.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

type Row = Record<string, unknown>;

export const rackTypeModel = defineModel({
  name: 'dcim.racktype',
  table: 'rack_types',
  path: '/api/rack-types/',
  label: 'rack type',
  tenantScoped: true,
  displayField: 'model',
  displayParent: ['manufacturer'],
  fields: {
    manufacturer: { kind: 'fk', target: 'dcim.manufacturer', onDelete: 'protect' },
    // Unique per manufacturer (database constraints).
    model: { kind: 'string', maxLength: 100 },
    slug: { kind: 'slug', maxLength: 100 },
    form_factor: { kind: 'choice', vocabulary: 'rack_form_factors' },
    width: { kind: 'choice', vocabulary: 'rack_widths', default: '19', help: 'Rail-to-rail width.' },
    u_height: { kind: 'integer', min: 1, max: 100, default: 42, label: 'Height (U)' },
    starting_unit: { kind: 'integer', min: 1, max: 1000, default: 1, help: 'The number of the lowest unit.' },
    desc_units: { kind: 'boolean', label: 'Descending units', help: 'Units numbered from the top down.' },
    outer_width: { kind: 'integer', nullable: true, min: 0, max: 32767, help: 'Outer dimension of the rack (width).' },
    outer_height: { kind: 'integer', nullable: true, min: 0, max: 32767, help: 'Outer dimension of the rack (height).' },
    outer_depth: { kind: 'integer', nullable: true, min: 0, max: 32767, help: 'Outer dimension of the rack (depth).' },
    outer_unit: { kind: 'choice', vocabulary: 'rack_dimension_units', nullable: true, label: 'Outer unit' },
    weight: { kind: 'decimal', nullable: true, min: 0, max: 999_999.99 },
    weight_unit: { kind: 'choice', vocabulary: 'weight_units', nullable: true },
    max_weight: { kind: 'integer', nullable: true, min: 0, max: 2_147_483_647, label: 'Maximum weight', help: 'Maximum load capacity of the rack.' },
    mounting_depth: { kind: 'integer', nullable: true, min: 0, max: 32767, label: 'Mounting depth (mm)', help: 'Maximum depth of a mounted device; for a four-post rack, the distance between the front and rear rails.' },
    description: { kind: 'string', maxLength: 200, default: '' },
    comments: { kind: 'text', default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['model', 'slug', 'description'],
  defaultOrdering: ['manufacturer', 'model'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ input, existing }) {
      const has = (key: string) => {
        const v = key in input ? input[key] : existing?.[key];
        return v !== null && v !== undefined;
      };
      if (has('weight') && !has('weight_unit')) throw fieldError('weight_unit', 'A weight needs its unit: kg, g, lb or oz.');
      if (has('max_weight') && !has('weight_unit')) throw fieldError('weight_unit', 'A maximum weight needs its unit: kg, g, lb or oz.');
      if ((has('outer_width') || has('outer_height') || has('outer_depth')) && !has('outer_unit')) throw fieldError('outer_unit', 'Outer dimensions need their unit: mm or in.');
    },
  },
});

/** The rack attributes a rack type sets (NetBox's RACKTYPE_FIELDS, as far as a Cairn rack has them). */
export const RACK_TYPE_ATTRIBUTES = ['width', 'u_height', 'starting_unit', 'desc_units'] as const;

/**
 * Rack validate: a rack with a type takes the type's physical attributes; a value sent that differs from the
 * type's is refused (clear rack_type to set your own), values not sent (or, on create, sent as the field's
 * default) are copied after the write.
 */
export const checkRackTypeAttributes: NonNullable<ModelHooks['validate']> = async ({ tx, ctx, input, existing }) => {
  const type = 'rack_type' in input ? input.rack_type : existing?.rack_type_id;
  const rackModel = requireModel('dcim.rack');
  if (typeof type !== 'string') return;
  if (!RACK_TYPE_ATTRIBUTES.some((k) => k in input) && !('rack_type' in input)) return;
  const { rows } = await sql<Row>`SELECT model, width, u_height, starting_unit, desc_units FROM rack_types WHERE id = ${type} AND ${callerTenant(ctx)}`.execute(tx);
  const rackType = rows[0];
  if (!rackType) return;
  for (const key of RACK_TYPE_ATTRIBUTES) {
    // A create's input holds the field defaults (42U, 19 inches…) for what was not sent: those read as not given.
    const given = key in input && (existing !== null || String(input[key]) !== String(rackModel.fields[key]?.default ?? false));
    if (given && String(input[key]) !== String(rackType[key])) {
      throw fieldError(key, `Rack type ${String(rackType.model)} sets ${key} to ${String(rackType[key])}: send that value, or clear rack_type to set your own.`);
    }
  }
};

/** After a rack's write: the type's attributes copied onto it (the row answered and logged included). */
export async function copyRackTypeAttributes({ tx, ctx, rows }: HookArgs & { rows: Row[] }): Promise<void> {
  const ids = rows.filter((r) => typeof r.rack_type_id === 'string').map((r) => String(r.id));
  if (ids.length === 0) return;
  const { rows: copied } = await sql<Row>`UPDATE racks r SET width = t.width, u_height = t.u_height, starting_unit = t.starting_unit, desc_units = t.desc_units
    FROM rack_types t WHERE t.id = r.rack_type_id AND r.id = ANY(${ids}::uuid[]) AND ${callerTenant(ctx, 'r')}
      AND (r.width, r.u_height, r.starting_unit, r.desc_units) IS DISTINCT FROM (t.width, t.u_height, t.starting_unit, t.desc_units)
    RETURNING r.*`.execute(tx);
  const byId = new Map(copied.map((c) => [String(c.id), c]));
  for (const r of rows) {
    const c = byId.get(String(r.id));
    if (c) Object.assign(r, c);
  }
}

/** Reservation validate: units listed once each, inside the rack, and held by no other reservation of the rack. */
async function checkReservationUnits({ tx, ctx, input, existing }: HookArgs & { input: Row; existing: Row | null }): Promise<void> {
  if (!('units' in input) && !('rack' in input)) return;
  const rack = 'rack' in input ? input.rack : existing?.rack_id;
  const units = ('units' in input ? input.units : existing?.units) as number[] | null;
  if (typeof rack !== 'string' || !Array.isArray(units)) return;
  if (units.length === 0) throw fieldError('units', 'Reserve at least one unit.');
  const repeated = units.find((u, i) => units.indexOf(u) !== i);
  if (repeated !== undefined) throw fieldError('units', `U${repeated} is listed twice.`);
  const { rows } = await sql<{ name: string; u_height: number; starting_unit: number }>`SELECT name, u_height, starting_unit FROM racks
    WHERE id = ${rack} AND ${callerTenant(ctx)}`.execute(tx);
  const r = rows[0];
  // A rack of another tenant reads as missing: the generic reference check answers it.
  if (!r) return;
  const top = r.starting_unit + r.u_height - 1;
  const outside = units.filter((u) => u < r.starting_unit || u > top);
  if (outside.length) throw fieldError('units', `${outside.map((u) => `U${u}`).join(', ')} ${outside.length === 1 ? 'is' : 'are'} not in rack ${r.name} (U${r.starting_unit}–U${top}).`);
  // Serialises reservations and placements of one rack (the lock device placements take), so two writes cannot
  // both take a free unit.
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`cairn.dcim.rack:${rack}`}, 0))`.execute(tx);
  const { rows: taken } = await sql<{ unit: number; description: string; numid: string }>`
    SELECT u.unit, x.description, x.numid::text FROM rack_reservations x, unnest(x.units) AS u(unit)
    WHERE x.rack_id = ${rack} AND x.id IS DISTINCT FROM ${existing?.id ?? null}::uuid AND u.unit = ANY(${units}::int[]) AND ${callerTenant(ctx, 'x')}
    ORDER BY u.unit LIMIT 1`.execute(tx);
  const t = taken[0];
  if (t) throw fieldError('units', `U${t.unit} of rack ${r.name} is already reserved (${t.description || `reservation #${t.numid}`}).`);
}

/** Units as people read them, runs joined: [10, 11, 12, 15] → "U10–U12, U15". */
export function unitRuns(units: readonly number[]): string {
  const sorted = [...units].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    runs.push(j > i ? `U${sorted[i]}–U${sorted[j]}` : `U${sorted[i]}`);
    i = j;
  }
  return runs.join(', ');
}

/** The reserved units as text, for list columns and the Overview (a list of numbers has no column of its own). */
const reservedUnitsField: ComputedField = {
  label: 'Reserved units',
  kind: 'text',
  schema: { type: 'string' },
  async load({ rows }) {
    return new Map(rows.map((r) => [String(r.id), unitRuns(Array.isArray(r.units) ? (r.units as number[]) : [])]));
  },
};

export const rackReservationModel = defineModel({
  name: 'dcim.rackreservation',
  table: 'rack_reservations',
  path: '/api/rack-reservations/',
  label: 'rack reservation',
  tenantScoped: true,
  displayField: 'description',
  displayParent: ['rack'],
  fields: {
    rack: { kind: 'fk', target: 'dcim.rack', onDelete: 'cascade' },
    units: { kind: 'integer_list', min: 1, max: 1100, help: 'Unit numbers of the rack, e.g. 10, 11, 12.' },
    status: { kind: 'choice', vocabulary: 'rack_reservation_statuses', default: 'active' },
    // Who made it: the caller, set by the server (NetBox's reservation user, defaulting to the requester).
    user: { kind: 'fk', target: 'users.user', readOnly: true, nullable: true, onDelete: 'set_null' },
    owner: ownerField,
    description: { kind: 'string', maxLength: 200, default: '' },
    comments: { kind: 'text', default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  computed: { reserved_units: reservedUnitsField },
  searchFields: ['description', 'comments'],
  defaultOrdering: ['created'],
  createDefaults: (ctx) => ({ user_id: ctx.via === 'system' ? null : ctx.user?.id ?? null }),
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: { validate: checkReservationUnits },
});
