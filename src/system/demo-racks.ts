// Demo data: where the devices stand. Each site gets two halls, a core rack (spines, borders and firewalls from
// the top down, a free unit between the groups) in Hall 1 and a leaf rack per pair of leaves in Hall 2 (the pair
// at the top, as top-of-rack switches are); every device is placed on the front face. Units are computed from
// the plan, so nothing collides and the rows satisfy what the device hooks enforce (rack of the device's site,
// inside its units, one device per unit). Written with the devices: a fixed number of statements whatever the size.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import { inTenant } from '../core/access.ts';

/** The parts of demo-data's Writer this step uses (structural: demo-data.ts imports this file, not the reverse). */
export interface DemoRowWriter {
  insert(table: string, columns: Array<[name: string, pgType: string, cast?: string]>, data: unknown[][], consts?: Record<string, RawBuilder<unknown>>): Promise<void>;
  identities(table: string, count: number): Promise<{ ids: string[]; numids: number[] }>;
  begin(): void;
  report(label: string, rows: number): void;
}

export interface RackedDevice {
  site: number;
  role: 'spine' | 'leaf' | 'border' | 'firewall';
  rank: number;
  /** The device type's height in units. */
  uHeight: number;
}

const RACK_UNITS = 42;
const HALLS = [
  { name: 'Hall 1', slug: 'hall-1', description: 'Core: spines, border routers and firewalls' },
  { name: 'Hall 2', slug: 'hall-2', description: 'Server rows: a rack per leaf pair' },
] as const;
const LEAVES_PER_RACK = 2;

interface PlannedRack {
  site: number;
  hall: number;
  name: string;
}

/** Racks and each device's rack (an index into the racks) and lowest unit; pure, from the plan alone. */
export function planRacks(devices: RackedDevice[]): { racks: PlannedRack[]; placements: Array<{ rack: number; position: number }> } {
  const racks: PlannedRack[] = [];
  const coreRack = new Map<number, number>();
  const leafRacks = new Map<string, number>();
  const nextCoreUnit = new Map<number, { top: number; role: string }>();
  const placements = devices.map((d) => {
    if (d.role === 'leaf') {
      const key = `${d.site}:${Math.floor(d.rank / LEAVES_PER_RACK)}`;
      if (!leafRacks.has(key)) {
        leafRacks.set(key, racks.length);
        racks.push({ site: d.site, hall: 1, name: `A${String(Math.floor(d.rank / LEAVES_PER_RACK) + 1).padStart(2, '0')}` });
      }
      // Leaves are one height per site: the pair stacks from the top.
      const slot = d.rank % LEAVES_PER_RACK;
      return { rack: leafRacks.get(key)!, position: RACK_UNITS - (slot + 1) * d.uHeight + 1 };
    }
    if (!coreRack.has(d.site)) {
      coreRack.set(d.site, racks.length);
      racks.push({ site: d.site, hall: 0, name: 'C01' });
    }
    const cursor = nextCoreUnit.get(d.site) ?? { top: RACK_UNITS, role: d.role };
    // A free unit between spines, borders and firewalls.
    const top = cursor.role === d.role ? cursor.top : cursor.top - 1;
    const position = top - d.uHeight + 1;
    nextCoreUnit.set(d.site, { top: position - 1, role: d.role });
    return { rack: coreRack.get(d.site)!, position };
  });
  return { racks, placements };
}

/** Where each planned device stands: its rack's id and lowest unit (front face); and each site's core rack. */
export interface RackPlacements {
  rackId: string[];
  position: number[];
  coreRack: Map<number, string>;
}

/**
 * Writes the halls and racks; answers where each device goes, for the device step to write with the devices
 * (every row is written once: no UPDATE of the devices afterwards).
 */
export async function writeDemoRacks(
  tx: Kysely<DB>,
  w: DemoRowWriter,
  tenantId: string,
  sites: { ids: string[]; slugs: string[] },
  devices: RackedDevice[],
): Promise<RackPlacements> {
  w.begin();
  const { racks, placements } = planRacks(devices);
  // One tenant-wide rack role; a tenant that already has it (demo data loads into an empty inventory, but rack
  // roles are a catalog) keeps its own.
  const { rows: existingRole } = await sql<{ id: string }>`SELECT id FROM rack_roles WHERE slug = 'network' AND ${inTenant(tenantId)}`.execute(tx);
  let roleId = existingRole[0]?.id;
  if (!roleId) {
    const role = await w.identities('rack_roles', 1);
    await w.insert('rack_roles', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['color', 'text']], [role.ids, role.numids, ['Network'], ['network'], ['2196f3']]);
    roleId = role.ids[0]!;
  }
  const siteCount = sites.ids.length;
  const loc = await w.identities('locations', siteCount * HALLS.length);
  const hallOf = (site: number, hall: number) => loc.ids[site * HALLS.length + hall]!;
  const perSite = <T>(f: (hall: (typeof HALLS)[number]) => T): T[] => sites.ids.flatMap(() => HALLS.map(f));
  await w.insert('locations', [['id', 'uuid'], ['numid', 'int8'], ['site_id', 'uuid'], ['name', 'text'], ['slug', 'text'], ['description', 'text']], [
    loc.ids, loc.numids, sites.ids.flatMap((s) => HALLS.map(() => s)), perSite((h) => h.name), perSite((h) => h.slug), perSite((h) => h.description),
  ]);
  const rk = await w.identities('racks', racks.length);
  await w.insert('racks', [['id', 'uuid'], ['numid', 'int8'], ['site_id', 'uuid'], ['location_id', 'uuid'], ['name', 'text'], ['facility_id', 'text']], [
    rk.ids, rk.numids, racks.map((r) => sites.ids[r.site]!), racks.map((r) => hallOf(r.site, r.hall)), racks.map((r) => r.name),
    racks.map((r) => `${sites.slugs[r.site]!.toUpperCase()}-${r.name}`),
  ], { role_id: sql`${roleId}::uuid`, u_height: sql`${RACK_UNITS}` });
  w.report('locations and racks', loc.ids.length + racks.length);
  const coreRack = new Map<number, string>();
  racks.forEach((r, i) => r.name === 'C01' && coreRack.set(r.site, rk.ids[i]!));
  return { rackId: placements.map((p) => rk.ids[p.rack]!), position: placements.map((p) => p.position), coreRack };
}
