// IPAM catalogs' own rules: aggregates never overlap, IP ranges are one family and mask, ranges marked utilised
// count in their prefix, VLAN groups hold their VIDs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function made(path: string, body: Record<string, unknown>): Promise<Record<string, unknown> & { id: string }> {
  const res = await h.as('alice').post(path, body);
  expect(res.statusCode, `${path} ${res.body}`).toBe(201);
  return res.json();
}

describe('IPAM catalogs', () => {
  it('aggregates of a RIR never overlap; a prefix outside every aggregate is allowed', async () => {
    const rir = await made('/api/rirs/', { name: 'RFC 1918', slug: 'rfc1918', is_private: true });
    await made('/api/aggregates/', { prefix: '10.0.0.0/8', rir: rir.id, date_added: '2024-01-02' });
    const inside = await h.as('alice').post('/api/aggregates/', { prefix: '10.20.0.0/16', rir: rir.id });
    expect(inside.statusCode).toBe(400);
    expect(inside.json().prefix[0]).toBe('10.20.0.0/16 overlaps the aggregate 10.0.0.0/8: aggregates may not overlap.');
    await made('/api/aggregates/', { prefix: '172.16.0.0/12', rir: rir.id });
    await made('/api/prefixes/', { prefix: '198.51.100.0/24' });
    // Another tenant holds its own space.
    const bobRir = (await h.as('bob').post('/api/rirs/', { name: 'RFC 1918', slug: 'rfc1918' })).json();
    expect((await h.as('bob').post('/api/aggregates/', { prefix: '10.0.0.0/8', rir: bobRir.id })).statusCode).toBe(201);
  });

  it('an IP range is one family and mask, start before end; its size is derived; marked utilised it fills its prefix', async () => {
    const range = await made('/api/ip-ranges/', { start_address: '10.40.0.10/24', end_address: '10.40.0.19/24' });
    expect(range.size).toBe(10);
    expect((range.status as { slug: string } | null)?.slug).toBe('active');
    for (const [body, message] of [
      [{ start_address: '10.40.0.10/24', end_address: '2001:db8::1/64' }, /one family/],
      [{ start_address: '10.40.0.10/24', end_address: '10.40.0.19/25' }, /same mask length/],
      [{ start_address: '10.40.0.19/24', end_address: '10.40.0.10/24' }, /comes before the start address/],
    ] as const) {
      const res = await h.as('alice').post('/api/ip-ranges/', body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().end_address[0]).toMatch(message);
    }
    const prefix = await made('/api/prefixes/', { prefix: '10.41.0.0/24' });
    await made('/api/ip-addresses/', { address: '10.41.0.5/24' });
    await made('/api/ip-addresses/', { address: '10.41.0.100/24' }); // inside the range below: counted once
    await made('/api/ip-ranges/', { start_address: '10.41.0.100/24', end_address: '10.41.0.149/24', mark_utilized: true });
    expect((await h.as('alice').get(`/api/prefixes/${prefix.id}/`)).json().utilization).toBe(Math.round((51 / 254) * 1000) / 10);
  });

  it('a VLAN group holds its VIDs once each, within its range; a group serves a site or a region', async () => {
    const group = await made('/api/vlan-groups/', { name: 'Fabric', slug: 'fabric', min_vid: 100, max_vid: 199 });
    const users = await made('/api/vlans/', { vid: 110, name: 'users', group: group.id });
    const taken = await h.as('alice').post('/api/vlans/', { vid: 110, name: 'users-2', group: group.id });
    expect(taken.statusCode).toBe(400);
    expect(taken.json().vid[0]).toBe('VID 110 is taken in VLAN group Fabric by VLAN users.');
    const outside = await h.as('alice').post('/api/vlans/', { vid: 300, name: 'far', group: group.id });
    expect(outside.json().vid[0]).toBe('VLAN group Fabric allows VIDs 100–199.');
    // The same VID outside the group, or in another group, is fine.
    await made('/api/vlans/', { vid: 110, name: 'users-elsewhere' });
    const narrowed = await h.as('alice').patch(`/api/vlan-groups/${group.id}/`, { min_vid: 120 });
    expect(narrowed.statusCode).toBe(400);
    expect(narrowed.json().min_vid[0]).toMatch(/VLAN 110 \(users\)/);
    const site = await made('/api/sites/', { name: 'Group Site', slug: 'group-site' });
    const region = await made('/api/regions/', { name: 'Group Region', slug: 'group-region' });
    const both = await h.as('alice').post('/api/vlan-groups/', { name: 'Both', slug: 'both', site: site.id, region: region.id });
    expect(both.json()).toHaveProperty('region');
    expect((await h.as('alice').patch(`/api/vlans/${users.id}/`, { vid: 111 })).statusCode).toBe(200);
  });

  it('roles sort by weight and are set on prefixes and VLANs', async () => {
    await made('/api/ipam-roles/', { name: 'Production', slug: 'production', weight: 100 });
    const lab = await made('/api/ipam-roles/', { name: 'Lab', slug: 'lab', weight: 10 });
    const roles = (await h.as('alice').get('/api/ipam-roles/')).json().results.map((r: { slug: string }) => r.slug);
    expect(roles.indexOf('lab')).toBeLessThan(roles.indexOf('production'));
    const p = await made('/api/prefixes/', { prefix: '10.42.0.0/24', role: lab.id });
    expect((p.role as { id: string }).id).toBe(lab.id);
    expect((await h.as('alice').get('/api/prefixes/?role=lab')).json().results.map((r: { id: string }) => r.id)).toContain(p.id);
  });
});

describe('next free prefixes, range addresses and VIDs', () => {
  it('available-prefixes lists the free space as aligned blocks and carves the first free /26s, then 409', async () => {
    const parent = await made('/api/prefixes/', { prefix: '10.44.0.0/24' });
    await made('/api/prefixes/', { prefix: '10.44.0.64/26' });
    const free = await h.as('alice').get(`/api/prefixes/${parent.id}/available-prefixes/`);
    expect(free.statusCode, free.body).toBe(200);
    expect(free.json().map((r: { prefix: string }) => r.prefix)).toEqual(['10.44.0.0/26', '10.44.0.128/25']);
    const one = await h.as('alice').post(`/api/prefixes/${parent.id}/available-prefixes/`, { prefix_length: 26, description: 'carved' });
    expect(one.statusCode, one.body).toBe(201);
    expect(one.json()).toMatchObject({ prefix: '10.44.0.0/26', description: 'carved', depth: 1 });
    const two = await h.as('alice').post(`/api/prefixes/${parent.id}/available-prefixes/`, [{ prefix_length: 27 }, { prefix_length: 26 }]);
    expect(two.statusCode, two.body).toBe(201);
    expect(two.json().map((r: { prefix: string }) => r.prefix)).toEqual(['10.44.0.128/27', '10.44.0.192/26']);
    const full = await h.as('alice').post(`/api/prefixes/${parent.id}/available-prefixes/`, { prefix_length: 26 });
    expect(full.statusCode).toBe(409);
    expect(full.json().detail).toBe('10.44.0.0/24 has no free /26 left. Nothing was created.');
    expect((await h.as('alice').post(`/api/prefixes/${parent.id}/available-prefixes/`, { prefix_length: 24 })).statusCode).toBe(400);
    expect((await h.as('alice').get(`/api/prefixes/${parent.id}/`)).json().children).toBe(4);
  });

  it('a container in the global table counts the child prefixes of every VRF as taken; other prefixes their own VRF', async () => {
    const vrf = await made('/api/vrfs/', { name: 'carve-vrf' });
    const container = await made('/api/prefixes/', { prefix: '10.146.0.0/24', status: 'container' });
    const plain = await made('/api/prefixes/', { prefix: '10.147.0.0/24' });
    await made('/api/prefixes/', { prefix: '10.146.0.0/25', vrf: vrf.id });
    await made('/api/prefixes/', { prefix: '10.147.0.0/25', vrf: vrf.id });
    const free = async (id: unknown) => (await h.as('alice').get(`/api/prefixes/${id}/available-prefixes/`)).json().map((r: { prefix: string }) => r.prefix);
    expect(await free(container.id)).toEqual(['10.146.0.128/25']);
    expect(await free(plain.id)).toEqual(['10.147.0.0/24']);
  });

  it('an IP range hands out its own free addresses with its mask', async () => {
    const range = await made('/api/ip-ranges/', { start_address: '10.45.0.10/24', end_address: '10.45.0.12/24' });
    await made('/api/ip-addresses/', { address: '10.45.0.11/24' });
    const free = await h.as('alice').get(`/api/ip-ranges/${range.id}/available-ips/`);
    expect(free.json().map((r: { address: string }) => r.address)).toEqual(['10.45.0.10/24', '10.45.0.12/24']);
    const got = await h.as('alice').post(`/api/ip-ranges/${range.id}/available-ips/`, [{}, {}]);
    expect(got.statusCode, got.body).toBe(201);
    const full = await h.as('alice').post(`/api/ip-ranges/${range.id}/available-ips/`, {});
    expect(full.statusCode).toBe(409);
    expect(full.json().detail).toBe('The range 10.45.0.10/24–10.45.0.12/24 has no free address; 1 was asked for. Nothing was created.');
  });

  it('available-vlans lists and takes the first free VIDs of a group', async () => {
    const group = await made('/api/vlan-groups/', { name: 'Tiny', slug: 'tiny', min_vid: 10, max_vid: 12 });
    await made('/api/vlans/', { vid: 10, name: 'ten', group: group.id });
    const free = await h.as('alice').get(`/api/vlan-groups/${group.id}/available-vlans/`);
    expect(free.json().map((r: { vid: number }) => r.vid)).toEqual([11, 12]);
    const got = await h.as('alice').post(`/api/vlan-groups/${group.id}/available-vlans/`, [{ name: 'a' }, { name: 'b' }]);
    expect(got.statusCode, got.body).toBe(201);
    expect(got.json().map((r: { vid: number; name: string }) => `${r.vid} ${r.name}`)).toEqual(['11 a', '12 b']);
    const full = await h.as('alice').post(`/api/vlan-groups/${group.id}/available-vlans/`, { name: 'c' });
    expect(full.statusCode).toBe(409);
    expect(full.json().detail).toBe('VLAN group Tiny has no free VID in 10–12; 1 asked for. Nothing was created.');
    expect((await h.as('alice').post(`/api/vlan-groups/${group.id}/available-vlans/`, { name: 'd', vid: 5 })).statusCode).toBe(400);
  });
});

describe('custom fields on IPAM models', () => {
  it('prefixes, addresses, ranges, VLANs, VRFs and aggregates take custom fields; every list filters by cf_<name>', async () => {
    const types = ['ipam.prefix', 'ipam.ipaddress', 'ipam.iprange', 'ipam.vlan', 'ipam.vrf', 'ipam.aggregate'];
    await made('/api/custom-fields/', { name: 'ticket', type: 'text', object_types: types });
    await made('/api/custom-fields/', { name: 'billable', type: 'boolean', object_types: ['ipam.prefix', 'dcim.device'] });
    const a = await made('/api/prefixes/', { prefix: '10.46.0.0/24', custom_fields: { ticket: 'NET-1', billable: true } });
    await made('/api/prefixes/', { prefix: '10.46.1.0/24', custom_fields: { ticket: 'NET-2' } });
    const vrf = await made('/api/vrfs/', { name: 'cf-vrf', custom_fields: { ticket: 'NET-3' } });
    expect(vrf.custom_fields).toMatchObject({ ticket: 'NET-3' });
    const ids = async (url: string) => ((await h.as('alice').get(url)).json().results as Array<{ id: string }>).map((r) => r.id);
    expect(await ids('/api/prefixes/?cf_ticket=NET-1')).toEqual([a.id]);
    expect(await ids('/api/prefixes/?cf_billable=true')).toEqual([a.id]);
    expect(await ids('/api/vrfs/?cf_ticket=NET-3')).toEqual([vrf.id]);
    expect((await h.as('alice').get('/api/prefixes/?cf_Bad-Name=1')).statusCode).toBe(400);
    const bad = await h.as('alice').post('/api/prefixes/', { prefix: '10.46.2.0/24', custom_fields: { billable: 'yes' } });
    expect(bad.statusCode).toBe(400);
  });
});

describe('NAT', () => {
  it('an outside address names its inside one; the inside one lists its outside addresses', async () => {
    const inside = await made('/api/ip-addresses/', { address: '10.47.0.10/24' });
    const outside = await made('/api/ip-addresses/', { address: '203.0.113.10/32', nat_inside: inside.id });
    expect((outside.nat_inside as { id: string }).id).toBe(inside.id);
    const read = (await h.as('alice').get(`/api/ip-addresses/${inside.id}/`)).json();
    expect(read.nat_outside.map((o: { id: string }) => o.id)).toEqual([outside.id]);
    expect((await h.as('alice').patch(`/api/ip-addresses/${inside.id}/`, { nat_inside: inside.id })).json()).toHaveProperty('nat_inside');
  });
});
