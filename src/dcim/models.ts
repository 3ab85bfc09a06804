// DCIM: manufacturers, device types with their interface and service templates, roles, platforms, devices,
// interfaces and cables. The rules live in service.ts; these are the definitions the registry derives from.
import { defineModel, type FieldDef } from '../core/registry.ts';
import { ownerField } from '../organization/owners.ts';
import { fieldError } from '../core/errors.ts';
import { materializeDeviceComponents, primaryIpField } from './service.ts';
import { checkCableTerminations, deleteCablesLosingAnEnd, deleteCablesOfDevices, linkPeerField, TERMINATION_TYPES } from './cabling.ts';
import { connectedEndpointField } from './trace.ts';
import './port-models.ts';
import './console-models.ts';
import './power-models.ts';
import './console-power-materialize.ts';
import { checkPrimaryIps, checkVlanMode, clearPrimaryAddresses, primaryAddressesOn } from '../ipam/service.ts';
import './choices.ts';
import './filters.ts';
import { MAC_MESSAGE, normalizeMac } from './mac.ts';
import { checkInterfaceWireless, fillChannelAttributes, interfaceWirelessFields } from './interface-wireless.ts';
import { checkInterfaceRelations } from './interface-rules.ts';
import { checkDevicePlacement, checkDevicesPlacedTogether, deviceTypeResized } from './rack-rules.ts';
import { checkComponentModule, checkTemplateOwner, componentModuleField, templateDeviceTypeField, templateModuleTypeField } from './template-owner.ts';
import './module-models.ts';
import { checkSubdeviceRole, moveChildrenWithParents } from './bay-models.ts';
import './inventory-models.ts';
import { checkChassisMembership, deviceChassisFields } from './virtual-chassis.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';


export const manufacturerModel = defineModel({
  name: 'dcim.manufacturer',
  table: 'manufacturers',
  path: '/api/manufacturers/',
  label: 'manufacturer',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
});

export const deviceTypeModel = defineModel({
  name: 'dcim.devicetype',
  table: 'device_types',
  path: '/api/device-types/',
  label: 'device type',
  tenantScoped: true,
  displayField: 'model',
  fields: {
    manufacturer: { kind: 'fk', target: 'dcim.manufacturer', onDelete: 'protect' },
    model: { kind: 'string', maxLength: 100 },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    part_number: { kind: 'string', maxLength: 50, default: '' },
    u_height: { kind: 'integer', min: 0, max: 100, default: 1, label: 'Height (U)' },
    is_full_depth: { kind: 'boolean', default: true, label: 'Full depth', help: 'Mounted, it takes the unit on both rack faces.' },
    subdevice_role: { kind: 'choice', vocabulary: 'subdevice_roles', nullable: true, help: 'Parent: its devices have device bays. Child: its devices are installed in a parent\'s bay (0U).' },
    end_of_sale: { kind: 'date', nullable: true },
    end_of_support: { kind: 'date', nullable: true },
    comments: { kind: 'text', default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['model', 'slug', 'part_number'],
  defaultOrdering: ['model'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: { ...deviceTypeResized, validate: checkSubdeviceRole },
});

export const interfaceTemplateModel = defineModel({
  name: 'dcim.interfacetemplate',
  table: 'interface_templates',
  path: '/api/interface-templates/',
  label: 'interface template',
  tenantScoped: true,
  displayParent: ['device_type', 'module_type'],
  fields: {
    device_type: templateDeviceTypeField,
    module_type: templateModuleTypeField,
    name: { kind: 'string', maxLength: 64, naturalOrder: true },
    type: { kind: 'choice', vocabulary: 'interface_types' },
    enabled: { kind: 'boolean', default: true },
    mgmt_only: { kind: 'boolean', label: 'Management only' },
    poe_mode: { kind: 'choice', vocabulary: 'poe_modes', nullable: true, label: 'PoE mode' },
    poe_type: { kind: 'choice', vocabulary: 'poe_types', nullable: true, label: 'PoE type' },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['device_type', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate(args) {
      checkTemplateOwner(args);
    },
  },
});

export const deviceTypeServiceModel = defineModel({
  name: 'dcim.devicetypeservice',
  table: 'device_type_services',
  path: '/api/device-type-services/',
  label: 'service template',
  tenantScoped: true,
  fields: {
    device_type: { kind: 'fk', target: 'dcim.devicetype', onDelete: 'cascade' },
    name: { kind: 'string', maxLength: 100 },
    protocol: { kind: 'choice', vocabulary: 'service_protocols', default: 'tcp' },
    ports: { kind: 'integer_list', min: 1, max: 65535, default: [] },
    protocol_ports: { kind: 'json', jsonObject: true, default: {}, help: 'Ports by protocol, e.g. {"tcp": [22, 443]}.' },
    monitor: { kind: 'boolean', help: 'Create monitoring checks for services made from this template.' },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['device_type', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ input }) {
      if ('protocol_ports' in input) checkProtocolPorts(input.protocol_ports);
    },
  },
});

export const deviceRoleModel = defineModel({
  name: 'dcim.devicerole',
  table: 'device_roles',
  path: '/api/device-roles/',
  label: 'device role',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    color: { kind: 'color', default: '9e9e9e' },
    // Export templates arrive with config rendering; until then the id is kept without a foreign key.
    config_template: { kind: 'fk', target: 'extras.exporttemplate', nullable: true, onDelete: 'set_null', help: 'The export template that renders the configuration of devices with this role, unless a device names its own.' },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
});

export const platformModel = defineModel({
  name: 'dcim.platform',
  table: 'platforms',
  path: '/api/platforms/',
  label: 'platform',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    manufacturer: { kind: 'fk', target: 'dcim.manufacturer', nullable: true, onDelete: 'set_null' },
    config_template: { kind: 'fk', target: 'extras.exporttemplate', nullable: true, onDelete: 'set_null', help: 'The export template that renders the configuration of devices on this platform, unless a device or its role names one.' },
    end_of_sale: { kind: 'date', nullable: true },
    end_of_support: { kind: 'date', nullable: true },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
});

export const deviceModel = defineModel({
  name: 'dcim.device',
  table: 'devices',
  path: '/api/devices/',
  netbox: { fields: { config_template_id: 'config_template' }, aliases: { device_role: 'role' } },
  label: 'device',
  tenantScoped: true,
  fields: {
    // Plain order: a natural key per row would cost a full sort of every device on each list page.
    name: { kind: 'string', maxLength: 64, unique: true },
    device_type: { kind: 'fk', target: 'dcim.devicetype', onDelete: 'protect' },
    role: { kind: 'fk', target: 'dcim.devicerole', onDelete: 'protect' },
    platform: { kind: 'fk', target: 'dcim.platform', nullable: true, onDelete: 'set_null' },
    site: { kind: 'fk', target: 'organization.site', onDelete: 'protect' },
    // Columns added by migration 0026. Rules in rack-rules.ts checkDevicePlacement.
    rack: { kind: 'fk', target: 'dcim.rack', nullable: true, onDelete: 'protect', help: 'A rack of the device\'s site.', pickerFilters: { site_id: '$field:site' } },
    position: { kind: 'integer', nullable: true, min: 1, max: 1100, label: 'Position (U)', widget: 'rack_unit', help: 'The lowest unit the device takes; needs a rack and a face.' },
    face: { kind: 'choice', vocabulary: 'rack_faces', nullable: true, label: 'Rack face' },
    status: { kind: 'fk', target: 'extras.status', nullable: true, onDelete: 'protect', help: 'Defaults to the status marked default for devices.' },
    serial: { kind: 'string', maxLength: 50, default: '', label: 'Serial number' },
    // Unique per tenant when set; "no tag" is null, so two untagged devices never clash on an empty string.
    asset_tag: { kind: 'string', maxLength: 50, nullable: true, unique: true, pattern: /\S/, patternMessage: 'Use null for a device without an asset tag.' },
    // Columns added by migration 0003 (IPAM). Rule in ipam/service.ts checkPrimaryIps.
    primary_ip4: {
      kind: 'fk',
      target: 'ipam.ipaddress',
      label: 'Primary IPv4',
      nullable: true,
      onDelete: 'set_null',
      help: 'An IPv4 address assigned to one of this device\'s interfaces.',
      pickerFilters: { device_id: '$self', family: '4' },
    },
    primary_ip6: {
      kind: 'fk',
      target: 'ipam.ipaddress',
      label: 'Primary IPv6',
      nullable: true,
      onDelete: 'set_null',
      help: 'An IPv6 address assigned to one of this device\'s interfaces.',
      pickerFilters: { device_id: '$self', family: '6' },
    },
    // Written by id; read as the computed `config_template` {own, resolved} (templating/bindings.ts).
    config_template_id: { kind: 'fk', target: 'extras.exporttemplate', label: 'Config template', column: 'config_template_id', nullable: true, onDelete: 'set_null', writeOnly: true },
    // Columns added by migration 0043. Rules in virtual-chassis.ts checkChassisMembership.
    ...deviceChassisFields,
    comments: { kind: 'text', default: '' },
    owner: ownerField,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  computed: { primary_ip: primaryIpField },
  searchFields: ['name', 'serial', 'asset_tag', 'comments'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    // The status's rules run first: wireStatusFields (src/extras/statuses.ts).
    async validate(args) {
      await checkPrimaryIps(args.tx, args.ctx, { kind: 'device', id: args.existing ? String(args.existing.id) : null, label: 'device' }, args.input);
      await checkDevicePlacement(args);
      await checkChassisMembership(args);
    },
    // A parent device moved takes the children in its bays along (bay-models.ts).
    async afterUpdate({ tx, ctx, before, row, inBulk }) {
      if (!inBulk) await moveChildrenWithParents(tx, ctx, [{ before, row }]);
    },
    async afterUpdateMany(args) {
      await checkDevicesPlacedTogether(args);
      await moveChildrenWithParents(args.tx, args.ctx, args.rows);
    },
    afterCreate: materializeDeviceComponents,
    beforeDelete: ({ tx, ctx, row }) => deleteCablesOfDevices(tx, ctx, [String(row.id)]),
    beforeDeleteMany: ({ tx, ctx, rows }) => deleteCablesOfDevices(tx, ctx, rows.map((r) => String(r.id))),
  },
});

export const interfaceModel = defineModel({
  name: 'dcim.interface',
  table: 'interfaces',
  path: '/api/interfaces/',
  netbox: { counts: { count_ipaddresses: 'ipam.ipaddress.assigned_interface' } },
  label: 'interface',
  tenantScoped: true,
  displayParent: ['device'],
  fields: {
    device: { kind: 'fk', target: 'dcim.device', onDelete: 'cascade' },
    module: componentModuleField,
    name: { kind: 'string', maxLength: 64, naturalOrder: true },
    type: { kind: 'choice', vocabulary: 'interface_types' },
    enabled: { kind: 'boolean', default: true },
    mgmt_only: { kind: 'boolean', label: 'Management only' },
    mtu: { kind: 'integer', nullable: true, min: 1, max: 65536, label: 'MTU' },
    mac_address: { kind: 'string', nullable: true, maxLength: 17, normalize: normalizeMac, patternMessage: MAC_MESSAGE, label: 'MAC address' },
    description: { kind: 'string', maxLength: 200, default: '' },
    speed: { kind: 'integer', nullable: true, min: 0, max: 2_000_000_000, label: 'Speed (kbps)', help: 'For example 1000000 for 1 Gbps, 10000000 for 10 Gbps.' },
    duplex: { kind: 'choice', vocabulary: 'duplex', nullable: true },
    poe_mode: { kind: 'choice', vocabulary: 'poe_modes', nullable: true, label: 'PoE mode' },
    poe_type: { kind: 'choice', vocabulary: 'poe_types', nullable: true, label: 'PoE type' },
    lag: { kind: 'fk', target: 'dcim.interface', label: 'LAG', nullable: true, onDelete: 'set_null', help: 'The LAG (an interface of type lag on the same device) this port is a member of.', pickerFilters: { sibling_of: '$self', type: 'lag' } },
    parent: { kind: 'fk', target: 'dcim.interface', label: 'Parent interface', nullable: true, onDelete: 'set_null', help: 'For a sub-interface: its physical interface on the same device.', pickerFilters: { sibling_of: '$self' } },
    mode: { kind: 'choice', vocabulary: 'interface_modes', nullable: true, label: '802.1Q mode' },
    // Columns added by migration 0003 (IPAM). Mode rule in ipam/service.ts checkVlanMode.
    untagged_vlan: { kind: 'fk', target: 'ipam.vlan', label: 'Untagged VLAN', nullable: true, onDelete: 'set_null', pickerFilters: { available_on_device: '$field:device' } },
    tagged_vlans: { kind: 'm2m', target: 'ipam.vlan', label: 'Tagged VLANs', through: { table: 'interface_tagged_vlans', from: 'interface_id', to: 'vlan_id' }, pickerFilters: { available_on_device: '$field:device' } },
    vrf: { kind: 'fk', target: 'ipam.vrf', label: 'VRF', nullable: true, onDelete: 'set_null' },
    vlan_translation_policy: { kind: 'fk', target: 'ipam.vlantranslationpolicy', label: 'VLAN translation policy', nullable: true, onDelete: 'protect', help: 'How VIDs are rewritten between this interface and the far side.' },
    ...interfaceWirelessFields,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  computed: { link_peer: linkPeerField, connected_endpoint: connectedEndpointField },
  searchFields: ['name', 'description'],
  defaultOrdering: ['device', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate(args) {
      const { tx, input, existing } = args;
      await checkVlanMode(tx, input, existing, { table: 'interface_tagged_vlans', from: 'interface_id' });
      await checkComponentModule(args);
      await checkInterfaceRelations(tx, input, existing);
      checkInterfaceWireless(input, existing);
      if (existing && typeof input.device === 'string' && input.device !== existing.device_id) await refuseMovingPrimary(tx, existing);
    },
    afterCreate: (args) => fillChannelAttributes({ ...args, rows: [args.row] }),
    async afterUpdate(args) {
      if (!args.inBulk) await fillChannelAttributes({ ...args, rows: [args.row] });
    },
    afterUpdateMany: (args) => fillChannelAttributes({ ...args, rows: args.rows.map((r) => r.row) }),
    async beforeDelete({ tx, ctx, row }) {
      await clearPrimaryAddresses(tx, ctx, (await primaryAddressesOn(tx, [String(row.id)])).map((a) => a.id));
      await deleteCablesLosingAnEnd(tx, ctx, [{ type: 'dcim.interface', id: String(row.id) }]);
    },
    // Bulk deletes: one statement for all the interfaces' cables instead of one per interface.
    async beforeDeleteMany({ tx, ctx, rows }) {
      const ids = rows.map((r) => String(r.id));
      await clearPrimaryAddresses(tx, ctx, (await primaryAddressesOn(tx, ids)).map((a) => a.id));
      await deleteCablesLosingAnEnd(tx, ctx, ids.map((id) => ({ type: 'dcim.interface', id })));
    },
  },
});

function cableEnd(end: 'A' | 'B'): FieldDef {
  return {
    kind: 'generic_m2m',
    target: 'dcim.interface',
    through: { table: 'cable_terminations', from: 'cable_id', to: 'termination_id' },
    generic: { typeColumn: 'termination_type', targets: TERMINATION_TYPES, fixed: { cable_end: end } },
    help: 'Interfaces, front ports or rear ports (one kind per end).',
  };
}

export const cableModel = defineModel({
  name: 'dcim.cable',
  table: 'cables',
  path: '/api/cables/',
  label: 'cable',
  tenantScoped: true,
  // Its label when it has one, else "Cable #12" (serialize.ts displayOf).
  displayField: 'label',
  fields: {
    // NetBox's shape: [{"object_type": "dcim.frontport", "object_id": …}, …]; a bare id is an interface.
    a_terminations: { ...cableEnd('A'), label: 'A side' },
    b_terminations: { ...cableEnd('B'), label: 'B side' },
    status: { kind: 'fk', target: 'extras.status', nullable: true, onDelete: 'protect' },
    type: { kind: 'choice', vocabulary: 'cable_types', nullable: true },
    label: { kind: 'string', maxLength: 100, default: '' },
    length: { kind: 'decimal', nullable: true, min: 0, max: 99_999_999 },
    length_unit: { kind: 'choice', vocabulary: 'length_units', nullable: true },
    description: { kind: 'string', maxLength: 200, default: '' },
    owner: ownerField,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['label', 'description'],
  defaultOrdering: ['numid'],
  // The length column and row carry the unit ("3 Meters"), as NetBox's cable list does; the API keeps both fields.
  listColumnsExclude: ['length_unit'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    // The status's rules: wireStatusFields (src/extras/statuses.ts).
    validate: checkCableTerminations,
  },
});


/** `{"tcp": [22, 443], "udp": [161]}`: known protocols, each a list of port numbers. */
function checkProtocolPorts(value: unknown): void {
  const protocols = new Set(['tcp', 'udp', 'sctp']);
  for (const [proto, ports] of Object.entries(value as Record<string, unknown>)) {
    if (!protocols.has(proto)) throw fieldError('protocol_ports', `Unknown protocol "${proto}"; use tcp, udp or sctp.`);
    if (!Array.isArray(ports) || !ports.every((p) => Number.isInteger(p) && (p as number) >= 1 && (p as number) <= 65535)) {
      throw fieldError('protocol_ports', `The ${proto} ports must be a list of port numbers 1–65535.`);
    }
  }
}

/**
 * An interface holding its device's primary address stays on that device: moved, the address would go with it
 * and the device would keep a primary IP on another device (and its checks would watch that one).
 */
async function refuseMovingPrimary(tx: Parameters<typeof primaryAddressesOn>[0], existing: Record<string, unknown>): Promise<void> {
  const held = (await primaryAddressesOn(tx, [String(existing.id)]))[0];
  if (!held) return;
  const slot = held.slot === 'primary_ip4' ? 'primary IPv4' : 'primary IPv6';
  throw fieldError('device', `${String(existing.name)} holds ${held.address}, the ${slot} of ${held.device}: clear ${held.slot} on ${held.device} (or move the address) before moving the interface.`);
}
