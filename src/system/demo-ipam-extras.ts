// Demo data, NetBox's IPAM extras: the fabric's private ASNs as ipam.asn objects (the numbers the BGP instances
// already use, each on its device's site) in one ASN range (RFC 6996's 4-byte private space), one VRRP group per
// site's border pair (both borders assigned, border01 the higher priority) with a virtual address in the site's
// first VLAN prefix, a few application service templates, and one VLAN translation policy. Read from what
// writeAll wrote (SQL fenced by the tenant), written through the demo writer: a fixed number of statements.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { inTenant } from '../core/access.ts';
import { refreshTenantUtilization } from '../ipam/utilization.ts';
import type { DemoRowWriter } from './demo-racks.ts';

/** RFC 6996's 4-byte private ASNs; the demo gives each site a hundred of them from 4200000000. */
const PRIVATE_ASN_START = 4_200_000_000;
const PRIVATE_ASN_END = 4_294_967_294;

const SERVICE_TEMPLATES = [
  { name: 'ssh', protocol: 'tcp', ports: [22], description: 'Secure shell' },
  { name: 'https', protocol: 'tcp', ports: [443], description: 'Web UI and APIs over TLS' },
  { name: 'snmp', protocol: 'udp', ports: [161], description: 'SNMP polling' },
] as const;

/** Provider VLANs a WAN hand-off carries, as the site VLANs they stand for (local → remote). */
const TRANSLATIONS = [
  { local: 10, remote: 2010, description: 'servers' },
  { local: 20, remote: 2020, description: 'storage' },
] as const;

export async function writeIpamExtras(tx: Kysely<DB>, w: DemoRowWriter, tenantId: string): Promise<void> {
  w.begin();
  // --- ASNs: a RIR for private AS numbers, the range, and one ASN per number a BGP instance uses.
  const { rows: existingRir } = await sql<{ id: string }>`SELECT id FROM rirs WHERE slug = 'rfc6996' AND ${inTenant(tenantId)}`.execute(tx);
  let rirId = existingRir[0]?.id;
  let rirCount = 0;
  if (!rirId) {
    const rir = await w.identities('rirs', 1);
    await w.insert('rirs', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['is_private', 'bool'], ['description', 'text']], [
      rir.ids, rir.numids, ['RFC 6996'], ['rfc6996'], [true], ['Private-use AS numbers'],
    ]);
    rirId = rir.ids[0]!;
    rirCount = 1;
  }
  const range = await w.identities('asn_ranges', 1);
  await w.insert('asn_ranges', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['start_asn', 'int8'], ['end_asn', 'int8'], ['description', 'text']], [
    range.ids, range.numids, ['Fabric private ASNs'], ['fabric-private'], [PRIVATE_ASN_START], [PRIVATE_ASN_END], ['4-byte private ASNs: a hundred per site'],
  ], { rir_id: sql`${rirId}::uuid` });
  const { rows: used } = await sql<{ asn: number; site_id: string | null }>`SELECT DISTINCT ON (b.asn) b.asn, d.site_id
    FROM bgp_instances b LEFT JOIN devices d ON d.id = b.device_id
    WHERE ${inTenant(tenantId, 'b')} AND NOT EXISTS (SELECT 1 FROM asns a WHERE ${inTenant(tenantId, 'a')} AND a.asn = b.asn)
    ORDER BY b.asn`.execute(tx);
  const asn = await w.identities('asns', used.length);
  await w.insert('asns', [['id', 'uuid'], ['numid', 'int8'], ['asn', 'int8']], [asn.ids, asn.numids, used.map((u) => Number(u.asn))], {
    rir_id: sql`${rirId}::uuid`,
    description: sql`'Fabric eBGP'`,
  });
  const onSite = used.flatMap((u, i) => (u.site_id ? [[asn.ids[i]!, u.site_id] as const] : []));
  await w.insert('asn_sites', [['asn_id', 'uuid'], ['site_id', 'uuid']], [onSite.map((p) => p[0]), onSite.map((p) => p[1])]);
  w.report('ASNs (a RIR, the fabric range, the BGP instances\' numbers)', rirCount + 1 + used.length + onSite.length);

  // --- VRRP: per site, its two border routers on one free interface each (not cabled, not in a LAG, not
  // management), border01 at priority 200, border02 at 100, and the group's virtual address .1 of the site's
  // first VLAN prefix (in that prefix's VRF).
  w.begin();
  const { rows: borders } = await sql<{ site_id: string; slug: string; iface: string }>`SELECT x.site_id, x.slug, x.iface FROM (
      SELECT DISTINCT ON (d.id) d.site_id, s.slug, d.name, i.id AS iface
      FROM devices d JOIN device_roles r ON r.id = d.role_id AND r.slug = 'border' JOIN sites s ON s.id = d.site_id
        JOIN interfaces i ON i.device_id = d.id AND NOT i.mgmt_only AND i.type NOT IN ('loopback', 'virtual', 'lag') AND i.lag_id IS NULL
          AND NOT EXISTS (SELECT 1 FROM cable_terminations ct WHERE ct.termination_type = 'dcim.interface' AND ct.termination_id = i.id)
      WHERE ${inTenant(tenantId, 'd')}
      ORDER BY d.id, i.name_natural) x
    ORDER BY x.slug, x.name`.execute(tx);
  const { rows: vipPrefixes } = await sql<{ site_id: string; vip: string; vrf_id: string | null }>`SELECT DISTINCT ON (p.site_id) p.site_id,
      set_masklen(host(network(p.prefix))::inet + 1, masklen(p.prefix))::text AS vip, p.vrf_id
    FROM prefixes p JOIN vlans v ON v.id = p.vlan_id WHERE ${inTenant(tenantId, 'p')} AND p.site_id IS NOT NULL ORDER BY p.site_id, v.vid`.execute(tx);
  const vipOf = new Map(vipPrefixes.map((p) => [p.site_id, p]));
  const sites = [...new Map(borders.map((b) => [b.site_id, b.slug])).entries()];
  const group = await w.identities('fhrp_groups', sites.length);
  await w.insert('fhrp_groups', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['description', 'text']], [
    group.ids, group.numids, sites.map(([, slug]) => `${slug}-border`), sites.map(([, slug]) => `${slug} border routers' shared gateway`),
  ], { protocol: sql`'vrrp3'`, group_id: sql`1`, auth_type: sql`NULL` });
  const groupOf = new Map(sites.map(([site], i) => [site, group.ids[i]!]));
  const rank = new Map<string, number>();
  const members = borders.map((b) => {
    const n = rank.get(b.site_id) ?? 0;
    rank.set(b.site_id, n + 1);
    return { group: groupOf.get(b.site_id)!, iface: b.iface, priority: n === 0 ? 200 : 100 };
  });
  const asg = await w.identities('fhrp_group_assignments', members.length);
  await w.insert('fhrp_group_assignments', [['id', 'uuid'], ['numid', 'int8'], ['group_id', 'uuid'], ['interface_id', 'uuid'], ['priority', 'int4']], [
    asg.ids, asg.numids, members.map((m) => m.group), members.map((m) => m.iface), members.map((m) => m.priority),
  ]);
  const vips = sites.flatMap(([site, slug], i) => {
    const p = vipOf.get(site);
    return p ? [{ group: group.ids[i]!, address: p.vip, vrf: p.vrf_id, dns: `gw.${slug}.dc.example.net` }] : [];
  });
  const { rows: status } = await sql<{ id: string }>`SELECT id FROM statuses WHERE ${inTenant(tenantId)} AND 'ipam.ipaddress' = ANY(available_to)
    ORDER BY slug <> 'active', 'ipam.ipaddress' <> ALL(default_for) LIMIT 1`.execute(tx);
  const ip = await w.identities('ip_addresses', vips.length);
  await w.insert('ip_addresses', [['id', 'uuid'], ['numid', 'int8'], ['address', 'inet'], ['vrf_id', 'uuid'], ['fhrp_group_id', 'uuid'], ['dns_name', 'text']], [
    ip.ids, ip.numids, vips.map((v) => v.address), vips.map((v) => v.vrf), vips.map((v) => v.group), vips.map((v) => v.dns),
  ], { status_id: sql`${status[0]?.id ?? null}::uuid`, role: sql`'vrrp'`, description: sql`'VRRP virtual gateway'` });
  // Written past the address hooks: the prefixes' utilisation, as those would have kept it.
  if (vips.length > 0) await refreshTenantUtilization(tx, tenantId);
  w.report('FHRP (VRRP groups, border assignments, virtual addresses)', sites.length + members.length + vips.length);

  // --- application service templates and one VLAN translation policy.
  w.begin();
  const st = await w.identities('service_templates', SERVICE_TEMPLATES.length);
  await w.insert('service_templates', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['protocol', 'text'], ['ports', 'text', 'int4[]'], ['description', 'text']], [
    st.ids, st.numids, SERVICE_TEMPLATES.map((s) => s.name), SERVICE_TEMPLATES.map((s) => s.protocol), SERVICE_TEMPLATES.map((s) => `{${s.ports.join(',')}}`), SERVICE_TEMPLATES.map((s) => s.description),
  ]);
  const policy = await w.identities('vlan_translation_policies', 1);
  await w.insert('vlan_translation_policies', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['description', 'text']], [
    policy.ids, policy.numids, ['wan-handoff'], ['Site VLANs as the WAN provider carries them'],
  ]);
  const rule = await w.identities('vlan_translation_rules', TRANSLATIONS.length);
  await w.insert('vlan_translation_rules', [['id', 'uuid'], ['numid', 'int8'], ['local_vid', 'int4'], ['remote_vid', 'int4'], ['description', 'text']], [
    rule.ids, rule.numids, TRANSLATIONS.map((t) => t.local), TRANSLATIONS.map((t) => t.remote), TRANSLATIONS.map((t) => t.description),
  ], { policy_id: sql`${policy.ids[0]!}::uuid` });
  w.report('application service templates and a VLAN translation policy', SERVICE_TEMPLATES.length + 1 + TRANSLATIONS.length);
}
