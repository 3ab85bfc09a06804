// Demo data, circuits: three transit providers (an account and an IP backbone network each, and a PoP site with
// a provider edge router), circuit types Transit and Peering, and two transit circuits per border router, each
// from a provider of its own. Termination A is at the border's site, cabled to one of the border's first two
// free access ports (xe-0/1/0, xe-0/1/1 on an MX204; its fabric ports go to the spines). The first circuit's Z
// end is at the provider's PoP, cabled to a port of the provider's edge router, so a trace from the border's
// uplink crosses the circuit to the provider's far end; the second one's Z end is on the provider's network, where
// NetBox ends a path. Written past the write hooks like the rest: the rows are what the hooks would have allowed.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { inTenant } from '../core/access.ts';
import type { DemoRowWriter } from './demo-racks.ts';

const PROVIDERS = [
  { name: 'Lumen', slug: 'lumen', prefix: 'LMN', account: '5-2001-4418', network: 'Lumen IP backbone', pop: 'Lumen PoP Frankfurt', popSlug: 'lumen-fra-pop' },
  { name: 'Cogent', slug: 'cogent', prefix: 'COG', account: 'CUST-0098123', network: 'Cogent AS174', pop: 'Cogent PoP London', popSlug: 'cogent-lon-pop' },
  { name: 'NTT', slug: 'ntt', prefix: 'NTT', account: 'GIN-77120', network: 'NTT Global IP Network', pop: 'NTT PoP Ashburn', popSlug: 'ntt-iad-pop' },
] as const;

const TEN_G = 10_000_000;
const VIRTUAL_TYPES = ['virtual', 'bridge', 'lag', 'loopback', 'tunnel'];

/** Answers how many circuits it wrote (two per border router with two free ports). */
export async function writeDemoCircuits(tx: Kysely<DB>, w: DemoRowWriter, tenantId: string): Promise<number> {
  // Each border router's first two uncabled physical ports, in natural order.
  const { rows: uplinks } = await sql<{ device: string; site: string; iface: string; n: number }>`
    SELECT device, site, iface, n FROM (
      SELECT d.id AS device, d.site_id AS site, i.id AS iface, row_number() OVER (PARTITION BY d.id ORDER BY i.name_natural, i.id)::int AS n, d.name
      FROM devices d JOIN device_roles r ON r.id = d.role_id AND r.slug = 'border'
      JOIN interfaces i ON i.device_id = d.id AND NOT i.mgmt_only AND i.type <> ALL(${VIRTUAL_TYPES}::text[])
      WHERE ${inTenant(tenantId, 'd')} AND d.site_id IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM cable_terminations t WHERE t.termination_type = 'dcim.interface' AND t.termination_id = i.id)
    ) x WHERE n <= 2 ORDER BY name, n`.execute(tx);
  const borders = [...new Set(uplinks.map((u) => u.device))].filter((d) => uplinks.filter((u) => u.device === d).length === 2);
  if (borders.length === 0) return 0;
  w.begin();
  const { rows: status } = await sql<{ slug: string; id: string; model: string }>`SELECT s.slug, s.id, m.model FROM statuses s
    CROSS JOIN unnest(ARRAY['circuits.circuit', 'organization.site', 'dcim.device', 'dcim.cable']::text[]) AS m(model)
    WHERE ${inTenant(tenantId, 's')} AND m.model = ANY(s.default_for)`.execute(tx);
  const statusOf = (model: string) => status.find((s) => s.model === model)?.id ?? null;

  const pv = await w.identities('providers', PROVIDERS.length);
  await w.insert('providers', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['description', 'text']], [
    pv.ids, pv.numids, PROVIDERS.map((p) => p.name), PROVIDERS.map((p) => p.slug), PROVIDERS.map((p) => `IP transit from ${p.name}`),
  ]);
  const acct = await w.identities('provider_accounts', PROVIDERS.length);
  await w.insert('provider_accounts', [['id', 'uuid'], ['numid', 'int8'], ['provider_id', 'uuid'], ['account', 'text'], ['name', 'text']], [
    acct.ids, acct.numids, pv.ids, PROVIDERS.map((p) => p.account), PROVIDERS.map(() => 'Transit'),
  ]);
  const net = await w.identities('provider_networks', PROVIDERS.length);
  await w.insert('provider_networks', [['id', 'uuid'], ['numid', 'int8'], ['provider_id', 'uuid'], ['name', 'text'], ['description', 'text']], [
    net.ids, net.numids, pv.ids, PROVIDERS.map((p) => p.network), PROVIDERS.map((p) => `${p.name}'s internet backbone`),
  ]);
  const types = await w.identities('circuit_types', 2);
  await w.insert('circuit_types', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['color', 'text'], ['description', 'text']], [
    types.ids, types.numids, ['Transit', 'Peering'], ['transit', 'peering'], ['2196f3', '4caf50'], ['IP transit: a route to the whole internet.', 'Settlement-free peering.'],
  ]);

  // Each provider's PoP: a site and an edge router with a port per circuit of that provider ending there.
  const pops = await w.identities('sites', PROVIDERS.length);
  await w.insert('sites', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['description', 'text']], [
    pops.ids, pops.numids, PROVIDERS.map((p) => p.pop), PROVIDERS.map((p) => p.popSlug), PROVIDERS.map((p) => `${p.name}'s point of presence: the far end of our transit circuits.`),
  ], { status_id: sql`${statusOf('organization.site')}::uuid` });
  const { rows: juniper } = await sql<{ id: string }>`SELECT id FROM manufacturers WHERE ${inTenant(tenantId)} AND slug = 'juniper'`.execute(tx);
  let manufacturer = juniper[0]?.id;
  if (!manufacturer) {
    const mf = await w.identities('manufacturers', 1);
    await w.insert('manufacturers', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text']], [mf.ids, mf.numids, ['Juniper'], ['juniper']]);
    manufacturer = mf.ids[0]!;
  }
  const peType = await w.identities('device_types', 1);
  await w.insert('device_types', [['id', 'uuid'], ['numid', 'int8'], ['manufacturer_id', 'uuid'], ['model', 'text'], ['slug', 'text'], ['part_number', 'text'], ['u_height', 'int4']], [
    peType.ids, peType.numids, [manufacturer], ['MX10003'], ['juniper-mx10003'], ['MX10003-BASE'], [3],
  ]);
  const peRole = await w.identities('device_roles', 1);
  await w.insert('device_roles', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['color', 'text'], ['description', 'text']], [
    peRole.ids, peRole.numids, ['Provider edge'], ['provider-edge'], ['607d8b'], ['A carrier\'s router at the far end of a circuit.'],
  ]);
  const pe = await w.identities('devices', PROVIDERS.length);
  await w.insert('devices', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['site_id', 'uuid']], [
    pe.ids, pe.numids, PROVIDERS.map((p) => `${p.popSlug}-pe1`), pops.ids,
  ], { device_type_id: sql`${peType.ids[0]!}::uuid`, role_id: sql`${peRole.ids[0]!}::uuid`, status_id: sql`${statusOf('dcim.device')}::uuid` });

  // Two circuits per border, from providers k and k+1 (k the border's position): the first ends at the PoP.
  const circuits = borders.flatMap((device, b) => [0, 1].map((side) => {
    const uplink = uplinks.find((u) => u.device === device && u.n === side + 1)!;
    return { provider: (b + side) % PROVIDERS.length, toPop: side === 0, site: uplink.site, iface: uplink.iface };
  }));
  const peIfaces: Array<{ device: string; name: string }> = [];
  const peIfaceOf = circuits.map((c) => {
    if (!c.toPop) return -1;
    const used = peIfaces.filter((p) => p.device === pe.ids[c.provider]).length;
    peIfaces.push({ device: pe.ids[c.provider]!, name: `et-0/0/${used}` });
    return peIfaces.length - 1;
  });
  const pif = await w.identities('interfaces', peIfaces.length);
  await w.insert('interfaces', [['id', 'uuid'], ['numid', 'int8'], ['device_id', 'uuid'], ['name', 'text'], ['description', 'text']], [
    pif.ids, pif.numids, peIfaces.map((p) => p.device), peIfaces.map((p) => p.name), peIfaceOf.filter((i) => i >= 0).map(() => 'Customer transit'),
  ], { type: sql`'10gbase-x-sfpp'` });

  const ct = await w.identities('circuits', circuits.length);
  const cid = (i: number) => `${PROVIDERS[circuits[i]!.provider]!.prefix}-${String(ct.numids[i]!).padStart(6, '0')}`;
  await w.insert('circuits', [['id', 'uuid'], ['numid', 'int8'], ['cid', 'text'], ['provider_id', 'uuid'], ['provider_account_id', 'uuid'], ['description', 'text']], [
    ct.ids, ct.numids, ct.ids.map((_c, i) => cid(i)), circuits.map((c) => pv.ids[c.provider]!), circuits.map((c) => acct.ids[c.provider]!),
    circuits.map((c) => `${PROVIDERS[c.provider]!.name} transit, 10G`),
  ], { type_id: sql`${types.ids[0]!}::uuid`, status_id: sql`${statusOf('circuits.circuit')}::uuid`, commit_rate: sql`${TEN_G / 10}::int`, install_date: sql`'2024-03-01'::date` });
  // A then Z for each circuit.
  const tm = await w.identities('circuit_terminations', circuits.length * 2);
  await w.insert('circuit_terminations', [
    ['id', 'uuid'], ['numid', 'int8'], ['circuit_id', 'uuid'], ['term_side', 'text'], ['termination_type', 'text'], ['termination_id', 'uuid'], ['xconnect_id', 'text'],
  ], [
    tm.ids, tm.numids, circuits.flatMap((_c, i) => [ct.ids[i]!, ct.ids[i]!]), circuits.flatMap(() => ['A', 'Z']),
    circuits.flatMap((c) => ['dcim.site', c.toPop ? 'dcim.site' : 'circuits.providernetwork']),
    circuits.flatMap((c) => [c.site, c.toPop ? pops.ids[c.provider]! : net.ids[c.provider]!]),
    circuits.flatMap((_c, i) => [`XC-${String(tm.numids[i * 2]!).padStart(5, '0')}`, '']),
  ], { port_speed: sql`${TEN_G}::int` });

  // Cables: the border's port to A; Z to the provider edge's port, where the circuit ends at the PoP.
  const ends: Array<[a: [string, string], b: [string, string]]> = [];
  circuits.forEach((c, i) => {
    ends.push([['dcim.interface', c.iface], ['circuits.circuittermination', tm.ids[i * 2]!]]);
    if (c.toPop) ends.push([['circuits.circuittermination', tm.ids[i * 2 + 1]!], ['dcim.interface', pif.ids[peIfaceOf[i]!]!]]);
  });
  const cb = await w.identities('cables', ends.length);
  await w.insert('cables', [['id', 'uuid'], ['numid', 'int8'], ['label', 'text']], [cb.ids, cb.numids, cb.numids.map((n) => `C${String(n).padStart(7, '0')}`)], {
    type: sql`'smf-os2'`, status_id: sql`${statusOf('dcim.cable')}::uuid`,
  });
  await w.insert('cable_terminations', [['cable_id', 'uuid'], ['cable_end', 'text'], ['termination_type', 'text'], ['termination_id', 'uuid']], [
    ends.flatMap((_e, i) => [cb.ids[i]!, cb.ids[i]!]), ends.flatMap(() => ['A', 'B']), ends.flatMap((e) => [e[0][0], e[1][0]]), ends.flatMap((e) => [e[0][1], e[1][1]]),
  ]);
  w.report('circuits (providers, PoPs, circuits, terminations, cables)',
    PROVIDERS.length * 5 + 2 + 2 + peIfaces.length + circuits.length * 3 + ends.length * 3);
  return circuits.length;
}
