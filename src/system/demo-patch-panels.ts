// Demo data, patch panels: every site with fabric cables gets two 24-port LC panels (pp01 in the leaf row, pp02
// in the spine row) joined by one MPO trunk between their rear ports (24 positions), and up to 24 of the
// site's uplinks to its first spine (leaves first, then borders) are run through them:
//   leaf interface → pp01 front port k ⇢ pp01 rear port ═ trunk ═ pp02 rear port ⇢ pp02 front port k → spine interface
// so a trace shows a real panel path. The panels are written before the cables, which then end on their ports
// (demo-data.ts's cable step); like the rest, through the writer and past the write hooks: the rows are what the
// hooks would have produced (ports materialised from the panel type's templates, one cable per port).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { inTenant } from '../core/access.ts';
import type { DemoRowWriter } from './demo-racks.ts';

/** Front ports per panel, and so positions of its rear port and uplinks re-run per site. */
export const PANEL_PORTS = 24;

export interface SitePanels {
  /** pp01's and pp02's front ports 1..PANEL_PORTS, by position - 1. */
  front: [string[], string[]];
  /** pp01's and pp02's rear port. */
  rear: [string, string];
}

/**
 * Writes the panel catalog and two panels per listed site (in the bottom units of its core rack, when it has
 * one: demo-racks.ts fills it from the top); answers their ports per site, in the order given.
 */
export async function writePatchPanels(
  tx: Kysely<DB>,
  w: DemoRowWriter,
  tenantId: string,
  sites: Array<{ id: string; slug: string; coreRack: string | null }>,
): Promise<SitePanels[]> {
  if (sites.length === 0) return [];
  const positions = Array.from({ length: PANEL_PORTS }, (_v, i) => i + 1);

  // Catalog: a manufacturer, a role, a panel type with its port templates.
  const mf = await w.identities('manufacturers', 1);
  await w.insert('manufacturers', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['description', 'text']], [mf.ids, mf.numids, ['Panduit'], ['panduit'], ['Structured cabling']]);
  const role = await w.identities('device_roles', 1);
  await w.insert('device_roles', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['color', 'text'], ['description', 'text']], [
    role.ids, role.numids, ['Patch panel'], ['patch-panel'], ['795548'], ['Passive panel: front ports to a trunk on the rear.'],
  ]);
  const type = await w.identities('device_types', 1);
  await w.insert('device_types', [['id', 'uuid'], ['numid', 'int8'], ['manufacturer_id', 'uuid'], ['model', 'text'], ['slug', 'text'], ['part_number', 'text'], ['u_height', 'int4']], [
    type.ids, type.numids, mf.ids, ['FLEXdirect 24-port LC'], ['panduit-fdp24-lc'], ['FDP24LC'], [1],
  ]);
  const rearT = await w.identities('rear_port_templates', 1);
  await w.insert('rear_port_templates', [['id', 'uuid'], ['numid', 'int8'], ['device_type_id', 'uuid'], ['name', 'text'], ['type', 'text'], ['positions', 'int4']], [
    rearT.ids, rearT.numids, type.ids, ['Rear1'], ['mpo'], [PANEL_PORTS],
  ]);
  const frontT = await w.identities('front_port_templates', PANEL_PORTS);
  await w.insert('front_port_templates', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['rear_port_position', 'int4']], [
    frontT.ids, frontT.numids, positions.map((p) => `Front${p}`), positions,
  ], { device_type_id: sql`${type.ids[0]!}::uuid`, type: sql`'lc'`, rear_port_id: sql`${rearT.ids[0]!}::uuid` });

  // Two panels per site, each with the rear port and front ports of its type.
  const panels = sites.flatMap((s) => [1, 2].map((n) => ({ site: s.id, name: `${s.slug}-pp0${n}`, rack: s.coreRack, unit: n })));
  const { rows: status } = await sql<{ id: string }>`SELECT id FROM statuses WHERE ${inTenant(tenantId)} AND 'dcim.device' = ANY(available_to)
    ORDER BY slug <> 'active', 'dcim.device' <> ALL(default_for) LIMIT 1`.execute(tx);
  const dev = await w.identities('devices', panels.length);
  await w.insert('devices', [
    ['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['site_id', 'uuid'], ['rack_id', 'uuid'], ['position', 'int4'], ['face', 'text'],
  ], [
    dev.ids, dev.numids, panels.map((p) => p.name), panels.map((p) => p.site), panels.map((p) => p.rack),
    panels.map((p) => (p.rack ? p.unit : null)), panels.map((p) => (p.rack ? 'front' : null)),
  ], { device_type_id: sql`${type.ids[0]!}::uuid`, role_id: sql`${role.ids[0]!}::uuid`, status_id: sql`${status[0]?.id ?? null}::uuid` });
  const rear = await w.identities('rear_ports', panels.length);
  await w.insert('rear_ports', [['id', 'uuid'], ['numid', 'int8'], ['device_id', 'uuid']], [rear.ids, rear.numids, dev.ids], {
    name: sql`'Rear1'`, type: sql`'mpo'`, positions: sql`${PANEL_PORTS}::int`,
  });
  // Front port k of panel i is front.ids[i * PANEL_PORTS + k - 1].
  const front = await w.identities('front_ports', panels.length * PANEL_PORTS);
  await w.insert('front_ports', [['id', 'uuid'], ['numid', 'int8'], ['device_id', 'uuid'], ['name', 'text'], ['rear_port_id', 'uuid'], ['rear_port_position', 'int4']], [
    front.ids, front.numids, dev.ids.flatMap((id) => positions.map(() => id)), panels.flatMap(() => positions.map((p) => `Front${p}`)),
    rear.ids.flatMap((id) => positions.map(() => id)), panels.flatMap(() => positions),
  ], { type: sql`'lc'` });

  const portsOf = (panel: number) => front.ids.slice(panel * PANEL_PORTS, (panel + 1) * PANEL_PORTS);
  return sites.map((_s, i) => ({ front: [portsOf(i * 2), portsOf(i * 2 + 1)], rear: [rear.ids[i * 2]!, rear.ids[i * 2 + 1]!] }));
}
