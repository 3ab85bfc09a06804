// IPAM's NetBox catalogs: RIRs and aggregates (address space held, aggregates never overlapping), roles of
// prefixes and VLANs, IP ranges (start and end of one family and mask, size derived), and VLAN groups (a site or
// a region, the VIDs they allow; a VID once per group).
import { sql } from 'kysely';
import ipaddr from 'ipaddr.js';
import { defineModel, type ComputedField, type HookArgs } from '../core/registry.ts';
import { ownerField } from '../organization/owners.ts';
import { ErrorCollector, fieldError } from '../core/errors.ts';
import { scopeCondition } from '../core/access.ts';
import { rangeUsageKey, usageHooks } from './utilization.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

const description = { kind: 'string', maxLength: 200, default: '' } as const;
const rangeUsage = usageHooks(rangeUsageKey, ['start_address', 'end_address', 'vrf_id', 'mark_utilized']);

export const rirModel = defineModel({
  name: 'ipam.rir',
  table: 'rirs',
  path: '/api/rirs/',
  label: 'RIR',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    is_private: { kind: 'boolean', label: 'Private', help: 'Space of this RIR is private (RFC 1918, RFC 4193, …).' },
    description,
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
});

export const aggregateModel = defineModel({
  name: 'ipam.aggregate',
  table: 'aggregates',
  path: '/api/aggregates/',
  label: 'aggregate',
  tenantScoped: true,
  displayField: 'prefix',
  fields: {
    prefix: { kind: 'cidr', help: 'The space held, e.g. 10.0.0.0/8; aggregates do not overlap.' },
    rir: { kind: 'fk', target: 'ipam.rir', label: 'RIR', onDelete: 'protect' },
    date_added: { kind: 'date', nullable: true },
    description,
    owner: ownerField,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['description'],
  defaultOrdering: ['prefix'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, ctx, model, input, existing }) {
      if (typeof input.prefix !== 'string') return;
      const { rows } = await sql<{ prefix: string }>`SELECT a.prefix::text AS prefix FROM aggregates a
        WHERE a.prefix && ${input.prefix}::cidr AND a.id IS DISTINCT FROM ${existing?.id ?? null}::uuid AND ${scopeCondition(ctx, model, 'a')}
        ORDER BY a.prefix LIMIT 1`.execute(tx);
      if (rows[0]) throw fieldError('prefix', `${input.prefix} overlaps the aggregate ${rows[0].prefix}: aggregates may not overlap.`);
    },
  },
});

export const ipamRoleModel = defineModel({
  name: 'ipam.role',
  table: 'ipam_roles',
  path: '/api/ipam-roles/',
  label: 'IPAM role',
  tenantScoped: true,
  permission: 'ipamrole',
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    weight: { kind: 'integer', min: 0, max: 32767, default: 1000, help: 'Lower weights sort first.' },
    description,
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['weight', 'name'],
});

/** Addresses between two hosts, both ends counted (a BigInt: IPv6 ranges exceed 2^53). */
function rangeSize(start: string, end: string): bigint | null {
  try {
    const toInt = (text: string) => ipaddr.parse(text.split('/')[0]!).toByteArray().reduce((n, b) => (n << 8n) | BigInt(b), 0n);
    return toInt(end) - toInt(start) + 1n;
  } catch {
    return null;
  }
}

const sizeField: ComputedField = {
  label: 'Size',
  kind: 'number',
  schema: { type: 'integer', description: 'Addresses in the range, both ends counted.' },
  async load({ rows }) {
    const out = new Map<string, unknown>();
    for (const r of rows) {
      const n = rangeSize(String(r.start_address), String(r.end_address));
      if (n !== null) out.set(String(r.id), Number(n));
    }
    return out;
  },
};

export const ipRangeModel = defineModel({
  name: 'ipam.iprange',
  table: 'ip_ranges',
  path: '/api/ip-ranges/',
  label: 'IP range',
  tenantScoped: true,
  displayField: 'start_address',
  fields: {
    start_address: { kind: 'inet', help: 'First address with its mask, e.g. 10.0.0.100/24.' },
    end_address: { kind: 'inet', help: 'Last address, same family and mask as the start.' },
    vrf: { kind: 'fk', target: 'ipam.vrf', label: 'VRF', nullable: true, onDelete: 'protect', help: 'Empty for the global table.' },
    status: { kind: 'fk', target: 'extras.status', nullable: true, onDelete: 'protect' },
    role: { kind: 'fk', target: 'ipam.role', nullable: true, onDelete: 'set_null' },
    mark_utilized: { kind: 'boolean', label: 'Marked utilised', help: 'Count the whole range as used in its prefix.' },
    description,
    owner: ownerField,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  computed: { size: sizeField },
  searchContext: ['vrf'],
  searchFields: ['description'],
  defaultOrdering: ['vrf', 'start_address'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    // The status's rules run first: wireStatusFields (src/extras/statuses.ts).
    async validate({ input, existing }) {
      const start = String(input.start_address ?? existing?.start_address ?? '');
      const end = String(input.end_address ?? existing?.end_address ?? '');
      if (!start || !end) return;
      const [s, sl] = start.split('/');
      const [e, el] = end.split('/');
      const errors = new ErrorCollector();
      if (s!.includes(':') !== e!.includes(':')) errors.add('end_address', 'The start and end addresses must be of one family.');
      else if (sl !== el) errors.add('end_address', `The start (/${sl}) and end (/${el}) addresses must have the same mask length.`);
      else if ((rangeSize(start, end) ?? 0n) < 1n) errors.add('end_address', `${end} comes before the start address ${start}.`);
      errors.throwIfAny();
    },
    afterCreate: rangeUsage.afterCreate,
    afterUpdate: rangeUsage.afterUpdate,
    afterUpdateMany: rangeUsage.afterUpdateMany,
    afterDelete: rangeUsage.afterDelete,
  },
});

export const vlanGroupModel = defineModel({
  name: 'ipam.vlangroup',
  table: 'vlan_groups',
  path: '/api/vlan-groups/',
  label: 'VLAN group',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    site: { kind: 'fk', target: 'organization.site', nullable: true, onDelete: 'cascade', help: 'The site it serves (or set region).' },
    region: { kind: 'fk', target: 'organization.region', nullable: true, onDelete: 'cascade', help: 'The region it serves (or set site).' },
    min_vid: { kind: 'integer', label: 'Lowest VID', min: 1, max: 4094, default: 1 },
    max_vid: { kind: 'integer', label: 'Highest VID', min: 1, max: 4094, default: 4094 },
    description,
    owner: ownerField,
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, input, existing }) {
      const pick = (key: string, column = key) => (key in input ? input[key] : existing?.[column]);
      const errors = new ErrorCollector();
      if (pick('site', 'site_id') && pick('region', 'region_id')) errors.add('region', 'A VLAN group serves a site or a region, not both: clear one of them.');
      const min = Number(pick('min_vid') ?? 1);
      const max = Number(pick('max_vid') ?? 4094);
      if (min > max) errors.add('max_vid', `The highest VID (${max}) is below the lowest (${min}).`);
      errors.throwIfAny();
      if (existing && ('min_vid' in input || 'max_vid' in input)) {
        const { rows } = await sql<{ vid: number; name: string }>`SELECT vid, name FROM vlans WHERE group_id = ${existing.id} AND (vid < ${min} OR vid > ${max}) ORDER BY vid LIMIT 1`.execute(tx);
        if (rows[0]) throw fieldError('min_vid' in input ? 'min_vid' : 'max_vid', `VLAN ${rows[0].vid} (${rows[0].name}) of this group would fall outside ${min}–${max}.`);
      }
    },
  },
});

/**
 * A VLAN in a group: its VID inside the group's range and not taken in the group (the unique index guards
 * concurrent writers; this names the VLAN holding it).
 */
export async function checkVlanInGroup(args: Pick<HookArgs, 'tx'> & { input: Record<string, unknown>; existing: Record<string, unknown> | null }): Promise<void> {
  const { tx, input, existing } = args;
  const group = 'group' in input ? input.group : existing?.group_id;
  const vid = 'vid' in input ? input.vid : existing?.vid;
  if (typeof group !== 'string' || typeof vid !== 'number' || !('group' in input || 'vid' in input)) return;
  const { rows } = await sql<{ name: string; min_vid: number; max_vid: number; taken: string | null }>`SELECT g.name, g.min_vid, g.max_vid,
      (SELECT v.name FROM vlans v WHERE v.group_id = g.id AND v.vid = ${vid} AND v.id IS DISTINCT FROM ${existing?.id ?? null}::uuid LIMIT 1) AS taken
    FROM vlan_groups g WHERE g.id = ${group}`.execute(tx);
  const g = rows[0];
  if (!g) return; // the generic reference check names a missing group
  if (vid < g.min_vid || vid > g.max_vid) throw fieldError('vid', `VLAN group ${g.name} allows VIDs ${g.min_vid}–${g.max_vid}.`);
  if (g.taken !== null) throw fieldError('vid', `VID ${vid} is taken in VLAN group ${g.name} by VLAN ${g.taken}.`);
}
