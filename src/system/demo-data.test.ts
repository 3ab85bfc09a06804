import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Client, type Harness } from '../../test/helpers/harness.ts';
import { BulkLoad } from '../core/crud/bulk-load.ts';
import { systemContext } from '../core/context.ts';
import { requireModel, type FieldDef, type ModelDef } from '../core/registry.ts';
import { columnTypesOf, snapshot, snapshotSql } from '../core/changelog.ts';
import { displaysOf, type Row } from '../core/crud/serialize.ts';
import { createTenant } from '../core/accounts.ts';
import { openPostgres } from '../db/database.ts';
import { DemoDataError, generateDemoData, planDemoNetwork, SITE_SIZE, type DemoDataResult } from './demo-data.ts';

type Obj = Record<string, unknown> & { id: string };
const SEED = 7;
const DEVICES = 50; // one full site and a partial one (4 spines, 2 borders, 2 firewalls, 2 leaves)

let h: Harness;
let result: DemoDataResult;
beforeAll(async () => {
  h = await startHarness();
  result = await generateDemoData(h.database.db, { devices: DEVICES, seed: SEED, tenantSlug: 'alpha' });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

async function all(client: Client, path: string): Promise<Obj[]> {
  const out: Obj[] = [];
  for (let offset = 0; ; offset += 1000) {
    const res = await client.get(`${path}${path.includes('?') ? '&' : '?'}limit=1000&offset=${offset}`);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json() as { results: Obj[]; next: string | null };
    out.push(...page.results);
    if (!page.next) return out;
  }
}

const id = (v: unknown): string => (v as { id: string }).id;

describe('demo data', () => {
  const plan = planDemoNetwork(DEVICES, SEED);
  const leavesAndBorders = plan.devices.filter((d) => d.role === 'leaf' || d.role === 'border').length;
  // Patch panels (demo-patch-panels.ts): two per site with uplinks, which re-run up to 24 uplinks to the first
  // spine (one more cable each) and join by one trunk. Not among the planned devices.
  const sitesWithUplinks = plan.sites.filter((s) => plan.devices.some((d) => d.site === s.index && d.role === 'spine' && d.rank === 0)
    && plan.devices.some((d) => d.site === s.index && (d.role === 'leaf' || d.role === 'border')));
  // Circuits (demo-circuits.ts): two per border router, each cabled at A to the border; the first one's Z end is
  // cabled to its provider's edge router at one of three PoP sites (not among the planned devices either).
  const borders = plan.devices.filter((d) => d.role === 'border').length;
  const circuitCables = borders * 3;
  const rerun = sitesWithUplinks.map((s) => Math.min(24, plan.devices.filter((d) => d.site === s.index && (d.role === 'leaf' || d.role === 'border')).length)).reduce((a, b) => a + b, 0);

  it("a load's search entries are merged into the trigram index before it returns; the session's cap stays 256 kB", async () => {
    const db = h.database.db;
    const cap = async (q: typeof db) => (await sql<{ v: string }>`SELECT current_setting('gin_pending_list_limit') AS v`.execute(q)).rows[0]!.v;
    expect(await cap(db)).toBe('256kB');
    const { rows: options } = await sql<{ reloptions: string[] | null }>`SELECT reloptions FROM pg_class WHERE relname = 'search_index_trgm_idx'`.execute(db);
    expect(options).toEqual([{ reloptions: null }]);
    // Pending pages are readable with pgstattuple (PostgreSQL's contrib; the embedded database has none).
    const readable = await sql`CREATE EXTENSION IF NOT EXISTS pgstattuple`.execute(db).then(() => true, () => false);
    const tags = requireModel('extras.tag');
    const seen = await db.transaction().execute(async (tx) => {
      const load = new BulkLoad(tx, systemContext(h.tenants.b));
      const t = await load.identities(tags, 3000);
      await load.insert(tags, [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text']], [t.ids, t.numids, t.ids.map((_, i) => `Pending ${i}`), t.ids.map((_, i) => `pending-${i}`)]);
      const pending = readable ? (await sql<{ n: number }>`SELECT pending_pages AS n FROM pgstatginindex('search_index_trgm_idx')`.execute(tx)).rows[0]!.n : 0;
      const found = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM search_index WHERE norm LIKE '%pending 2999%'`.execute(tx)).rows[0]!.n;
      const result = { pending, cap: await cap(tx), found };
      await sql`ROLLBACK`.execute(tx);
      return result;
    }).catch((e: unknown) => (e instanceof Error ? { error: e.message } : e));
    expect(seen).toEqual({ pending: 0, cap: '256kB', found: 1 });
  });

  it('writes the planned counts, visible through the API', async () => {
    const admin = h.as('admin');
    const count = async (path: string) => (await admin.get(`${path}${path.includes('?') ? '&' : '?'}limit=1`)).json().count as number;
    // Nor are the modular chassis of the first site (demo-modules.ts), the PDUs and console servers, and the
    // providers' edge routers (demo-circuits.ts): roles of their own.
    expect(await count('/api/devices/?role__n=patch-panel&role__n=core-chassis&role__n=pdu&role__n=console-server&role__n=provider-edge')).toBe(DEVICES);
    expect(await count('/api/modules/')).toBe(2);
    expect(await count('/api/interfaces/?module__isnull=false')).toBe(16);
    expect(await count('/api/inventory-items/')).toBe(5);
    expect(await count('/api/devices/?virtual_chassis__isnull=false')).toBe(2);
    // Console and power (demo-power-console.ts): two PDUs per rack on its A and B feeds, a console server per site;
    // every device's two PSUs on the PDUs of its rack, its console port on a line.
    const pdus = await count('/api/devices/?role=pdu');
    expect(pdus).toBe((await count('/api/power-feeds/')));
    expect(await count('/api/devices/?role=console-server')).toBe(Math.ceil(DEVICES / SITE_SIZE));
    expect(await count('/api/power-ports/')).toBe(DEVICES * 2 + pdus);
    expect(await count('/api/cables/?type=power')).toBe(DEVICES * 2 + pdus);
    expect(await count('/api/cables/?type=cat6')).toBe(DEVICES);
    expect(await count('/api/devices/?role=patch-panel')).toBe(sitesWithUplinks.length * 2);
    expect(await count('/api/front-ports/')).toBe(sitesWithUplinks.length * 2 * 24);
    expect(await count('/api/sites/')).toBe(Math.ceil(DEVICES / SITE_SIZE) + 3);
    expect(await count('/api/circuits/')).toBe(borders * 2);
    expect(await count('/api/circuit-terminations/?termination_type=circuits.providernetwork')).toBe(borders);
    // Every demo site has a status (Active, as a new site gets), as every demo cable has (Connected).
    expect(await count('/api/sites/?status__isnull=true')).toBe(0);
    expect(await count('/api/cables/?status__isnull=true')).toBe(0);
    // A loopback per device, and a VRRP virtual address per site (its border pair's group).
    expect(await count('/api/ip-addresses/')).toBe(DEVICES + Math.ceil(DEVICES / SITE_SIZE));
    expect(await count('/api/cables/')).toBe(leavesAndBorders * 4 + rerun + sitesWithUplinks.length + DEVICES * 3 + pdus + circuitCables);
    expect(await count('/api/routing/bgp-sessions/')).toBe(leavesAndBorders * 4 * 2);
    expect(await count('/api/routing/bgp-instances/')).toBe(plan.devices.filter((d) => d.role !== 'firewall').length);
    expect(await count('/api/vlans/')).toBe(Math.ceil(DEVICES / SITE_SIZE) * 4);
    // IPAM: a VLAN group and a DHCP range per site, RFC 1918 with two aggregates, containers holding the site space.
    expect(await count('/api/vlan-groups/')).toBe(Math.ceil(DEVICES / SITE_SIZE));
    expect(await count('/api/ip-ranges/')).toBe(Math.ceil(DEVICES / SITE_SIZE));
    expect(await count('/api/aggregates/')).toBe(2);
    expect(await count('/api/vlans/?group_id=null')).toBe(0);
    const containers = (await admin.get('/api/prefixes/?status=container')).json().results as Array<{ prefix: string; children: number; depth: number; utilization: number }>;
    expect(containers).toHaveLength(4);
    // Three deep (10/8 › 10.0/12 › a site's loopback /26); children and depth count one VRF (the site /24s under
    // 10.128/9 are in VRFs).
    const sites = Math.ceil(DEVICES / SITE_SIZE);
    expect(containers.map((c) => [c.prefix, c.depth, c.children])).toEqual([
      ['10.0.0.0/8', 0, sites + 2],
      ['10.0.0.0/12', 1, sites],
      ['10.128.0.0/9', 1, 0],
      ['172.16.0.0/12', 0, sites],
    ]);
    // Utilisation is stored by the load as the write path keeps it: 10/8 holds a /12 and a /9; the first site's
    // loopback /26 holds one address per device of the site (62 usable).
    expect(containers[0]!.utilization).toBe(56.3);
    const loopbacks = (await admin.get('/api/prefixes/?prefix=10.0.0.0/26')).json().results as Array<{ utilization: number }>;
    expect(loopbacks[0]!.utilization).toBe(Math.round((1000 * Math.min(SITE_SIZE, DEVICES)) / 62) / 10);
    expect(await count('/api/interfaces/')).toBe(result.rows.interfaces);
    expect(await count('/api/config-contexts/')).toBeGreaterThanOrEqual(3);
    expect((await h.as('adminB').get('/api/devices/?limit=1')).json().count).toBe(0);
    // Through the core's write path: one change-log entry per object, by the system user, shown as the API shows it.
    const { rows } = await sql<{ object_type: string; n: number; system: boolean }>`SELECT object_type, count(*)::int AS n, bool_and(username = 'system') AS system
      FROM object_changes WHERE tenant_id = ${h.tenants.a} AND action = 'create' GROUP BY object_type`.execute(h.database.db);
    const logged = Object.fromEntries(rows.map((r) => [r.object_type, r.n]));
    expect(logged).toMatchObject({
      'dcim.device': result.rows.devices, 'dcim.interface': result.rows.interfaces, 'dcim.cable': result.rows.cables,
      'ipam.ipaddress': result.rows.ip_addresses, 'organization.site': result.rows.sites, 'dcim.frontport': result.rows.front_ports,
    });
    expect(rows.filter((r) => ['dcim.', 'ipam.', 'organization.', 'routing.'].some((p) => r.object_type.startsWith(p))).every((r) => r.system)).toBe(true);
    const { rows: shown } = await sql<{ object_repr: string }>`SELECT object_repr FROM object_changes WHERE tenant_id = ${h.tenants.a}
      AND object_type = 'dcim.interface' ORDER BY time, id LIMIT 1`.execute(h.database.db);
    expect(shown[0]!.object_repr).toMatch(/^\S+ › \S+/);
  });

  it('holds the BGP instances\' ASNs in one private range, a VRRP group per border pair with its virtual address, service templates and a VLAN translation policy', async () => {
    const admin = h.as('admin');
    const sites = Math.ceil(DEVICES / SITE_SIZE);
    const routers = plan.devices.filter((d) => d.asn !== null);
    const asns = await all(admin, '/api/asns/');
    expect(asns.map((a) => a.asn)).toEqual([...new Set(routers.map((d) => d.asn))].sort((a, b) => a! - b!));
    expect(asns[0]!.display).toMatch(/^AS42\d{8} \(\d+\.\d+\)$/);
    expect((asns[0]!.sites as Obj[]).length).toBe(1);
    const ranges = await all(admin, '/api/asn-ranges/');
    expect(ranges).toHaveLength(1);
    expect(ranges[0]).toMatchObject({ start: 4200000000, end: 4294967294, asn_count: asns.length });
    const groups = await all(admin, '/api/fhrp-groups/');
    expect(groups).toHaveLength(sites);
    for (const g of groups) {
      expect(g).toMatchObject({ protocol: 'vrrp3', group_id: 1 });
      expect(g.ip_addresses as Obj[]).toHaveLength(1);
      const members = await all(admin, `/api/fhrp-group-assignments/?group=${g.id}`);
      expect(members.map((m) => m.priority)).toEqual([200, 100]);
      expect(members.map((m) => m.display)).toEqual([expect.stringMatching(/-border01 › /), expect.stringMatching(/-border02 › /)]);
    }
    const vip = (await admin.get(`/api/ip-addresses/${id((groups[0]!.ip_addresses as Obj[])[0])}/`)).json() as Obj;
    expect(vip).toMatchObject({ role: 'vrrp', assigned_object_type: 'ipam.fhrpgroup' });
    const vipRes = await admin.patch(`/api/ip-addresses/${vip.id}/`, { address: vip.address, vrf: id(vip.vrf), fhrp_group: id(vip.fhrp_group), role: vip.role });
    expect(vipRes.statusCode, vipRes.body).toBe(200);
    expect((await all(admin, '/api/service-templates/')).map((t) => t.name)).toEqual(['https', 'snmp', 'ssh']);
    const policies = await all(admin, '/api/vlan-translation-policies/');
    expect(policies).toHaveLength(1);
    expect(await all(admin, `/api/vlan-translation-rules/?policy=${policies[0]!.id}`)).toHaveLength(2);
  });

  it('puts every site in a site group, gives some sites and devices an owner, and every site its NOC contacts', async () => {
    const admin = h.as('admin');
    const count = async (path: string) => (await admin.get(`${path}${path.includes('?') ? '&' : '?'}limit=1`)).json().count as number;
    const sites = Math.ceil(DEVICES / SITE_SIZE);
    expect(await count('/api/site-groups/')).toBe(2);
    // All but the providers' three PoPs (demo-circuits.ts), which are not ours to group.
    expect(await count('/api/sites/?group__isnull=true')).toBe(3);
    expect(await count('/api/owners/')).toBe(3);
    expect(await count('/api/sites/?owner__isnull=false')).toBe(sites - Math.floor(sites / 4));
    expect(await count('/api/devices/?owner_group=internal')).toBe(plan.devices.filter((d) => d.role === 'border' || d.role === 'firewall').length);
    expect(await count('/api/contact-assignments/?object_type=organization.site')).toBe(sites * 3);
    const first = (await admin.get('/api/sites/?ordering=name&limit=1')).json().results[0] as { id: string };
    const assigned = (await admin.get(`/api/contact-assignments/?object_id=${first.id}`)).json().results as Array<{ contact: { display: string }; priority: string }>;
    expect(assigned.map((a) => a.contact.display).sort()).toEqual(['Facilities desk', 'Maria Jensen', 'NOC on-call']);
  });

  it('gives every device its planned name, flags and a primary IPv4 on its own loopback', async () => {
    const admin = h.as('admin');
    const devices = await all(admin, '/api/devices/');
    const byName = new Map(devices.map((d) => [d.name as string, d]));
    const addresses = new Map((await all(admin, '/api/ip-addresses/')).map((a) => [a.id, a]));
    const interfaces = new Map((await all(admin, '/api/interfaces/')).map((i) => [i.id, i]));
    for (const p of plan.devices) {
      const d = byName.get(p.name)!;
      expect(d, p.name).toBeDefined();
      expect(d.custom_fields).toEqual(p.customFields);
      expect((d.role as { slug: string }).slug).toBe(p.role);
      expect((d.status as { slug: string }).slug).toBe(p.status);
      // The API shows a host address without its /32.
      const host = p.loopback.replace(/\/32$/, '');
      expect(d.primary_ip).toMatchObject({ address: host });
      const ip = addresses.get(id(d.primary_ip4))!;
      expect(ip.address).toBe(host);
      expect(ip.assigned_object_type).toBe('dcim.interface');
      const owner = (ip.assigned_object as { device: { id: string } }).device.id;
      expect(owner).toBe(d.id);
      expect(interfaces.get(id(ip.assigned_object))!.type).toBe('loopback');
    }
    // The flags split the devices: both values occur.
    const ntp = devices.filter((d) => (d.custom_fields as { ntp_managed: boolean }).ntp_managed).length;
    expect(ntp).toBeGreaterThan(0);
    expect(ntp).toBeLessThan(DEVICES);
    const filtered = (await admin.get('/api/devices/?limit=1&cf_ntp_managed=true')).json();
    if (typeof filtered.count === 'number' && filtered.count !== DEVICES) expect(filtered.count).toBe(ntp);
  });

  it('powers each device from the A and B feeds of its rack through two PDUs, and connects its console', async () => {
    const admin = h.as('admin');
    const leaf = (await admin.get('/api/devices/?role=leaf&limit=1')).json().results[0] as Obj;
    const psus = (await admin.get(`/api/power-ports/?device=${leaf.id}`)).json().results as Obj[];
    expect(psus.map((p) => p.name)).toEqual(['PSU1', 'PSU2']);
    const trace = (await admin.get(`/api/power-ports/${psus[0]!.id}/trace/`)).json();
    expect(trace.segments).toHaveLength(2);
    expect(trace.destination).toMatchObject({ object_type: 'dcim.powerfeed', parent: { object_type: 'dcim.powerpanel' } });
    expect(trace.destination.name).toMatch(/-A$/);
    expect((psus[1]!.connected_endpoint as Obj).name).toMatch(/-B$/);
    const rack = (await admin.get(`/api/racks/${id(leaf.rack)}/`)).json();
    expect(rack.power_utilization.allocated_w).toBeGreaterThan(0);
    const consolePort = (await admin.get(`/api/console-ports/?device=${leaf.id}`)).json().results[0] as Obj;
    expect((consolePort.connected_endpoint as Obj).object_type).toBe('dcim.consoleserverport');
  });

  it('gives a border router\'s config template its console line, its PSUs\' feeds and the circuits behind its uplinks', async () => {
    const admin = h.as('admin');
    const border = (await admin.get('/api/devices/?role=border&limit=1&ordering=name')).json().results[0] as { id: string; name: string };
    const tpl = (await admin.post('/api/export-templates/', {
      name: 'nb-context',
      object_type: 'dcim.device',
      template_code: [
        '{% for p in device.console_ports.all() %}console {{ p.name }} on {{ p.connected_endpoint.display }}{% endfor %}',
        '{% for p in device.power_ports.all() %}{{ p.name }} from {{ p.connected_endpoint.display }} ({{ p.allocated_draw }} W);{% endfor %}',
        '{% for i in device.interfaces.all() if i.link_peer and i.link_peer.parent_type == "circuits.circuit" %}{{ i.name }} via {{ i.link_peer.device }};{% endfor %}',
        '{% for a in device.site.contacts.all() %}{{ a.contact.name }} ({{ a.role.name }});{% endfor %}',
      ].join(' | '),
    })).json() as { id: string };
    const res = await admin.get(`/api/devices/${border.id}/render/?template=${tpl.id}`);
    expect(res.statusCode, res.body).toBe(200);
    const [consoleLine, power, circuits, contacts] = (res.json().output as string).split(' | ');
    expect(consoleLine).toMatch(/^console Console on [a-z0-9]+-cs1 › Port \d+$/);
    expect(power).toMatch(/^PSU1 from \S+ › [A-Z0-9]+-A \(180 W\);PSU2 from \S+ › [A-Z0-9]+-B \(180 W\);$/);
    expect(circuits!.split(';').filter(Boolean)).toHaveLength(2);
    expect(circuits).toMatch(/via [A-Z]{3}-\d{6};/);
    // The site's contacts, as NetBox templates read `site.contacts`.
    expect(contacts!.split(';').filter(Boolean).map((c) => c.replace(/ \(.*\)$/, '')).sort()).toEqual(['Facilities desk', 'Maria Jensen', 'NOC on-call']);
  });

  it('connects every leaf and border to every spine of its site, some through a pair of patch panels, and nothing else', async () => {
    const admin = h.as('admin');
    const devices = new Map((await all(admin, '/api/devices/')).map((d) => [d.id, d]));
    const interfaces = new Map((await all(admin, '/api/interfaces/')).map((i) => [i.id, i]));
    const deviceOf = (ifaceId: string) => devices.get(id(interfaces.get(ifaceId)!.device))!;
    const roleOf = (ifaceId: string) => (deviceOf(ifaceId).role as { slug: string }).slug;
    // Every cable: leaf/border → spine, leaf/border → panel, panel → spine, or panel ═ panel (the trunk).
    for (const c of await all(admin, '/api/cables/')) {
      const [a] = c.a_terminations as Obj[];
      const [b] = c.b_terminations as Obj[];
      const kinds = `${a!.object_type}>${b!.object_type}`;
      // Power and console cables (demo-power-console.ts) are checked on their own.
      if (/^dcim\.(power|console)/.test(String(a!.object_type))) continue;
      expect((c.status as { slug: string } | null)?.slug, 'a demo cable is Connected, as a new one is').toBe('connected');
      expect(['dcim.interface>dcim.interface', 'dcim.interface>dcim.frontport', 'dcim.frontport>dcim.interface', 'dcim.rearport>dcim.rearport',
        'dcim.interface>circuits.circuittermination', 'circuits.circuittermination>dcim.interface']).toContain(kinds);
      if (a!.object_type === 'dcim.interface') expect(['leaf', 'border']).toContain(roleOf(a!.id));
      if (b!.object_type === 'dcim.interface') expect(roleOf(b!.id)).toBe(a!.object_type === 'circuits.circuittermination' ? 'provider-edge' : 'spine');
      if (b!.object_type === 'circuits.circuittermination') expect(roleOf(a!.id)).toBe('border');
    }
    // End to end (connected_endpoint, through the panels where the path runs through them): each leaf and border
    // reaches each spine of its site exactly once.
    const pairs = new Set<string>();
    let ends = 0;
    for (const i of interfaces.values()) {
      const far = i.connected_endpoint as { id: string } | null;
      if (!far || !['leaf', 'border'].includes(roleOf(i.id)) || (i.link_peer as { object_type: string }).object_type === 'circuits.circuittermination') continue;
      ends++;
      expect(roleOf(far.id)).toBe('spine');
      expect(id(deviceOf(far.id).site)).toBe(id(deviceOf(i.id).site));
      pairs.add(`${deviceOf(i.id).id}>${deviceOf(far.id).id}`);
    }
    expect(pairs.size).toBe(ends);
    expect(ends).toBe(leavesAndBorders * 4);
    // A re-run uplink: leaf › cable › pp01 front › pp01 rear › trunk › pp02 rear › pp02 front › cable › spine.
    const patched = [...interfaces.values()].find((i) => roleOf(i.id) !== 'spine' && (i.link_peer as { object_type: string } | null)?.object_type === 'dcim.frontport')!;
    const trace = (await admin.get(`/api/interfaces/${patched.id}/trace/`)).json();
    expect(trace.segments.map((s: { far_end: { display: string } }) => s.far_end.display.replace(/^[a-z0-9]+-/, ''))).toEqual([
      expect.stringMatching(/^pp01 › Front\d+$/), 'pp02 › Rear1', expect.stringMatching(/^spine01 › /),
    ]);
    expect(trace.destination.id).toBe((patched.connected_endpoint as Obj).id);
    // A border's transit uplink: border › cable › circuit A › circuit Z › cable › the provider's edge router.
    const transit = [...interfaces.values()].find((i) => roleOf(i.id) === 'border' && (i.connected_endpoint as { object_type: string } | null)?.object_type === 'dcim.interface'
      && (i.link_peer as { object_type: string }).object_type === 'circuits.circuittermination')!;
    const viaCircuit = (await admin.get(`/api/interfaces/${transit.id}/trace/`)).json();
    expect(viaCircuit.ended).toBe('interface');
    expect(viaCircuit.segments.map((s: { near_end: { display: string }; far_end: { display: string } }) => [s.near_end.display, s.far_end.display])).toEqual([
      [expect.stringMatching(/^\S+-border\d+ › /), expect.stringMatching(/^[A-Z]{3}-\d{6} › Side A$/)],
      [expect.stringMatching(/^[A-Z]{3}-\d{6} › Side Z$/), expect.stringMatching(/-pop-pe1 › et-0\/0\/\d+$/)],
    ]);
  });

  it('gives every leaf a LAG of two members of the same leaf, trunking its site\'s VLANs', async () => {
    const admin = h.as('admin');
    const leaves = (await admin.get('/api/devices/?role=leaf&limit=1000')).json().results as Obj[];
    expect(leaves.length).toBeGreaterThan(0);
    const lags = await all(admin, '/api/interfaces/?type=lag');
    expect(lags.length).toBe(leaves.length);
    const siteVlans = new Map<string, number>();
    for (const v of await all(admin, '/api/vlans/')) siteVlans.set(id(v.site), (siteVlans.get(id(v.site)) ?? 0) + 1);
    for (const lag of lags) {
      const leaf = leaves.find((d) => d.id === id(lag.device))!;
      expect(lag.mode).toBe('tagged');
      expect(lag.untagged_vlan).not.toBeNull();
      expect((lag.tagged_vlans as Obj[]).length).toBe(siteVlans.get(id(leaf.site))! - 1);
      const members = (await admin.get(`/api/interfaces/?lag_id=${lag.id}`)).json().results as Obj[];
      expect(members.map((m) => id(m.device))).toEqual([leaf.id, leaf.id]);
    }
  });

  it('puts each site\'s devices in racks of its two halls, one device per unit, as the elevation shows', async () => {
    const admin = h.as('admin');
    const sites = Math.ceil(DEVICES / SITE_SIZE);
    expect((await admin.get('/api/locations/?limit=1')).json().count).toBe(sites * 2);
    const racks = await all(admin, '/api/racks/');
    // A core rack per site and a rack per pair of leaves (32 leaves in the full site, 2 in the partial one).
    expect(racks.length).toBe(sites + Math.ceil(plan.devices.filter((d) => d.role === 'leaf').length / 2));
    // PDUs stand in their racks without a unit (0U), console servers outside, and the providers' edge routers
    // (demo-circuits.ts) in the providers' PoPs: the racked devices only.
    const devices = await all(admin, '/api/devices/?role__n=pdu&role__n=console-server&role__n=provider-edge');
    const heights = new Map((await all(admin, '/api/device-types/')).map((t) => [t.id, t.u_height as number]));
    const taken = new Map<string, string>();
    for (const d of devices) {
      expect(d.rack, d.name as string).not.toBeNull();
      expect(d.face).toBe('front');
      const rack = racks.find((r) => r.id === id(d.rack))!;
      expect(id(rack.site)).toBe(id(d.site));
      const height = heights.get(id(d.device_type))!;
      for (let u = d.position as number; u < (d.position as number) + height; u++) {
        expect(u).toBeLessThanOrEqual(42);
        const key = `${rack.id}:${u}`;
        expect(taken.get(key), `${d.name} and ${taken.get(key)} at U${u}`).toBeUndefined();
        taken.set(key, d.name as string);
      }
    }
    const spine = devices.find((d) => d.name === plan.devices[0]!.name)!;
    const elevation = (await admin.get(`/api/racks/${id(spine.rack)}/elevation/?face=front`)).json();
    expect(elevation.results[0]).toMatchObject({ name: 'U42', occupied: true, device: { id: spine.id, display: spine.name } });
    expect(elevation.results.some((u: { occupied: boolean }) => !u.occupied)).toBe(true);
  });

  it('reserves free units of each site\'s first rack, and writes the virtualization, wireless and L2VPN catalogs (demo-virt-wireless.ts)', async () => {
    const admin = h.as('admin');
    const reservations = await all(admin, '/api/rack-reservations/');
    const racks = await all(admin, '/api/racks/?ordering=name');
    const sites = new Set(racks.map((r) => id(r.site)));
    expect(reservations).toHaveLength(sites.size);
    for (const r of reservations) {
      const units = (await admin.get(`/api/racks/${id(r.rack)}/elevation/?face=front`)).json().results as Array<{ id: number; device: unknown; reservation: { id: string } | null }>;
      for (const u of units.filter((x) => (r.units as number[]).includes(x.id))) expect(u).toMatchObject({ device: null, reservation: { id: r.id } });
    }
    expect((await admin.get('/api/cluster-types/')).json().count).toBe(2);
    expect((await all(admin, '/api/wireless-lans/')).map((l) => l.ssid).sort()).toEqual(['corp', 'guest']);
    const vpn = (await admin.get('/api/l2vpns/')).json().results[0];
    expect(vpn).toMatchObject({ type: 'vxlan-evpn', identifier: 10_000 });
    expect((await admin.get(`/api/l2vpn-terminations/?l2vpn_id=${vpn.id}`)).json().count).toBe(3);
    expect((await admin.get('/api/rack-types/')).json().results[0]).toMatchObject({ u_height: 42, form_factor: '4-post-cabinet' });
  });

  it('produces rows the API accepts back unchanged', async () => {
    const admin = h.as('admin');
    const device = (await admin.get('/api/devices/?limit=1&ordering=name&role__n=patch-panel&role__n=pdu&role__n=console-server')).json().results[0] as Obj;
    const body = {
      name: device.name, device_type: id(device.device_type), role: id(device.role), platform: id(device.platform), site: id(device.site),
      status: id(device.status), serial: device.serial, asset_tag: device.asset_tag, primary_ip4: id(device.primary_ip4), custom_fields: device.custom_fields,
      rack: id(device.rack), position: device.position, face: device.face,
    };
    const res = await admin.patch(`/api/devices/${device.id}/`, body);
    expect(res.statusCode, res.body).toBe(200);
    const ip = (await admin.get(`/api/ip-addresses/${id(device.primary_ip4)}/`)).json() as Obj;
    const ipRes = await admin.patch(`/api/ip-addresses/${ip.id}/`, {
      address: ip.address, status: id(ip.status), role: ip.role, dns_name: ip.dns_name, assigned_interface: id(ip.assigned_object),
    });
    expect(ipRes.statusCode, ipRes.body).toBe(200);
    const session = (await admin.get('/api/routing/bgp-sessions/?limit=1')).json().results[0] as Obj;
    const sRes = await admin.patch(`/api/routing/bgp-sessions/${session.id}/`, {
      remote_address: session.remote_address, local_address: session.local_address, remote_asn: session.remote_asn, address_families: session.address_families,
    });
    expect(sRes.statusCode, sRes.body).toBe(200);
    const cable = (await admin.get('/api/cables/?limit=1')).json().results[0] as Obj;
    const cRes = await admin.patch(`/api/cables/${cable.id}/`, {
      // NetBox's shape, as read.
      a_terminations: (cable.a_terminations as Obj[]).map((t) => ({ object_type: t.object_type, object_id: t.object_id })),
      b_terminations: (cable.b_terminations as Obj[]).map((t) => ({ object_type: t.object_type, object_id: t.object_id })),
      type: cable.type, length: cable.length, length_unit: cable.length_unit,
    });
    expect(cRes.statusCode, cRes.body).toBe(200);
  });

  it('is deterministic: the same seed gives the same names, addresses and flags; another seed other serials', async () => {
    const db = h.database.db;
    await generateDemoData(db, { devices: DEVICES, seed: SEED, tenantSlug: 'gamma' });
    await generateDemoData(db, { devices: DEVICES, seed: SEED + 1, tenantSlug: 'delta' });
    const snapshot = async (slug: string) =>
      (await sql<{ name: string; serial: string; cf: unknown; address: string; site: string }>`
        SELECT d.name, d.serial, d.custom_fields AS cf, a.address::text AS address, s.name AS site
        FROM devices d JOIN tenants t ON t.id = d.tenant_id JOIN ip_addresses a ON a.id = d.primary_ip4_id JOIN sites s ON s.id = d.site_id
        WHERE t.slug = ${slug} ORDER BY d.name`.execute(db)).rows;
    const alpha = await snapshot('alpha');
    expect(await snapshot('gamma')).toEqual(alpha);
    const delta = await snapshot('delta');
    expect(delta.map((r) => r.name)).toEqual(alpha.map((r) => r.name));
    expect(delta.map((r) => r.serial)).not.toEqual(alpha.map((r) => r.serial));
    // A prefix of a bigger plan is the smaller plan.
    expect(planDemoNetwork(500, SEED).devices.slice(0, DEVICES)).toEqual(plan.devices);
  });

  it('raises the tenant\'s data version, as logged writes do (an inventory ETag remembered before the load is no longer current)', async () => {
    const alice = h.as('alice');
    const before = (await alice.get('/api/inventory/ansible/?kind=vm')).headers.etag as string;
    const { rows } = await sql<{ version: string }>`SELECT version::text AS version FROM data_versions WHERE scope = ${result.tenantId}::uuid`.execute(h.database.db);
    expect(Number(rows[0]?.version)).toBeGreaterThan(0);
    await generateDemoData(h.database.db, { devices: 1, seed: SEED, tenantSlug: 'zeta' });
    const zeta = (await sql<{ version: string }>`SELECT version::text AS version FROM data_versions v JOIN tenants t ON t.id = v.scope WHERE t.slug = 'zeta'`.execute(h.database.db)).rows[0];
    // Raised by the tenant's creation (its statuses) and again by the load.
    expect(Number(zeta?.version)).toBeGreaterThanOrEqual(2);
    expect((await alice.get('/api/inventory/ansible/?kind=vm')).headers.etag).toBe(before);
  });

  it('leaves fresh planner statistics on the tables it filled, and on the search index and change log their triggers filled', async () => {
    const { rows } = await sql<{ relname: string }>`SELECT relname FROM pg_stat_user_tables
      WHERE relname IN ('devices', 'interfaces', 'search_index', 'object_changes') AND last_analyze IS NOT NULL ORDER BY relname`.execute(h.database.db);
    expect(rows.map((r) => r.relname)).toEqual(['devices', 'interfaces', 'object_changes', 'search_index']);
  });

  it("writes only into its own tenant: the core's bulk load refuses a tenant_id from its caller, as a column or a constant", async () => {
    const tags = requireModel('extras.tag');
    const before = (await h.as('bob').get('/api/tags/?limit=1')).json().count as number;
    await expect(h.database.db.transaction().execute(async (tx) => {
      const load = new BulkLoad(tx, systemContext(h.tenants.a));
      const t = await load.identities(tags, 1);
      await load.insert(tags, [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text']], [t.ids, t.numids, ['Smuggled'], ['smuggled']], { tenant_id: sql`${h.tenants.b}::uuid` });
    })).rejects.toThrow(/sets tenant_id itself/);
    await expect(h.database.db.transaction().execute(async (tx) => {
      const load = new BulkLoad(tx, systemContext(h.tenants.a));
      const t = await load.identities(tags, 1);
      await load.insert(tags, [['id', 'uuid'], ['numid', 'int8'], ['tenant_id', 'uuid'], ['name', 'text'], ['slug', 'text']], [t.ids, t.numids, [h.tenants.b], ['Smuggled'], ['smuggled']]);
    })).rejects.toThrow(/sets tenant_id itself/);
    expect((await h.as('bob').get('/api/tags/?limit=1')).json().count).toBe(before);
  });

  it("logs every object once, with the entry the core's one-row change-log writer gives the stored row (snapshot, display, author)", async () => {
    // The bulk load's snapshots are built by the database (snapshotSql); the reference is snapshot() and displaysOf
    // of the row as pg reads it, which recordChanges writes for the single-row and insertRows paths.
    const db = h.database.db;
    const { rows: logged } = await sql<{ object_type: string; n: number }>`SELECT object_type, count(*)::int AS n FROM object_changes
      WHERE tenant_id = ${result.tenantId} AND request_id = 'demo-data' GROUP BY object_type ORDER BY object_type`.execute(db);
    const models = logged.map((r) => requireModel(r.object_type));
    expect(models.length).toBeGreaterThan(40);
    // Fields the load rewrites after their rows are in (the prefixes' hierarchy, refreshed once at the end; the
    // virtual chassis' members): logged as inserted, so left out of the comparison with the stored row.
    const rewritten: Record<string, string[]> = { 'ipam.prefix': ['depth', 'children'], 'dcim.device': ['virtual_chassis', 'vc_position', 'vc_priority'] };
    let compared = 0;
    for (const model of models) {
      const skip = rewritten[model.name] ?? [];
      const { rows: stored } = await sql<Row>`SELECT * FROM ${sql.table(model.table)} WHERE tenant_id = ${result.tenantId}`.execute(db);
      const { rows: entries } = await sql<{ object_id: string; n: number; user_id: string | null; username: string; action: string; object_repr: string; before: unknown; after: string }>`
        SELECT object_id, count(*) OVER (PARTITION BY object_id)::int AS n, user_id, username, action, object_repr, before, (after - ${skip}::text[])::text AS after
        FROM object_changes WHERE tenant_id = ${result.tenantId} AND request_id = 'demo-data' AND object_type = ${model.name}`.execute(db);
      // The same set: one entry per object of the model in the tenant, none twice.
      expect(entries.length, model.name).toBe(stored.length);
      expect(entries.every((e) => e.n === 1), model.name).toBe(true);
      const byId = new Map(stored.map((r) => [String(r.id), r]));
      const reprs = await displaysOf(db, null, model, stored);
      // Compared as PostgreSQL writes the jsonb back as text: key order, numbers and strings exactly.
      const { rows: expected } = await sql<{ t: string }>`SELECT (j::jsonb - ${skip}::text[])::text AS t
        FROM unnest(${entries.map((e) => JSON.stringify(snapshot(model, byId.get(e.object_id)!)))}::text[]) WITH ORDINALITY AS u(j, k) ORDER BY k`.execute(db);
      entries.forEach((e, i) => {
        expect({ model: model.name, after: e.after, repr: e.object_repr }).toEqual({ model: model.name, after: expected[i]!.t, repr: reprs.get(e.object_id)!.slice(0, 200) });
        expect([e.action, e.user_id, e.username, e.before]).toEqual(['create', null, 'system', null]);
      });
      compared += entries.length;
    }
    expect(compared).toBe(logged.reduce((a, r) => a + r.n, 0));
  });

  it("queues a bulk load's creates for the tenant's webhooks, as the one-row writer does, unless its context is silent", async () => {
    const tags = requireModel('extras.tag');
    const queued = async (notify: boolean) => {
      let found: Array<{ object_id: string; repr: string }> = [];
      // Rolled back: the tags and the webhook only live for the question.
      await h.database.db.transaction().execute(async (tx) => {
        await sql`INSERT INTO webhooks (id, numid, tenant_id, name, url, object_types, events)
          VALUES (gen_random_uuid(), 999999, ${h.tenants.b}, 'bulk-load hook', 'https://hooks.example/x', ARRAY['extras.tag'], ARRAY['created'])`.execute(tx);
        const load = new BulkLoad(tx, { ...systemContext(h.tenants.b), notify });
        const t = await load.identities(tags, 2);
        await load.insert(tags, [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text']], [t.ids, t.numids, ['Hooked 1', 'Hooked 2'], ['hooked-1', 'hooked-2']]);
        found = (await sql<{ object_id: string; repr: string }>`SELECT c.object_id, c.object_repr AS repr FROM webhook_outbox o JOIN object_changes c ON c.id = o.change_id
          WHERE o.tenant_id = ${h.tenants.b} AND c.object_id = ANY(${t.ids}::uuid[]) ORDER BY c.object_repr`.execute(tx)).rows;
        throw new Error('roll back');
      }).catch((e: Error) => expect(e.message).toBe('roll back'));
      return found.map((r) => r.repr);
    };
    expect(await queued(true)).toEqual(['Hooked 1', 'Hooked 2']);
    expect(await queued(false)).toEqual([]);
  });

  it("writes a bulk load's snapshots as snapshot() does for every column type, tricky values included", async () => {
    // A model over a scratch table with a column of each type the database builds snapshots of.
    const fields: Record<string, FieldDef> = {
      name: { kind: 'string' }, slug: { kind: 'string', column: 'fixed' }, n4: { kind: 'integer' }, n2: { kind: 'integer' }, n8: { kind: 'integer' },
      dec: { kind: 'decimal' }, dbl: { kind: 'decimal' }, flag: { kind: 'boolean' }, day: { kind: 'date' }, at: { kind: 'datetime' },
      addr: { kind: 'inet' }, net: { kind: 'cidr' }, data: { kind: 'json' }, plain: { kind: 'json', column: 'plain_json' }, words: { kind: 'string_list' },
      ports: { kind: 'integer_list' }, other: { kind: 'uuid' }, secret: { kind: 'string', secret: true }, password: { kind: 'string' },
    };
    const model = { name: 'test.snapshot', table: 'snap_types', fields, label: 'snap', displayField: 'name' } as unknown as ModelDef;
    await h.database.db.transaction().execute(async (tx) => {
      await sql`CREATE TEMP TABLE snap_types (id uuid, name text, fixed bpchar(6), n4 int4, n2 int2, n8 int8, dec numeric, dbl float8,
        flag bool, day date, at timestamptz, addr inet, net cidr, data jsonb, plain_json json, words text[], ports int4[], other uuid,
        secret text, password varchar(128)) ON COMMIT DROP`.execute(tx);
      // Every microsecond count whose milliseconds a double could round the wrong way, and then some.
      await sql`INSERT INTO snap_types
        SELECT gen_random_uuid(), 'row ' || g, 'ab', g, (g % 30000)::int2, 4294967295 + g, (g::numeric / 8)::numeric(12, 4), (g::float8 / 10),
          g % 2 = 0, DATE '2024-02-29' + g, TIMESTAMPTZ '2026-11-27 16:08:37+00' + make_interval(secs => g::float8 / 1000000 + g),
          ('2001:DB8::' || to_hex(g))::inet, '10.0.0.0/8', jsonb_build_object('n', g, 'x', 0.1, 'deep', jsonb_build_array(1.5e-7, 'a', NULL)), '{"b": 1, "a": [2]}',
          ARRAY['x', 'y ' || g], ARRAY[g, 443], NULL, CASE WHEN g % 3 = 0 THEN '' WHEN g % 3 = 1 THEN 's3cret' END, 'pbkdf2$x'
        FROM generate_series(1, 3000) g`.execute(tx);
      await sql`INSERT INTO snap_types (id, name, dbl, at, dec) VALUES (gen_random_uuid(), 'nan', 'NaN', 'infinity', 10.500),
        (gen_random_uuid(), 'inf', 'Infinity', '-infinity', 0), (gen_random_uuid(), 'tiny', 1.5e-7, '2026-01-01 00:00:00.001+00', -0.0001),
        (gen_random_uuid(), 'huge', 1e21, '2026-01-01 00:00:00.999999+00', 12345678901234567890.5), (gen_random_uuid(), 'nulls', NULL, NULL, NULL)`.execute(tx);
      const types = await columnTypesOf(tx, 'snap_types');
      const built = snapshotSql(model, 't', types)!;
      expect(built).not.toBeNull();
      const { rows } = await sql<Row & { built: string }>`SELECT t.*, ${built}::text AS built FROM snap_types t`.execute(tx);
      const { rows: expected } = await sql<{ t: string }>`SELECT j::jsonb::text AS t FROM unnest(${rows.map(({ built: _b, ...row }) => JSON.stringify(snapshot(model, row)))}::text[]) WITH ORDINALITY AS u(j, k) ORDER BY k`.execute(tx);
      expect(rows).toHaveLength(3005);
      const wrong = rows.map((r, i) => ({ name: r.name, built: r.built, expected: expected[i]!.t })).filter((r) => r.built !== r.expected);
      expect(wrong.slice(0, 3)).toEqual([]);
      // Where they differ, on purpose: a number in a JSON column that a JavaScript double would rewrite (0.10, 20
      // digits) is logged as stored; through JavaScript it became 0.1. Rows written from JavaScript (demo data, the
      // NetBox import, the API) never hold one.
      await sql`UPDATE snap_types SET data = '{"x": 0.10, "big": 12345678901234567890}' WHERE name = 'nulls'`.execute(tx);
      const { rows: kept } = await sql<{ built: string }>`SELECT (${built})->'data' #>> '{}' AS built FROM snap_types t WHERE name = 'nulls'`.execute(tx);
      expect(kept[0]!.built).toBe('{"x": 0.10, "big": 12345678901234567890}');
      // A column type it does not know: the caller's cue to snapshot in JavaScript.
      expect(snapshotSql(model, 't', new Map([...types, ['at', 'timestamp']]))).toBeNull();
    });
  });

  // PostgreSQL only: the embedded database has no statement timeout.
  it.skipIf(!process.env.TEST_DATABASE_URL)("runs past the server's statement timeout, which is for requests", async () => {
    const { rows } = await sql<{ name: string }>`SELECT current_database() AS name`.execute(h.database.db);
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${rows[0]!.name}`;
    await createTenant(h.database.db, 'Timed', 'timed');
    const timed = await openPostgres(url.toString(), 2, { statementTimeoutMs: 50 });
    try {
      // The timeout is in force on this pool (else the load below proves nothing).
      await expect(sql`SELECT pg_sleep(0.1)`.execute(timed.db)).rejects.toThrow(/statement timeout/);
      const loaded = await generateDemoData(timed.db, { devices: 40, seed: 3, tenantSlug: 'timed' });
      expect(loaded.rows.devices).toBeGreaterThanOrEqual(40);
    } finally {
      await timed.close();
    }
  });

  it('refuses a second load into a tenant with inventory and device counts out of range, writing nothing', async () => {
    const db = h.database.db;
    await expect(generateDemoData(db, { devices: 5, seed: 1, tenantSlug: 'alpha' })).rejects.toThrow(DemoDataError);
    await expect(generateDemoData(db, { devices: 0, tenantSlug: 'epsilon' })).rejects.toThrow(/1 to 200,000/);
    await expect(generateDemoData(db, { devices: 200_001, tenantSlug: 'epsilon' })).rejects.toThrow(DemoDataError);
    expect((await h.as('admin').get('/api/devices/?limit=1&role__n=patch-panel&role__n=core-chassis&role__n=pdu&role__n=console-server&role__n=provider-edge')).json().count).toBe(DEVICES);
  });

  it('lists devices with nested site, role, platform and primary IP in the same number of queries for 50 and 150 devices', async () => {
    await generateDemoData(h.database.db, { devices: 150, seed: SEED, tenantSlug: 'beta' });
    const queries = async (client: Client) => {
      await client.get('/api/devices/?limit=1'); // warm the token cache
      const before = h.database.queryCount();
      const res = await client.get('/api/devices/?limit=1000&role__n=patch-panel&role__n=core-chassis&role__n=pdu&role__n=console-server&role__n=provider-edge');
      expect(res.statusCode).toBe(200);
      const body = res.json() as { results: Obj[] };
      expect(body.results[0]).toMatchObject({ site: { id: expect.any(String) }, role: { slug: expect.any(String) }, platform: { slug: expect.any(String) }, primary_ip: { address: expect.any(String) } });
      return { n: h.database.queryCount() - before, rows: body.results.length };
    };
    const small = await queries(h.as('admin'));
    const big = await queries(h.as('adminB'));
    expect(small.rows).toBe(DEVICES);
    expect(big.rows).toBe(150);
    expect(big.n).toBe(small.n);
  }, 120_000);
});
