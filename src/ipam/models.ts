// IPAM: route targets, VRFs, VLANs, prefixes and IP addresses. Containment and overlap are PostgreSQL inet
// operators over GiST indexes (migration 0003); the rules live in ./service.ts.
import { defineModel, type ChoiceOption } from '../core/registry.ts';
import { ownerField } from '../organization/owners.ts';
import { fieldError } from '../core/errors.ts';
import { hierarchyHooks } from './hierarchy.ts';
import { addressUsageKey, usageHooks, utilizationField } from './utilization.ts';
import { natOutsideField } from './nat.ts';
import { uniquenessHooks } from './uniqueness.ts';

const prefixUnique = uniquenessHooks('prefix');
const addressUnique = uniquenessHooks('address');
const addressUsage = usageHooks(addressUsageKey, ['address', 'vrf_id']);
import './filters.ts';
import { checkVlanInGroup } from './catalog-models.ts';
import {
  assignedObjectField,
  assignedObjectTypeField,
  checkAddressStillPrimary,
  clearPrimaryAddresses,
  containingPrefixField,
  familyField,
  routeDistinguisherError,
} from './service.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

/** The IP address roles of NetBox, which config templates branch on. */
export const IP_ROLES: readonly ChoiceOption[] = [
  { value: 'loopback', label: 'Loopback' },
  { value: 'secondary', label: 'Secondary' },
  { value: 'anycast', label: 'Anycast' },
  { value: 'vip', label: 'VIP' },
  { value: 'vrrp', label: 'VRRP' },
  { value: 'hsrp', label: 'HSRP' },
  { value: 'glbp', label: 'GLBP' },
  { value: 'carp', label: 'CARP' },
];

const DNS_NAME_RE = /^([0-9A-Za-z_*-]{1,63}\.)*[0-9A-Za-z_*-]{1,63}\.?$|^$/;

export const routeTargetModel = defineModel({
  name: 'ipam.routetarget',
  table: 'route_targets',
  path: '/api/route-targets/',
  label: 'route target',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 21, unique: true, help: 'ASN:NN or IPv4:NN, e.g. 65000:100.' },
    description: { kind: 'string', maxLength: 200, default: '' },
    owner: ownerField,
    tags: { kind: 'tags' },
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ input }) {
      if (typeof input.name === 'string') {
        const problem = routeDistinguisherError(input.name);
        if (problem) throw fieldError('name', problem);
      }
    },
  },
});

export const vrfModel = defineModel({
  name: 'ipam.vrf',
  table: 'vrfs',
  path: '/api/vrfs/',
  label: 'VRF',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    rd: { kind: 'string', label: 'Route distinguisher', maxLength: 21, nullable: true, help: 'ASN:NN or IPv4:NN; empty for none.' },
    import_targets: { kind: 'm2m', target: 'ipam.routetarget', through: { table: 'vrf_import_targets', from: 'vrf_id', to: 'route_target_id' } },
    export_targets: { kind: 'm2m', target: 'ipam.routetarget', through: { table: 'vrf_export_targets', from: 'vrf_id', to: 'route_target_id' } },
    l3vni: { kind: 'integer', label: 'L3 VNI', nullable: true, min: 1, max: 16777214, help: 'The VXLAN network identifier of this VRF in EVPN.' },
    enforce_unique: { kind: 'boolean', label: 'Enforce unique space', default: true, help: 'Refuse duplicate addresses and prefixes in this VRF.' },
    description: { kind: 'string', maxLength: 200, default: '' },
    owner: ownerField,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'rd', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ input }) {
      if (typeof input.rd === 'string') {
        const problem = routeDistinguisherError(input.rd);
        if (problem) throw fieldError('rd', problem);
      }
    },
  },
});

export const vlanModel = defineModel({
  name: 'ipam.vlan',
  table: 'vlans',
  path: '/api/vlans/',
  label: 'VLAN',
  tenantScoped: true,
  fields: {
    vid: { kind: 'integer', label: 'VLAN ID', min: 1, max: 4094, help: '802.1Q VLAN ID, 1 to 4094 (0 and 4095 are reserved).' },
    name: { kind: 'string', maxLength: 64 },
    site: { kind: 'fk', target: 'organization.site', nullable: true, onDelete: 'set_null' },
    group: { kind: 'fk', target: 'ipam.vlangroup', label: 'VLAN group', nullable: true, onDelete: 'set_null', help: 'A VID is used once per group.' },
    status: { kind: 'fk', target: 'extras.status', nullable: true, onDelete: 'protect' },
    role: { kind: 'fk', target: 'ipam.role', nullable: true, onDelete: 'set_null' },
    description: { kind: 'string', maxLength: 200, default: '' },
    owner: ownerField,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  displayQualifier: 'vid',
  searchContext: ['group', 'site'],
  searchFields: ['name', 'description'],
  defaultOrdering: ['vid', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    // The status's rules: wireStatusFields (src/extras/statuses.ts).
    validate: ({ tx, input, existing }) => checkVlanInGroup({ tx, input, existing }),
  },
});

export const prefixModel = defineModel({
  name: 'ipam.prefix',
  table: 'prefixes',
  path: '/api/prefixes/',
  label: 'prefix',
  labelPlural: 'prefixes',
  tenantScoped: true,
  displayField: 'prefix',
  fields: {
    prefix: { kind: 'cidr', help: 'Network/length with no host bits set, e.g. 10.0.0.0/24.' },
    vrf: { kind: 'fk', target: 'ipam.vrf', label: 'VRF', nullable: true, onDelete: 'protect', help: 'Empty for the global table.' },
    site: { kind: 'fk', target: 'organization.site', nullable: true, onDelete: 'set_null' },
    vlan: { kind: 'fk', target: 'ipam.vlan', label: 'VLAN', nullable: true, onDelete: 'set_null' },
    status: { kind: 'fk', target: 'extras.status', nullable: true, onDelete: 'protect' },
    role: { kind: 'fk', target: 'ipam.role', nullable: true, onDelete: 'set_null' },
    is_pool: { kind: 'boolean', label: 'Is a pool', help: 'Every address in a pool is usable (no network or broadcast address).' },
    description: { kind: 'string', maxLength: 200, default: '' },
    owner: ownerField,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
    depth: { kind: 'integer', readOnly: true, help: 'Prefixes containing this one in its VRF.' },
    children: { kind: 'integer', readOnly: true, help: 'Prefixes inside this one in its VRF, at any depth.' },
  },
  computed: { family: familyField, utilization: utilizationField },
  // The same 10.0.0.0/24 in two VRFs: the VRF tells them apart (nothing shown in the global table).
  searchContext: ['vrf'],
  searchFields: ['description'],
  defaultOrdering: ['vrf', 'prefix'],
  // The status's rules run first: wireStatusFields (src/extras/statuses.ts) sets a created prefix's default status
  // before these hooks (its utilisation reads it).
  hooks: {
    async afterCreate(args) {
      await prefixUnique.afterCreate(args);
      await hierarchyHooks.afterCreate(args);
    },
    async afterUpdate(args) {
      await prefixUnique.afterUpdate(args);
      await hierarchyHooks.afterUpdate(args);
    },
    async afterUpdateMany(args) {
      await prefixUnique.afterUpdateMany(args);
      await hierarchyHooks.afterUpdateMany(args);
    },
    beforeDelete: hierarchyHooks.beforeDelete,
    beforeDeleteMany: hierarchyHooks.beforeDeleteMany,
    afterDelete: hierarchyHooks.afterDelete,
  },
});

export const ipAddressModel = defineModel({
  name: 'ipam.ipaddress',
  table: 'ip_addresses',
  path: '/api/ip-addresses/',
  netbox: { generic: { assigned_object: { 'dcim.interface': 'assigned_interface', 'virtualization.vminterface': 'assigned_vm_interface' } }, filters: { assigned_to_interface: 'assigned' } },
  label: 'IP address',
  labelPlural: 'IP addresses',
  tenantScoped: true,
  displayField: 'address',
  fields: {
    address: { kind: 'inet', help: 'Address with its mask length, e.g. 10.0.0.1/24 (no mask means /32 or /128).' },
    vrf: { kind: 'fk', target: 'ipam.vrf', label: 'VRF', nullable: true, onDelete: 'protect', help: 'Empty for the global table.' },
    status: { kind: 'fk', target: 'extras.status', nullable: true, onDelete: 'protect' },
    role: { kind: 'choice', choices: IP_ROLES, nullable: true },
    dns_name: {
      kind: 'string',
      label: 'DNS name',
      maxLength: 255,
      default: '',
      pattern: DNS_NAME_RE,
      patternMessage: 'Only letters, digits, hyphens, underscores, asterisks and dots between labels of at most 63 characters.',
    },
    description: { kind: 'string', maxLength: 200, default: '' },
    // The assignment is one of two interface kinds, stored as two nullable foreign keys so the database keeps
    // referential integrity (a generic object_type/object_id pair could not). Write one of them; the read-only
    // `assigned_object` / `assigned_object_type` show whichever is set.
    assigned_interface: { kind: 'fk', target: 'dcim.interface', nullable: true, onDelete: 'set_null', help: 'A device interface; leave the VM interface empty.' },
    assigned_vm_interface: {
      kind: 'fk',
      target: 'virtualization.vminterface',
      label: 'Assigned VM interface',
      nullable: true,
      onDelete: 'set_null',
      help: 'A virtual machine interface; leave the device interface empty.',
    },
    // NetBox assigns a virtual address to an FHRP group: the third assignment, exclusive with the two above.
    fhrp_group: {
      kind: 'fk',
      target: 'ipam.fhrpgroup',
      label: 'FHRP group',
      nullable: true,
      onDelete: 'set_null',
      help: 'A first-hop redundancy group this is the virtual address of; leave both interfaces empty.',
    },
    nat_inside: { kind: 'fk', target: 'ipam.ipaddress', label: 'NAT (inside)', nullable: true, onDelete: 'set_null', help: 'The inside address this one is translated to/from.' },
    owner: ownerField,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  computed: {
    nat_outside: natOutsideField,
    family: familyField,
    assigned_object_type: assignedObjectTypeField,
    assigned_object: assignedObjectField,
    prefix: containingPrefixField,
  },
  // Where an address lives is what its finder wants next (`ams1-leaf1 › Ethernet1`); unassigned, its VRF.
  searchContext: ['assigned_interface', 'assigned_vm_interface', 'fhrp_group', 'vrf'],
  searchFields: ['dns_name', 'description'],
  defaultOrdering: ['vrf', 'address'],
  // NetBox's generic pair, for API clients: the UI shows the two fields they are read from, each with its parent.
  listColumnsExclude: ['assigned_object', 'assigned_object_type'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    // The status's rules run first: wireStatusFields (src/extras/statuses.ts).
    async validate({ tx, input, existing }) {
      const pick = (key: string, column: string): string | null =>
        key in input ? ((input[key] as string | null) ?? null) : ((existing?.[column] as string | null | undefined) ?? null);
      const iface = pick('assigned_interface', 'assigned_interface_id');
      const vmIface = pick('assigned_vm_interface', 'assigned_vm_interface_id');
      if (existing && input.nat_inside === existing.id) throw fieldError('nat_inside', 'An address cannot be its own NAT inside address.');
      const fhrpGroup = pick('fhrp_group', 'fhrp_group_id');
      const assigned = (['assigned_interface', 'assigned_vm_interface', 'fhrp_group'] as const).filter((k, i) => [iface, vmIface, fhrpGroup][i]);
      if (assigned.length > 1) {
        // The field the caller just set is the one to clear (the later one when both are sent).
        const field = [...assigned].reverse().find((k) => k in input) ?? assigned[0]!;
        throw fieldError(field, 'An address is assigned to one object: set one of assigned_interface, assigned_vm_interface or fhrp_group, and the others to null.');
      }
      if (existing) {
        const address = typeof input.address === 'string' ? input.address : String(existing.address);
        await checkAddressStillPrimary(tx, existing, { address, interfaceId: iface, vmInterfaceId: vmIface });
      }
    },
    async afterCreate(args) {
      await addressUnique.afterCreate(args);
      await addressUsage.afterCreate(args);
    },
    async afterUpdate(args) {
      await addressUnique.afterUpdate(args);
      await addressUsage.afterUpdate(args);
    },
    async afterUpdateMany(args) {
      await addressUnique.afterUpdateMany(args);
      await addressUsage.afterUpdateMany(args);
    },
    afterDelete: addressUsage.afterDelete,
    // The owner's primary address goes with it, in the change log (the foreign key alone would clear it unsaid).
    beforeDelete: ({ tx, ctx, row }) => clearPrimaryAddresses(tx, ctx, [String(row.id)]),
    beforeDeleteMany: ({ tx, ctx, rows }) => clearPrimaryAddresses(tx, ctx, rows.map((r) => String(r.id))),
  },
});
