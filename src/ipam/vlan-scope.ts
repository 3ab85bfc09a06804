// Which VLANs an interface may carry (NetBox's rule): global VLANs, those of its host's site, and those of a VLAN
// group of that site or of the site's region. The host is a device (its site) or a virtual machine (its own site,
// else its cluster's); a host without a site takes global VLANs only. Each refusal names the field and the VLAN.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import type { ErrorCollector } from '../core/errors.ts';
import { sameTenant } from '../core/access.ts';

export interface VlanHost {
  /** A scalar subquery giving the host's site id (or NULL). */
  site: RawBuilder<unknown>;
  /** How the message names the host: "device", "virtual machine". */
  noun: string;
}

/**
 * `fencedTo`: the alias of a tenant row the host must share a tenant with (a list filter's VLAN), so a host id
 * of another tenant reads as one that does not exist. A write hook's host is the written row's own, so unfenced.
 */
const fence = (alias: string, fencedTo: string | undefined) => (fencedTo ? sql` AND ${sameTenant(alias, fencedTo)}` : sql``);

export const deviceHost = (deviceId: string, fencedTo?: string): VlanHost => ({
  site: sql`(SELECT d.site_id FROM devices d WHERE d.id = ${deviceId}${fence('d', fencedTo)})`,
  noun: 'device',
});

export const virtualMachineHost = (vmId: string, fencedTo?: string): VlanHost => ({
  site: sql`(SELECT coalesce(vm.site_id, c.site_id) FROM virtual_machines vm LEFT JOIN clusters c ON c.id = vm.cluster_id
    WHERE vm.id = ${vmId}${fence('vm', fencedTo)})`,
  noun: 'virtual machine',
});

/**
 * The VLANs at `alias` an interface of `host` may carry, as a condition (the same rule as refuseVlansOutOfScope):
 * NetBox's `available_on_device` and `available_on_virtualmachine` filters, which pickers use so that a leaf's
 * port offers that site's `servers (10)`, not every site's.
 */
export function vlanAvailableOn(alias: string, host: VlanHost): RawBuilder<unknown> {
  const v = (column: string) => sql.ref(`${alias}.${column}`);
  return sql`((${v('site_id')} IS NULL AND (${v('group_id')} IS NULL
      OR EXISTS (SELECT 1 FROM vlan_groups g WHERE g.id = ${v('group_id')} AND g.site_id IS NULL AND g.region_id IS NULL)))
    OR ${v('site_id')} = ${host.site}
    OR EXISTS (SELECT 1 FROM vlan_groups g WHERE g.id = ${v('group_id')}
      AND (g.site_id = ${host.site} OR g.region_id = (SELECT s.region_id FROM sites s WHERE s.id = ${host.site}))))`;
}

/** Adds an error per VLAN outside the host's scope: on `untagged_vlan` for `untagged`, on `tagged_vlans` else. */
export async function refuseVlansOutOfScope(tx: Kysely<DB>, errors: ErrorCollector, host: VlanHost, vlanIds: ReadonlySet<string>, untagged: unknown): Promise<void> {
  if (vlanIds.size === 0) return;
  const { rows } = await sql<{ id: string; vid: number; name: string; allowed: boolean; home: string | null }>`
    SELECT v.id, v.vid, v.name,
      ((v.site_id IS NULL AND (g.id IS NULL OR (g.site_id IS NULL AND g.region_id IS NULL)))
        OR v.site_id = h.site_id OR g.site_id = h.site_id OR (g.region_id IS NOT NULL AND g.region_id = s.region_id)) AS allowed,
      coalesce(vs.name, gs.name, gr.name) AS home
    FROM vlans v
    CROSS JOIN (SELECT ${host.site} AS site_id) h
    LEFT JOIN sites s ON s.id = h.site_id
    LEFT JOIN vlan_groups g ON g.id = v.group_id
    LEFT JOIN sites vs ON vs.id = v.site_id
    LEFT JOIN sites gs ON gs.id = g.site_id
    LEFT JOIN regions gr ON gr.id = g.region_id
    WHERE v.id = ANY(${[...vlanIds]}::uuid[])`.execute(tx);
  for (const v of rows) {
    if (v.allowed) continue;
    const key = v.id === untagged ? 'untagged_vlan' : 'tagged_vlans';
    errors.add(key, `VLAN ${v.vid} (${v.name}) belongs to ${v.home ?? 'another scope'}: an interface takes global VLANs or those of its ${host.noun}'s site (or of a VLAN group of that site or its region).`);
  }
}

/**
 * The VLANs a write asks to check: those it sends, or every VLAN the interface carries when it moves to another
 * host (the old host's VLANs may not be the new one's).
 */
export async function vlansToCheck(
  tx: Kysely<DB>,
  input: Record<string, unknown>,
  existing: Record<string, unknown> | null,
  moving: boolean,
  tagged: { table: string; from: string },
): Promise<{ ids: Set<string>; untagged: unknown }> {
  const ids = new Set<string>();
  const untagged = 'untagged_vlan' in input ? input.untagged_vlan : moving ? existing?.untagged_vlan_id : null;
  if (typeof untagged === 'string') ids.add(untagged);
  if ('tagged_vlans' in input) for (const v of input.tagged_vlans as string[]) ids.add(v);
  else if (moving && existing) {
    const { rows } = await sql<{ vlan_id: string }>`SELECT vlan_id FROM ${sql.table(tagged.table)} WHERE ${sql.ref(tagged.from)} = ${String(existing.id)}`.execute(tx);
    for (const r of rows) ids.add(r.vlan_id);
  }
  return { ids, untagged };
}
