// The Ansible dynamic inventory: devices and virtual machines of the active tenant that the caller may view,
// grouped by site, region, role, platform, status, tag, device type, cluster and boolean custom-field flags.
//
// Cost: a fixed set of queries whatever the number of hosts (custom-field definitions, devices, their
// interfaces, VMs, their interfaces, and the two of `renderConfigContexts`). Hosts and their relations are read
// with joins in one statement per kind; nothing is loaded per host. The document is serialised once and its
// sha256 is the ETag, so any change to any included value changes the tag (no fingerprint of tables to keep in
// step with what the document reads).
import { createHash } from 'node:crypto';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import type { ModelDef } from '../core/registry.ts';
import { requireModel } from '../core/registry.ts';
import { inTenant, modelAllows, requireModelPermission, scopeCondition } from '../core/access.ts';
import { ErrorCollector, fieldError, notFound } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { renderConfigContexts, type ConfigContextSubject } from '../extras/config-context.ts';
import { naturalCompare } from '../core/natural-compare.ts';
import { loadRoutingBlocks } from '../templating/device-context.ts';

export type HostKind = 'device' | 'vm';
export type QueryValues = Record<string, string | string[] | undefined>;

interface CustomFieldDef {
  name: string;
  type: string;
  object_types: string[];
}

/** A custom-field filter `cf_<name>=<value>`, its value already parsed by the field's type. */
interface CustomFieldFilter {
  def: CustomFieldDef;
  param: string;
  values: unknown[];
}

export interface InventoryFilters {
  site: string[];
  role: string[];
  platform: string[];
  status: string[];
  tag: string[];
  kind: HostKind | null;
  hasPrimaryIp: boolean | null;
  routing: boolean;
  customFields: CustomFieldFilter[];
  /** One object (the per-host endpoint). */
  id?: string;
}

export interface InterfaceVars {
  name: string;
  type: string | null;
  enabled: boolean;
  mac_address: string | null;
  mtu: number | null;
  addresses: string[];
}

export interface CairnVars {
  id: string;
  kind: HostKind;
  name: string;
  site: string | null;
  region: string | null;
  role: string | null;
  platform: string | null;
  status: string | null;
  device_type: string | null;
  manufacturer: string | null;
  cluster: string | null;
  serial: string | null;
  asset_tag: string | null;
  tags: string[];
  custom_fields: Record<string, unknown>;
  interfaces: InterfaceVars[];
  config_context: Record<string, unknown>;
  /** With `?routing=1` only: the routing block config renders see. */
  routing?: Record<string, unknown> | null;
}

export interface HostVars {
  ansible_host?: string;
  cairn: CairnVars;
}

export interface InventoryHost {
  host: string;
  ansible_host: string | null;
  groups: string[];
  hostvars: HostVars;
}

export interface InventoryDocument {
  body: string;
  etag: string;
  hosts: number;
}

const BOOL_TRUE = new Set(['1', 'true', 'yes', 'on']);
const BOOL_FALSE = new Set(['0', 'false', 'no', 'off']);
const LIST_PARAMS = ['site', 'role', 'platform', 'status', 'tag'] as const;
const KNOWN_PARAMS = new Set<string>([...LIST_PARAMS, 'kind', 'has_primary_ip', 'routing']);

function parseBool(text: string): boolean | null {
  const v = text.trim().toLowerCase();
  if (BOOL_TRUE.has(v)) return true;
  if (BOOL_FALSE.has(v)) return false;
  return null;
}

function valuesOf(raw: string | string[] | undefined): string[] {
  if (raw === undefined) return [];
  return Array.isArray(raw) ? raw : [raw];
}

/**
 * An Ansible group name: parts joined with `_`, lowercased, every run of characters outside `[a-z0-9_]` made
 * one `_`, outer underscores trimmed. Null when nothing is left (no group rather than a group named "").
 */
export function groupName(prefix: string, value: string): string | null {
  const cleaned = value.toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^_+|_+$/g, '');
  return cleaned ? `${prefix}_${cleaned}` : null;
}


async function customFieldDefinitions(db: Kysely<DB>, tenantId: string): Promise<CustomFieldDef[]> {
  const { rows } = await sql<CustomFieldDef>`SELECT name, type, object_types FROM custom_fields WHERE ${inTenant(tenantId)} ORDER BY name`.execute(db);
  return rows;
}

/** Why a filter text is not a value of this custom field's type, or the parsed value. */
function parseCustomFieldFilter(def: CustomFieldDef, text: string): { value: unknown } | { error: string } {
  switch (def.type) {
    case 'boolean': {
      const b = parseBool(text);
      return b === null ? { error: `"${text}" is not true or false (use true/false, 1/0 or yes/no).` } : { value: b };
    }
    case 'integer':
      return /^-?\d+$/.test(text.trim()) && Number.isSafeInteger(Number(text)) ? { value: Number(text) } : { error: `"${text}" is not a whole number.` };
    case 'decimal':
      return /^-?\d+(\.\d+)?$/.test(text.trim()) ? { value: Number(text) } : { error: `"${text}" is not a number.` };
    case 'json':
      return { error: 'JSON custom fields cannot be used as inventory filters.' };
    default:
      // text, longtext, url, date, select: equality with the stored text; multiselect: the list holds it.
      return { value: text };
  }
}

/**
 * The query string of the inventory → filters. Every unknown parameter and every value that does not parse is
 * a 400 naming the parameter; custom-field filters are checked against the tenant's definitions.
 */
export function parseInventoryFilters(query: QueryValues, defs: CustomFieldDef[]): InventoryFilters {
  const errors = new ErrorCollector();
  const byName = new Map(defs.map((d) => [d.name, d]));
  const filters: InventoryFilters = { site: [], role: [], platform: [], status: [], tag: [], kind: null, hasPrimaryIp: null, routing: false, customFields: [] };
  for (const [param, raw] of Object.entries(query)) {
    const values = valuesOf(raw);
    if (param.startsWith('cf_')) {
      const def = byName.get(param.slice(3));
      if (!def) {
        errors.add(param, `Unknown custom field "${param.slice(3)}": filter with cf_<name> for a custom field defined in this tenant.`);
        continue;
      }
      const parsed: unknown[] = [];
      for (const v of values) {
        const p = parseCustomFieldFilter(def, v);
        if ('error' in p) errors.add(param, p.error);
        else parsed.push(p.value);
      }
      filters.customFields.push({ def, param, values: parsed });
      continue;
    }
    if (!KNOWN_PARAMS.has(param)) {
      errors.add(param, `Unknown filter. Known: ${[...KNOWN_PARAMS].join(', ')} and cf_<custom field>.`);
      continue;
    }
    if ((LIST_PARAMS as readonly string[]).includes(param)) {
      const list = values.map((v) => v.trim()).filter((v) => v !== '');
      if (list.length !== values.length) errors.add(param, 'Expected a slug or an id, not an empty value.');
      filters[param as (typeof LIST_PARAMS)[number]] = list;
    } else if (param === 'kind') {
      const k = values[values.length - 1];
      if (k === 'device' || k === 'vm') filters.kind = k;
      else errors.add('kind', `"${k ?? ''}" is not a kind: use device or vm.`);
    } else {
      const b = parseBool(values[values.length - 1] ?? '');
      if (b === null) errors.add(param, 'Expected true or false (or 1/0, yes/no).');
      else if (param === 'has_primary_ip') filters.hasPrimaryIp = b;
      else filters.routing = b;
    }
  }
  errors.throwIfAny();
  return filters;
}

/** An id or a slug of the joined row `alias`. */
function idOrSlug(alias: string, values: string[]): RawBuilder<unknown> {
  const ids = values.filter((v) => isUuid(v)).map((v) => v.toLowerCase());
  const slugs = values.filter((v) => !isUuid(v));
  return sql`(${sql.ref(`${alias}.id`)} = ANY(${ids}::uuid[]) OR ${sql.ref(`${alias}.slug`)} = ANY(${slugs}::text[]))`;
}

/** The WHERE of one host table (`h`, joined as s/r/p/st): the tenant fence first, then the caller's filters. */
function hostConditions(ctx: RequestContext, model: ModelDef, filters: InventoryFilters): RawBuilder<unknown> {
  const where: RawBuilder<unknown>[] = [scopeCondition(ctx, model, 'h')];
  if (filters.id) where.push(sql`h.id = ${filters.id}`);
  if (filters.site.length) where.push(idOrSlug('s', filters.site));
  if (filters.role.length) where.push(idOrSlug('r', filters.role));
  if (filters.platform.length) where.push(idOrSlug('p', filters.platform));
  if (filters.status.length) where.push(idOrSlug('st', filters.status));
  if (filters.tag.length) {
    where.push(sql`EXISTS (SELECT 1 FROM tagged_items ti JOIN tags tg ON tg.id = ti.tag_id
      WHERE ti.object_type = ${model.name} AND ti.object_id = h.id AND ${idOrSlug('tg', filters.tag)})`);
  }
  if (filters.hasPrimaryIp !== null) {
    const set = sql`(h.primary_ip4_id IS NOT NULL OR h.primary_ip6_id IS NOT NULL)`;
    where.push(filters.hasPrimaryIp ? set : sql`NOT ${set}`);
  }
  for (const f of filters.customFields) {
    // A field that does not apply to this kind of host matches none of its hosts.
    if (!f.def.object_types.includes(model.name)) {
      where.push(sql`false`);
      continue;
    }
    const key = f.def.name;
    const conds = f.values.map((v): RawBuilder<unknown> => {
      if (f.def.type === 'boolean' && v === false) {
        // An unset flag is off: `cf_x=false` finds every host the flag is not on for.
        return sql`(h.custom_fields -> ${key}::text) IS DISTINCT FROM 'true'::jsonb`;
      }
      if (f.def.type === 'multiselect') return sql`(h.custom_fields -> ${key}::text) @> ${JSON.stringify([v])}::jsonb`;
      return sql`(h.custom_fields -> ${key}::text) = ${JSON.stringify(v)}::jsonb`;
    });
    where.push(sql`(${sql.join(conds, sql` OR `)})`);
  }
  return sql.join(where, sql` AND `);
}

interface HostRow {
  id: string;
  name: string;
  serial: string | null;
  asset_tag: string | null;
  custom_fields: Record<string, unknown> | null;
  site_id: string | null;
  role_id: string | null;
  platform_id: string | null;
  site: string | null;
  region: string | null;
  role: string | null;
  platform: string | null;
  status: string | null;
  device_type: string | null;
  manufacturer: string | null;
  cluster: string | null;
  ip4: string | null;
  ip6: string | null;
  tags: string[];
}

interface InterfaceRow {
  owner: string;
  iface: string;
  name: string;
  type: string | null;
  enabled: boolean;
  mac_address: string | null;
  mtu: number | null;
  address: string | null;
}

/** What differs between the device and the virtual-machine host query; the rest of the join list is shared. */
const HOST_SOURCES = {
  device: {
    model: 'dcim.device',
    columns: sql`h.serial, h.asset_tag, dt.slug AS device_type, m.slug AS manufacturer, NULL::text AS cluster`,
    from: sql`devices h
    LEFT JOIN device_types dt ON dt.id = h.device_type_id
    LEFT JOIN manufacturers m ON m.id = dt.manufacturer_id`,
  },
  vm: {
    model: 'virtualization.virtualmachine',
    columns: sql`NULL::text AS serial, NULL::text AS asset_tag, NULL::text AS device_type, NULL::text AS manufacturer, c.name AS cluster`,
    from: sql`virtual_machines h
    LEFT JOIN clusters c ON c.id = h.cluster_id`,
  },
} as const;

async function readHosts(db: Kysely<DB>, ctx: RequestContext, kind: HostKind, filters: InventoryFilters): Promise<HostRow[]> {
  const source = HOST_SOURCES[kind];
  const model = requireModel(source.model);
  const { rows } = await sql<HostRow>`SELECT h.id, h.name, h.custom_fields, h.site_id, h.role_id, h.platform_id, ${source.columns},
      s.slug AS site, rg.slug AS region, r.slug AS role, p.slug AS platform, st.slug AS status,
      host(a4.address) AS ip4, host(a6.address) AS ip6,
      ARRAY(SELECT tg.slug FROM tagged_items ti JOIN tags tg ON tg.id = ti.tag_id
        WHERE ti.object_type = ${model.name} AND ti.object_id = h.id ORDER BY tg.slug) AS tags
    FROM ${source.from}
    LEFT JOIN sites s ON s.id = h.site_id
    LEFT JOIN regions rg ON rg.id = s.region_id
    LEFT JOIN device_roles r ON r.id = h.role_id
    LEFT JOIN platforms p ON p.id = h.platform_id
    LEFT JOIN statuses st ON st.id = h.status_id
    LEFT JOIN ip_addresses a4 ON a4.id = h.primary_ip4_id
    LEFT JOIN ip_addresses a6 ON a6.id = h.primary_ip6_id
    WHERE ${hostConditions(ctx, model, filters)}`.execute(db);
  return rows;
}

/**
 * Interfaces of the given hosts with their addresses (one row per interface and address), fenced to the
 * tenant. Addresses are left out when the caller may not view IP addresses.
 */
async function readInterfaces(db: Kysely<DB>, ctx: RequestContext, kind: HostKind, hostIds: string[]): Promise<Map<string, InterfaceVars[]>> {
  const out = new Map<string, InterfaceVars[]>();
  const ifaceModel = requireModel(kind === 'device' ? 'dcim.interface' : 'virtualization.vminterface');
  if (hostIds.length === 0 || !modelAllows(ctx, ifaceModel, 'view')) return out;
  const addressModel = requireModel('ipam.ipaddress');
  const withAddresses = modelAllows(ctx, addressModel, 'view');
  const addressJoin = withAddresses
    ? sql`LEFT JOIN ip_addresses a ON ${sql.ref(kind === 'device' ? 'a.assigned_interface_id' : 'a.assigned_vm_interface_id')} = i.id AND ${scopeCondition(ctx, addressModel, 'a')}`
    : sql`LEFT JOIN (SELECT NULL::inet AS address) a ON false`;
  const query =
    kind === 'device'
      ? sql<InterfaceRow>`SELECT i.device_id AS owner, i.id AS iface, i.name, i.type, i.enabled, i.mac_address, i.mtu, a.address::text AS address
          FROM interfaces i ${addressJoin}
          WHERE i.device_id = ANY(${hostIds}::uuid[]) AND ${scopeCondition(ctx, ifaceModel, 'i')} ORDER BY i.device_id, i.id, a.address`
      : sql<InterfaceRow>`SELECT i.virtual_machine_id AS owner, i.id AS iface, i.name, NULL::text AS type, i.enabled, i.mac_address, i.mtu, a.address::text AS address
          FROM vm_interfaces i ${addressJoin}
          WHERE i.virtual_machine_id = ANY(${hostIds}::uuid[]) AND ${scopeCondition(ctx, ifaceModel, 'i')} ORDER BY i.virtual_machine_id, i.id, a.address`;
  const { rows } = await query.execute(db);
  let last: InterfaceVars | null = null;
  let lastKey = '';
  for (const r of rows) {
    // Rows arrive grouped by interface: an interface with two addresses is two consecutive rows.
    const key = r.iface;
    if (!last || key !== lastKey) {
      last = { name: r.name, type: r.type, enabled: r.enabled, mac_address: r.mac_address, mtu: r.mtu, addresses: [] };
      lastKey = key;
      const list = out.get(r.owner);
      if (list) list.push(last);
      else out.set(r.owner, [last]);
    }
    if (r.address !== null) last.addresses.push(r.address);
  }
  for (const list of out.values()) list.sort((a, b) => naturalCompare(a.name, b.name));
  return out;
}

interface BuiltHost {
  row: HostRow;
  kind: HostKind;
  groups: string[];
  vars: HostVars;
}

function groupsOf(row: HostRow, kind: HostKind, model: ModelDef, defs: CustomFieldDef[]): string[] {
  const groups = new Set<string>();
  const add = (prefix: string, value: string | null) => {
    if (value === null) return;
    const g = groupName(prefix, value);
    if (g) groups.add(g);
  };
  add('site', row.site);
  add('region', row.region);
  add('role', row.role);
  add('platform', row.platform);
  add('status', row.status);
  add('device_type', row.device_type);
  if (kind === 'vm') add('cluster', row.cluster);
  for (const t of row.tags) add('tag', t);
  const values = row.custom_fields ?? {};
  // Only a boolean field that applies to this kind of host, holding exactly `true`, makes a group: the text
  // "true" or the number 1 under some other type is data, not a flag.
  for (const def of defs) if (def.type === 'boolean' && def.object_types.includes(model.name) && values[def.name] === true) add('cf', def.name);
  return [...groups].sort();
}

function buildHost(
  row: HostRow,
  kind: HostKind,
  model: ModelDef,
  defs: CustomFieldDef[],
  interfaces: Map<string, InterfaceVars[]>,
  contexts: Map<string, { rendered: Record<string, unknown> }>,
): BuiltHost {
  const stored = row.custom_fields ?? {};
  // Every field defined for this kind of host, null when unset, so a play can read any of them without a default.
  const customFields: Record<string, unknown> = {};
  for (const def of defs) if (def.object_types.includes(model.name)) customFields[def.name] = stored[def.name] ?? null;
  const cairn: CairnVars = {
    id: row.id,
    kind,
    name: row.name,
    site: row.site,
    region: row.region,
    role: row.role,
    platform: row.platform,
    status: row.status,
    device_type: row.device_type,
    manufacturer: row.manufacturer,
    cluster: row.cluster,
    serial: row.serial === '' ? null : row.serial,
    asset_tag: row.asset_tag,
    tags: row.tags,
    custom_fields: customFields,
    interfaces: interfaces.get(row.id) ?? [],
    config_context: contexts.get(row.id)?.rendered ?? {},
  };
  const ansibleHost = row.ip4 ?? row.ip6;
  const vars: HostVars = ansibleHost ? { ansible_host: ansibleHost, cairn } : { cairn };
  return { row, kind, groups: groupsOf(row, kind, model, defs), vars };
}

/** Every host the caller may view that passes the filters, devices first; built with a constant number of queries. */
async function collectHosts(db: Kysely<DB>, ctx: RequestContext, filters: InventoryFilters, defs: CustomFieldDef[]): Promise<BuiltHost[]> {
  if (!ctx.tenantId) return [];
  const deviceModel = requireModel('dcim.device');
  const vmModel = requireModel('virtualization.virtualmachine');
  const wantDevices = filters.kind !== 'vm' && modelAllows(ctx, deviceModel, 'view');
  const wantVms = filters.kind !== 'device' && modelAllows(ctx, vmModel, 'view');
  const devices = wantDevices ? await readHosts(db, ctx, 'device', filters) : [];
  const vms = wantVms ? await readHosts(db, ctx, 'vm', filters) : [];
  const deviceIfaces = await readInterfaces(db, ctx, 'device', devices.map((d) => d.id));
  const vmIfaces = await readInterfaces(db, ctx, 'vm', vms.map((v) => v.id));
  const subjects: ConfigContextSubject[] = [...devices, ...vms].map((r) => ({ id: r.id, siteId: r.site_id, roleId: r.role_id, platformId: r.platform_id }));
  const contexts = await renderConfigContexts(db, ctx.tenantId, subjects);
  return [
    ...devices.map((r) => buildHost(r, 'device', deviceModel, defs, deviceIfaces, contexts)),
    ...vms.map((r) => buildHost(r, 'vm', vmModel, defs, vmIfaces, contexts)),
  ];
}

/** Byte order, so the document (and its ETag) does not depend on the server's locale. */
function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The inventory document for the caller. Host names are unique in it: when a device and a virtual machine share
 * a name the device is kept and the VM left out (names are unique within each kind already).
 */
export async function buildAnsibleInventory(db: Kysely<DB>, ctx: RequestContext, query: QueryValues): Promise<InventoryDocument> {
  const defs = ctx.tenantId ? await customFieldDefinitions(db, ctx.tenantId) : [];
  const filters = parseInventoryFilters(query, defs);
  const hosts = await collectHosts(db, ctx, filters, defs);
  const seen = new Set<string>();
  const kept: BuiltHost[] = [];
  for (const h of hosts) {
    if (seen.has(h.row.name)) continue;
    seen.add(h.row.name);
    kept.push(h);
  }
  kept.sort((a, b) => byCodeUnit(a.row.name, b.row.name));
  if (filters.routing) await addRoutingBlocks(db, ctx, kept);

  const members = new Map<string, string[]>();
  const ungrouped: string[] = [];
  const hostvars: Record<string, HostVars> = {};
  for (const h of kept) {
    hostvars[h.row.name] = h.vars;
    if (h.groups.length === 0) ungrouped.push(h.row.name);
    for (const g of h.groups) {
      const list = members.get(g);
      if (list) list.push(h.row.name);
      else members.set(g, [h.row.name]);
    }
  }
  // A host named like a group, or a group called "all"/"ungrouped"/"_meta", cannot be produced: every group
  // name carries a prefix.
  const names = [...members.keys()].sort(byCodeUnit);
  const doc: Record<string, unknown> = { all: { children: [...names, 'ungrouped'] }, ungrouped: { hosts: ungrouped } };
  for (const g of names) doc[g] = { hosts: members.get(g) };
  doc._meta = { hostvars };
  const body = JSON.stringify(doc);
  return { body, etag: etagOf(body), hosts: kept.length };
}

/** `?routing=1`: the render context's routing block under `cairn.routing`, loaded for all hosts of a kind at once. */
async function addRoutingBlocks(db: Kysely<DB>, ctx: RequestContext, hosts: BuiltHost[]): Promise<void> {
  for (const kind of ['device', 'vm'] as const) {
    const ofKind = hosts.filter((h) => h.kind === kind);
    const blocks = await loadRoutingBlocks(db, ctx, kind, ofKind.map((h) => String(h.row.id)));
    for (const h of ofKind) h.vars.cairn.routing = blocks.get(String(h.row.id)) ?? null;
  }
}

export function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** Whether an If-None-Match header names this ETag (a list, weak tags and `*` included). */
export function etagMatches(header: string | string[] | undefined, etag: string): boolean {
  if (!header) return false;
  const text = Array.isArray(header) ? header.join(',') : header;
  return text.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}

/** One host as the per-object endpoint shows it; a row of another tenant or a missing one is a 404. */
export async function inventoryHost(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, id: string): Promise<InventoryHost> {
  requireModelPermission(ctx, model, 'view');
  if (!isUuid(id)) throw fieldError('id', `"${String(id).slice(0, 60)}" is not a valid id.`);
  const defs = ctx.tenantId ? await customFieldDefinitions(db, ctx.tenantId) : [];
  const filters: InventoryFilters = {
    site: [], role: [], platform: [], status: [], tag: [], hasPrimaryIp: null, routing: false, customFields: [],
    kind: model.name === 'dcim.device' ? 'device' : 'vm',
    id: id.toLowerCase(),
  };
  const [host] = await collectHosts(db, ctx, filters, defs);
  if (!host) throw notFound();
  return { host: host.row.name, ansible_host: host.vars.ansible_host ?? null, groups: host.groups, hostvars: host.vars };
}
