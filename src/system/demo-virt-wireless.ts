// Demo data, NetBox's virtualization catalogs, wireless, L2VPN and rack extras: two cluster types and two cluster
// groups (the demo has no clusters to give them), a wireless LAN group with two SSIDs, one VXLAN-EVPN L2VPN
// terminating the tenant's first VLANs (with its first route target both ways), one rack type of the demo's
// first manufacturer, and on each site's first rack a reservation of its two topmost free units. Rows go through
// the demo writer (change log, search), as the hooks would have left them.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { inTenant } from '../core/access.ts';
import type { DemoRowWriter } from './demo-racks.ts';

const text = (name: string): [string, string] => [name, 'text'];
const ident: Array<[string, string]> = [['id', 'uuid'], ['numid', 'int8']];

export async function writeVirtWireless(tx: Kysely<DB>, w: DemoRowWriter, tenantId: string): Promise<void> {
  w.begin();
  let rows = 0;
  for (const [table, names] of [
    ['cluster_types', [['VMware vSphere', 'vmware-vsphere', 'ESXi hosts under vCenter'], ['Proxmox VE', 'proxmox-ve', 'KVM hosts under Proxmox']]],
    ['cluster_groups', [['Production', 'production', 'Customer-facing workloads'], ['Lab', 'lab', 'Tests and staging']]],
  ] as const) {
    const ids = await w.identities(table, names.length);
    await w.insert(table, [...ident, text('name'), text('slug'), text('description')], [ids.ids, ids.numids, names.map((n) => n[0]), names.map((n) => n[1]), names.map((n) => n[2])]);
    rows += names.length;
  }

  const group = await w.identities('wireless_lan_groups', 1);
  await w.insert('wireless_lan_groups', [...ident, text('name'), text('slug'), text('description')], [group.ids, group.numids, ['Offices'], ['offices'], ['Office Wi-Fi at every site']]);
  const lans = await w.identities('wireless_lans', 2);
  await w.insert('wireless_lans', [...ident, text('ssid'), text('auth_type'), text('auth_cipher'), text('description')], [
    lans.ids, lans.numids, ['corp', 'guest'], ['wpa-enterprise', 'open'], ['aes', null], ['Staff, 802.1X', 'Visitors, internet only'],
  ], { group_id: sql`${group.ids[0]!}::uuid`, status: sql`'active'` });
  rows += 3;

  const { rows: vlans } = await sql<{ id: string }>`SELECT id FROM vlans WHERE ${inTenant(tenantId)} ORDER BY numid LIMIT 3`.execute(tx);
  const { rows: targets } = await sql<{ id: string }>`SELECT id FROM route_targets WHERE ${inTenant(tenantId)} ORDER BY numid LIMIT 1`.execute(tx);
  const vpn = await w.identities('l2vpns', 1);
  await w.insert('l2vpns', [...ident, text('name'), text('slug'), text('type'), ['identifier', 'int8'], text('description')], [
    vpn.ids, vpn.numids, ['Tenant fabric'], ['tenant-fabric'], ['vxlan-evpn'], [10_000], ['Layer-2 stretch of the first VLANs over the EVPN fabric'],
  ], { status: sql`'active'` });
  for (const table of ['l2vpn_import_targets', 'l2vpn_export_targets']) {
    await w.insert(table, [['l2vpn_id', 'uuid'], ['route_target_id', 'uuid']], [targets.map(() => vpn.ids[0]!), targets.map((t) => t.id)]);
  }
  const terms = await w.identities('l2vpn_terminations', vlans.length);
  await w.insert('l2vpn_terminations', [...ident, ['vlan_id', 'uuid']], [terms.ids, terms.numids, vlans.map((v) => v.id)], { l2vpn_id: sql`${vpn.ids[0]!}::uuid` });
  rows += 1 + vlans.length;

  const { rows: makers } = await sql<{ id: string }>`SELECT id FROM manufacturers WHERE ${inTenant(tenantId)} ORDER BY name LIMIT 1`.execute(tx);
  if (makers[0]) {
    const type = await w.identities('rack_types', 1);
    await w.insert('rack_types', [
      ...ident, ['manufacturer_id', 'uuid'], text('model'), text('slug'), text('form_factor'), ['outer_width', 'int4'], ['outer_height', 'int4'], ['outer_depth', 'int4'],
      text('outer_unit'), ['weight', 'numeric'], text('weight_unit'), ['max_weight', 'int4'], ['mounting_depth', 'int4'], text('description'),
    ], [
      type.ids, type.numids, [makers[0].id], ['Cabinet 42U 600x1200'], ['cabinet-42u-600x1200'], ['4-post-cabinet'], [600], [2000], [1200],
      ['mm'], [130], ['kg'], [1300], [1000], ['The standard cabinet of the demo halls'],
    ], { width: sql`'19'`, u_height: sql`42`, starting_unit: sql`1` });
    rows += 1;
  }

  // Each site's first rack (by name, as listed), its two topmost units no device takes.
  const { rows: free } = await sql<{ rack_id: string; units: number[] }>`
    WITH first AS (
      SELECT DISTINCT ON (site_id) id, starting_unit, u_height FROM racks WHERE ${inTenant(tenantId)} ORDER BY site_id, name_natural, id
    ), taken AS (
      SELECT d.rack_id, generate_series(d.position, d.position + t.u_height - 1) AS unit
      FROM devices d JOIN device_types t ON t.id = d.device_type_id WHERE d.rack_id IN (SELECT id FROM first) AND d.position IS NOT NULL
    ), open AS (
      SELECT f.id AS rack_id, u.unit FROM first f, generate_series(f.starting_unit, f.starting_unit + f.u_height - 1) AS u(unit)
      WHERE NOT EXISTS (SELECT 1 FROM taken x WHERE x.rack_id = f.id AND x.unit = u.unit)
    )
    SELECT rack_id, (array_agg(unit ORDER BY unit DESC))[1:2] AS units FROM open GROUP BY rack_id ORDER BY rack_id`.execute(tx);
  const res = await w.identities('rack_reservations', free.length);
  await w.insert('rack_reservations', [...ident, ['rack_id', 'uuid'], ['units', 'text', 'int4[]']], [
    res.ids, res.numids, free.map((f) => f.rack_id), free.map((f) => `{${[...f.units].sort((a, b) => a - b).join(',')}}`),
  ], { status: sql`'pending'`, description: sql`'Held for the next leaf pair'` });
  rows += free.length;
  w.report('cluster types and groups, wireless LANs, an L2VPN, a rack type, rack reservations', rows);
}
