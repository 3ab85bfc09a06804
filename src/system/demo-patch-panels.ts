// Demo data, patch panels: every site with fabric cables gets two 24-port LC panels (pp01 in the leaf row, pp02
// in the spine row) joined by one MPO trunk between their rear ports (24 positions), and up to 24 of the
// site's uplinks to its first spine (leaves first, then borders) are re-run through them:
//   leaf interface → pp01 front port k ⇢ pp01 rear port ═ trunk ═ pp02 rear port ⇢ pp02 front port k → spine interface
// so a trace shows a real panel path. Runs after writeAll's cables; set-based like the rest (a fixed number of
// statements whatever the number of sites), and, like the rest, past the write hooks: the rows it writes are
// what the hooks would have produced (ports materialised from the panel type's templates, one cable per port).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { uuidv7 } from '../core/ids.ts';
import { allocateNumids } from '../core/numids.ts';
import { inTenant } from '../core/access.ts';

/** Front ports per panel, and so positions of its rear port and uplinks re-run per site. */
export const PANEL_PORTS = 24;

const ids = (n: number) => Array.from({ length: n }, () => uuidv7());
async function numids(tx: Kysely<DB>, tenantId: string, table: string, n: number): Promise<number[]> {
  const first = n ? await allocateNumids(tx, tenantId, table, n) : 0;
  return Array.from({ length: n }, (_v, i) => first + i);
}

/** Writes the panels and re-runs the uplinks; answers the rows written per table. */
export async function writePatchPanels(tx: Kysely<DB>, tenantId: string): Promise<Record<string, number>> {
  // The uplinks to re-run: per site, the cables from a leaf or border to the site's first spine.
  const { rows: uplinks } = await sql<{ site_id: string; site: string; cable_id: string; spine_if: string; k: number }>`
    WITH first_spine AS (
      SELECT DISTINCT ON (d.site_id) d.site_id, d.id FROM devices d JOIN device_roles r ON r.id = d.role_id AND r.slug = 'spine'
      WHERE ${inTenant(tenantId, 'd')} ORDER BY d.site_id, d.name
    ), ranked AS (
      SELECT s.id AS site_id, s.slug AS site, a.cable_id, b.termination_id AS spine_if,
        row_number() OVER (PARTITION BY s.id ORDER BY lr.slug <> 'leaf', ld.name)::int AS k
      FROM cable_terminations a
      JOIN cable_terminations b ON b.cable_id = a.cable_id AND b.cable_end = 'B' AND b.termination_type = 'dcim.interface'
      JOIN interfaces li ON li.id = a.termination_id JOIN devices ld ON ld.id = li.device_id
      JOIN device_roles lr ON lr.id = ld.role_id AND lr.slug IN ('leaf', 'border')
      JOIN interfaces si ON si.id = b.termination_id JOIN first_spine fs ON fs.id = si.device_id
      JOIN sites s ON s.id = ld.site_id
      WHERE a.cable_end = 'A' AND a.termination_type = 'dcim.interface' AND ${inTenant(tenantId, 'ld')}
    ) SELECT * FROM ranked WHERE k <= ${PANEL_PORTS} ORDER BY site_id, k`.execute(tx);
  if (uplinks.length === 0) return {};
  const sites = [...new Map(uplinks.map((u) => [u.site_id, u.site])).entries()].map(([id, slug]) => ({ id, slug }));
  const T = sql`${tenantId}::uuid`;

  // Catalog: a manufacturer, a role, a panel type with its port templates.
  const [mf, role, type, rearT] = [ids(1), ids(1), ids(1), ids(1)];
  await sql`INSERT INTO manufacturers (id, numid, tenant_id, name, slug, description)
    VALUES (${mf[0]}, ${(await numids(tx, tenantId, 'manufacturers', 1))[0]}, ${T}, 'Panduit', 'panduit', 'Structured cabling')`.execute(tx);
  await sql`INSERT INTO device_roles (id, numid, tenant_id, name, slug, color, description)
    VALUES (${role[0]}, ${(await numids(tx, tenantId, 'device_roles', 1))[0]}, ${T}, 'Patch panel', 'patch-panel', '795548',
      'Passive panel: front ports to a trunk on the rear.')`.execute(tx);
  await sql`INSERT INTO device_types (id, numid, tenant_id, manufacturer_id, model, slug, part_number, u_height)
    VALUES (${type[0]}, ${(await numids(tx, tenantId, 'device_types', 1))[0]}, ${T}, ${mf[0]}, 'FLEXdirect 24-port LC', 'panduit-fdp24-lc', 'FDP24LC', 1)`.execute(tx);
  await sql`INSERT INTO rear_port_templates (id, numid, tenant_id, device_type_id, name, type, positions)
    VALUES (${rearT[0]}, ${(await numids(tx, tenantId, 'rear_port_templates', 1))[0]}, ${T}, ${type[0]}, 'Rear1', 'mpo', ${PANEL_PORTS})`.execute(tx);
  const positions = Array.from({ length: PANEL_PORTS }, (_v, i) => i + 1);
  await sql`INSERT INTO front_port_templates (id, numid, tenant_id, device_type_id, name, type, rear_port_id, rear_port_position)
    SELECT x.id, x.numid, ${T}, ${type[0]}, 'Front' || x.p, 'lc', ${rearT[0]}, x.p
    FROM unnest(${ids(PANEL_PORTS)}::uuid[], ${await numids(tx, tenantId, 'front_port_templates', PANEL_PORTS)}::bigint[], ${positions}::int[]) AS x(id, numid, p)`.execute(tx);

  // Two panels per site, each with the rear port and front ports of its type.
  const panels = sites.flatMap((s) => [1, 2].map((n) => ({ site: s.id, name: `${s.slug}-pp0${n}` })));
  const panelIds = ids(panels.length);
  const { rows: status } = await sql<{ id: string }>`SELECT id FROM statuses WHERE ${inTenant(tenantId)} AND 'dcim.device' = ANY(available_to)
    ORDER BY slug <> 'active', 'dcim.device' <> ALL(default_for) LIMIT 1`.execute(tx);
  // In the bottom units of the site's core rack (demo-racks.ts fills it from the top): pp01 at U1, pp02 at U2.
  await sql`INSERT INTO devices (id, numid, tenant_id, name, device_type_id, role_id, site_id, status_id, rack_id, position, face)
    SELECT x.id, x.numid, ${T}, x.name, ${type[0]}, ${role[0]}, x.site, ${status[0]?.id ?? null}::uuid, r.id, CASE WHEN r.id IS NULL THEN NULL ELSE x.unit END,
      CASE WHEN r.id IS NULL THEN NULL ELSE 'front' END
    FROM unnest(${panelIds}::uuid[], ${await numids(tx, tenantId, 'devices', panels.length)}::bigint[], ${panels.map((p) => p.name)}::text[], ${panels.map((p) => p.site)}::uuid[],
      ${panels.map((_p, i) => (i % 2) + 1)}::int[]) AS x(id, numid, name, site, unit)
    LEFT JOIN racks r ON r.site_id = x.site AND r.name = 'C01' AND ${inTenant(tenantId, 'r')}`.execute(tx);
  const rearIds = ids(panels.length);
  await sql`INSERT INTO rear_ports (id, numid, tenant_id, device_id, name, type, positions)
    SELECT x.id, x.numid, ${T}, x.device, 'Rear1', 'mpo', ${PANEL_PORTS}
    FROM unnest(${rearIds}::uuid[], ${await numids(tx, tenantId, 'rear_ports', panels.length)}::bigint[], ${panelIds}::uuid[]) AS x(id, numid, device)`.execute(tx);
  // Front port k of panel i is frontIds[i * PANEL_PORTS + k - 1].
  const frontIds = ids(panels.length * PANEL_PORTS);
  await sql`INSERT INTO front_ports (id, numid, tenant_id, device_id, name, type, rear_port_id, rear_port_position)
    SELECT x.id, x.numid, ${T}, x.device, 'Front' || x.p, 'lc', x.rear, x.p
    FROM unnest(${frontIds}::uuid[], ${await numids(tx, tenantId, 'front_ports', frontIds.length)}::bigint[],
      ${panelIds.flatMap((id) => positions.map(() => id))}::uuid[], ${rearIds.flatMap((id) => positions.map(() => id))}::uuid[],
      ${panelIds.flatMap(() => positions)}::int[]) AS x(id, numid, device, rear, p)`.execute(tx);

  // Cables: the existing uplink now ends on pp01's front port k; a new patch cord runs pp02's front port k to the
  // spine interface; one trunk per site joins the rear ports.
  const siteIndex = new Map(sites.map((s, i) => [s.id, i]));
  const front = (site: string, panel: 0 | 1, k: number) => frontIds[(siteIndex.get(site)! * 2 + panel) * PANEL_PORTS + k - 1]!;
  await sql`UPDATE cable_terminations t SET termination_type = 'dcim.frontport', termination_id = x.port
    FROM unnest(${uplinks.map((u) => u.cable_id)}::uuid[], ${uplinks.map((u) => front(u.site_id, 0, u.k))}::uuid[]) AS x(cable, port)
    WHERE t.cable_id = x.cable AND t.cable_end = 'B'`.execute(tx);
  const cords = uplinks.length;
  const cableIds = ids(cords + sites.length);
  const cableNumids = await numids(tx, tenantId, 'cables', cableIds.length);
  const labels = cableNumids.map((n) => `C${String(n).padStart(7, '0')}`);
  // Fibre now: 2 m patch cords (the re-run uplinks too: a copper DAC does not plug into an LC panel), 30 m trunks.
  const lengths = [...uplinks.map(() => 2), ...sites.map(() => 30)];
  await sql`INSERT INTO cables (id, numid, tenant_id, label, type, length, length_unit)
    SELECT x.id, x.numid, ${T}, x.label, 'mmf-om4', x.length, 'm'
    FROM unnest(${cableIds}::uuid[], ${cableNumids}::bigint[], ${labels}::text[], ${lengths}::int[]) AS x(id, numid, label, length)`.execute(tx);
  await sql`UPDATE cables SET type = 'mmf-om4', length = 2 WHERE id = ANY(${uplinks.map((u) => u.cable_id)}::uuid[])`.execute(tx);
  const ends: Array<[string, 'A' | 'B', string, string]> = [
    ...uplinks.flatMap((u, i): Array<[string, 'A' | 'B', string, string]> => [
      [cableIds[i]!, 'A', 'dcim.frontport', front(u.site_id, 1, u.k)],
      [cableIds[i]!, 'B', 'dcim.interface', u.spine_if],
    ]),
    ...sites.flatMap((_s, i): Array<[string, 'A' | 'B', string, string]> => [
      [cableIds[cords + i]!, 'A', 'dcim.rearport', rearIds[i * 2]!],
      [cableIds[cords + i]!, 'B', 'dcim.rearport', rearIds[i * 2 + 1]!],
    ]),
  ];
  await sql`INSERT INTO cable_terminations (cable_id, cable_end, termination_type, termination_id)
    SELECT * FROM unnest(${ends.map((e) => e[0])}::uuid[], ${ends.map((e) => e[1])}::text[], ${ends.map((e) => e[2])}::text[], ${ends.map((e) => e[3])}::uuid[])`.execute(tx);

  return {
    manufacturers: 1, device_roles: 1, device_types: 1, rear_port_templates: 1, front_port_templates: PANEL_PORTS,
    devices: panels.length, rear_ports: panels.length, front_ports: frontIds.length, cables: cableIds.length, cable_terminations: ends.length,
  };
}
