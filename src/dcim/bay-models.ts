// Device bays (NetBox's DeviceBay, DeviceBayTemplate and SubdeviceRoleChoices): a parent device (a blade chassis)
// has bays, each holding at most one child device (a blade), which takes its parent's site and rack. Module bays
// and device bays of a new device are made from its type's templates, as its interfaces are.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { defineModel, requireModel, type HookArgs } from '../core/registry.ts';
import { callerTenant } from '../core/access.ts';
import { ErrorCollector, fieldError } from '../core/errors.ts';
import { insertRows } from '../core/crud/insert-rows.ts';
import { updateRows } from '../core/crud/update-rows.ts';
import { registerDeviceMaterializer } from './service.ts';
import './module-choices.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

type ValidateArgs = HookArgs & { input: Record<string, unknown>; existing: Record<string, unknown> | null };

function after(input: Record<string, unknown>, existing: Record<string, unknown> | null, key: string, column = `${key}_id`): unknown {
  return key in input ? input[key] : existing?.[column] ?? null;
}

/** Device bay templates are for parent device types only (NetBox's DeviceBayTemplate.clean). */
async function checkBayTemplate({ tx, ctx, input, existing }: ValidateArgs): Promise<void> {
  const type = after(input, existing, 'device_type');
  if (typeof type !== 'string') return;
  const { rows } = await sql<{ model: string; subdevice_role: string | null }>`SELECT model, subdevice_role FROM device_types WHERE id = ${type} AND ${callerTenant(ctx)}`.execute(tx);
  if (rows[0] && rows[0].subdevice_role !== 'parent') {
    throw fieldError('device_type', `${rows[0].model} is not a parent device type: set its subdevice role to parent to give it device bays.`);
  }
}

export const deviceBayTemplateModel = defineModel({
  name: 'dcim.devicebaytemplate',
  table: 'device_bay_templates',
  path: '/api/device-bay-templates/',
  label: 'device bay template',
  tenantScoped: true,
  displayParent: ['device_type'],
  fields: {
    device_type: { kind: 'fk', target: 'dcim.devicetype', onDelete: 'cascade', help: 'A device type whose subdevice role is parent.' },
    name: { kind: 'string', maxLength: 64, naturalOrder: true },
    label: { kind: 'string', maxLength: 64, default: '', help: 'The name printed on the device, if it differs.' },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'label', 'description'],
  defaultOrdering: ['device_type', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: { validate: checkBayTemplate },
});

/**
 * NetBox's DeviceBay.clean: the bay's device is of a parent type; the installed device is another device, of a
 * child type, in no other bay (the unique key on installed_device settles races).
 */
async function checkDeviceBay({ tx, ctx, input, existing }: ValidateArgs): Promise<void> {
  const device = after(input, existing, 'device');
  const installed = after(input, existing, 'installed_device');
  if (typeof device !== 'string') return;
  const ids = typeof installed === 'string' ? [device, installed] : [device];
  const { rows } = await sql<{ id: string; name: string; model: string; role: string | null; bay: string | null; bay_id: string | null; parent: string | null }>`
    SELECT d.id, d.name, t.model, t.subdevice_role AS role, b.name AS bay, b.id AS bay_id, p.name AS parent
    FROM devices d JOIN device_types t ON t.id = d.device_type_id
    LEFT JOIN device_bays b ON b.installed_device_id = d.id LEFT JOIN devices p ON p.id = b.device_id
    WHERE d.id = ANY(${ids}::uuid[]) AND ${callerTenant(ctx, 'd')}`.execute(tx);
  const parent = rows.find((r) => r.id === device);
  const child = rows.find((r) => r.id === installed);
  const errors = new ErrorCollector();
  if (parent && parent.role !== 'parent') errors.add('device', `${parent.name} is a ${parent.model}, not a parent device type: only devices of a parent type have device bays.`);
  if (typeof installed === 'string' && installed === device) errors.add('installed_device', 'A device cannot be installed in a bay of itself.');
  else if (child && child.role !== 'child') errors.add('installed_device', `${child.name} is a ${child.model}, not a child device type: only devices of a child type go in a device bay.`);
  else if (child && child.bay_id && child.bay_id !== existing?.id) errors.add('installed_device', `${child.name} is already installed in ${child.parent} › ${child.bay}.`);
  errors.throwIfAny();
}

/** NetBox's rule: a child device is where its parent is (site and rack, no unit of its own). */
async function placeChildren(tx: Kysely<DB>, ctx: RequestContext, parentIds: string[]): Promise<void> {
  if (parentIds.length === 0) return;
  const { rows } = await sql<{ id: string; site_id: string; rack_id: string | null }>`SELECT c.id, p.site_id, p.rack_id
    FROM device_bays b JOIN devices p ON p.id = b.device_id JOIN devices c ON c.id = b.installed_device_id
    WHERE b.device_id = ANY(${parentIds}::uuid[]) AND ${callerTenant(ctx, 'b')}
      AND (c.site_id IS DISTINCT FROM p.site_id OR c.rack_id IS DISTINCT FROM p.rack_id OR c.position IS NOT NULL)`.execute(tx);
  await updateRows(tx, ctx, requireModel('dcim.device'), rows.map((r) => ({ id: r.id, columns: { site_id: r.site_id, rack_id: r.rack_id, position: null, face: null } })));
}

export const deviceBayModel = defineModel({
  name: 'dcim.devicebay',
  table: 'device_bays',
  path: '/api/device-bays/',
  label: 'device bay',
  tenantScoped: true,
  displayParent: ['device'],
  fields: {
    device: { kind: 'fk', target: 'dcim.device', onDelete: 'cascade', help: 'A device of a parent device type.' },
    name: { kind: 'string', maxLength: 64, naturalOrder: true },
    label: { kind: 'string', maxLength: 64, default: '', help: 'The name printed on the device, if it differs.' },
    installed_device: { kind: 'fk', target: 'dcim.device', nullable: true, onDelete: 'set_null', help: 'A device of a child device type, in no other bay; it takes this device\'s site and rack.' },
    description: { kind: 'string', maxLength: 200, default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'label', 'description'],
  defaultOrdering: ['device', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    validate: checkDeviceBay,
    afterCreate: ({ tx, ctx, row }) => placeChildren(tx, ctx, [String(row.device_id)]),
    afterUpdate: ({ tx, ctx, row }) => placeChildren(tx, ctx, [String(row.device_id)]),
    afterUpdateMany: ({ tx, ctx, rows }) => placeChildren(tx, ctx, [...new Set(rows.map((r) => String(r.row.device_id)))]),
  },
});

/** A parent device moved (site or rack) takes its children along: hooked on dcim.device in models.ts. */
export async function moveChildrenWithParents(tx: Kysely<DB>, ctx: RequestContext, rows: Array<{ before: Record<string, unknown>; row: Record<string, unknown> }>): Promise<void> {
  const moved = rows.filter(({ before, row }) => before.site_id !== row.site_id || before.rack_id !== row.rack_id).map(({ row }) => String(row.id));
  await placeChildren(tx, ctx, moved);
}

/**
 * A device type's subdevice role (NetBox's DeviceType.clean): a child type is 0U (it sits in a bay, not in rack
 * units), and a type keeps the parent role while it has device bay templates.
 */
export async function checkSubdeviceRole({ tx, input, existing }: ValidateArgs): Promise<void> {
  const role = 'subdevice_role' in input ? input.subdevice_role : existing?.subdevice_role ?? null;
  const height = 'u_height' in input ? input.u_height : existing?.u_height ?? 1;
  if (role === 'child' && height !== 0) throw fieldError('u_height', 'A child device type sits in a device bay, not in rack units: set its height to 0.');
  if (existing && existing.subdevice_role === 'parent' && role !== 'parent') {
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM device_bay_templates WHERE device_type_id = ${existing.id}`.execute(tx);
    if ((rows[0]?.n ?? 0) > 0) throw fieldError('subdevice_role', `This type has ${rows[0]!.n} device bay template${rows[0]!.n === 1 ? '' : 's'}: delete them before it stops being a parent.`);
  }
}

/** A new device's module bays and device bays, from its type's templates: one insert per table. */
async function materializeBays({ tx, ctx, row }: HookArgs & { row: Record<string, unknown> }): Promise<void> {
  const { rows: moduleBays } = await sql<{ name: string; label: string; position: string; description: string }>`
    SELECT name, label, position, description FROM module_bay_templates WHERE device_type_id = ${row.device_type_id} AND ${callerTenant(ctx)} ORDER BY name_natural`.execute(tx);
  await insertRows(tx, ctx, requireModel('dcim.modulebay'), moduleBays.map((t) => ({ ...t, device_id: row.id })), { skipExistingOn: ['device_id', 'name'] });
  const { rows: deviceBays } = await sql<{ name: string; label: string; description: string }>`
    SELECT name, label, description FROM device_bay_templates WHERE device_type_id = ${row.device_type_id} AND ${callerTenant(ctx)} ORDER BY name_natural`.execute(tx);
  await insertRows(tx, ctx, requireModel('dcim.devicebay'), deviceBays.map((t) => ({ ...t, device_id: row.id })), { skipExistingOn: ['device_id', 'name'] });
}

registerDeviceMaterializer(materializeBays);
