// The prefix hierarchy (depth, children, utilisation) kept by every write, and next-free allocation that holds
// under concurrent callers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { refreshTenantHierarchy } from './hierarchy.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function prefix(body: Record<string, unknown>): Promise<string> {
  const res = await h.as('alice').post('/api/prefixes/', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

async function read(id: string): Promise<{ prefix: string; depth: number; children: number; utilization: number }> {
  const res = await h.as('alice').get(`/api/prefixes/${id}/`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function statusId(slug: string): Promise<string> {
  const res = await h.as('alice').get(`/api/statuses/?slug=${slug}`);
  return res.json().results[0].id as string;
}

async function address(addr: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await h.as('alice').post('/api/ip-addresses/', { address: addr, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

describe('prefix hierarchy', () => {
  it('depth and children follow creates, moves, bulk updates and deletes, per VRF', async () => {
    const top = await prefix({ prefix: '172.16.0.0/12' });
    const mid = await prefix({ prefix: '172.16.0.0/16' });
    const leaf = await prefix({ prefix: '172.16.1.0/24' });
    const vrf = await h.as('alice').post('/api/vrfs/', { name: 'hier-blue' });
    expect(vrf.statusCode, vrf.body).toBe(201);
    const other = await prefix({ prefix: '172.16.2.0/24', vrf: vrf.json().id });
    expect(await read(top)).toMatchObject({ depth: 0, children: 2 });
    expect(await read(mid)).toMatchObject({ depth: 1, children: 1 });
    expect(await read(leaf)).toMatchObject({ depth: 2, children: 0 });
    expect(await read(other)).toMatchObject({ depth: 0, children: 0 });

    // Moving the leaf out of the /16 (PATCH), then back with bulk-update.
    expect((await h.as('alice').patch(`/api/prefixes/${leaf}/`, { prefix: '172.17.1.0/24' })).statusCode).toBe(200);
    expect(await read(mid)).toMatchObject({ children: 0 });
    expect(await read(leaf)).toMatchObject({ depth: 1 });
    expect((await h.as('alice').post('/api/prefixes/bulk-update/', { ids: [leaf], fields: { prefix: '172.16.1.0/24' } })).statusCode).toBe(200);
    expect(await read(mid)).toMatchObject({ children: 1 });
    expect(await read(leaf)).toMatchObject({ depth: 2 });

    // Deleting the middle lifts the leaf one level.
    expect((await h.as('alice').delete(`/api/prefixes/${mid}/`)).statusCode).toBe(204);
    expect(await read(top)).toMatchObject({ children: 1 });
    expect(await read(leaf)).toMatchObject({ depth: 1 });
    // Filters on the stored columns.
    const byDepth = await h.as('alice').get('/api/prefixes/?depth=1&prefix=172.16.1.0/24');
    expect(byDepth.statusCode, byDepth.body).toBe(200);
    expect(byDepth.json().results.map((r: { id: string }) => r.id)).toEqual([leaf]);
  });

  it('a whole tenant recomputed at once (after a bulk load) gets the counts its writes gave, other tenants untouched', async () => {
    const vrf = (await h.as('alice').post('/api/vrfs/', { name: 'hier-whole' })).json().id;
    for (const p of ['10.80.0.0/16', '10.80.0.0/20', '10.80.1.0/24', '10.80.1.0/26', '10.80.2.0/24']) await prefix({ prefix: p });
    for (const p of ['10.80.0.0/16', '10.80.1.0/24']) await prefix({ prefix: p, vrf });
    for (const p of ['2001:db8:80::/48', '2001:db8:80:1::/64', '2001:db8:80:1::/80']) await prefix({ prefix: p });
    const beta = await h.as('bob').post('/api/prefixes/', { prefix: '10.80.0.0/24' });
    expect(beta.statusCode, beta.body).toBe(201);
    const db = h.database.db;
    const counts = async (tenant: string) => (await sql<{ id: string; depth: number; children: number }>`SELECT id, depth, children FROM prefixes
      WHERE tenant_id = ${tenant} ORDER BY id`.execute(db)).rows;
    const byHooks = await counts(h.tenants.a);
    expect(byHooks.some((r) => r.depth >= 3) && byHooks.some((r) => r.children >= 3)).toBe(true);
    await sql`UPDATE prefixes SET depth = 99, children = 99 WHERE tenant_id = ${h.tenants.a}`.execute(db);
    await sql`UPDATE prefixes SET depth = 7, children = 7 WHERE tenant_id = ${h.tenants.b}`.execute(db);
    await refreshTenantHierarchy(db, h.tenants.a);
    expect(await counts(h.tenants.a)).toEqual(byHooks);
    expect((await counts(h.tenants.b)).map((r) => [r.depth, r.children])).toEqual([[7, 7]]);
    await refreshTenantHierarchy(db, h.tenants.b);
    expect((await counts(h.tenants.b)).map((r) => [r.depth, r.children])).toEqual([[0, 0]]);
  });

  it('utilisation: a container counts child prefixes, other prefixes their addresses (NetBox rules)', async () => {
    const container = await prefix({ prefix: '10.50.0.0/16', status: await statusId('container') });
    await prefix({ prefix: '10.50.0.0/24' });
    await prefix({ prefix: '10.50.1.0/24' });
    await prefix({ prefix: '10.50.1.0/25' }); // inside a child: not counted twice
    expect((await read(container)).utilization).toBe(0.8);

    // A container in the global table counts the children of every VRF (NetBox's rule).
    const vrf = (await h.as('alice').post('/api/vrfs/', { name: 'util-vrf' })).json().id;
    const global = await prefix({ prefix: '10.51.0.0/16', status: await statusId('container') });
    await prefix({ prefix: '10.51.0.0/23', vrf });
    expect((await read(global)).utilization).toBe(0.8);
    expect((await read(global)).children).toBe(0);

    const small = await prefix({ prefix: '10.60.0.0/29' });
    for (const a of ['10.60.0.1/29', '10.60.0.2/24', '10.60.0.3/32']) await address(a);
    expect((await read(small)).utilization).toBe(50); // 3 of 6 usable
    const pool = await prefix({ prefix: '10.60.1.0/29', is_pool: true });
    await address('10.60.1.0/29');
    expect((await read(pool)).utilization).toBe(12.5); // 1 of 8
    const p2p = await prefix({ prefix: '10.60.2.0/31' });
    await address('10.60.2.1/31');
    expect((await read(p2p)).utilization).toBe(50);
  });

  it('utilisation is stored and follows address moves and deletes, ranges, status changes and bulk calls', async () => {
    const net = await prefix({ prefix: '10.61.0.0/28' }); // 14 usable
    const a = await address('10.61.0.1/28');
    const b = await address('10.61.0.2/28');
    expect((await read(net)).utilization).toBe(14.3);
    // Moved out of the prefix, then deleted: each write refreshes what it left and what it entered.
    const other = await prefix({ prefix: '10.61.1.0/28' });
    expect((await h.as('alice').patch(`/api/ip-addresses/${a}/`, { address: '10.61.1.5/28' })).statusCode).toBe(200);
    expect([(await read(net)).utilization, (await read(other)).utilization]).toEqual([7.1, 7.1]);
    expect((await h.as('alice').delete(`/api/ip-addresses/${b}/`)).statusCode).toBe(204);
    expect((await read(net)).utilization).toBe(0);
    // A range marked utilised counts whole; unmarking it (bulk update) and deleting it give the space back.
    const range = (await h.as('alice').post('/api/ip-ranges/', { start_address: '10.61.0.1/28', end_address: '10.61.0.7/28', mark_utilized: true })).json().id;
    expect((await read(net)).utilization).toBe(50);
    // An address inside a range marked utilised is counted once, with the range; one outside it on its own.
    const inside = await address('10.61.0.3/28');
    expect((await read(net)).utilization).toBe(50);
    const outside = await address('10.61.0.9/28');
    expect((await read(net)).utilization).toBe(57.1); // 7 + 1 of 14
    for (const id of [inside, outside]) expect((await h.as('alice').delete(`/api/ip-addresses/${id}/`)).statusCode).toBe(204);
    const bulk = await h.as('alice').post('/api/ip-ranges/bulk-update/', { ids: [range], fields: { mark_utilized: false } });
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect((await read(net)).utilization).toBe(0);
    expect((await h.as('alice').post('/api/ip-ranges/bulk-delete/', { ids: [range] })).statusCode).toBe(200);
    // Becoming a container, it counts child prefixes instead of addresses; a child deleted leaves the count.
    const top = await prefix({ prefix: '10.61.0.0/23' });
    expect((await read(top)).utilization).toBe(0.2); // one address (10.61.1.5) of 510
    expect((await h.as('alice').patch(`/api/prefixes/${top}/`, { status: await statusId('container') })).json().utilization).toBe(6.3); // two /28 of 512
    expect((await h.as('alice').delete(`/api/prefixes/${other}/`)).statusCode).toBe(204);
    expect((await read(top)).utilization).toBe(3.1);
    // Moving the child out of the container (bulk update) leaves it empty.
    const moved = await h.as('alice').post('/api/prefixes/bulk-update/', { ids: [net], fields: { prefix: '10.62.0.0/28' } });
    expect(moved.statusCode, moved.body).toBe(200);
    expect((await read(top)).utilization).toBe(0);
  });

  it('concurrent address writes in one prefix are all counted (no lost update, even without a uniqueness lock)', async () => {
    const vrf = (await h.as('alice').post('/api/vrfs/', { name: 'util-loose', enforce_unique: false })).json().id;
    const net = await prefix({ prefix: '10.63.0.0/27', vrf });
    const answers = await Promise.all(Array.from({ length: 20 }, (_x, i) => h.as('alice').post('/api/ip-addresses/', { address: `10.63.0.${i + 1}/27`, vrf })));
    for (const r of answers) expect(r.statusCode, r.body).toBe(201);
    expect((await read(net)).utilization).toBe(66.7); // 20 of 30
  });

  it('a page of prefixes costs the same number of queries for 5 rows as for 50', async () => {
    for (let i = 0; i < 50; i++) await prefix({ prefix: `10.70.${i}.0/24` });
    const count = async (limit: number) => {
      await h.as('alice').get(`/api/prefixes/?prefix__startswith=10.70.&limit=${limit}`);
      const before = h.database.queryCount();
      const res = await h.as('alice').get(`/api/prefixes/?limit=${limit}&ordering=prefix&vrf=null`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().results.every((r: { utilization: unknown }) => typeof r.utilization === 'number')).toBe(true);
      return h.database.queryCount() - before;
    };
    expect(await count(50)).toBe(await count(5));
  });
});

describe('available-ips', () => {
  it('lists the first free addresses with the mask, skipping network, broadcast and used ones', async () => {
    const id = await prefix({ prefix: '192.168.50.0/29' });
    await address('192.168.50.1/29');
    await address('192.168.50.3/32');
    const res = await h.as('alice').get(`/api/prefixes/${id}/available-ips/?limit=10`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().map((r: { address: string }) => r.address)).toEqual(['192.168.50.2/29', '192.168.50.4/29', '192.168.50.5/29', '192.168.50.6/29']);
    expect(res.json()[0]).toMatchObject({ family: 4, vrf: null });
    expect((await h.as('alice').get(`/api/prefixes/${id}/available-ips/?limit=2`)).json()).toHaveLength(2);
    expect((await h.as('alice').get(`/api/prefixes/${id}/available-ips/?limit=0`)).statusCode).toBe(400);
    const v6 = await prefix({ prefix: '2001:db8:50::/64' });
    const six = await h.as('alice').get(`/api/prefixes/${v6}/available-ips/?limit=2`);
    expect(six.json().map((r: { address: string }) => r.address)).toEqual(['2001:db8:50::1/64', '2001:db8:50::2/64']);
  });

  it('allocates one, several (all or none), then answers 409 naming the prefix when full', async () => {
    const id = await prefix({ prefix: '192.168.51.0/29' });
    const one = await h.as('alice').post(`/api/prefixes/${id}/available-ips/`, {});
    expect(one.statusCode, one.body).toBe(201);
    expect(one.json().address).toBe('192.168.51.1/29');
    const two = await h.as('alice').post(`/api/prefixes/${id}/available-ips/`, [{ dns_name: 'a.example.net' }, { dns_name: 'b.example.net' }]);
    expect(two.statusCode, two.body).toBe(201);
    expect(two.json().map((r: { address: string; dns_name: string }) => `${r.address} ${r.dns_name}`)).toEqual(['192.168.51.2/29 a.example.net', '192.168.51.3/29 b.example.net']);
    // A bad item refuses the whole call, naming its index.
    const bad = await h.as('alice').post(`/api/prefixes/${id}/available-ips/`, [{}, { dns_name: 'bad name!' }]);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toHaveProperty(['[1].dns_name']);
    const tooMany = await h.as('alice').post(`/api/prefixes/${id}/available-ips/`, [{}, {}, {}, {}]);
    expect(tooMany.statusCode).toBe(409);
    expect(tooMany.json().detail).toBe('192.168.51.0/29 has only 3 free addresses; 4 were asked for. Nothing was created.');
    expect((await h.as('alice').post(`/api/prefixes/${id}/available-ips/`, [{}, {}, {}])).statusCode).toBe(201);
    const full = await h.as('alice').post(`/api/prefixes/${id}/available-ips/`, {});
    expect(full.statusCode).toBe(409);
    expect(full.json().detail).toMatch(/^192\.168\.51\.0\/29 has no free address/);
    const listed = await h.as('alice').get('/api/ip-addresses/?limit=100&q=192.168.51.');
    expect((await h.as('alice').get(`/api/prefixes/${id}/available-ips/`)).json()).toEqual([]);
    expect(listed.statusCode).toBe(200);
    // Another tenant's prefix reads as missing; a viewer may not allocate.
    expect((await h.as('bob').post(`/api/prefixes/${id}/available-ips/`, {})).statusCode).toBe(404);
    expect((await h.as('viewer').post(`/api/prefixes/${id}/available-ips/`, {})).statusCode).toBe(403);
  });

  it('free-ranges: the runs of free addresses between the used ones, with their sizes (exact for IPv6)', async () => {
    const id = await prefix({ prefix: '192.168.53.0/24' });
    for (const a of ['192.168.53.1/24', '192.168.53.2/24', '192.168.53.40/24', '192.168.53.63/24']) await address(a);
    const res = await h.as('alice').get(`/api/prefixes/${id}/free-ranges/`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([
      { family: 4, start_address: '192.168.53.3/24', end_address: '192.168.53.39/24', size: '37', vrf: null },
      { family: 4, start_address: '192.168.53.41/24', end_address: '192.168.53.62/24', size: '22', vrf: null },
      { family: 4, start_address: '192.168.53.64/24', end_address: '192.168.53.254/24', size: '191', vrf: null },
    ]);
    // The same free space as available-ips, run by run; limit counts runs.
    expect((await h.as('alice').get(`/api/prefixes/${id}/available-ips/?limit=1`)).json()[0].address).toBe('192.168.53.3/24');
    expect((await h.as('alice').get(`/api/prefixes/${id}/free-ranges/?limit=1`)).json()).toHaveLength(1);
    // A /64 with one address: a run of 2^64 - 2 addresses, counted exactly.
    const v6 = await prefix({ prefix: '2001:db8:53::/64' });
    await address('2001:db8:53::1/64');
    expect((await h.as('alice').get(`/api/prefixes/${v6}/free-ranges/`)).json()).toEqual([
      { family: 6, start_address: '2001:db8:53::2/64', end_address: '2001:db8:53:0:ffff:ffff:ffff:ffff/64', size: String(2n ** 64n - 2n), vrf: null },
    ]);
    // An IP range's runs, both ends included.
    const range = (await h.as('alice').post('/api/ip-ranges/', { start_address: '192.168.53.100/24', end_address: '192.168.53.110/24' })).json();
    expect((await h.as('alice').get(`/api/ip-ranges/${range.id}/free-ranges/`)).json()).toMatchObject([{ start_address: '192.168.53.100/24', end_address: '192.168.53.110/24', size: '11' }]);
    // Bad input names the parameter; another tenant's prefix reads as missing.
    for (const limit of ['0', '1001', 'ten']) {
      const bad = await h.as('alice').get(`/api/prefixes/${id}/free-ranges/?limit=${limit}`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toHaveProperty('limit');
    }
    expect((await h.as('bob').get(`/api/prefixes/${id}/free-ranges/`)).statusCode).toBe(404);
  });

  it('30 simultaneous allocations on one prefix get 30 distinct addresses', async () => {
    const id = await prefix({ prefix: '192.168.52.0/24' });
    const answers = await Promise.all(Array.from({ length: 30 }, () => h.as('alice').post(`/api/prefixes/${id}/available-ips/`, {})));
    for (const a of answers) expect(a.statusCode, a.body).toBe(201);
    const got = answers.map((a) => a.json().address as string);
    expect(new Set(got).size).toBe(30);
    expect((await read(id)).utilization).toBe(Math.round((30 / 254) * 1000) / 10);
  });
});

describe('finding prefixes and addresses by address', () => {
  it('q and filters understand addresses and networks (NetBox names)', async () => {
    const outer = await prefix({ prefix: '10.90.0.0/16' });
    const inner = await prefix({ prefix: '10.90.2.0/24' });
    await prefix({ prefix: '10.91.0.0/16' });
    const host = await address('10.90.2.3/24', { dns_name: 'host3.example.net' });
    const other = await address('10.90.2.30/24');
    const ids = async (url: string) => {
      const res = await h.as('alice').get(url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
      return res.json().results.map((r: { id: string }) => r.id) as string[];
    };
    // An address typed into the prefix list: the prefixes holding it, most specific first.
    expect(await ids('/api/prefixes/?q=10.90.2.3')).toEqual([inner, outer]);
    expect(await ids('/api/prefixes/?q=10.90.2.0/24')).toEqual([inner, outer]);
    expect(await ids('/api/prefixes/?q=10.90.')).toEqual(expect.arrayContaining([outer, inner]));
    // Into the address list: itself whatever the mask; a network: what is inside; a partial: what starts so.
    // Type-ahead: the address itself first, then those it is the start of.
    expect(await ids('/api/ip-addresses/?q=10.90.2.3')).toEqual([host, other]);
    expect(await ids('/api/ip-addresses/?q=10.90.2.30')).toEqual([other]);
    expect((await ids('/api/ip-addresses/?q=10.90.2.0/24')).sort()).toEqual([host, other].sort());
    expect((await ids('/api/ip-addresses/?q=10.90.2.')).sort()).toEqual([host, other].sort());
    expect(await ids('/api/ip-addresses/?q=host3')).toEqual([host]);
    expect(await ids('/api/ip-addresses/?address=10.90.2.3')).toEqual([host]);
    expect(await ids('/api/ip-addresses/?address=10.90.2.3/32')).toEqual([]);
    expect((await ids('/api/ip-addresses/?parent=10.90.2.0/24')).sort()).toEqual([host, other].sort());
    expect(await ids('/api/ip-addresses/?family=6&q=10.90.')).toEqual([]);
    expect(await ids('/api/prefixes/?within=10.90.0.0/16')).toEqual([inner]);
    expect((await ids('/api/prefixes/?within_include=10.90.0.0/16')).sort()).toEqual([outer, inner].sort());
    expect(await ids('/api/prefixes/?contains=10.90.2.3&mask_length__gte=20')).toEqual([inner]);
    expect(await ids('/api/prefixes/?mask_length=24&within=10.90.0.0/16')).toEqual([inner]);
    for (const bad of ['/api/prefixes/?within=10.90.0.0', '/api/prefixes/?family=5', '/api/ip-addresses/?parent=nope', '/api/prefixes/?mask_length=200']) {
      const res = await h.as('alice').get(bad);
      expect(res.statusCode, bad).toBe(400);
    }
  });
});

describe('duplicates', () => {
  it('an address or prefix twice in one space is a 400 naming the existing one and its assignment', async () => {
    await address('10.95.0.1/24', { dns_name: 'first.example.net' });
    const again = await h.as('alice').post('/api/ip-addresses/', { address: '10.95.0.1/32' });
    expect(again.statusCode).toBe(400);
    expect(again.json().address[0]).toBe('10.95.0.1/24 already exists in the global table (not assigned): addresses are unique there.');
    const p = await h.as('alice').post('/api/prefixes/', { prefix: '10.95.0.0/24' });
    expect(p.statusCode).toBe(201);
    const p2 = await h.as('alice').post('/api/prefixes/', { prefix: '10.95.0.0/24' });
    expect(p2.statusCode).toBe(400);
    expect(p2.json().prefix[0]).toMatch(/^10\.95\.0\.0\/24 already exists in the global table/);

    // A VRF that allows duplicates takes them; one that enforces refuses them; another tenant is another space.
    const loose = (await h.as('alice').post('/api/vrfs/', { name: 'dup-loose', enforce_unique: false })).json().id;
    const strict = (await h.as('alice').post('/api/vrfs/', { name: 'dup-strict' })).json().id;
    for (let i = 0; i < 2; i++) expect((await h.as('alice').post('/api/ip-addresses/', { address: '10.95.1.1/24', vrf: loose })).statusCode).toBe(201);
    expect((await h.as('alice').post('/api/ip-addresses/', { address: '10.95.1.1/24', vrf: strict })).statusCode).toBe(201);
    const dup = await h.as('alice').post('/api/ip-addresses/', { address: '10.95.1.1/24', vrf: strict });
    expect(dup.json().address[0]).toMatch(/in VRF dup-strict/);
    expect((await h.as('bob').post('/api/ip-addresses/', { address: '10.95.0.1/24' })).statusCode).toBe(201);

    // Bulk: two rows moved onto one address are refused, nothing changes.
    const a = await address('10.95.2.1/24');
    const b = await address('10.95.2.2/24');
    const bulk = await h.as('alice').post('/api/ip-addresses/bulk-update/', { ids: [a, b], fields: { address: '10.95.2.9/24' } });
    expect(bulk.statusCode).toBe(400);
    expect((await h.as('alice').get(`/api/ip-addresses/${a}/`)).json().address).toBe('10.95.2.1/24');
    const moved = await h.as('alice').patch(`/api/ip-addresses/${b}/`, { address: '10.95.2.1/28' });
    expect(moved.statusCode).toBe(400);
  });

  it('ten addresses moved onto one address at the same time: one moves, nine are refused', async () => {
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push(await address(`10.96.1.${i + 1}/24`));
    const answers = await Promise.all(ids.map((id) => h.as('alice').patch(`/api/ip-addresses/${id}/`, { address: '10.96.0.1/24' })));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, ...Array(9).fill(400)]);
  });
});
