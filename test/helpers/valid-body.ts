// Builds valid create bodies for any registry model from its field definitions, so the generated suites
// cover every model without per-model test code. Related objects are created first, through the API, in the
// caller's tenant. The few models that need more than field kinds declare an override below.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { FieldDef, ModelDef } from '../../src/core/registry.ts';
import { columnOf, isRequired, requireModel } from '../../src/core/registry.ts';
import { choiceOptions, DEFAULT_MAX_STRING, MAX_TEXT } from '../../src/core/crud/field-values.ts';
import type { Client, Harness } from './harness.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Body = Record<string, Json>;

/** Who creates rows: the harness' superuser token of tenant alpha or of tenant beta. */
export type Creator = 'admin' | 'adminB';

export interface Override {
  /** Values set after the generic fields (may use ensureRow for ids of other models). */
  build?(gen: BodyGenerator, who: Creator): Promise<Body>;
  /** Fields holding ids of a tenant-scoped model without being `fk` fields: checked like foreign keys. */
  references?: Record<string, string>;
}

/**
 * Models whose bodies cannot be derived from field kinds alone:
 * - core.journalentry: `object_type` + `object_id` name any tenant object (a plain uuid field, not an fk); the
 *   hook refuses ids that do not exist in the tenant, so we point it at a tag of the same tenant.
 * - users.permission: the grant string has a `<model>.<action>` grammar no generic string satisfies.
 * - extras.status / extras.customfield: object types must name real models (with a status / custom fields),
 *   and a custom field's default must fit its type.
 * - dcim.interface: a MAC address has its own grammar; a physical type so cables may use it.
 * - dcim.cable: each end needs its own, not yet cabled, physical interface.
 * - dcim.devicetypeservice: protocol_ports maps protocols to port lists.
 * - ipam.fhrpgroupassignment: exactly one of interface / vm_interface, once per group and interface.
 * - wireless.wirelesslink / vpn.l2vpntermination: ends no other link holds; a VLAN no L2VPN terminates on.
 */
export const OVERRIDES: Record<string, Override> = {
  'core.journalentry': {
    build: async (gen, who) => ({ object_type: 'extras.tag', object_id: await gen.ensureRow('extras.tag', who) }),
    references: { object_id: 'extras.tag' },
  },
  // A contact is assigned to an existing object of a model that can have contacts.
  'tenancy.contactassignment': {
    build: async (gen, who) => ({ object_type: 'organization.site', object_id: await gen.ensureRow('organization.site', who) }),
    references: { object_id: 'organization.site' },
  },
  'users.permission': {
    build: async (gen) => ({ permission: `generated${gen.next()}.view` }),
  },
  'extras.status': {
    build: async () => ({ available_to: ['dcim.device'], default_for: [] }),
  },
  'extras.customfield': {
    build: async () => ({ type: 'text', object_types: ['dcim.device'], default: null, choices: [] }),
  },
  // Compliance rules (src/compliance): settings must fit the check kind.
  'compliance.rule': { build: async () => ({ object_type: 'dcim.device', check_kind: 'field_required', settings: { field: 'serial' } }) },
  'dcim.interface': {
    build: async (gen) => ({ type: '1000base-t', mac_address: `02:00:00:00:${((gen.next() >> 8) & 255).toString(16).padStart(2, '0')}:${(gen.next() & 255).toString(16).padStart(2, '0')}` }),
  },
  'dcim.cable': {
    build: async (gen, who) => {
      const [a, b] = await uncabledInterfaces(gen, who, 2);
      return { a_terminations: [a!], b_terminations: [b!] };
    },
  },
  // Circuits (src/circuits): a termination names a site of the tenant by termination_type/termination_id, on a
  // circuit with no A side yet (each circuit has one), reused until a termination takes it so a refused body creates nothing.
  'circuits.circuittermination': {
    build: async (gen, who) => ({ circuit: await circuitWithoutSideA(gen, who), term_side: 'A', termination_type: 'dcim.site', termination_id: await gen.ensureRow('organization.site', who) }),
    references: { termination_id: 'organization.site' },
  },
  // IPAM / routing (src/ipam, src/routing): grammars (route targets, communities, IS-IS NETs, OSPF areas), one
  // routing instance per device and VRF (so a fresh device each), and interfaces that must sit on the
  // instance's device.
  'ipam.routetarget': { build: async (gen) => ({ name: `65000:${gen.next()}` }) },
  'routing.community': { build: async (gen) => ({ value: `65000:${gen.next() % 65536}`, kind: 'standard' }) },
  'routing.communitylistentry': { build: async () => ({ communities: ['65000:1'] }) },
  'routing.staticroute': { build: async (gen, who) => ({ device: await gen.ensureRow('dcim.device', who), next_hop: '10.255.255.1', kind: 'unicast' }) },
  'routing.bgpinstance': { build: async (gen, who) => ({ device: await gen.ensureRow('dcim.device', who) }) },
  'routing.bgpsession': { build: async (gen) => ({ remote_address: `10.254.${(gen.next() >> 8) & 255}.${gen.next() & 255}`, remote_asn: 65001 }) },
  'routing.ospfinstance': { build: async (gen, who) => ({ device: await gen.ensureRow('dcim.device', who) }) },
  'routing.ospfarea': { build: async (gen) => ({ area_id: String(gen.next()), kind: 'normal' }) },
  'routing.ospfinterface': { build: async (gen, who) => routerInterfaceBody(gen, who, 'routing.ospfinstance', true) },
  'routing.isisinstance': { build: async (gen, who) => ({ device: await gen.ensureRow('dcim.device', who), net: '49.0001.1921.6800.1001.00' }) },
  'routing.isisinterface': { build: async (gen, who) => ({ ...(await routerInterfaceBody(gen, who, 'routing.isisinstance', false)), families: ['ipv4'] }) },
  'routing.vtep': { build: async (gen, who) => ({ device: await gen.ensureRow('dcim.device', who) }) },
  'routing.vni': { build: async (gen, who) => ({ kind: 'l2', vlan: await gen.ensureRow('ipam.vlan', who) }) },
  // Export templates name the model whose rows feed them: an app.model name, checked on save.
  'extras.exporttemplate': { build: async () => ({ object_type: 'extras.tag' }) },
  'extras.webhook': { build: async () => ({ object_types: ['dcim.device'], events: ['created'] }) },
  // Automation targets (src/automation/target-model.ts): awx/semaphore/gitlab need kind-specific settings; webhook none.
  'automation.automationtarget': { build: async () => ({ kind: 'webhook' }) },
  'dcim.devicetypeservice': {
    build: async () => ({ protocol_ports: { tcp: [22, 443] } }),
  },
  // FHRP (src/ipam/fhrp-models.ts): one interface (of the two kinds), not yet in the group.
  'ipam.fhrpgroupassignment': {
    build: async (gen, who) => {
      const group = await gen.ensureRow('ipam.fhrpgroup', who);
      return { group, interface: await interfaceOutsideGroup(gen, who, group), vm_interface: null };
    },
  },
  // Modules and bays (src/dcim/module-models.ts, bay-models.ts): a component template belongs to a device type or a
  // module type (both nullable, exactly one set); device bays are for parent device types, their devices a child's.
  'dcim.interfacetemplate': { build: async (gen, who) => ({ device_type: await gen.ensureRow('dcim.devicetype', who), module_type: null }) },
  'dcim.rearporttemplate': { build: async (gen, who) => ({ device_type: await gen.ensureRow('dcim.devicetype', who), module_type: null }) },
  'dcim.frontporttemplate': { build: async (gen, who) => ({ device_type: await gen.ensureRow('dcim.devicetype', who), module_type: null }) },
  'dcim.consoleporttemplate': { build: async (gen, who) => ({ device_type: await gen.ensureRow('dcim.devicetype', who), module_type: null }) },
  'dcim.consoleserverporttemplate': { build: async (gen, who) => ({ device_type: await gen.ensureRow('dcim.devicetype', who), module_type: null }) },
  'dcim.powerporttemplate': { build: async (gen, who) => ({ device_type: await gen.ensureRow('dcim.devicetype', who), module_type: null }) },
  'dcim.poweroutlettemplate': { build: async (gen, who) => ({ device_type: await gen.ensureRow('dcim.devicetype', who), module_type: null, power_port: null }) },
  'dcim.devicebaytemplate': { build: async (gen, who) => ({ device_type: await parentDeviceType(gen, who) }) },
  'dcim.devicebay': { build: async (gen, who) => ({ device: await parentDevice(gen, who), installed_device: null }) },
  // A module sits in a free bay of its own device.
  'dcim.module': { build: async (gen, who) => freeModuleBay(gen, who) },
  'dcim.modulebay': { build: async (gen, who) => ({ device: await gen.ensureRow('dcim.device', who), module: null }) },
  'dcim.inventoryitem': { build: async () => ({ parent: null }) },
  'dcim.inventoryitemtemplate': { build: async () => ({ parent: null }) },
  'dcim.virtualchassis': { build: async () => ({ master: null }) },
  // Wireless and L2VPN (src/wireless, src/vpn): a link joins two radio interfaces no other link holds; a VLAN
  // terminates on one L2VPN at most.
  'wireless.wirelesslink': {
    build: async (gen, who) => {
      const [a, b] = await freeRows(gen, who, 'radio', 2);
      return { interface_a: a!, interface_b: b! };
    },
  },
  'vpn.l2vpntermination': { build: async (gen, who) => ({ vlan: (await freeRows(gen, who, 'vlan', 1))[0]! }) },
  // Monitoring (src/monitoring): a service runs on exactly one device or VM.
  'monitoring.service': { build: async (gen, who) => ({ device: await gen.ensureRow('dcim.device', who), protocol_ports: { tcp: [22] } }) },
};

let counter = 0;

const interfacePools = new WeakMap<BodyGenerator, Map<Creator, string[]>>();

/**
 * Interfaces of `who`'s tenant that no cable uses. Built in batches and reused while free, so building a cable
 * body (which the suites do between "before" and "after" snapshots) normally writes nothing.
 */
async function uncabledInterfaces(gen: BodyGenerator, who: Creator, n: number): Promise<string[]> {
  const pools = interfacePools.get(gen) ?? new Map<Creator, string[]>();
  interfacePools.set(gen, pools);
  const pool = pools.get(who) ?? [];
  pools.set(who, pool);
  const { rows } = await sql<{ id: string }>`SELECT termination_id AS id FROM cable_terminations
    WHERE termination_type = 'dcim.interface' AND termination_id = ANY(${pool}::uuid[])`.execute(gen.h.database.db);
  const cabled = new Set(rows.map((r) => r.id));
  const free = pool.filter((id) => !cabled.has(id));
  while (free.length < n) {
    for (let i = 0; i < 16; i++) {
      const id = await gen.create(requireModel('dcim.interface'), who);
      pool.push(id);
      free.push(id);
    }
  }
  return free.slice(0, n);
}

const fhrpPools = new WeakMap<BodyGenerator, Map<Creator, { ids: string[]; next: number }>>();

/**
 * An interface of `who`'s tenant not assigned to the FHRP group, taken in turn from a pool built in batches and
 * reused while free (bodies built between the suites' snapshots normally write nothing; bodies built in a row differ).
 */
async function interfaceOutsideGroup(gen: BodyGenerator, who: Creator, group: string): Promise<string> {
  const pools = fhrpPools.get(gen) ?? new Map<Creator, { ids: string[]; next: number }>();
  fhrpPools.set(gen, pools);
  const pool = pools.get(who) ?? { ids: [], next: 0 };
  pools.set(who, pool);
  const { rows } = await sql<{ id: string }>`SELECT interface_id AS id FROM fhrp_group_assignments WHERE group_id = ${group} AND interface_id = ANY(${pool.ids}::uuid[])`.execute(gen.h.database.db);
  const taken = new Set(rows.map((r) => r.id));
  let free = pool.ids.filter((id) => !taken.has(id));
  if (free.length === 0) {
    for (let i = 0; i < 16; i++) pool.ids.push(await gen.create(requireModel('dcim.interface'), who));
    free = pool.ids.filter((id) => !taken.has(id));
  }
  return free[pool.next++ % free.length]!;
}

/** A device type of the parent subdevice role (device bays need one), created once per generator and tenant. */
const parentTypes = new WeakMap<BodyGenerator, Map<Creator, string>>();
async function parentDeviceType(gen: BodyGenerator, who: Creator): Promise<string> {
  const cache = parentTypes.get(gen) ?? new Map<Creator, string>();
  parentTypes.set(gen, cache);
  if (!cache.has(who)) cache.set(who, await gen.create(requireModel('dcim.devicetype'), who, { subdevice_role: 'parent' }));
  return cache.get(who)!;
}

const parentDevices = new WeakMap<BodyGenerator, Map<Creator, string>>();
async function parentDevice(gen: BodyGenerator, who: Creator): Promise<string> {
  const cache = parentDevices.get(gen) ?? new Map<Creator, string>();
  parentDevices.set(gen, cache);
  if (!cache.has(who)) cache.set(who, await gen.create(requireModel('dcim.device'), who, { device_type: await parentDeviceType(gen, who) }));
  return cache.get(who)!;
}

/** A module bay of `who`'s device that holds no module, with that device: reused while free, as interfaces are. */
const bayPools = new WeakMap<BodyGenerator, Map<Creator, string[]>>();
async function freeModuleBay(gen: BodyGenerator, who: Creator): Promise<Body> {
  const device = await gen.ensureRow('dcim.device', who);
  const pools = bayPools.get(gen) ?? new Map<Creator, string[]>();
  bayPools.set(gen, pools);
  const pool = pools.get(who) ?? [];
  pools.set(who, pool);
  const { rows } = await sql<{ id: string }>`SELECT module_bay_id AS id FROM modules WHERE module_bay_id = ANY(${pool}::uuid[])`.execute(gen.h.database.db);
  const used = new Set(rows.map((r) => r.id));
  let free = pool.find((id) => !used.has(id));
  if (!free) {
    for (let i = 0; i < 8; i++) pool.push(await gen.create(requireModel('dcim.modulebay'), who, { device, module: null }));
    free = pool[pool.length - 1]!;
  }
  return { device, module_bay: free };
}

const freePools = new WeakMap<BodyGenerator, Map<string, string[]>>();

/**
 * Radio interfaces no wireless link holds, or VLANs no L2VPN terminates on: built in batches and reused while
 * free, as uncabledInterfaces does, so bodies built between "before" and "after" snapshots normally write nothing.
 */
async function freeRows(gen: BodyGenerator, who: Creator, kind: 'radio' | 'vlan', n: number): Promise<string[]> {
  const pools = freePools.get(gen) ?? new Map<string, string[]>();
  freePools.set(gen, pools);
  const pool = pools.get(`${who}:${kind}`) ?? [];
  pools.set(`${who}:${kind}`, pool);
  const db = gen.h.database.db;
  const { rows } = kind === 'radio'
    ? await sql<{ id: string }>`SELECT interface_a_id AS id FROM wireless_links WHERE interface_a_id = ANY(${pool}::uuid[])
        UNION SELECT interface_b_id FROM wireless_links WHERE interface_b_id = ANY(${pool}::uuid[])`.execute(db)
    : await sql<{ id: string }>`SELECT vlan_id AS id FROM l2vpn_terminations WHERE vlan_id = ANY(${pool}::uuid[])`.execute(db);
  const used = new Set(rows.map((r) => r.id));
  const free = pool.filter((id) => !used.has(id));
  while (free.length < n) {
    for (let i = 0; i < 8; i++) {
      const id = kind === 'radio'
        ? await gen.create(requireModel('dcim.interface'), who, { type: 'ieee802.11ac', mac_address: null })
        : await gen.create(requireModel('ipam.vlan'), who);
      pool.push(id);
      free.push(id);
    }
  }
  return free.slice(0, n);
}

/**
 * The tenant's routing instance, an interface on its device (and for OSPF an area of the instance), created
 * once per instance: bodies built during "nothing changed" checks must not create rows.
 */
const routerParts = new Map<string, Body>();
async function routerInterfaceBody(gen: BodyGenerator, who: Creator, instanceModel: string, withArea: boolean): Promise<Body> {
  const instance = await gen.ensureRow(instanceModel, who);
  const cached = routerParts.get(instance);
  if (cached) return { ...cached };
  const { rows } = await sql<{ device_id: string }>`SELECT device_id FROM ${sql.table(requireModel(instanceModel).table)} WHERE id = ${instance}`.execute(gen.h.database.db);
  const iface = await gen.create(requireModel('dcim.interface'), who, { device: rows[0]!.device_id, name: `rt${gen.next()}` });
  const body: Body = { instance, interface: iface, vm_interface: null };
  if (withArea) body.area = await gen.create(requireModel('routing.ospfarea'), who, { instance });
  routerParts.set(instance, body);
  return { ...body };
}

export function isCreatable(model: ModelDef): boolean {
  return model.operations.create;
}

/** String kinds and their effective maximum length (what the API enforces). */
export function maxLengthOf(field: FieldDef): number | null {
  switch (field.kind) {
    case 'string':
    case 'slug':
      return field.maxLength ?? DEFAULT_MAX_STRING;
    case 'text':
      return field.maxLength ?? MAX_TEXT;
    case 'url':
      return field.maxLength ?? 500;
    default:
      return null;
  }
}

/** Fields a request may send. */
export function writableFields(model: ModelDef): Array<[string, FieldDef]> {
  return Object.entries(model.fields).filter(([, f]) => !f.readOnly);
}

/** Targets of fields that hold ids of tenant-scoped rows: fk, m2m, tags, and override references. */
export function tenantReferences(model: ModelDef): Array<{ key: string; target: ModelDef; many: boolean }> {
  const out: Array<{ key: string; target: ModelDef; many: boolean }> = [];
  for (const [key, field] of writableFields(model)) {
    const targetName = field.kind === 'tags' ? 'extras.tag' : field.kind === 'fk' || field.kind === 'm2m' ? field.target! : OVERRIDES[model.name]?.references?.[key];
    if (!targetName) continue;
    const target = requireModel(targetName);
    if (target.tenantScoped) out.push({ key, target, many: field.kind === 'm2m' || field.kind === 'tags' });
  }
  return out;
}

/**
 * A circuit of `who`'s tenant without an A termination. Spares are made while one or none is free, so a body
 * built later inside a "nothing changed" check (after a create took one) finds one without a write.
 */
async function circuitWithoutSideA(gen: BodyGenerator, who: Creator): Promise<string> {
  const free = async () => (await sql<{ id: string }>`SELECT c.id FROM circuits c WHERE c.tenant_id = ${gen.tenantOf(who)}
    AND NOT EXISTS (SELECT 1 FROM circuit_terminations t WHERE t.circuit_id = c.id AND t.term_side = 'A') ORDER BY c.numid`.execute(gen.h.database.db)).rows;
  let rows = await free();
  if (rows.length <= 1) {
    for (let spare = rows.length; spare < 3; spare++) await gen.ensureRow('circuits.circuit', who, true);
    rows = await free();
  }
  return rows[0]!.id;
}

export class BodyGenerator {
  private readonly cache = new Map<string, string>();
  constructor(readonly h: Harness) {}

  next(): number {
    return ++counter;
  }

  client(who: Creator): Client {
    return this.h.as(who);
  }

  tenantOf(who: Creator): string {
    return who === 'admin' ? this.h.tenants.a : this.h.tenants.b;
  }

  /** A string of `field` that passes its pattern; unique per call. */
  stringFor(model: ModelDef, key: string, field: FieldDef): string {
    const n = this.next();
    const max = maxLengthOf(field) ?? DEFAULT_MAX_STRING;
    const candidates =
      field.kind === 'url'
        ? [`https://example.com/${key}/${n}`]
        : [`${key}-${n}`, `${key}${n}`, `${key.replace(/[^a-z]/gi, '')}${n}`, `x${n}`, `${n}`, `X${n}`].map((s) => s.slice(Math.max(0, s.length - max)));
    for (const c of candidates) if (!field.pattern || field.pattern.test(c)) return c;
    throw new Error(`${model.name}.${key}: no generated string matches ${String(field.pattern)}; add an override in test/helpers/valid-body.ts.`);
  }

  /** A valid value for one field; creates related objects first. */
  async valueFor(model: ModelDef, key: string, field: FieldDef, who: Creator): Promise<Json> {
    const n = this.next();
    switch (field.kind) {
      case 'string':
      case 'slug':
      case 'text':
      case 'url':
        return this.stringFor(model, key, field);
      case 'integer': {
        const min = field.min ?? 1;
        const max = field.max ?? min + 1_000_000;
        return min + (n % (max - min + 1));
      }
      case 'decimal': {
        const min = field.min ?? 0;
        const max = field.max ?? min + 1000;
        return min + ((n % 100) / 100) * (max - min);
      }
      case 'boolean':
        return false;
      case 'date':
        return `2024-01-${String((n % 28) + 1).padStart(2, '0')}`;
      case 'datetime':
        // In the future: some models (token expiry) refuse past instants.
        return new Date(Date.now() + 86_400_000 * ((n % 300) + 30)).toISOString();
      case 'json':
        return { generated: n };
      case 'custom_fields':
        return {};
      case 'choice': {
        const options = choiceOptions(field);
        if (!options.length) throw new Error(`${model.name}.${key}: a choice field without options.`);
        return options[0]!.value;
      }
      case 'color':
        return (n % 0xffffff).toString(16).padStart(6, '0');
      case 'inet':
        return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}/24`;
      case 'cidr':
        return `10.${(n >> 8) & 255}.${n & 255}.0/24`;
      case 'uuid':
        return randomUUID();
      case 'fk':
        return this.ensureRow(field.target!, who);
      case 'm2m':
      case 'generic_m2m':
        return [await this.ensureRow(field.target!, who)];
      case 'tags':
        return [await this.ensureRow('extras.tag', who)];
      case 'string_list':
        return [`${key}-${n}`];
      case 'integer_list': {
        const min = field.min ?? 1;
        return [min];
      }
    }
  }

  /** A valid create body: every required field, plus `extra` writable fields when asked. */
  async body(model: ModelDef, who: Creator, opts: { all?: boolean } = {}): Promise<Body> {
    const override = OVERRIDES[model.name];
    const body: Body = {};
    const fromOverride = override?.build ? await override.build(this, who) : {};
    for (const [key, field] of writableFields(model)) {
      if (key in fromOverride) continue;
      const wanted = isRequired(field) || (opts.all && field.kind !== 'fk' && field.kind !== 'm2m' && field.kind !== 'tags');
      if (!wanted) continue;
      body[key] = await this.valueFor(model, key, field, who);
    }
    return { ...body, ...fromOverride };
  }

  /** Creates one object through the API and returns its id. */
  async create(model: ModelDef, who: Creator, extra: Body = {}): Promise<string> {
    const body = { ...(await this.body(model, who)), ...extra };
    const res = await this.client(who).post(model.path, body);
    if (res.statusCode !== 201) throw new Error(`Creating ${model.name} with ${JSON.stringify(body)} answered ${res.statusCode}: ${res.body}`);
    return (res.json() as { id: string }).id;
  }

  /**
   * The id of a row of `modelName` visible to `who`: created through the API when the model allows it,
   * else any existing row of the tenant (or global). `fresh` creates a new one each time.
   */
  async ensureRow(modelName: string, who: Creator, fresh = false): Promise<string> {
    const model = requireModel(modelName);
    const cacheKey = `${modelName}/${who}`;
    if (!fresh && this.cache.has(cacheKey)) return this.cache.get(cacheKey)!;
    let id: string;
    if (isCreatable(model)) {
      id = await this.create(model, who);
    } else {
      const scope = model.tenantScoped ? sql`WHERE tenant_id = ${this.tenantOf(who)}` : sql``;
      const { rows } = await sql<{ id: string }>`SELECT id FROM ${sql.table(model.table)} ${scope} ORDER BY id LIMIT 1`.execute(this.h.database.db);
      if (!rows[0]) throw new Error(`No ${model.name} row to reference and the model has no create route; add an override.`);
      id = rows[0].id;
    }
    this.cache.set(cacheKey, id);
    return id;
  }
}

/** Count and checksum of a model's table and its join tables: equal before and after means nothing changed. */
/** Columns that record use, not content: authenticating with a token keeps its last_used, which is no change. */
const USAGE_COLUMNS: Record<string, string> = { tokens: 'last_used' };

export async function tableState(h: Harness, model: ModelDef): Promise<string> {
  const tables = [model.table, ...Object.values(model.fields).flatMap((f) => (f.through ? [f.through.table] : []))];
  if (Object.values(model.fields).some((f) => f.kind === 'tags')) tables.push('tagged_items');
  const parts: string[] = [];
  for (const table of tables) {
    const usage = USAGE_COLUMNS[table];
    const row = usage ? sql`(to_jsonb(t) - ${usage})::text` : sql`t::text`;
    const { rows } = await sql<{ n: number; sum: string }>`SELECT count(*)::int AS n, md5(coalesce(string_agg(${row}, ',' ORDER BY ${row}), '')) AS sum
      FROM ${sql.table(table)} t`.execute(h.database.db);
    parts.push(`${table}:${rows[0]!.n}:${rows[0]!.sum}`);
  }
  // The change log is only ever appended to (src/core/changelog.ts): a new entry is the only change it can show, and
  // its count and newest id (ids are time-ordered) tell it. A checksum of every entry, redone after each of the
  // generated suites' thousands of attempts, cost more than the attempts as the log grew.
  const { rows } = await sql<{ n: number; newest: string }>`SELECT count(*)::int AS n, coalesce(max(id::text), '') AS newest FROM object_changes`.execute(h.database.db);
  parts.push(`object_changes:${rows[0]!.n}:${rows[0]!.newest}`);
  return parts.join(' ');
}

/** The stored column of a field (for SQL checks in tests). */
export function columnFor(model: ModelDef, key: string): string {
  return columnOf(key, model.fields[key]!);
}
