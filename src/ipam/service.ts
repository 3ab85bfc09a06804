// IPAM rules: route distinguishers, primary addresses, address assignment, VLAN modes, and the page loaders
// of derived fields (an address's containing prefix, its assigned interface).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import type { ComputedField } from '../core/registry.ts';
import { requireModel } from '../core/registry.ts';
import { ErrorCollector, fieldError } from '../core/errors.ts';
import { callerTenant, sameTenant, scopeCondition } from '../core/access.ts';
import { briefFromJson, briefJson, briefObject, objectUrl, type Row } from '../core/crud/serialize.ts';
import { briefSchema } from '../core/crud/schemas.ts';
import { parseInet } from '../core/crud/field-values.ts';
import { prepareUpdate, updateRowInTx } from '../core/crud/write.ts';

const RD_RE = /^(\d{1,10}|\d{1,3}(?:\.\d{1,3}){3}):(\d{1,10})$/;

/**
 * Route distinguishers and route targets share one grammar (RFC 4364 types 0, 1, 2): `ASN:NN` with a 2-byte
 * ASN and 4-byte number, a 4-byte ASN and 2-byte number, or `IPv4:NN` with a 2-byte number.
 * Returns the problem, or null when the value is good.
 */
export function routeDistinguisherError(text: string): string | null {
  const m = RD_RE.exec(text);
  const shape = `"${text}" is not a route distinguisher: use ASN:NN (65000:100, 4200000000:1) or IPv4:NN (192.0.2.1:100).`;
  if (!m) return shape;
  const admin = m[1]!;
  const assigned = Number(m[2]);
  if (admin.includes('.')) {
    if (!parseInet(admin)) return shape;
    return assigned <= 0xffff ? null : `In IPv4:NN form the number is at most 65535.`;
  }
  const asn = Number(admin);
  if (asn > 0xffffffff) return 'The ASN part is at most 4294967295.';
  if (asn > 0xffff) return assigned <= 0xffff ? null : 'With a 4-byte ASN the number is at most 65535.';
  return assigned <= 0xffffffff ? null : 'The number part is at most 4294967295.';
}

export function familyOf(address: string): 4 | 6 {
  return address.includes(':') ? 6 : 4;
}

function hostOf(address: string): string {
  return address.split('/')[0]!;
}

/** Which of a device's or VM's address fields are being set. */
export type PrimaryOwner = { kind: 'device' | 'vm'; id: string | null; label: string };

/**
 * "Setting a primary IP requires an address assigned to one of the owner's interfaces", and the IPv4 field takes
 * only IPv4, the IPv6 field only IPv6. A missing or foreign id is left to the generic reference check (404-alike).
 */
export async function checkPrimaryIps(tx: Kysely<DB>, ctx: RequestContext, owner: PrimaryOwner, input: Record<string, unknown>): Promise<void> {
  const wanted = (['primary_ip4', 'primary_ip6'] as const).filter((k) => typeof input[k] === 'string');
  if (wanted.length === 0) return;
  const ids = wanted.map((k) => input[k] as string);
  const { rows } = await sql<{ id: string; address: string; device_id: string | null; virtual_machine_id: string | null }>`
    SELECT a.id, a.address::text AS address, i.device_id, vi.virtual_machine_id
    FROM ip_addresses a
    LEFT JOIN interfaces i ON i.id = a.assigned_interface_id
    LEFT JOIN vm_interfaces vi ON vi.id = a.assigned_vm_interface_id
    WHERE a.id = ANY(${ids}::uuid[]) AND ${callerTenant(ctx, 'a')}`.execute(tx);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const errors = new ErrorCollector();
  for (const key of wanted) {
    const ip = byId.get(input[key] as string);
    if (!ip) continue;
    const family = familyOf(ip.address);
    const wantFamily = key === 'primary_ip4' ? 4 : 6;
    if (family !== wantFamily) {
      errors.add(key, `${key} takes an IPv${wantFamily} address; ${ip.address} is IPv${family}.`);
      continue;
    }
    const holder = owner.kind === 'device' ? ip.device_id : ip.virtual_machine_id;
    if (owner.id === null || holder !== owner.id) {
      errors.add(
        key,
        `${ip.address} is not assigned to an interface of this ${owner.label}: assign the address to one of its interfaces first` +
          (owner.id === null ? ` (a new ${owner.label} has none yet; set ${key} after creating it).` : '.'),
      );
    }
  }
  errors.throwIfAny();
}

/**
 * An address that is some device's or VM's primary IP must stay on that owner's interfaces and keep its family;
 * otherwise the primary IP would silently point at an address elsewhere.
 */
export async function checkAddressStillPrimary(tx: Kysely<DB>, existing: Row, next: { address: string; interfaceId: string | null; vmInterfaceId: string | null }): Promise<void> {
  const id = String(existing.id);
  const { rows } = await sql<{ kind: string; name: string; slot: string; owner_id: string }>`
    SELECT 'device' AS kind, d.name, CASE WHEN d.primary_ip4_id = ${id} THEN 'primary_ip4' ELSE 'primary_ip6' END AS slot, d.id AS owner_id
      FROM devices d WHERE d.primary_ip4_id = ${id} OR d.primary_ip6_id = ${id}
    UNION ALL
    SELECT 'virtual machine', v.name, CASE WHEN v.primary_ip4_id = ${id} THEN 'primary_ip4' ELSE 'primary_ip6' END, v.id
      FROM virtual_machines v WHERE v.primary_ip4_id = ${id} OR v.primary_ip6_id = ${id}`.execute(tx);
  if (rows.length === 0) return;
  let deviceOfInterface: string | null = null;
  let vmOfInterface: string | null = null;
  if (next.interfaceId) {
    const r = await sql<{ device_id: string }>`SELECT device_id FROM interfaces WHERE id = ${next.interfaceId}`.execute(tx);
    deviceOfInterface = r.rows[0]?.device_id ?? null;
  }
  if (next.vmInterfaceId) {
    const r = await sql<{ virtual_machine_id: string }>`SELECT virtual_machine_id FROM vm_interfaces WHERE id = ${next.vmInterfaceId}`.execute(tx);
    vmOfInterface = r.rows[0]?.virtual_machine_id ?? null;
  }
  for (const r of rows) {
    const family = familyOf(next.address);
    if ((r.slot === 'primary_ip4') !== (family === 4)) {
      throw fieldError('address', `This address is the ${r.slot} of ${r.kind} ${r.name}; it cannot change family. Unset it there first.`);
    }
    const stays = r.kind === 'device' ? deviceOfInterface === r.owner_id : vmOfInterface === r.owner_id;
    if (!stays) {
      const field = r.kind === 'device' ? 'assigned_interface' : 'assigned_vm_interface';
      throw fieldError(field, `This address is the ${r.slot} of ${r.kind} ${r.name}; it must stay on one of its interfaces. Unset ${r.slot} there first.`);
    }
  }
}

/**
 * Devices and VMs whose primary IPv4 or IPv6 is one of `ipIds` lose it, through the one write path: each owner's
 * change is in the change log under the caller's request, and its hooks (monitoring falls back to the other
 * primary address) run. For deletes of addresses and of the interfaces that hold them.
 */
export async function clearPrimaryAddresses(tx: Kysely<DB>, ctx: RequestContext, ipIds: string[]): Promise<void> {
  if (ipIds.length === 0) return;
  for (const [name, table] of [['dcim.device', 'devices'], ['virtualization.virtualmachine', 'virtual_machines']] as const) {
    const model = requireModel(name);
    const { rows } = await sql<{ id: string; ip4: boolean; ip6: boolean }>`SELECT o.id, o.primary_ip4_id = ANY(${ipIds}::uuid[]) AS ip4,
        o.primary_ip6_id = ANY(${ipIds}::uuid[]) AS ip6
      FROM ${sql.table(table)} o WHERE (o.primary_ip4_id = ANY(${ipIds}::uuid[]) OR o.primary_ip6_id = ANY(${ipIds}::uuid[]))
        AND ${scopeCondition(ctx, model, 'o')}`.execute(tx);
    for (const r of rows) {
      const body: Record<string, null> = {};
      if (r.ip4) body.primary_ip4 = null;
      if (r.ip6) body.primary_ip6 = null;
      await updateRowInTx(tx, ctx, model, r.id, await prepareUpdate(model, body, 'patch'), 'patch');
    }
  }
}

/** The addresses assigned to `interfaceIds` that are some device's primary IPv4 or IPv6. */
export async function primaryAddressesOn(tx: Kysely<DB>, interfaceIds: string[]): Promise<Array<{ id: string; address: string; slot: 'primary_ip4' | 'primary_ip6'; device: string }>> {
  if (interfaceIds.length === 0) return [];
  const { rows } = await sql<{ id: string; address: string; slot: 'primary_ip4' | 'primary_ip6'; device: string }>`
    SELECT a.id, a.address::text AS address, CASE WHEN d.primary_ip4_id = a.id THEN 'primary_ip4' ELSE 'primary_ip6' END AS slot, d.name AS device
    FROM ip_addresses a JOIN interfaces i ON i.id = a.assigned_interface_id JOIN devices d ON d.id = i.device_id
    WHERE a.assigned_interface_id = ANY(${interfaceIds}::uuid[]) AND (d.primary_ip4_id = a.id OR d.primary_ip6_id = a.id)
    ORDER BY a.address`.execute(tx);
  return rows;
}

/**
 * 802.1Q modes (NetBox's rule): an untagged VLAN needs a mode, tagged VLANs need mode `tagged`. Works on the
 * merged state so a PATCH of one field is checked against the stored others.
 */
export async function checkVlanMode(
  tx: Kysely<DB>,
  input: Record<string, unknown>,
  existing: Row | null,
  joinTable: { table: string; from: string },
): Promise<void> {
  const mode = 'mode' in input ? input.mode : (existing?.mode ?? null);
  const untagged = 'untagged_vlan' in input ? input.untagged_vlan : (existing?.untagged_vlan_id ?? null);
  let taggedCount: number;
  if ('tagged_vlans' in input) taggedCount = (input.tagged_vlans as string[]).length;
  else if (existing) {
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(joinTable.table)} WHERE ${sql.ref(joinTable.from)} = ${existing.id}`.execute(tx);
    taggedCount = rows[0]!.n;
  } else taggedCount = 0;
  const errors = new ErrorCollector();
  if (untagged && !mode) errors.add('untagged_vlan', 'An untagged VLAN needs an 802.1Q mode (access, tagged or tagged-all).');
  if (taggedCount > 0 && mode !== 'tagged') {
    errors.add('tagged_vlans', `Tagged VLANs need mode "tagged" (the mode is ${mode ? `"${String(mode)}"` : 'not set'}).`);
  }
  errors.throwIfAny();
}

/** The address's containing prefix: longest match in the same VRF (global table = no VRF), one query per page. */
export const containingPrefixField: ComputedField = {
  label: 'Prefix',
  kind: 'object',
  related: 'ipam.prefix',
  schema: { anyOf: [briefSchema, { type: 'null' }] },
  async load({ db, ctx, rows, origin }) {
    const out = new Map<string, unknown>();
    if (rows.length === 0) return out;
    const prefixModel = requireModel('ipam.prefix');
    const ids = rows.map((r) => String(r.id));
    // host(address)::inet: containment of the address itself, whatever mask length the address carries.
    const { rows: found } = await sql<Row>`SELECT DISTINCT ON (a.id) a.id AS owner, p.*
      FROM ip_addresses a
      JOIN prefixes p ON ${sameTenant('p', 'a')} AND p.vrf_id IS NOT DISTINCT FROM a.vrf_id AND p.prefix >>= host(a.address)::inet
      WHERE a.id = ANY(${ids}::uuid[]) AND ${scopeCondition(ctx, prefixModel, 'p')}
      ORDER BY a.id, masklen(p.prefix) DESC`.execute(db);
    for (const r of found) out.set(String(r.owner), briefObject(prefixModel, r, origin));
    return out;
  },
  inline: {
    select: (ctx, alias) => {
      const prefixModel = requireModel('ipam.prefix');
      return sql`(SELECT ${briefJson(prefixModel, 'p')} FROM prefixes p
        WHERE ${sameTenant('p', alias)} AND p.vrf_id IS NOT DISTINCT FROM ${sql.ref(`${alias}.vrf_id`)}
          AND p.prefix >>= host(${sql.ref(`${alias}.address`)})::inet AND ${scopeCondition(ctx, prefixModel, 'p')}
        ORDER BY masklen(p.prefix) DESC LIMIT 1)`;
    },
    value: (selected, origin) => briefFromJson(requireModel('ipam.prefix'), selected, origin),
  },
};

export const familyField: ComputedField = {
  label: 'Family',
  kind: 'choice',
  options: [{ value: '4', label: 'IPv4' }, { value: '6', label: 'IPv6' }],
  schema: { type: 'integer', enum: [4, 6] },
  async load({ rows }) {
    const out = new Map<string, unknown>();
    for (const r of rows) {
      const v = r.address ?? r.prefix;
      if (typeof v === 'string') out.set(String(r.id), familyOf(v));
    }
    return out;
  },
};

/** `dcim.interface`, `virtualization.vminterface`, `ipam.fhrpgroup` or null: which of the assignment columns is set. */
export const assignedObjectTypeField: ComputedField = {
  label: 'Assigned object type',
  kind: 'string',
  schema: { type: ['string', 'null'], enum: ['dcim.interface', 'virtualization.vminterface', 'ipam.fhrpgroup', null] },
  async load({ rows }) {
    const out = new Map<string, unknown>();
    for (const r of rows) {
      if (r.assigned_interface_id) out.set(String(r.id), 'dcim.interface');
      else if (r.assigned_vm_interface_id) out.set(String(r.id), 'virtualization.vminterface');
      else if (r.fhrp_group_id) out.set(String(r.id), 'ipam.fhrpgroup');
    }
    return out;
  },
};

/** The assigned interface with its parent device or VM: one query per kind for the page. */
/** Where an assigned interface lives: its table and model, and the parent (device or VM) it belongs to. */
interface InterfaceOwner {
  ifModel: string;
  ifTable: string;
  parentModel: string;
  parentTable: string;
  parentColumn: string;
  /** Key of the parent in the brief: `device` or `virtual_machine`. */
  parentKey: string;
}

const DEVICE_INTERFACES: InterfaceOwner = {
  ifModel: 'dcim.interface',
  ifTable: 'interfaces',
  parentModel: 'dcim.device',
  parentTable: 'devices',
  parentColumn: 'device_id',
  parentKey: 'device',
};
const VM_INTERFACES: InterfaceOwner = {
  ifModel: 'virtualization.vminterface',
  ifTable: 'vm_interfaces',
  parentModel: 'virtualization.virtualmachine',
  parentTable: 'virtual_machines',
  parentColumn: 'virtual_machine_id',
  parentKey: 'virtual_machine',
};

/** Brief objects of the given interfaces with their parent, in one query, inside the caller's fence. */
async function addInterfaceBriefs(
  db: Kysely<DB>,
  ctx: RequestContext,
  origin: string,
  briefs: Map<string, unknown>,
  ids: string[],
  owner: InterfaceOwner,
): Promise<void> {
  if (ids.length === 0) return;
  const ifModel = requireModel(owner.ifModel);
  const { rows: found } = await sql<{ id: string; name: string; parent_id: string; parent_name: string }>`
    SELECT i.id, i.name, p.id AS parent_id, p.name AS parent_name FROM ${sql.table(owner.ifTable)} i
    JOIN ${sql.table(owner.parentTable)} p ON p.id = ${sql.ref(`i.${owner.parentColumn}`)}
    WHERE i.id = ANY(${ids}::uuid[]) AND ${scopeCondition(ctx, ifModel, 'i')}`.execute(db);
  for (const f of found) briefs.set(f.id, interfaceBrief(owner, f, origin));
}

function interfaceBrief(owner: InterfaceOwner, f: { id: string; name: string; parent_id: string; parent_name: string }, origin: string): Row {
  const parentModel = requireModel(owner.parentModel);
  return {
    id: f.id,
    url: objectUrl(requireModel(owner.ifModel), f.id, origin),
    display: f.name,
    name: f.name,
    [owner.parentKey]: { id: f.parent_id, url: objectUrl(parentModel, f.parent_id, origin), display: f.parent_name, name: f.parent_name },
  };
}

/**
 * What addInterfaceBriefs reads of the interface `id` names, inside another statement: [id, name, parent id, parent
 * name, interface model].
 */
function interfaceBriefJson(ctx: RequestContext, owner: InterfaceOwner, id: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(SELECT json_build_array(i.id, i.name, p.id, p.name, ${owner.ifModel}::text) FROM ${sql.table(owner.ifTable)} i
    JOIN ${sql.table(owner.parentTable)} p ON p.id = ${sql.ref(`i.${owner.parentColumn}`)}
    WHERE i.id = ${id} AND ${scopeCondition(ctx, requireModel(owner.ifModel), 'i')})`;
}

export const assignedObjectField: ComputedField = {
  label: 'Assigned object',
  kind: 'object',
  schema: { anyOf: [briefSchema, { type: 'null' }] },
  async load({ db, ctx, rows, origin }) {
    const out = new Map<string, unknown>();
    const ifaceIds = [...new Set(rows.map((r) => r.assigned_interface_id).filter((v): v is string => typeof v === 'string'))];
    const vmIfaceIds = [...new Set(rows.map((r) => r.assigned_vm_interface_id).filter((v): v is string => typeof v === 'string'))];
    const briefs = new Map<string, unknown>();
    await addInterfaceBriefs(db, ctx, origin, briefs, ifaceIds, DEVICE_INTERFACES);
    await addInterfaceBriefs(db, ctx, origin, briefs, vmIfaceIds, VM_INTERFACES);
    const groupIds = [...new Set(rows.map((r) => r.fhrp_group_id).filter((v): v is string => typeof v === 'string'))];
    if (groupIds.length > 0) {
      const groups = requireModel('ipam.fhrpgroup');
      const { rows: found } = await sql<Row>`SELECT g.* FROM fhrp_groups g WHERE g.id = ANY(${groupIds}::uuid[]) AND ${scopeCondition(ctx, groups, 'g')}`.execute(db);
      for (const g of found) briefs.set(String(g.id), briefObject(groups, g, origin));
    }
    for (const r of rows) {
      const target = (r.assigned_interface_id ?? r.assigned_vm_interface_id ?? r.fhrp_group_id) as string | null;
      if (target && briefs.has(target)) out.set(String(r.id), briefs.get(target));
    }
    return out;
  },
  // A device's interface when that column is set, else a VM's, else an FHRP group (never two: validate refuses it).
  inline: {
    select: (ctx, alias) => {
      const col = (c: string) => sql.ref(`${alias}.${c}`);
      const groups = requireModel('ipam.fhrpgroup');
      return sql`CASE WHEN ${col('assigned_interface_id')} IS NOT NULL THEN ${interfaceBriefJson(ctx, DEVICE_INTERFACES, col('assigned_interface_id'))}
        WHEN ${col('assigned_vm_interface_id')} IS NOT NULL THEN ${interfaceBriefJson(ctx, VM_INTERFACES, col('assigned_vm_interface_id'))}
        ELSE (SELECT json_build_object('fhrp_group', ${briefJson(groups, 'g')}) FROM fhrp_groups g
          WHERE g.id = ${col('fhrp_group_id')} AND ${scopeCondition(ctx, groups, 'g')}) END`;
    },
    value: (selected, origin) => {
      if (selected !== null && typeof selected === 'object' && 'fhrp_group' in selected) {
        return briefFromJson(requireModel('ipam.fhrpgroup'), (selected as { fhrp_group: unknown }).fhrp_group, origin);
      }
      if (!Array.isArray(selected)) return null;
      const [id, name, parentId, parentName, kind] = selected as string[];
      const owner = kind === DEVICE_INTERFACES.ifModel ? DEVICE_INTERFACES : VM_INTERFACES;
      return interfaceBrief(owner, { id: id!, name: name!, parent_id: parentId!, parent_name: parentName! }, origin);
    },
  },
};

export function hostOnlyError(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const parsed = parseInet(value);
  if (!parsed) return null;
  const max = parsed.addr.kind() === 'ipv4' ? 32 : 128;
  return parsed.len === max ? null : `Give a host address without a mask (e.g. ${hostOf(value)}).`;
}
