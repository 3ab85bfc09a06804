// First-hop redundancy (NetBox's FHRP groups): a VRRP, HSRP, CARP… group with its authentication, the device or
// VM interfaces taking part in it (one assignment per group and interface, with a priority) and its virtual
// addresses (IP addresses whose fhrp_group is the group, see ipam.ipaddress). The key is a secret: encrypted at
// rest, never returned (auth_key_set tells whether one is stored).
import { sql } from 'kysely';
import { defineModel, requireModel, type ComputedField } from '../core/registry.ts';
import { ErrorCollector } from '../core/errors.ts';
import { scopeCondition } from '../core/access.ts';
import { secretSetField, secretTransform } from '../core/secrets.ts';
import { briefObject, type Row } from '../core/crud/serialize.ts';
import { briefSchema } from '../core/crud/schemas.ts';
import './fhrp-choices.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

/** The group's virtual addresses (NetBox's ip_addresses of a group), for a page of groups in one query. */
const virtualAddressesField: ComputedField = {
  label: 'Virtual addresses',
  kind: 'objects',
  related: 'ipam.ipaddress',
  schema: { type: 'array', items: briefSchema },
  async load({ db, ctx, rows, origin }) {
    const out = new Map<string, unknown>(rows.map((r) => [String(r.id), []]));
    if (rows.length === 0) return out;
    const addresses = requireModel('ipam.ipaddress');
    const ids = rows.map((r) => String(r.id));
    const { rows: found } = await sql<Row>`SELECT a.* FROM ip_addresses a
      WHERE a.fhrp_group_id = ANY(${ids}::uuid[]) AND ${scopeCondition(ctx, addresses, 'a')} ORDER BY a.address, a.id`.execute(db);
    for (const a of found) (out.get(String(a.fhrp_group_id)) as unknown[]).push(briefObject(addresses, a, origin));
    return out;
  },
};

export const fhrpGroupModel = defineModel({
  name: 'ipam.fhrpgroup',
  table: 'fhrp_groups',
  path: '/api/fhrp-groups/',
  label: 'FHRP group',
  tenantScoped: true,
  displayField: 'group_display',
  fields: {
    protocol: { kind: 'choice', vocabulary: 'fhrp_group_protocols' },
    group_id: { kind: 'integer', label: 'Group ID', min: 0, max: 32767, help: 'The group number the routers agree on (VRRP VRID, HSRP group).' },
    name: { kind: 'string', maxLength: 100, default: '' },
    group_display: { kind: 'string', label: 'Group', readOnly: true, help: 'As NetBox writes it: name, protocol and group number (e.g. "gw VRRPv3: 10").' },
    auth_type: { kind: 'choice', vocabulary: 'fhrp_group_auth_types', label: 'Authentication type', nullable: true },
    auth_key: {
      kind: 'string',
      label: 'Authentication key',
      maxLength: 255,
      nullable: true,
      secret: true,
      writeOnly: true,
      transform: secretTransform('auth_key'),
      help: 'Write-only. Stored encrypted.',
    },
    description: { kind: 'string', maxLength: 200, default: '' },
    comments: { kind: 'text', default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  computed: { auth_key_set: secretSetField('auth_key', 'Authentication key set'), ip_addresses: virtualAddressesField },
  searchFields: ['name', 'description'],
  defaultOrdering: ['protocol', 'group_id'],
});

export const fhrpGroupAssignmentModel = defineModel({
  name: 'ipam.fhrpgroupassignment',
  table: 'fhrp_group_assignments',
  path: '/api/fhrp-group-assignments/',
  label: 'FHRP group assignment',
  tenantScoped: true,
  displayField: 'id',
  // Shown as the interface that takes part (`ams1-border01 › Vlan100`); the group is a column of its own.
  displayParent: ['interface', 'vm_interface'],
  fields: {
    group: { kind: 'fk', target: 'ipam.fhrpgroup', label: 'FHRP group', onDelete: 'cascade' },
    interface: { kind: 'fk', target: 'dcim.interface', nullable: true, onDelete: 'cascade', help: 'A device interface (set this or the VM interface).' },
    vm_interface: { kind: 'fk', target: 'virtualization.vminterface', label: 'VM interface', nullable: true, onDelete: 'cascade', help: 'A VM interface (set this or the device interface).' },
    priority: { kind: 'integer', min: 0, max: 255, help: 'Election priority, 0 to 255; the highest becomes active.' },
  },
  defaultOrdering: ['-priority'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, input, existing }) {
      const pick = (key: string): string | null => (key in input ? ((input[key] as string | null) ?? null) : ((existing?.[`${key}_id`] as string | null | undefined) ?? null));
      const group = pick('group');
      const iface = pick('interface');
      const vmIface = pick('vm_interface');
      const errors = new ErrorCollector();
      if (iface && vmIface) errors.add('vm_interface' in input ? 'vm_interface' : 'interface', 'An assignment is of one interface: set interface or vm_interface, and the other to null.');
      else if (!iface && !vmIface) errors.add('interface', 'Set the interface (or vm_interface) that takes part in the group.');
      errors.throwIfAny();
      if (!group || !('group' in input || 'interface' in input || 'vm_interface' in input)) return;
      const [key, column] = iface ? ['interface', 'interface_id'] : ['vm_interface', 'vm_interface_id'];
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM fhrp_group_assignments
        WHERE group_id = ${group} AND ${sql.ref(column)} = ${iface ?? vmIface} AND id IS DISTINCT FROM ${existing?.id ?? null}::uuid`.execute(tx);
      if (rows[0]!.n > 0) errors.add(key, 'This interface is already assigned to this FHRP group.');
      errors.throwIfAny();
    },
  },
});
