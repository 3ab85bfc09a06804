// DCIM rules: materialising a device's components from its type, and a device's primary IP loaded for a whole
// page at once. Cable ends, link peers and traces are in cabling.ts and trace.ts.
import { noteRegistration } from '../core/provenance.ts';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import type { ComputedField, HookArgs } from '../core/registry.ts';
import { getModel, requireModel } from '../core/registry.ts';
import { callerTenant, scopeCondition } from '../core/access.ts';
import { briefObject, type Row } from '../core/crud/serialize.ts';
import { briefSchema } from '../core/crud/schemas.ts';
import { materializePorts } from './port-materialize.ts';
import { insertRows } from '../core/crud/insert-rows.ts';

type AfterCreateArgs = HookArgs & { row: Record<string, unknown> };

/**
 * Steps that give a new device the components its type describes, in order, inside the device's transaction.
 * Interfaces are materialised here; [Services] (issue 9) registers the step that turns the type's service
 * templates (dcim.devicetypeservice) into services.
 */
export type DeviceMaterializer = (args: AfterCreateArgs) => Promise<void>;
const deviceMaterializers: DeviceMaterializer[] = [];

export function registerDeviceMaterializer(step: DeviceMaterializer): void {
  noteRegistration('dcim.device', 'components made on create', [step.name || 'step']);
  deviceMaterializers.push(step);
}

export async function materializeDeviceComponents(args: AfterCreateArgs): Promise<void> {
  await materializeInterfaces(args);
  await materializePorts(args);
  for (const step of deviceMaterializers) await step(args);
}

/**
 * One interface per interface template of the device's type, in one bulk insert. Idempotent by name: an
 * interface that already exists is left as it is. Later changes to the templates never touch existing devices.
 */
async function materializeInterfaces({ tx, ctx, row }: AfterCreateArgs): Promise<void> {
  const { rows: templates } = await sql<{ name: string; type: string; enabled: boolean; mgmt_only: boolean; poe_mode: string | null; poe_type: string | null; description: string }>`
    SELECT name, type, enabled, mgmt_only, poe_mode, poe_type, description FROM interface_templates
    WHERE device_type_id = ${row.device_type_id} AND ${callerTenant(ctx)} ORDER BY name`.execute(tx);
  await insertRows(tx, ctx, requireModel('dcim.interface'), templates.map((t) => ({ ...t, device_id: row.id })), { skipExistingOn: ['device_id', 'name'] });
}

/**
 * A device's primary IP: IPv4 first, else IPv6. The primary_ip4/primary_ip6 columns and the address model come
 * with IPAM; until both exist this is always null.
 */
export const primaryIpField: ComputedField = {
  label: 'Primary IP',
  kind: 'object',
  related: 'ipam.ipaddress',
  schema: { anyOf: [briefSchema, { type: 'null' }] },
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
