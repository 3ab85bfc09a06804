// Layer-2 VPNs (VXLAN, EVPN, VPLS, E-Line…) and what they terminate on: a VLAN, a device interface or a VM
// interface. Each object terminates on one L2VPN at most (unique keys), and a point-to-point L2VPN has two
// terminations at most (checked under a lock on the L2VPN, so two concurrent writes cannot both take the second).
import { sql } from 'kysely';
import { defineModel, type ModelHooks } from '../core/registry.ts';
import { callerTenant } from '../core/access.ts';
import { fieldError } from '../core/errors.ts';
import { ownerField } from '../organization/owners.ts';
import { POINT_TO_POINT_L2VPN_TYPES, L2VPN_TYPES } from './choices.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

export const l2vpnModel = defineModel({
  name: 'vpn.l2vpn',
  table: 'l2vpns',
  path: '/api/l2vpns/',
  label: 'L2VPN',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    type: { kind: 'choice', vocabulary: 'l2vpn_types' },
    status: { kind: 'choice', vocabulary: 'l2vpn_statuses', default: 'active' },
    identifier: { kind: 'integer', nullable: true, min: -9_007_199_254_740_991, max: 9_007_199_254_740_991, help: 'The VNI, VC ID or EVI.' },
    import_targets: { kind: 'm2m', target: 'ipam.routetarget', through: { table: 'l2vpn_import_targets', from: 'l2vpn_id', to: 'route_target_id' } },
    export_targets: { kind: 'm2m', target: 'ipam.routetarget', through: { table: 'l2vpn_export_targets', from: 'l2vpn_id', to: 'route_target_id' } },
    owner: ownerField,
    description: { kind: 'string', maxLength: 200, default: '' },
    comments: { kind: 'text', default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, ctx, input, existing }) {
      // Becoming point-to-point keeps the terminations it has only if they are two at most.
      if (!existing || typeof input.type !== 'string' || !POINT_TO_POINT_L2VPN_TYPES.has(input.type) || input.type === existing.type) return;
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM l2vpn_terminations WHERE l2vpn_id = ${existing.id} AND ${callerTenant(ctx)}`.execute(tx);
      if (rows[0]!.n > 2) throw fieldError('type', `${typeLabel(input.type)} L2VPNs have two terminations at most; this one has ${rows[0]!.n}.`);
    },
  },
});

function typeLabel(type: string): string {
  return L2VPN_TYPES.find((t) => t.value === type)?.label ?? type;
}

const TERMINATED = ['vlan', 'interface', 'vm_interface'] as const;

const checkTermination: NonNullable<ModelHooks['validate']> = async ({ tx, ctx, input, existing }) => {
  const value = (key: string) => (key in input ? input[key] ?? null : existing?.[`${key}_id`] ?? null);
  const set = TERMINATED.filter((k) => value(k) !== null);
  if (set.length !== 1) {
    const key = TERMINATED.find((k) => k in input) ?? 'vlan';
    throw fieldError(key, set.length === 0 ? 'Name what the L2VPN terminates on: a VLAN, an interface or a VM interface.' : `Terminate on one object only; this names ${set.join(' and ')}.`);
  }
  const l2vpn = value('l2vpn');
  if (typeof l2vpn !== 'string' || (existing && existing.l2vpn_id === l2vpn)) return;
  // Serialises terminations of one L2VPN, so the count below stays true until the write commits.
  const { rows } = await sql<{ name: string; type: string; n: number }>`SELECT v.name, v.type,
      (SELECT count(*)::int FROM l2vpn_terminations t WHERE t.l2vpn_id = v.id) AS n
    FROM l2vpns v WHERE v.id = ${l2vpn} AND ${callerTenant(ctx, 'v')} FOR UPDATE OF v`.execute(tx);
  const vpn = rows[0];
  if (vpn && POINT_TO_POINT_L2VPN_TYPES.has(vpn.type) && vpn.n >= 2) {
    throw fieldError('l2vpn', `${vpn.name} is ${typeLabel(vpn.type)}, a point-to-point L2VPN: it has its two terminations already.`);
  }
};

export const l2vpnTerminationModel = defineModel({
  name: 'vpn.l2vpntermination',
  table: 'l2vpn_terminations',
  path: '/api/l2vpn-terminations/',
  label: 'L2VPN termination',
  tenantScoped: true,
  displayParent: ['l2vpn'],
  fields: {
    l2vpn: { kind: 'fk', target: 'vpn.l2vpn', onDelete: 'cascade', label: 'L2VPN' },
    // Exactly one of the three; each object terminates on one L2VPN at most (database unique keys).
    vlan: { kind: 'fk', target: 'ipam.vlan', nullable: true, onDelete: 'cascade', label: 'VLAN', unique: true },
    interface: { kind: 'fk', target: 'dcim.interface', nullable: true, onDelete: 'cascade', unique: true },
    vm_interface: { kind: 'fk', target: 'virtualization.vminterface', nullable: true, onDelete: 'cascade', label: 'VM interface', unique: true },
    custom_fields: { kind: 'custom_fields' },
  },
  defaultOrdering: ['l2vpn', 'numid'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: { validate: checkTermination },
});
