// DCIM rules: materialising a device's components from its type, cable termination checks, and the derived
// values (an interface's link peer, a device's primary IP) loaded for a whole page at once.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import type { ComputedField, HookArgs } from '../core/registry.ts';
import { getModel, requireModel } from '../core/registry.ts';
import { ErrorCollector } from '../core/errors.ts';
import { uuidv7 } from '../core/ids.ts';
import { allocateNumids } from '../core/numids.ts';
import { recordChanges, snapshot } from '../core/changelog.ts';
import { callerTenant, inTenant, scopeCondition } from '../core/access.ts';
import { customFieldDefaults } from '../extras/custom-fields.ts';
import { briefObject, displayOf, displaysOf, type Row } from '../core/crud/serialize.ts';

type AfterCreateArgs = HookArgs & { row: Record<string, unknown> };

/**
 * Steps that give a new device the components its type describes, in order, inside the device's transaction.
 * Interfaces are materialised here; [Services] (issue 9) registers the step that turns the type's service
 * templates (dcim.devicetypeservice) into services.
 */
export type DeviceMaterializer = (args: AfterCreateArgs) => Promise<void>;
const deviceMaterializers: DeviceMaterializer[] = [];

export function registerDeviceMaterializer(step: DeviceMaterializer): void {
  deviceMaterializers.push(step);
}

export async function materializeDeviceComponents(args: AfterCreateArgs): Promise<void> {
  await materializeInterfaces(args);
  for (const step of deviceMaterializers) await step(args);
}

/**
 * One interface per interface template of the device's type, in one bulk insert. Idempotent by name: an
 * interface that already exists is left as it is. Later changes to the templates never touch existing devices.
 */
async function materializeInterfaces({ tx, ctx, row }: AfterCreateArgs): Promise<void> {
  const { rows: templates } = await sql<{ name: string; type: string; enabled: boolean; mgmt_only: boolean; poe_mode: string | null; poe_type: string | null; description: string }>`
    SELECT name, type, enabled, mgmt_only, poe_mode, poe_type, description FROM interface_templates
    WHERE device_type_id = ${row.device_type_id} AND ${inTenant(String(row.tenant_id))} ORDER BY name`.execute(tx);
  if (templates.length === 0) return;
  const tenantId = String(row.tenant_id);
  const customFields = await customFieldDefaults(tx, tenantId, 'dcim.interface');
  const first = await allocateNumids(tx, tenantId, 'interfaces', templates.length);
  const ids = templates.map(() => uuidv7());
  const numids = templates.map((_t, i) => first + i);
  const column = <K extends keyof (typeof templates)[number]>(key: K) => templates.map((t) => t[key]);
  const { rows: created } = await sql<Row>`INSERT INTO interfaces
      (id, numid, tenant_id, device_id, name, type, enabled, mgmt_only, poe_mode, poe_type, description, custom_fields)
    SELECT x.id, x.numid, ${tenantId}, ${row.id}, x.name, x.type, x.enabled, x.mgmt_only, x.poe_mode, x.poe_type, x.description,
      ${JSON.stringify(customFields)}::jsonb
    FROM unnest(${ids}::uuid[], ${numids}::bigint[], ${column('name')}::text[], ${column('type')}::text[], ${column('enabled')}::boolean[],
      ${column('mgmt_only')}::boolean[], ${column('poe_mode')}::text[], ${column('poe_type')}::text[], ${column('description')}::text[])
      AS x(id, numid, name, type, enabled, mgmt_only, poe_mode, poe_type, description)
    ON CONFLICT (device_id, name) DO NOTHING RETURNING *`.execute(tx);
  const model = requireModel('dcim.interface');
  const reprs = await displaysOf(tx, ctx, model, created);
  await recordChanges(
    tx,
    ctx,
    created.map((r) => ({ model, action: 'create' as const, objectId: String(r.id), repr: reprs.get(String(r.id))!, before: null, after: snapshot(model, r), tenantId })),
  );
}

/**
 * Deletes the cables that would be left with an empty end once `interfaceIds` are gone (an interface or a
 * whole device being deleted), with their change-log rows. A cable to nowhere is not a cable.
 */
export async function deleteCablesLosingAnEnd(tx: Kysely<DB>, ctx: RequestContext, interfaceIds: string[]): Promise<void> {
  if (interfaceIds.length === 0) return;
  const { rows } = await sql<Row>`DELETE FROM cables c WHERE c.id IN (
      SELECT t.cable_id FROM cable_a_terminations t WHERE t.interface_id = ANY(${interfaceIds}::uuid[])
      UNION SELECT t.cable_id FROM cable_b_terminations t WHERE t.interface_id = ANY(${interfaceIds}::uuid[])
    ) AND (
      NOT EXISTS (SELECT 1 FROM cable_a_terminations a WHERE a.cable_id = c.id AND NOT (a.interface_id = ANY(${interfaceIds}::uuid[])))
      OR NOT EXISTS (SELECT 1 FROM cable_b_terminations b WHERE b.cable_id = c.id AND NOT (b.interface_id = ANY(${interfaceIds}::uuid[])))
    ) RETURNING *`.execute(tx);
  if (rows.length === 0) return;
  const model = requireModel('dcim.cable');
  await sql`DELETE FROM tagged_items WHERE object_type = ${model.name} AND object_id = ANY(${rows.map((r) => String(r.id))}::uuid[])`.execute(tx);
  await recordChanges(
    tx,
    ctx,
    rows.map((r) => ({ model, action: 'delete' as const, objectId: String(r.id), repr: displayOf(model, r), before: snapshot(model, r), after: null, tenantId: String(r.tenant_id) })),
  );
}

/** Cables of devices about to be deleted (their interfaces go by cascade): one lookup for any number of devices. */
export async function deleteCablesOfDevices(tx: Kysely<DB>, ctx: RequestContext, deviceIds: string[]): Promise<void> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM interfaces WHERE device_id = ANY(${deviceIds}::uuid[])`.execute(tx);
  await deleteCablesLosingAnEnd(tx, ctx, rows.map((r) => r.id));
}

const VIRTUAL_TYPES = new Set(['virtual', 'bridge', 'lag', 'loopback', 'tunnel']);

/**
 * A cable joins physical interfaces of the tenant: at least one per end, none on both ends, none already on
 * another cable. Ids of other tenants are skipped here and reported by the generic reference check as missing.
 */
export async function checkCableTerminations({ tx, ctx, input, existing }: HookArgs & { input: Record<string, unknown>; existing: Record<string, unknown> | null }): Promise<void> {
  if (existing && !('a_terminations' in input) && !('b_terminations' in input)) return;
  const current = async (table: string): Promise<string[]> => {
    if (!existing) return [];
    const { rows } = await sql<{ id: string }>`SELECT interface_id AS id FROM ${sql.table(table)} WHERE cable_id = ${existing.id}`.execute(tx);
    return rows.map((r) => r.id);
  };
  const ends = {
    a_terminations: (input.a_terminations as string[] | undefined) ?? (await current('cable_a_terminations')),
    b_terminations: (input.b_terminations as string[] | undefined) ?? (await current('cable_b_terminations')),
  };
  const errors = new ErrorCollector();
  for (const [key, ids] of Object.entries(ends)) if (ids.length === 0) errors.add(key, 'A cable needs at least one interface on each end.');
  for (const id of ends.b_terminations) if (ends.a_terminations.includes(id)) errors.add('b_terminations', `Interface ${id} cannot be on both ends.`);
  const all = [...ends.a_terminations, ...ends.b_terminations];
  if (all.length) {
    const self = existing?.id ?? null;
    const { rows } = await sql<{ id: string; name: string; type: string; device: string; cabled: boolean }>`
      SELECT i.id, i.name, i.type, d.name AS device,
        EXISTS (SELECT 1 FROM cable_a_terminations t WHERE t.interface_id = i.id AND t.cable_id IS DISTINCT FROM ${self}::uuid)
        OR EXISTS (SELECT 1 FROM cable_b_terminations t WHERE t.interface_id = i.id AND t.cable_id IS DISTINCT FROM ${self}::uuid) AS cabled
      FROM interfaces i JOIN devices d ON d.id = i.device_id
      WHERE i.id = ANY(${all}::uuid[]) AND ${callerTenant(ctx, 'i')}`.execute(tx);
    for (const r of rows) {
      const key = ends.a_terminations.includes(r.id) ? 'a_terminations' : 'b_terminations';
      if (r.cabled) errors.add(key, `${r.device} ${r.name} is already connected by another cable.`);
      if (VIRTUAL_TYPES.has(r.type)) errors.add(key, `${r.device} ${r.name} is a ${r.type} interface and cannot be cabled.`);
    }
  }
  errors.throwIfAny();
}

/** What an interface's link peer shows: a plain mapping, so a template cannot reach the peer row itself. */
export interface LinkPeer {
  device: string;
  interface: string;
  description: string;
  custom_fields: Record<string, unknown>;
  /** Ids to link to, in the API and the UI (the far device and interface, the cable between). */
  device_id: string;
  interface_id: string;
  cable_id: string;
}

/** For each interface id, the first interface on the far end of its cable (one query for the whole page). */
export async function loadLinkPeers(db: Kysely<DB>, tenantId: string | null, interfaceIds: string[]): Promise<Map<string, LinkPeer>> {
  const out = new Map<string, LinkPeer>();
  if (interfaceIds.length === 0 || !tenantId) return out;
  const { rows } = await sql<{ self: string; device: string; name: string; description: string; custom_fields: Record<string, unknown>; device_id: string; interface_id: string; cable_id: string }>`
    WITH ends AS (
      SELECT cable_id, interface_id, 'a' AS side FROM cable_a_terminations
      UNION ALL SELECT cable_id, interface_id, 'b' AS side FROM cable_b_terminations
    )
    SELECT DISTINCT ON (me.interface_id) me.interface_id AS self, d.name AS device, i.name, i.description, i.custom_fields,
      d.id AS device_id, i.id AS interface_id, me.cable_id
    FROM ends me
    JOIN ends far ON far.cable_id = me.cable_id AND far.side <> me.side
    JOIN interfaces i ON i.id = far.interface_id AND ${inTenant(tenantId, 'i')}
    JOIN devices d ON d.id = i.device_id
    WHERE me.interface_id = ANY(${interfaceIds}::uuid[])
    ORDER BY me.interface_id, i.numid`.execute(db);
  for (const r of rows) {
    out.set(r.self, { device: r.device, interface: r.name, description: r.description ?? '', custom_fields: r.custom_fields ?? {}, device_id: r.device_id, interface_id: r.interface_id, cable_id: r.cable_id });
  }
  return out;
}

export const linkPeerField: ComputedField = {
  label: 'Link peer',
  kind: 'object',
  schema: {
    type: ['object', 'null'],
    properties: {
      device: { type: 'string' },
      interface: { type: 'string' },
      description: { type: 'string' },
      custom_fields: { type: 'object' },
      device_id: { type: 'string', format: 'uuid' },
      interface_id: { type: 'string', format: 'uuid' },
      cable_id: { type: 'string', format: 'uuid' },
    },
  },
  load: ({ db, ctx, rows }) => loadLinkPeers(db, ctx.tenantId, rows.map((r) => String(r.id))),
};

/**
 * A device's primary IP: IPv4 first, else IPv6. The primary_ip4/primary_ip6 columns and the address model come
 * with IPAM; until both exist this is always null.
 */
export const primaryIpField: ComputedField = {
  label: 'Primary IP',
  kind: 'ip',
  schema: { type: ['object', 'null'], additionalProperties: true },
  async load({ db, ctx, rows, origin }) {
    const out = new Map<string, unknown>();
    const addressModel = getModel('ipam.ipaddress');
    if (!addressModel) return out;
    const chosen = new Map<string, string>();
    for (const r of rows) {
      const ip = r.primary_ip4_id ?? r.primary_ip6_id;
      if (typeof ip === 'string') chosen.set(String(r.id), ip);
    }
    if (chosen.size === 0) return out;
    // The brief form reads the id and the address only; `*` parsed two timestamps per row that nobody reads, a
    // measured share of a 50,000-device export render (and of device list pages).
    const { rows: addresses } = await sql<Row>`SELECT r.id, r.address FROM ${sql.table(addressModel.table)} r
      WHERE r.id = ANY(${[...new Set(chosen.values())]}::uuid[]) AND ${scopeCondition(ctx, addressModel, 'r')}`.execute(db);
    const byId = new Map(addresses.map((a) => [String(a.id), briefObject(addressModel, a, origin)]));
    for (const [device, ip] of chosen) out.set(device, byId.get(ip) ?? null);
    return out;
  },
  // "<id> <address>" in one text column: abbrev() prints an inet as its output function does (no /32 on a host).
  inline: {
    select(ctx, alias) {
      const addressModel = getModel('ipam.ipaddress');
      if (!addressModel) return sql`NULL::text`;
      return sql`(SELECT pip.id::text || ' ' || abbrev(pip.address) FROM ${sql.table(addressModel.table)} pip
        WHERE pip.id = coalesce(${sql.ref(`${alias}.primary_ip4_id`)}, ${sql.ref(`${alias}.primary_ip6_id`)}) AND ${scopeCondition(ctx, addressModel, 'pip')})`;
    },
    value(selected, origin) {
      const addressModel = getModel('ipam.ipaddress');
      if (typeof selected !== 'string' || !addressModel) return null;
      const space = selected.indexOf(' ');
      return briefObject(addressModel, { id: selected.slice(0, space), address: selected.slice(space + 1) }, origin);
    },
  },
};
