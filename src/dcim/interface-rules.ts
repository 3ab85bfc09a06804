// The rules an interface keeps with its neighbours, on every write path (single, bulk, list forms): its LAG and
// its parent are interfaces of the same device (a LAG of type lag), and its 802.1Q VLANs are global or belong to
// the device's site, or to a VLAN group of that site or its region (NetBox's rule), each refusal naming the field
// and the interface or VLAN at fault.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { ErrorCollector } from '../core/errors.ts';

type Row = Record<string, unknown>;

export async function checkInterfaceRelations(tx: Kysely<DB>, input: Record<string, unknown>, existing: Row | null): Promise<void> {
  const device = 'device' in input ? input.device : existing?.device_id;
  if (typeof device !== 'string') return;
  const self = existing ? String(existing.id) : null;
  const errors = new ErrorCollector();

  const related = { lag: 'lag' in input ? input.lag : existing?.lag_id, parent: 'parent' in input ? input.parent : existing?.parent_id };
  const ids = Object.values(related).filter((v): v is string => typeof v === 'string');
  if (ids.length) {
    const { rows } = await sql<{ id: string; name: string; type: string; device_id: string; device: string }>`
      SELECT i.id, i.name, i.type, i.device_id, d.name AS device FROM interfaces i JOIN devices d ON d.id = i.device_id
      WHERE i.id = ANY(${ids}::uuid[])`.execute(tx);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const [key, id] of Object.entries(related)) {
      if (typeof id !== 'string') continue;
      const what = key === 'lag' ? 'LAG' : 'parent';
      const other = byId.get(id);
      if (!other) continue;
      if (id === self) errors.add(key, `An interface cannot be its own ${what}.`);
      else if (other.device_id !== device) errors.add(key, `${other.device} › ${other.name} is on another device: the ${what} must be an interface of the same device.`);
      else if (key === 'lag' && other.type !== 'lag') errors.add(key, `${other.device} › ${other.name} is not a LAG (its type is ${other.type}).`);
    }
    if (related.lag && related.lag === related.parent) errors.add('lag', 'The LAG and the parent are the same interface.');
  }

  // VLANs: those sent, or all of them when the interface moves to another device.
  const moving = existing !== null && 'device' in input && input.device !== existing.device_id;
  const vlanIds = new Set<string>();
  const untagged = 'untagged_vlan' in input ? input.untagged_vlan : moving ? existing?.untagged_vlan_id : null;
  if (typeof untagged === 'string') vlanIds.add(untagged);
  if ('tagged_vlans' in input) for (const v of input.tagged_vlans as string[]) vlanIds.add(v);
  else if (moving && self) {
    const { rows } = await sql<{ vlan_id: string }>`SELECT vlan_id FROM interface_tagged_vlans WHERE interface_id = ${self}`.execute(tx);
    for (const r of rows) vlanIds.add(r.vlan_id);
  }
  if (vlanIds.size) {
    const { rows } = await sql<{ id: string; vid: number; name: string; allowed: boolean; home: string | null }>`
      SELECT v.id, v.vid, v.name,
        ((v.site_id IS NULL AND (g.id IS NULL OR (g.site_id IS NULL AND g.region_id IS NULL)))
          OR v.site_id = d.site_id OR g.site_id = d.site_id OR (g.region_id IS NOT NULL AND g.region_id = s.region_id)) AS allowed,
        coalesce(vs.name, gs.name, gr.name) AS home
      FROM vlans v
      CROSS JOIN devices d
      LEFT JOIN sites s ON s.id = d.site_id
      LEFT JOIN vlan_groups g ON g.id = v.group_id
      LEFT JOIN sites vs ON vs.id = v.site_id
      LEFT JOIN sites gs ON gs.id = g.site_id
      LEFT JOIN regions gr ON gr.id = g.region_id
      WHERE v.id = ANY(${[...vlanIds]}::uuid[]) AND d.id = ${device}`.execute(tx);
    for (const v of rows) {
      if (v.allowed) continue;
      const key = v.id === untagged ? 'untagged_vlan' : 'tagged_vlans';
      errors.add(key, `VLAN ${v.vid} (${v.name}) belongs to ${v.home ?? 'another scope'}: an interface takes global VLANs or those of its device's site (or of a VLAN group of that site or its region).`);
    }
  }
  errors.throwIfAny();
}
