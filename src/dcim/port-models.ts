// Front and rear ports (patch panels, cassettes) on devices, and their templates on device types. A rear port
// carries `positions` strands; each front port maps to one position of a rear port of the same device, and a
// trace (trace.ts) crosses a panel through that mapping.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { defineModel } from '../core/registry.ts';
import { ErrorCollector } from '../core/errors.ts';
import { DISPLAY_SEPARATOR } from '../core/crud/serialize.ts';
import { deleteCablesLosingAnEnd, deleteCablesOfRearPorts, linkPeerOf } from './cabling.ts';
import { registerCableEnd } from './cable-ends.ts';

const onDevice = { model: 'dcim.device', table: 'devices', column: 'device_id', nameColumn: 'name' };
// A panel passes whatever it is patched to: NetBox's pairs for front and rear ports.
const panelCompatible = ['dcim.interface', 'dcim.frontport', 'dcim.rearport', 'dcim.consoleport', 'dcim.consoleserverport', 'circuits.circuittermination'];
// Traces cross panels by the front/rear mapping (trace.ts), not by a pass-through of their own.
registerCableEnd({
  type: 'dcim.frontport', table: 'front_ports', parent: onDevice, endpoint: false, compatible: panelCompatible,
  columns: { rear_port_id: 'x.rear_port_id', rear_port_position: 'x.rear_port_position' },
});
registerCableEnd({ type: 'dcim.rearport', table: 'rear_ports', parent: onDevice, endpoint: false, compatible: panelCompatible, columns: { positions: 'x.positions' } });
import { checkComponentModule, checkTemplateOwner, componentModuleField, templateDeviceTypeField, templateModuleTypeField } from './template-owner.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

const positions = { kind: 'integer', min: 1, max: 1024, default: 1, help: 'How many front-port positions this rear port carries (1 to 1024).' } as const;
const position = { kind: 'integer', min: 1, max: 1024, default: 1, label: 'Rear port position', help: 'The position of the rear port this front port maps to.' } as const;

/**
 * A front port (or its template) maps to a position its rear port has, on the same device (or type), and no
 * other front port holds that position. The unique key (rear_port_id, rear_port_position) settles races.
 */
async function checkFrontPortMapping(
  tx: Kysely<DB>,
  input: Record<string, unknown>,
  existing: Record<string, unknown> | null,
  tables: { front: string; rear: string; owner: 'device' | 'device_type' | 'module_type' },
): Promise<void> {
  const ownerCol = `${tables.owner}_id`;
  const owner = tables.owner in input ? input[tables.owner] : existing?.[ownerCol];
  const rear = 'rear_port' in input ? input.rear_port : existing?.rear_port_id;
  const pos = 'rear_port_position' in input ? input.rear_port_position : existing?.rear_port_position ?? 1;
  if (typeof rear !== 'string' || typeof owner !== 'string' || typeof pos !== 'number') return;
  const { rows } = await sql<{ owner_id: string; name: string; positions: number; owner_name: string | null; taken_by: string | null }>`
    SELECT r.${sql.ref(ownerCol)} AS owner_id, r.name, r.positions, ${sql.ref(tables.owner === 'device' ? 'o.name' : 'o.model')} AS owner_name,
      (SELECT f.name FROM ${sql.table(tables.front)} f WHERE f.rear_port_id = r.id AND f.rear_port_position = ${pos}
        AND f.id IS DISTINCT FROM ${existing?.id ?? null}::uuid LIMIT 1) AS taken_by
    FROM ${sql.table(tables.rear)} r LEFT JOIN ${sql.table(tables.owner === 'device' ? 'devices' : `${tables.owner}s`)} o ON o.id = r.${sql.ref(ownerCol)}
    WHERE r.id = ${rear}`.execute(tx);
  const r = rows[0];
  if (!r) return;
  const errors = new ErrorCollector();
  const what = tables.owner === 'device' ? 'device' : tables.owner === 'device_type' ? 'device type' : 'module type';
  if (r.owner_id !== owner) errors.add('rear_port', `${r.owner_name ?? 'A rear port template'}${DISPLAY_SEPARATOR}${r.name} is on another ${what}: a front port maps to a rear port of its own ${what}.`);
  else if (pos > r.positions) errors.add('rear_port_position', `${r.name} has ${r.positions} position${r.positions === 1 ? '' : 's'}; choose 1 to ${r.positions}.`);
  else if (r.taken_by) errors.add('rear_port_position', `Position ${pos} of ${r.name} is already mapped to front port ${r.taken_by}.`);
  errors.throwIfAny();
}

/** A rear port keeps at least as many positions as its front ports use, and stays on the device they are on. */
async function checkRearPortChange(tx: Kysely<DB>, input: Record<string, unknown>, existing: Record<string, unknown> | null, front: string, ownerCol: string): Promise<void> {
  if (!existing) return;
  const errors = new ErrorCollector();
  const { rows } = await sql<{ used: number | null; fronts: number }>`SELECT max(rear_port_position) AS used, count(*)::int AS fronts
    FROM ${sql.table(front)} WHERE rear_port_id = ${existing.id}`.execute(tx);
  const used = rows[0]?.used ?? 0;
  if (typeof input.positions === 'number' && input.positions < used) errors.add('positions', `A front port maps to position ${used}: keep at least ${used} positions.`);
  const ownerKey = ownerCol.replace(/_id$/, '');
  if (ownerKey in input && input[ownerKey] !== existing[ownerCol] && (rows[0]?.fronts ?? 0) > 0) {
    errors.add(ownerKey, 'Front ports map to this rear port: move or delete them first.');
  }
  errors.throwIfAny();
}

export const rearPortTemplateModel = defineModel({
  name: 'dcim.rearporttemplate',
  table: 'rear_port_templates',
  path: '/api/rear-port-templates/',
  label: 'rear port template',
  tenantScoped: true,
  displayParent: ['device_type', 'module_type'],
  fields: {
    device_type: templateDeviceTypeField,
    module_type: templateModuleTypeField,
    name: { kind: 'string', maxLength: 64, naturalOrder: true },
    type: { kind: 'choice', vocabulary: 'port_types' },
    positions,
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['device_type', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, input, existing }) {
      const owner = checkTemplateOwner({ input, existing });
      await checkRearPortChange(tx, input, existing, 'front_port_templates', `${owner}_id`);
    },
  },
});

export const frontPortTemplateModel = defineModel({
  name: 'dcim.frontporttemplate',
  table: 'front_port_templates',
  path: '/api/front-port-templates/',
  label: 'front port template',
  tenantScoped: true,
  displayParent: ['device_type', 'module_type'],
  fields: {
    device_type: templateDeviceTypeField,
    module_type: templateModuleTypeField,
    name: { kind: 'string', maxLength: 64, naturalOrder: true },
    type: { kind: 'choice', vocabulary: 'port_types' },
    rear_port: { kind: 'fk', target: 'dcim.rearporttemplate', onDelete: 'cascade', label: 'Rear port', help: 'A rear port template of the same device type.', pickerFilters: { device_type_of: '$self' } },
    rear_port_position: position,
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['device_type', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, input, existing }) {
      const owner = checkTemplateOwner({ input, existing });
      await checkFrontPortMapping(tx, input, existing, { front: 'front_port_templates', rear: 'rear_port_templates', owner });
    },
  },
});

export const rearPortModel = defineModel({
  name: 'dcim.rearport',
  table: 'rear_ports',
  path: '/api/rear-ports/',
  label: 'rear port',
  tenantScoped: true,
  displayParent: ['device'],
  fields: {
    device: { kind: 'fk', target: 'dcim.device', onDelete: 'cascade' },
    module: componentModuleField,
    name: { kind: 'string', maxLength: 64, naturalOrder: true },
    type: { kind: 'choice', vocabulary: 'port_types' },
    positions,
    description: { kind: 'string', maxLength: 200, default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  computed: { link_peer: linkPeerOf('dcim.rearport') },
  searchFields: ['name', 'description'],
  defaultOrdering: ['device', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate(args) {
      await checkRearPortChange(args.tx, args.input, args.existing, 'front_ports', 'device_id');
      await checkComponentModule(args);
    },
    beforeDelete: ({ tx, ctx, row }) => deleteCablesOfRearPorts(tx, ctx, [String(row.id)]),
    beforeDeleteMany: ({ tx, ctx, rows }) => deleteCablesOfRearPorts(tx, ctx, rows.map((r) => String(r.id))),
  },
});

export const frontPortModel = defineModel({
  name: 'dcim.frontport',
  table: 'front_ports',
  path: '/api/front-ports/',
  label: 'front port',
  tenantScoped: true,
  displayParent: ['device'],
  fields: {
    device: { kind: 'fk', target: 'dcim.device', onDelete: 'cascade' },
    module: componentModuleField,
    name: { kind: 'string', maxLength: 64, naturalOrder: true },
    type: { kind: 'choice', vocabulary: 'port_types' },
    rear_port: { kind: 'fk', target: 'dcim.rearport', onDelete: 'cascade', label: 'Rear port', help: 'A rear port of the same device.', pickerFilters: { device_of: '$self' } },
    rear_port_position: position,
    description: { kind: 'string', maxLength: 200, default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  computed: { link_peer: linkPeerOf('dcim.frontport') },
  searchFields: ['name', 'description'],
  defaultOrdering: ['device', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate(args) {
      await checkFrontPortMapping(args.tx, args.input, args.existing, { front: 'front_ports', rear: 'rear_ports', owner: 'device' });
      await checkComponentModule(args);
    },
    beforeDelete: ({ tx, ctx, row }) => deleteCablesLosingAnEnd(tx, ctx, [{ type: 'dcim.frontport', id: String(row.id) }]),
    beforeDeleteMany: ({ tx, ctx, rows }) => deleteCablesLosingAnEnd(tx, ctx, rows.map((r) => ({ type: 'dcim.frontport', id: String(r.id) }))),
  },
});
