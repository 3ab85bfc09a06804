// Virtualisation: clusters, virtual machines and their interfaces. A VM is rendered like a device (config
// template, primary IPs, routing), so its fields follow the device's.
import { defineModel } from '../core/registry.ts';
import { ownerField } from '../organization/owners.ts';
import { checkPrimaryIps, checkVlanMode } from '../ipam/service.ts';
import { refuseVlansOutOfScope, virtualMachineHost, vlansToCheck } from '../ipam/vlan-scope.ts';
import { ErrorCollector } from '../core/errors.ts';
import { primaryIpField } from '../dcim/service.ts';
import { MAC_MESSAGE, normalizeMac } from '../dcim/mac.ts';
import { vmDiskField } from './catalog-models.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';


export const clusterModel = defineModel({
  name: 'virtualization.cluster',
  table: 'clusters',
  path: '/api/clusters/',
  label: 'cluster',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    // NetBox requires a type; Cairn's clusters existed before the catalog (migration 0045 turned their free-text
    // types into cluster types), so one without stays valid.
    type: { kind: 'fk', target: 'virtualization.clustertype', nullable: true, onDelete: 'protect', help: 'Hypervisor or platform, e.g. VMware vSphere, Proxmox, KVM.' },
    group: { kind: 'fk', target: 'virtualization.clustergroup', nullable: true, onDelete: 'protect' },
    site: { kind: 'fk', target: 'organization.site', nullable: true, onDelete: 'set_null' },
    owner: ownerField,
    description: { kind: 'string', maxLength: 200, default: '' },
    comments: { kind: 'text', default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['name'],
});

export const virtualMachineModel = defineModel({
  name: 'virtualization.virtualmachine',
  table: 'virtual_machines',
  path: '/api/virtual-machines/',
  label: 'virtual machine',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 64, unique: true },
    cluster: { kind: 'fk', target: 'virtualization.cluster', nullable: true, onDelete: 'protect' },
    site: { kind: 'fk', target: 'organization.site', nullable: true, onDelete: 'set_null' },
    role: { kind: 'fk', target: 'dcim.devicerole', nullable: true, onDelete: 'protect' },
    platform: { kind: 'fk', target: 'dcim.platform', nullable: true, onDelete: 'set_null' },
    status: { kind: 'fk', target: 'extras.status', nullable: true, onDelete: 'protect' },
    primary_ip4: {
      kind: 'fk',
      target: 'ipam.ipaddress',
      label: 'Primary IPv4',
      nullable: true,
      onDelete: 'set_null',
      help: 'An IPv4 address assigned to one of this VM\'s interfaces.',
      pickerFilters: { virtual_machine_id: '$self', family: '4' },
    },
    primary_ip6: {
      kind: 'fk',
      target: 'ipam.ipaddress',
      label: 'Primary IPv6',
      nullable: true,
      onDelete: 'set_null',
      help: 'An IPv6 address assigned to one of this VM\'s interfaces.',
      pickerFilters: { virtual_machine_id: '$self', family: '6' },
    },
    config_template: { kind: 'fk', target: 'extras.exporttemplate', nullable: true, onDelete: 'set_null', help: 'The export template that renders this VM\'s configuration (else its role\'s, else its platform\'s).' },
    comments: { kind: 'text', default: '' },
    owner: ownerField,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  computed: { primary_ip: primaryIpField, disk: vmDiskField },
  searchFields: ['name', 'comments'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    // The status's rules: wireStatusFields (src/extras/statuses.ts).
    async validate({ tx, ctx, input, existing }) {
      await checkPrimaryIps(tx, ctx, { kind: 'vm', id: existing ? String(existing.id) : null, label: 'virtual machine' }, input);
    },
  },
});

export const vmInterfaceModel = defineModel({
  name: 'virtualization.vminterface',
  table: 'vm_interfaces',
  path: '/api/vm-interfaces/',
  netbox: { counts: { count_ipaddresses: 'ipam.ipaddress.assigned_vm_interface' } },
  label: 'VM interface',
  tenantScoped: true,
  displayParent: ['virtual_machine'],
  fields: {
    virtual_machine: { kind: 'fk', target: 'virtualization.virtualmachine', onDelete: 'cascade' },
    name: { kind: 'string', maxLength: 64 },
    enabled: { kind: 'boolean', default: true },
    mtu: { kind: 'integer', label: 'MTU', nullable: true, min: 1, max: 65536 },
    mac_address: { kind: 'string', label: 'MAC address', maxLength: 17, nullable: true, normalize: normalizeMac, patternMessage: MAC_MESSAGE },
    description: { kind: 'string', maxLength: 200, default: '' },
    mode: { kind: 'choice', label: '802.1Q mode', vocabulary: 'interface_modes', nullable: true },
    untagged_vlan: { kind: 'fk', target: 'ipam.vlan', label: 'Untagged VLAN', nullable: true, onDelete: 'set_null', pickerFilters: { available_on_virtualmachine: '$field:virtual_machine' } },
    tagged_vlans: { kind: 'm2m', target: 'ipam.vlan', label: 'Tagged VLANs', through: { table: 'vm_interface_tagged_vlans', from: 'vm_interface_id', to: 'vlan_id' }, pickerFilters: { available_on_virtualmachine: '$field:virtual_machine' } },
    vrf: { kind: 'fk', target: 'ipam.vrf', label: 'VRF', nullable: true, onDelete: 'set_null' },
    vlan_translation_policy: { kind: 'fk', target: 'ipam.vlantranslationpolicy', label: 'VLAN translation policy', nullable: true, onDelete: 'protect', help: 'How VIDs are rewritten between this interface and the far side.' },
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['virtual_machine', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, input, existing }) {
      await checkVlanMode(tx, input, existing, { table: 'vm_interface_tagged_vlans', from: 'vm_interface_id' });
      // NetBox's rule for VM interfaces: global VLANs, or those of the VM's site (its cluster's when it has none).
      const vm = 'virtual_machine' in input ? input.virtual_machine : existing?.virtual_machine_id;
      if (typeof vm !== 'string') return;
      const moving = existing !== null && 'virtual_machine' in input && input.virtual_machine !== existing.virtual_machine_id;
      const vlans = await vlansToCheck(tx, input, existing, moving, { table: 'vm_interface_tagged_vlans', from: 'vm_interface_id' });
      const errors = new ErrorCollector();
      await refuseVlansOutOfScope(tx, errors, virtualMachineHost(vm), vlans.ids, vlans.untagged);
      errors.throwIfAny();
    },
  },
});
