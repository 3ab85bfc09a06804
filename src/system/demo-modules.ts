// Demo data, modular hardware: in the first site, a four-slot chassis (a device of a modular type) with two line
// cards installed (their interfaces named from the bay position, Ethernet1/1…, as NetBox's {module} makes them),
// its power supplies and fan tray as inventory items, and the site's first two leaves joined in a virtual chassis.
// Like the rest, written through the writer and past the write hooks: the rows are what the hooks would produce
// (bays from the type's templates, components from the module types'); the leaves join their chassis through the
// core's updateRows, so the change log shows it.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { inTenant } from '../core/access.ts';
import { systemContext } from '../core/context.ts';
import { requireModel } from '../core/registry.ts';
import { updateRows } from '../core/crud/update-rows.ts';
import type { DemoRowWriter } from './demo-racks.ts';

const SLOTS = 4;
const CHASSIS_UNITS = 7;
const PORTS = 8;
const CARDS = [
  { model: '7500R3-8CQ-LC', part: 'DCS-7500R3-8CQ-LC', description: '8-port 100GbE QSFP line card', type: '100gbase-x-qsfp28' },
  { model: '7500R3-8SFP-LC', part: 'DCS-7500R3-8SFP-LC', description: '8-port 10GbE SFP+ line card', type: '10gbase-x-sfpp' },
] as const;

const id = (ids: string[]) => sql`${ids[0]!}::uuid`;

export async function writeDemoModules(tx: Kysely<DB>, w: DemoRowWriter, tenantId: string): Promise<void> {
  const { rows: sites } = await sql<{ id: string; slug: string }>`SELECT id, slug FROM sites WHERE ${inTenant(tenantId)} ORDER BY numid LIMIT 1`.execute(tx);
  const site = sites[0];
  if (!site) return;
  const { rows: refs } = await sql<{ manufacturer: string | null; status: string | null; rack: string | null }>`SELECT
      (SELECT id FROM manufacturers WHERE ${inTenant(tenantId)} ORDER BY slug <> 'arista', numid LIMIT 1) AS manufacturer,
      (SELECT id FROM statuses WHERE ${inTenant(tenantId)} AND 'dcim.device' = ANY(default_for) ORDER BY numid LIMIT 1) AS status,
      (SELECT d.rack_id FROM devices d JOIN device_roles r ON r.id = d.role_id WHERE ${inTenant(tenantId, 'd')} AND d.site_id = ${site.id}
        AND r.slug = 'spine' AND d.rack_id IS NOT NULL ORDER BY d.name LIMIT 1) AS rack`.execute(tx);
  const { manufacturer, status, rack } = refs[0]!;
  if (!manufacturer) return;
  // In the spines' rack, in the lowest free span of its height (the patch panels take the bottom units).
  const { rows: taken } = await sql<{ position: number; u_height: number }>`SELECT d.position, t.u_height FROM devices d
    JOIN device_types t ON t.id = d.device_type_id WHERE d.rack_id = ${rack} AND d.position IS NOT NULL AND ${inTenant(tenantId, 'd')}`.execute(tx);
  const used = new Set(taken.flatMap((t) => Array.from({ length: t.u_height }, (_v, i) => t.position + i)));
  const start = Array.from({ length: 42 - CHASSIS_UNITS + 1 }, (_v, i) => i + 1).find((u) => Array.from({ length: CHASSIS_UNITS }, (_v, i) => u + i).every((x) => !used.has(x)));
  const position = rack && start !== undefined ? start : null;
  w.begin();

  // Its own role, so the planned devices stay those of the other roles (demo-data.test.ts counts them).
  const role = await w.identities('device_roles', 1);
  await w.insert('device_roles', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['color', 'text'], ['description', 'text']], [
    role.ids, role.numids, ['Core chassis'], ['core-chassis'], ['673ab7'], ['Modular chassis: line cards in slots.'],
  ]);

  // Catalog: the chassis type with its slots, the two line cards with their {module} interface templates.
  const chassisType = await w.identities('device_types', 1);
  await w.insert('device_types', [['id', 'uuid'], ['numid', 'int8'], ['model', 'text'], ['slug', 'text'], ['part_number', 'text'], ['u_height', 'int4']], [
    chassisType.ids, chassisType.numids, ['DCS-7504R3'], ['arista-dcs-7504r3'], ['DCS-7504R3-BND'], [CHASSIS_UNITS],
  ], { manufacturer_id: sql`${manufacturer}::uuid` });
  const slots = Array.from({ length: SLOTS }, (_v, i) => i + 1);
  const bayT = await w.identities('module_bay_templates', SLOTS);
  await w.insert('module_bay_templates', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['label', 'text'], ['position', 'text']], [
    bayT.ids, bayT.numids, slots.map((s) => `Linecard${s}`), slots.map((s) => `LC${s}`), slots.map(String),
  ], { device_type_id: id(chassisType.ids) });
  const cardT = await w.identities('module_types', CARDS.length);
  await w.insert('module_types', [['id', 'uuid'], ['numid', 'int8'], ['model', 'text'], ['part_number', 'text'], ['description', 'text']], [
    cardT.ids, cardT.numids, CARDS.map((c) => c.model), CARDS.map((c) => c.part), CARDS.map((c) => c.description),
  ], { manufacturer_id: sql`${manufacturer}::uuid`, airflow: sql`'front-to-rear'` });
  const ports = Array.from({ length: PORTS }, (_v, i) => i + 1);
  const ifT = await w.identities('interface_templates', CARDS.length * PORTS);
  await w.insert('interface_templates', [['id', 'uuid'], ['numid', 'int8'], ['module_type_id', 'uuid'], ['name', 'text'], ['type', 'text']], [
    ifT.ids, ifT.numids, CARDS.flatMap((_c, i) => ports.map(() => cardT.ids[i]!)), CARDS.flatMap(() => ports.map((p) => `Ethernet{module}/${p}`)),
    CARDS.flatMap((c) => ports.map(() => c.type)),
  ]);

  // The chassis, its bays, a card in each of the first two slots, and the cards' interfaces.
  const chassis = await w.identities('devices', 1);
  await w.insert('devices', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['serial', 'text'], ['rack_id', 'uuid'], ['position', 'int4'], ['face', 'text']], [
    chassis.ids, chassis.numids, [`${site.slug}-core-chassis1`], ['JPE19440001'], [position === null ? null : rack], [position], [position === null ? null : 'front'],
  ], { device_type_id: id(chassisType.ids), role_id: id(role.ids), site_id: sql`${site.id}::uuid`, status_id: sql`${status}::uuid` });
  const bays = await w.identities('module_bays', SLOTS);
  await w.insert('module_bays', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['label', 'text'], ['position', 'text']], [
    bays.ids, bays.numids, slots.map((s) => `Linecard${s}`), slots.map((s) => `LC${s}`), slots.map(String),
  ], { device_id: id(chassis.ids) });
  const mods = await w.identities('modules', CARDS.length);
  await w.insert('modules', [['id', 'uuid'], ['numid', 'int8'], ['module_bay_id', 'uuid'], ['module_type_id', 'uuid'], ['serial', 'text']], [
    mods.ids, mods.numids, CARDS.map((_c, i) => bays.ids[i]!), cardT.ids, CARDS.map((_c, i) => `JPE1944LC0${i + 1}`),
  ], { device_id: id(chassis.ids), status: sql`'active'` });
  const ifs = await w.identities('interfaces', CARDS.length * PORTS);
  await w.insert('interfaces', [['id', 'uuid'], ['numid', 'int8'], ['module_id', 'uuid'], ['name', 'text'], ['type', 'text']], [
    ifs.ids, ifs.numids, CARDS.flatMap((_c, i) => ports.map(() => mods.ids[i]!)), CARDS.flatMap((_c, i) => ports.map((p) => `Ethernet${slots[i]}/${p}`)),
    CARDS.flatMap((c) => ports.map(() => c.type)),
  ], { device_id: id(chassis.ids) });

  // Inventory: two power supplies and a fan tray holding two fans.
  const roles = await w.identities('inventory_item_roles', 2);
  await w.insert('inventory_item_roles', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['color', 'text']], [
    roles.ids, roles.numids, ['Power supply', 'Fan'], ['power-supply', 'fan'], ['ff9800', '03a9f4'],
  ]);
  const tray = await w.identities('inventory_items', 1);
  await w.insert('inventory_items', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['part_id', 'text']], [tray.ids, tray.numids, ['Fan tray 1'], ['FAN-7504R3-F']], {
    device_id: id(chassis.ids), role_id: id(roles.ids.slice(1)), manufacturer_id: sql`${manufacturer}::uuid`,
  });
  const items = await w.identities('inventory_items', 4);
  await w.insert('inventory_items', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['part_id', 'text'], ['role_id', 'uuid'], ['parent_id', 'uuid'], ['serial', 'text']], [
    items.ids, items.numids, ['PSU1', 'PSU2', 'Fan 1', 'Fan 2'], ['PWR-3KT-AC-RED', 'PWR-3KT-AC-RED', 'FAN-7500R3', 'FAN-7500R3'],
    [roles.ids[0]!, roles.ids[0]!, roles.ids[1]!, roles.ids[1]!], [null, null, tray.ids[0]!, tray.ids[0]!], ['PSU0001', 'PSU0002', '', ''],
  ], { device_id: id(chassis.ids), manufacturer_id: sql`${manufacturer}::uuid` });
  w.report('modular chassis (role, type, bays, line cards and their interfaces, inventory items)', 2 + SLOTS + CARDS.length * (1 + PORTS) + 1 + SLOTS + CARDS.length + CARDS.length * PORTS + 2 + 5);

  // The site's first two leaves as one virtual chassis (an MLAG-style pair), the first its master.
  const { rows: leaves } = await sql<{ id: string; name: string }>`SELECT d.id, d.name FROM devices d JOIN device_roles r ON r.id = d.role_id
    WHERE ${inTenant(tenantId, 'd')} AND d.site_id = ${site.id} AND r.slug = 'leaf' ORDER BY d.name LIMIT 2`.execute(tx);
  if (leaves.length < 2) return;
  const vc = await w.identities('virtual_chassis', 1);
  await w.insert('virtual_chassis', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['domain', 'text'], ['master_id', 'uuid']], [
    vc.ids, vc.numids, [`${site.slug}-leaf-vc1`], [`${site.slug}-mlag1`], [leaves[0]!.id],
  ], { description: sql`'First leaf pair, managed as one'` });
  await updateRows(tx, systemContext(tenantId), requireModel('dcim.device'), leaves.map((l, i) => ({ id: l.id, columns: { virtual_chassis_id: vc.ids[0]!, vc_position: i + 1, vc_priority: i === 0 ? 200 : 100 } })));
  w.report('virtual chassis (and its two members)', 3);
}
