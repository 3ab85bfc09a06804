// NetBox's virtualization catalogs and a VM's disks: cluster types (the hypervisor or platform: VMware vSphere,
// Proxmox…), cluster groups (a region, a customer, a purpose) and virtual disks. A VM's `disk` is the sum of its
// virtual disks (computed, as NetBox keeps it once a VM has any), in MB as NetBox 4.1 counts them.
import { sql } from 'kysely';
import { defineModel, type ComputedField } from '../core/registry.ts';
import { callerTenant } from '../core/access.ts';

const catalogFields = {
  name: { kind: 'string', maxLength: 100, unique: true },
  slug: { kind: 'slug', maxLength: 100, unique: true },
  description: { kind: 'string', maxLength: 200, default: '' },
  tags: { kind: 'tags' },
  custom_fields: { kind: 'custom_fields' },
} as const;

export const clusterTypeModel = defineModel({
  name: 'virtualization.clustertype',
  table: 'cluster_types',
  path: '/api/cluster-types/',
  label: 'cluster type',
  tenantScoped: true,
  fields: { ...catalogFields },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
});

export const clusterGroupModel = defineModel({
  name: 'virtualization.clustergroup',
  table: 'cluster_groups',
  path: '/api/cluster-groups/',
  label: 'cluster group',
  tenantScoped: true,
  fields: { ...catalogFields },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
});

export const virtualDiskModel = defineModel({
  name: 'virtualization.virtualdisk',
  table: 'virtual_disks',
  path: '/api/virtual-disks/',
  label: 'virtual disk',
  tenantScoped: true,
  displayParent: ['virtual_machine'],
  fields: {
    virtual_machine: { kind: 'fk', target: 'virtualization.virtualmachine', onDelete: 'cascade', label: 'Virtual machine' },
    // Unique per VM (a database constraint): every VM has a "disk0".
    name: { kind: 'string', maxLength: 64 },
    size: { kind: 'integer', min: 0, max: 2_147_483_647, label: 'Size (MB)' },
    description: { kind: 'string', maxLength: 200, default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['virtual_machine', 'name'],
});

/** A VM's disk: the sum of its virtual disks' sizes (MB), null while it has none. */
export const vmDiskField: ComputedField = {
  label: 'Disk (MB)',
  kind: 'number',
  schema: { type: ['integer', 'null'] },
  async load({ db, ctx, rows }) {
    const ids = rows.map((r) => String(r.id));
    const { rows: sums } = await sql<{ id: string; total: string }>`SELECT virtual_machine_id AS id, sum(size)::text AS total
      FROM virtual_disks WHERE virtual_machine_id = ANY(${ids}::uuid[]) AND ${callerTenant(ctx)} GROUP BY virtual_machine_id`.execute(db);
    const out = new Map<string, unknown>(ids.map((id) => [id, null]));
    for (const s of sums) out.set(s.id, Number(s.total));
    return out;
  },
  inline: {
    select: (ctx, alias) => sql`(SELECT sum(vd.size)::bigint FROM virtual_disks vd WHERE vd.virtual_machine_id = ${sql.ref(`${alias}.id`)} AND ${callerTenant(ctx, 'vd')})`,
    value: (selected) => (selected === null || selected === undefined ? null : Number(selected)),
  },
};
