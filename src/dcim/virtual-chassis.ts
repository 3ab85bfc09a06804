// Virtual chassis (NetBox's VirtualChassis): member devices managed as one (a stack), each at its own position,
// one of them the master. A member's interfaces are listed together with the chassis' (the interface filter
// virtual_chassis_member, NetBox's vc_interfaces), and a device's render context reaches its chassis through
// `device.virtual_chassis` (name, domain, master, members).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { defineModel, requireModel, type FieldDef, type HookArgs } from '../core/registry.ts';
import { callerTenant } from '../core/access.ts';
import { ErrorCollector, fieldError } from '../core/errors.ts';
import { updateRows } from '../core/crud/update-rows.ts';
import { addListFilters } from '../core/crud/read.ts';
import type { CustomFilter } from '../core/crud/list-query.ts';
import { isUuid } from '../core/ids.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

type ValidateArgs = HookArgs & { input: Record<string, unknown>; existing: Record<string, unknown> | null };

const vcNumber = (label: string, help: string): FieldDef => ({ kind: 'integer', nullable: true, min: 0, max: 255, label, help });

/**
 * The device fields of chassis membership. `relatedName` names the reverse list a template reads
 * (`device.virtual_chassis.members`), as NetBox's related_name does.
 */
export const deviceChassisFields: Record<string, FieldDef> = {
  virtual_chassis: { kind: 'fk', target: 'dcim.virtualchassis', nullable: true, onDelete: 'set_null', relatedName: 'members' },
  vc_position: vcNumber('Position in chassis', 'Required with a virtual chassis; each member has its own (0 to 255).'),
  vc_priority: vcNumber('Chassis priority', 'Master election priority (0 to 255).'),
};

/**
 * NetBox's Device.clean for members: a member has a position, free in its chassis (the unique key on
 * (virtual_chassis, vc_position) settles races), and the master cannot leave its chassis.
 */
export async function checkChassisMembership({ tx, ctx, input, existing }: ValidateArgs): Promise<void> {
  const keys = ['virtual_chassis', 'vc_position'];
  if (!keys.some((k) => k in input)) return;
  const chassis = 'virtual_chassis' in input ? input.virtual_chassis : existing?.virtual_chassis_id ?? null;
  const position = 'vc_position' in input ? input.vc_position : existing?.vc_position ?? null;
  const errors = new ErrorCollector();
  if (existing && existing.virtual_chassis_id && chassis !== existing.virtual_chassis_id) {
    const { rows } = await sql<{ name: string }>`SELECT name FROM virtual_chassis WHERE id = ${existing.virtual_chassis_id} AND master_id = ${existing.id}`.execute(tx);
    if (rows[0]) errors.add('virtual_chassis', `This device is the master of ${rows[0].name}: choose another master before it leaves the chassis.`);
  }
  if (typeof chassis === 'string') {
    if (position === null || position === undefined) errors.add('vc_position', 'A member of a virtual chassis needs a position in it.');
    else {
      const { rows } = await sql<{ name: string }>`SELECT name FROM devices WHERE virtual_chassis_id = ${chassis} AND vc_position = ${position}
        AND id IS DISTINCT FROM ${existing?.id ?? null}::uuid AND ${callerTenant(ctx)}`.execute(tx);
      if (rows[0]) errors.add('vc_position', `Position ${String(position)} of this chassis is taken by ${rows[0].name}.`);
    }
  }
  errors.throwIfAny();
}

/** The master is a member (NetBox's VirtualChassis.clean); a new chassis' master joins it at position 1. */
async function checkMaster({ tx, ctx, input, existing }: ValidateArgs): Promise<void> {
  const master = 'master' in input ? input.master : undefined;
  if (typeof master !== 'string') return;
  const { rows } = await sql<{ name: string; virtual_chassis_id: string | null }>`SELECT name, virtual_chassis_id FROM devices WHERE id = ${master} AND ${callerTenant(ctx)}`.execute(tx);
  const device = rows[0];
  if (!device) return;
  if (existing && device.virtual_chassis_id !== existing.id) throw fieldError('master', `${device.name} is not a member of this virtual chassis: add it first (its virtual chassis and position).`);
  if (!existing && device.virtual_chassis_id) throw fieldError('master', `${device.name} is already a member of another virtual chassis.`);
}

async function joinMaster({ tx, ctx, row }: HookArgs & { row: Record<string, unknown> }): Promise<void> {
  if (typeof row.master_id !== 'string') return;
  await updateRows(tx, ctx, requireModel('dcim.device'), [{ id: row.master_id, columns: { virtual_chassis_id: row.id, vc_position: 1 } }]);
}

/** A chassis deleted leaves its members without position or priority (NetBox's clear_virtualchassis_members). */
async function releaseMembers(tx: Kysely<DB>, ctx: RequestContext, chassisIds: string[]): Promise<void> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM devices WHERE virtual_chassis_id = ANY(${chassisIds}::uuid[]) AND ${callerTenant(ctx)}`.execute(tx);
  await updateRows(tx, ctx, requireModel('dcim.device'), rows.map((r) => ({ id: r.id, columns: { virtual_chassis_id: null, vc_position: null, vc_priority: null } })));
}

export const virtualChassisModel = defineModel({
  name: 'dcim.virtualchassis',
  table: 'virtual_chassis',
  path: '/api/virtual-chassis/',
  label: 'virtual chassis',
  labelPlural: 'virtual chassis',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 64 },
    domain: { kind: 'string', maxLength: 30, default: '', help: 'The chassis\' management domain, if any.' },
    master: { kind: 'fk', target: 'dcim.device', nullable: true, onDelete: 'set_null', help: 'A member device; a new chassis\' master joins it at position 1.', pickerFilters: { virtual_chassis_id: '$self' } },
    description: { kind: 'string', maxLength: 200, default: '' },
    comments: { kind: 'text', default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'domain', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    validate: checkMaster,
    afterCreate: joinMaster,
    beforeDelete: ({ tx, ctx, row }) => releaseMembers(tx, ctx, [String(row.id)]),
    beforeDeleteMany: ({ tx, ctx, rows }) => releaseMembers(tx, ctx, rows.map((r) => String(r.id))),
  },
});

/**
 * NetBox's virtual_chassis_member filter (Device.vc_interfaces): a device's own interfaces and, when it is in a
 * virtual chassis, every member's interfaces that are not management-only: what a master's Interfaces tab lists.
 */
const virtualChassisMember: CustomFilter = (values, alias) => {
  const ids = values.filter((v) => isUuid(v)).map((v) => v.toLowerCase());
  if (ids.length !== values.length) return { error: 'Expected a device id.' };
  const device = sql.ref(`${alias}.device_id`);
  return sql`(${device} = ANY(${ids}::uuid[]) OR (NOT ${sql.ref(`${alias}.mgmt_only`)} AND ${device} IN (
    SELECT m.id FROM devices m JOIN devices d ON d.virtual_chassis_id = m.virtual_chassis_id WHERE d.id = ANY(${ids}::uuid[]))))`;
};

addListFilters('dcim.interface', { virtual_chassis_member: virtualChassisMember });
