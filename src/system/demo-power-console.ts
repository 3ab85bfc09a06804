// Demo data, console and power. Every demo device type gets two power supplies (PSU1, PSU2) and a console port as
// templates, and every demo device those components (as device creation would have materialised them). Each site
// gets a power panel; each rack with devices gets two feeds from it (A and B) and two 12-outlet PDUs, one on each
// feed; every device's PSU1 is cabled to an outlet of PDU A and PSU2 to the same outlet of PDU B, and its console
// port to a line of the site's 48-port console server. So a trace runs server PSU → PDU outlet ⇢ PDU inlet → feed
// → panel, and racks, feeds and panels show their power utilisation. Written like the rest, through the writer and
// past the write hooks: the rows are what the hooks would have produced.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { inTenant } from '../core/access.ts';
import type { DemoRowWriter } from './demo-racks.ts';

// A core rack holds at most ten demo devices, a server row rack two: twelve outlets a PDU cover both.
const OUTLETS = 12;
const CONSOLE_LINES = 48;
/** Each PSU's planned draw and nameplate maximum, in watts. */
const PSU_ALLOCATED = 180;
const PSU_MAXIMUM = 450;

const range = (n: number) => Array.from({ length: n }, (_v, i) => i + 1);

/** Writes the console and power catalog, components, panels, feeds, PDUs, console servers and their cables. */
export async function writeConsolePower(tx: Kysely<DB>, w: DemoRowWriter, tenantId: string, demoTypeIds: string[]): Promise<void> {
  w.begin();
  const { rows: devices } = await sql<{ id: string; site_id: string; rack_id: string | null; site: string; rack: string | null; rack_location: string | null }>`
    SELECT d.id, d.site_id, d.rack_id, s.slug AS site, r.name AS rack, r.location_id AS rack_location
    FROM devices d JOIN sites s ON s.id = d.site_id LEFT JOIN racks r ON r.id = d.rack_id
    WHERE d.device_type_id = ANY(${demoTypeIds}::uuid[]) AND ${inTenant(tenantId, 'd')}
    ORDER BY s.slug, r.name_natural, d.name`.execute(tx);
  if (devices.length === 0) return;
  const { rows: statuses } = await sql<{ id: string; slug: string; available_to: string[]; default_for: string[] }>`
    SELECT id, slug, available_to, default_for FROM statuses WHERE ${inTenant(tenantId)}`.execute(tx);
  const status = (model: string, slug: string) =>
    statuses.find((s) => s.slug === slug && s.available_to.includes(model))?.id ?? statuses.find((s) => s.default_for.includes(model))?.id ?? null;

  // --- Templates on the demo types: PSU1, PSU2, Console.
  const psuT = await w.identities('power_port_templates', demoTypeIds.length * 2);
  await w.insert('power_port_templates', [['id', 'uuid'], ['numid', 'int8'], ['device_type_id', 'uuid'], ['name', 'text']], [
    psuT.ids, psuT.numids, demoTypeIds.flatMap((t) => [t, t]), demoTypeIds.flatMap(() => ['PSU1', 'PSU2']),
  ], { type: sql`'iec-60320-c14'`, maximum_draw: sql`${PSU_MAXIMUM}::int`, allocated_draw: sql`${PSU_ALLOCATED}::int` });
  const conT = await w.identities('console_port_templates', demoTypeIds.length);
  await w.insert('console_port_templates', [['id', 'uuid'], ['numid', 'int8'], ['device_type_id', 'uuid']], [conT.ids, conT.numids, demoTypeIds], {
    name: sql`'Console'`, type: sql`'rj-45'`,
  });

  // --- Catalog: PDU and console server makers, roles and types with their templates.
  const mf = await w.identities('manufacturers', 2);
  await w.insert('manufacturers', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text']], [mf.ids, mf.numids, ['Raritan', 'Opengear'], ['raritan', 'opengear']]);
  const role = await w.identities('device_roles', 2);
  await w.insert('device_roles', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['color', 'text'], ['description', 'text']], [
    role.ids, role.numids, ['PDU', 'Console server'], ['pdu', 'console-server'], ['ff9800', '607d8b'],
    ['Rack power distribution: an inlet on a feed, outlets to the devices.', 'Serial console lines to every device of the site.'],
  ]);
  const type = await w.identities('device_types', 2);
  await w.insert('device_types', [['id', 'uuid'], ['numid', 'int8'], ['manufacturer_id', 'uuid'], ['model', 'text'], ['slug', 'text'], ['part_number', 'text'], ['u_height', 'int4']], [
    type.ids, type.numids, mf.ids, ['PX3 12-outlet', 'CM8148'], ['raritan-px3-12', 'opengear-cm8148'], ['PX3-5190R', 'CM8148-10G'], [0, 1],
  ]);
  const [pduType, csType] = type.ids as [string, string];
  const inletT = await w.identities('power_port_templates', 1);
  await w.insert('power_port_templates', [['id', 'uuid'], ['numid', 'int8']], [inletT.ids, inletT.numids], {
    device_type_id: sql`${pduType}::uuid`, name: sql`'Inlet'`, type: sql`'iec-60309-p-n-e-6h'`,
  });
  const outletT = await w.identities('power_outlet_templates', OUTLETS);
  await w.insert('power_outlet_templates', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text']], [outletT.ids, outletT.numids, range(OUTLETS).map((n) => `Outlet ${n}`)], {
    device_type_id: sql`${pduType}::uuid`, type: sql`'iec-60320-c13'`, power_port_id: sql`${inletT.ids[0]!}::uuid`,
  });
  const lineT = await w.identities('console_server_port_templates', CONSOLE_LINES);
  await w.insert('console_server_port_templates', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text']], [lineT.ids, lineT.numids, range(CONSOLE_LINES).map((n) => `Port ${n}`)], {
    device_type_id: sql`${csType}::uuid`, type: sql`'rj-45'`,
  });

  // --- Components of the demo devices.
  const psu = await w.identities('power_ports', devices.length * 2);
  await w.insert('power_ports', [['id', 'uuid'], ['numid', 'int8'], ['device_id', 'uuid'], ['name', 'text']], [
    psu.ids, psu.numids, devices.flatMap((d) => [d.id, d.id]), devices.flatMap(() => ['PSU1', 'PSU2']),
  ], { type: sql`'iec-60320-c14'`, maximum_draw: sql`${PSU_MAXIMUM}::int`, allocated_draw: sql`${PSU_ALLOCATED}::int` });
  const con = await w.identities('console_ports', devices.length);
  await w.insert('console_ports', [['id', 'uuid'], ['numid', 'int8'], ['device_id', 'uuid']], [con.ids, con.numids, devices.map((d) => d.id)], {
    name: sql`'Console'`, type: sql`'rj-45'`, speed: sql`9600`,
  });

  // --- Panels (one per site), feeds and PDUs (two per rack), console servers (one per site).
  const sites = [...new Map(devices.map((d) => [d.site_id, d.site])).entries()];
  const racks = [...new Map(devices.filter((d) => d.rack_id).map((d) => [d.rack_id!, { id: d.rack_id!, name: d.rack!, site: d.site_id, slug: d.site }])).values()];
  const panel = await w.identities('power_panels', sites.length);
  const panelOf = new Map(sites.map(([id], i) => [id, panel.ids[i]!]));
  await w.insert('power_panels', [['id', 'uuid'], ['numid', 'int8'], ['site_id', 'uuid'], ['name', 'text']], [
    panel.ids, panel.numids, sites.map(([id]) => id), sites.map(([, slug]) => `${slug.toUpperCase()}-RPP1`),
  ], { description: sql`'Remote power panel: an A and a B feed to every rack'` });
  const feed = await w.identities('power_feeds', racks.length * 2);
  await w.insert('power_feeds', [['id', 'uuid'], ['numid', 'int8'], ['power_panel_id', 'uuid'], ['rack_id', 'uuid'], ['name', 'text'], ['type', 'text']], [
    feed.ids, feed.numids, racks.flatMap((r) => [panelOf.get(r.site)!, panelOf.get(r.site)!]), racks.flatMap((r) => [r.id, r.id]),
    racks.flatMap((r) => [`${r.name}-A`, `${r.name}-B`]), racks.flatMap(() => ['primary', 'redundant']),
  ], { voltage: sql`230`, amperage: sql`32` });
  const pduStatus = status('dcim.device', 'active');
  const pdu = await w.identities('devices', racks.length * 2);
  const cs = await w.identities('devices', sites.length);
  await w.insert('devices', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['device_type_id', 'uuid'], ['role_id', 'uuid'], ['site_id', 'uuid'], ['rack_id', 'uuid']], [
    [...pdu.ids, ...cs.ids], [...pdu.numids, ...cs.numids],
    [...racks.flatMap((r) => ['a', 'b'].map((s) => `${r.slug}-${r.name.toLowerCase()}-pdu-${s}`)), ...sites.map(([, slug]) => `${slug}-cs1`)],
    [...pdu.ids.map(() => pduType), ...cs.ids.map(() => csType)], [...pdu.ids.map(() => role.ids[0]!), ...cs.ids.map(() => role.ids[1]!)],
    [...racks.flatMap((r) => [r.site, r.site]), ...sites.map(([id]) => id)], [...racks.flatMap((r) => [r.id, r.id]), ...cs.ids.map(() => null)],
  ], { status_id: sql`${pduStatus}::uuid` });
  const inlet = await w.identities('power_ports', pdu.ids.length);
  await w.insert('power_ports', [['id', 'uuid'], ['numid', 'int8'], ['device_id', 'uuid']], [inlet.ids, inlet.numids, pdu.ids], {
    name: sql`'Inlet'`, type: sql`'iec-60309-p-n-e-6h'`,
  });
  // Outlet k of PDU i is outlet.ids[i * OUTLETS + k - 1].
  const outlet = await w.identities('power_outlets', pdu.ids.length * OUTLETS);
  await w.insert('power_outlets', [['id', 'uuid'], ['numid', 'int8'], ['device_id', 'uuid'], ['name', 'text'], ['power_port_id', 'uuid']], [
    outlet.ids, outlet.numids, pdu.ids.flatMap((id) => range(OUTLETS).map(() => id)), pdu.ids.flatMap(() => range(OUTLETS).map((n) => `Outlet ${n}`)),
    inlet.ids.flatMap((id) => range(OUTLETS).map(() => id)),
  ], { type: sql`'iec-60320-c13'` });
  const line = await w.identities('console_server_ports', cs.ids.length * CONSOLE_LINES);
  await w.insert('console_server_ports', [['id', 'uuid'], ['numid', 'int8'], ['device_id', 'uuid'], ['name', 'text']], [
    line.ids, line.numids, cs.ids.flatMap((id) => range(CONSOLE_LINES).map(() => id)), cs.ids.flatMap(() => range(CONSOLE_LINES).map((n) => `Port ${n}`)),
  ], { type: sql`'rj-45'`, speed: sql`9600` });

  // --- Cables: PDU inlets to their feeds, PSUs to outlets (k-th device of a rack on outlet k), consoles to lines.
  const ends: Array<[aType: string, aId: string, bType: string, bId: string, cableType: string]> = [];
  pdu.ids.forEach((_id, i) => ends.push(['dcim.powerport', inlet.ids[i]!, 'dcim.powerfeed', feed.ids[i]!, 'power']));
  const rackIndex = new Map(racks.map((r, i) => [r.id, i]));
  const inRack = new Map<string, number>();
  const inSite = new Map<string, number>();
  const siteIndex = new Map(sites.map(([id], i) => [id, i]));
  devices.forEach((d, i) => {
    const r = d.rack_id ? rackIndex.get(d.rack_id) : undefined;
    const k = d.rack_id ? (inRack.get(d.rack_id) ?? 0) : OUTLETS;
    if (r !== undefined && k < OUTLETS) {
      ends.push(['dcim.powerport', psu.ids[i * 2]!, 'dcim.poweroutlet', outlet.ids[(r * 2) * OUTLETS + k]!, 'power']);
      ends.push(['dcim.powerport', psu.ids[i * 2 + 1]!, 'dcim.poweroutlet', outlet.ids[(r * 2 + 1) * OUTLETS + k]!, 'power']);
      inRack.set(d.rack_id!, k + 1);
    }
    const j = inSite.get(d.site_id) ?? 0;
    if (j < CONSOLE_LINES) {
      ends.push(['dcim.consoleport', con.ids[i]!, 'dcim.consoleserverport', line.ids[siteIndex.get(d.site_id)! * CONSOLE_LINES + j]!, 'cat6']);
      inSite.set(d.site_id, j + 1);
    }
  });
  const cb = await w.identities('cables', ends.length);
  await w.insert('cables', [['id', 'uuid'], ['numid', 'int8'], ['label', 'text'], ['type', 'text']], [
    cb.ids, cb.numids, cb.numids.map((n) => `C${String(n).padStart(7, '0')}`), ends.map((e) => e[4]),
  ], { status_id: sql`${status('dcim.cable', 'connected')}::uuid` });
  await w.insert('cable_terminations', [['cable_id', 'uuid'], ['cable_end', 'text'], ['termination_type', 'text'], ['termination_id', 'uuid']], [
    cb.ids.flatMap((id) => [id, id]), ends.flatMap(() => ['A', 'B']), ends.flatMap((e) => [e[0], e[2]]), ends.flatMap((e) => [e[1], e[3]]),
  ]);
  w.report('console and power (templates, ports, outlets, panels, feeds, PDUs, console servers, cables)',
    psuT.ids.length + conT.ids.length + psu.ids.length + con.ids.length + panel.ids.length + feed.ids.length + pdu.ids.length + cs.ids.length +
    inlet.ids.length + outlet.ids.length + line.ids.length + cb.ids.length * 3);
}
