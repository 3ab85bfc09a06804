// The NetBox dialect in-process: shapes, filters, writes (single, list forms), errors, the special routes, and the
// tenant fence, over Cairn's own reads and writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';

let h: Harness;
type Obj = Record<string, unknown>;
let site: Obj;
let device: Obj;

async function ok(res: { statusCode: number; body: string; json(): unknown }, status = 200): Promise<Obj> {
  expect(res.statusCode, res.body).toBe(status);
  return res.json() as Obj;
}

beforeAll(async () => {
  h = await startHarness();
  const alice = h.as('alice');
  site = await ok(await alice.post('/api/dcim/sites/', { name: 'Amsterdam 1', slug: 'ams1', status: 'active' }), 201);
  const role = await ok(await alice.post('/api/dcim/device-roles/', { name: 'Leaf', slug: 'leaf', color: '00ff00' }), 201);
  const maker = await ok(await alice.post('/api/dcim/manufacturers/', { name: 'Arista', slug: 'arista' }), 201);
  await ok(await alice.post('/api/dcim/device-types/', { manufacturer: maker.id, model: '7050', slug: '7050' }), 201);
  await ok(await alice.post('/api/dcim/platforms/', { name: 'EOS', slug: 'eos' }), 201);
  device = await ok(
    await alice.post('/api/dcim/devices/', { name: 'ams1-leaf1', device_type: { slug: '7050' }, role: role.id, platform: { name: 'EOS' }, site: { slug: 'ams1' }, status: 'active' }),
    201,
  );
});
afterAll(async () => {
  await h?.close();
});

const list = async (who: 'alice' | 'bob', url: string) => (await ok(await h.as(who).get(url))) as { count: number; next: string | null; previous: string | null; results: Obj[] };
const names = async (url: string) => (await list('alice', url)).results.map((r) => r.name);

describe('NetBox dialect: shapes', () => {
  it('answers NetBox shapes: integer ids, urls, status and choices as {value, label}, brief nested objects', async () => {
    expect(device.id).toEqual(expect.any(Number));
    expect(device.url).toBe(`http://localhost/api/dcim/devices/${device.id}/`);
    expect(device.display_url).toEqual(expect.stringContaining('/objects/dcim.device/'));
    expect(device.status).toEqual({ value: 'active', label: 'Active' });
    expect(device.site).toMatchObject({ id: site.id, url: `http://localhost/api/dcim/sites/${site.id}/`, name: 'Amsterdam 1', slug: 'ams1' });
    expect(device.role).toMatchObject({ name: 'Leaf', slug: 'leaf' });
    expect(device.platform).toMatchObject({ slug: 'eos' });
    expect(device).toMatchObject({ display: 'ams1-leaf1', tags: [], custom_fields: {}, face: null });
    expect(device.created).toEqual(expect.any(String));
    expect(device).not.toHaveProperty('numid');
    expect(await ok(await h.as('alice').get(`/api/dcim/sites/${site.id}/`))).toMatchObject({ device_count: 1, prefix_count: 0 });
  });

  it('nested objects carry their description where the model has one, tags included, at no extra query', async () => {
    const alice = h.as('alice');
    await ok(await alice.post('/api/extras/tags/', { name: 'Support', slug: 'support', description: 'gold support' }), 201);
    await ok(await alice.patch(`/api/dcim/sites/${site.id}/`, { description: 'first site' }));
    const tagged = await ok(await alice.patch(`/api/dcim/devices/${device.id}/`, { tags: [{ slug: 'support' }] }));
    expect(tagged.site).toMatchObject({ id: site.id, slug: 'ams1', description: 'first site' });
    expect(tagged.role).toMatchObject({ slug: 'leaf', description: '' });
    expect(tagged.tags).toEqual([expect.objectContaining({ slug: 'support', color: expect.any(String), description: 'gold support' })]);
    const listed = (await list('alice', '/api/dcim/devices/')).results[0]!;
    expect(listed.platform).toMatchObject({ slug: 'eos', description: '' });
    // Cairn's device types have no description: none is made up.
    expect(listed.device_type).toMatchObject({ model: '7050' });
    expect(listed.device_type).not.toHaveProperty('description');
    // Cairn's own API keeps its briefs as they were.
    expect((await ok(await alice.get('/api/devices/'))).results).toEqual([expect.objectContaining({ site: expect.not.objectContaining({ description: expect.anything() }) })]);
    const queries = async (url: string) => {
      const before = h.database.queryCount();
      await ok(await alice.get(url));
      return h.database.queryCount() - before;
    };
    expect(await queries('/api/dcim/devices/?limit=50')).toBe(await queries('/api/devices/?limit=50'));
    await ok(await alice.patch(`/api/dcim/devices/${device.id}/`, { tags: [] }));
  });

  it('reads one object by its number, with the API-Version header; another tenant\'s number is not found', async () => {
    const res = await h.as('alice').get(`/api/dcim/devices/${device.id}/`);
    expect(res.headers['api-version']).toBe('4.2');
    expect((await ok(res)).name).toBe('ams1-leaf1');
    expect((await h.as('bob').get(`/api/dcim/devices/${device.id}/`)).statusCode).toBe(404);
    expect((await list('bob', '/api/dcim/devices/')).count).toBe(0);
    expect((await h.as('alice').get('/api/dcim/devices/abc/')).statusCode).toBe(404);
  });

  it('costs the same queries as Cairn\'s own page (related objects carry their numbers)', async () => {
    const queries = async (url: string) => {
      const before = h.database.queryCount();
      await ok(await h.as('alice').get(url));
      return h.database.queryCount() - before;
    };
    await queries('/api/devices/?limit=1');
    expect(await queries('/api/dcim/devices/?limit=50')).toBe(await queries('/api/devices/?limit=50'));
    expect(await queries(`/api/dcim/devices/${device.id}/`)).toBeLessThanOrEqual((await queries('/api/devices/?limit=1')) + 1);
  });

  it('writes a whole list page as the same bytes as its objects would be, primary address and tags included, at no extra query', async () => {
    // A whole page is written as text straight from Cairn's objects (page-bytes.ts); a narrowed one (here by an
    // omit that names nothing) goes through NetBox objects and the route's serializer. Both must give one answer.
    const alice = h.as('alice');
    const iface = await ok(await alice.post('/api/dcim/interfaces/', { device: device.id, name: 'eth9', type: '1000base-t' }), 201);
    const ip = await ok(await alice.post('/api/ipam/ip-addresses/', { address: '192.0.2.9/24', assigned_object_type: 'dcim.interface', assigned_object_id: iface.id, status: 'active', description: 'loopback "9" \u203a' }), 201);
    await ok(await alice.post('/api/extras/tags/', { name: 'Page', slug: 'page', description: 'tagged' }), 201);
    await ok(await alice.patch(`/api/dcim/devices/${device.id}/`, { primary_ip4: ip.id, tags: [{ slug: 'page' }], custom_fields: {} }));
    for (const path of ['/api/dcim/devices/', '/api/dcim/interfaces/', '/api/ipam/ip-addresses/', '/api/dcim/sites/', '/api/extras/tags/', '/api/dcim/device-types/']) {
      const whole = await alice.get(path);
      const narrowed = await alice.get(`${path}?omit=no_such_field`);
      expect(whole.statusCode, path).toBe(200);
      expect(whole.headers['content-type'], path).toBe(narrowed.headers['content-type']);
      expect(whole.body, path).toBe(narrowed.body);
      expect(whole.json(), path).toEqual(JSON.parse(narrowed.body));
    }
    const listed = (await list('alice', '/api/dcim/devices/')).results[0]!;
    // The computed primary_ip has no number of its own: it takes primary_ip4's (and its description), not a lookup.
    expect(listed.primary_ip).toMatchObject({ id: ip.id, address: '192.0.2.9/24', description: 'loopback "9" \u203a' });
    expect(listed.primary_ip4).toEqual(listed.primary_ip);
    expect(listed.tags).toEqual([expect.objectContaining({ slug: 'page', description: 'tagged' })]);
    const queries = async (url: string) => {
      const before = h.database.queryCount();
      await ok(await alice.get(url));
      return h.database.queryCount() - before;
    };
    expect(await queries('/api/dcim/devices/')).toBe(await queries('/api/devices/'));
    await ok(await alice.patch(`/api/dcim/devices/${device.id}/`, { primary_ip4: null, tags: [] }));
    expect((await alice.delete(`/api/ipam/ip-addresses/${ip.id}/`)).statusCode).toBe(204);
    expect((await alice.delete(`/api/dcim/interfaces/${iface.id}/`)).statusCode).toBe(204);
  });

  it('narrows answers: brief, fields, omit, exclude=config_context', async () => {
    const brief = (await list('alice', '/api/dcim/devices/?brief=1')).results[0]!;
    expect(Object.keys(brief).sort()).toEqual(['description', 'display', 'id', 'name', 'url'].filter((k) => k in brief).sort());
    expect(brief).toMatchObject({ id: device.id, name: 'ams1-leaf1' });
    expect((await list('alice', '/api/dcim/devices/?fields=id,name')).results[0]).toEqual({ id: device.id, name: 'ams1-leaf1' });
    const omitted = (await list('alice', '/api/dcim/devices/?omit=site,role&exclude=config_context')).results[0]!;
    expect(omitted).not.toHaveProperty('site');
    expect(omitted).toHaveProperty('platform');
  });
});

describe('NetBox dialect: queries', () => {
  beforeAll(async () => {
    const alice = h.as('alice');
    const fra = await ok(await alice.post('/api/dcim/sites/', { name: 'Frankfurt 1', slug: 'fra1', status: 'planned' }), 201);
    await ok(await alice.post('/api/extras/tags/', { name: 'Gold', slug: 'gold' }), 201);
    const body = (name: string, siteId: unknown) => ({ name, device_type: { slug: '7050' }, role: { slug: 'leaf' }, site: siteId, tags: name === 'fra1-leaf2' ? [{ slug: 'gold' }] : [] });
    await ok(await alice.post('/api/dcim/devices/', [body('fra1-leaf1', fra.id), body('fra1-leaf2', fra.id), body('fra1-leaf3', fra.id)]), 201);
  });

  it('filters by slug, by number, by several numbers, with lookups, by tag; orders; pages with absolute links', async () => {
    const fra = (await list('alice', '/api/dcim/sites/?slug=fra1')).results[0]!;
    expect(await names('/api/dcim/devices/?site=fra1')).toEqual(['fra1-leaf1', 'fra1-leaf2', 'fra1-leaf3']);
    expect(await names(`/api/dcim/devices/?site_id=${String(fra.id)}`)).toEqual(['fra1-leaf1', 'fra1-leaf2', 'fra1-leaf3']);
    expect(await names(`/api/dcim/devices/?site_id=${String(fra.id)}&site_id=${String(site.id)}&ordering=-name`)).toEqual(['fra1-leaf3', 'fra1-leaf2', 'fra1-leaf1', 'ams1-leaf1']);
    const all = (await list('alice', '/api/dcim/devices/?ordering=name')).results;
    expect(await names(`/api/dcim/devices/?id=${String(all[0]!.id)}&id=${String(all[2]!.id)}`)).toEqual([all[0]!.name, all[2]!.name]);
    expect(await names('/api/dcim/devices/?name__ic=LEAF2')).toEqual(['fra1-leaf2']);
    expect(await names('/api/dcim/devices/?tag=gold')).toEqual(['fra1-leaf2']);
    expect(await names('/api/dcim/devices/?role=leaf&status=active&q=ams')).toEqual(['ams1-leaf1']);
    expect(await names('/api/dcim/sites/?status=planned')).toEqual(['Frankfurt 1']);
    // Filters NetBox has and Cairn does not are ignored, as NetBox ignores filters it does not know.
    expect((await list('alice', '/api/dcim/devices/?has_console_ports=true')).count).toBe(4);
    const page = await list('alice', '/api/dcim/devices/?limit=2&ordering=name');
    expect(page.count).toBe(4);
    expect(page.next).toBe('http://localhost/api/dcim/devices/?limit=2&ordering=name&offset=2');
    const second = await list('alice', '/api/dcim/devices/?limit=2&ordering=name&offset=2');
    expect(second.results.map((r) => r.name)).toEqual(['fra1-leaf2', 'fra1-leaf3']);
    expect(second.previous).toEqual(expect.stringMatching(/^http:\/\/localhost\/api\/dcim\/devices\/\?/));
    expect((await list('alice', '/api/dcim/devices/?limit=0')).results).toHaveLength(4);
  });

  it('answers a number that names nothing as NetBox does', async () => {
    const res = await h.as('alice').get('/api/dcim/devices/?site_id=9999');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ site_id: ['Select a valid choice. 9999 is not one of the available choices.'] });
  });
});

describe('NetBox dialect: writes', () => {
  it('creates and updates with related objects by number or attributes and choices by value; errors name NetBox\'s fields', async () => {
    const alice = h.as('alice');
    const group = await ok(await alice.post('/api/tenancy/tenant-groups/', { name: 'Customers', slug: 'customers' }), 201);
    const tenant = await ok(await alice.post('/api/tenancy/tenants/', { name: 'Acme', slug: 'acme', group: group.id }), 201);
    expect(tenant).toMatchObject({ name: 'Acme', group: { id: group.id, slug: 'customers' } });
    // Cairn's own API sees the same object (an owner).
    expect((await ok(await alice.get('/api/owners/?slug=acme'))).count).toBe(1);

    const patched = await ok(await alice.patch(`/api/dcim/devices/${device.id}/`, { serial: 'SN1', status: { value: 'offline', label: 'Offline' } }));
    expect(patched).toMatchObject({ serial: 'SN1', status: { value: 'offline', label: 'Offline' } });
    const missing = await alice.patch(`/api/dcim/devices/${device.id}/`, { site: 9999 });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ site: ['Related object not found using the provided numeric ID: 9999'] });
    const badChoice = await alice.patch(`/api/dcim/devices/${device.id}/`, { face: 'sideways' });
    expect(badChoice.statusCode).toBe(400);
    expect(Object.keys(badChoice.json())).toEqual(['face']);
    expect((await alice.post('/api/dcim/devices/', { device_type: { slug: '7050' } })).json()).toHaveProperty('role');
    // Changes are Cairn's: logged with the request's user.
    const changes = await ok(await alice.get(`/api/changes/?object_type=dcim.device&object_id=${String(((await ok(await alice.get('/api/devices/?name=ams1-leaf1'))).results as Obj[])[0]!.id)}`));
    expect((changes.count as number) >= 2).toBe(true);
  });

  it('names object types as NetBox does in fields that hold them (a custom field for sites is dcim.site)', async () => {
    const alice = h.as('alice');
    const cf = await ok(await alice.post('/api/extras/custom-fields/', { name: 'site_code', type: 'text', object_types: ['dcim.site', 'dcim.device'] }), 201);
    expect(cf.object_types).toEqual(['dcim.site', 'dcim.device']);
    const own = await ok(await alice.get('/api/custom-fields/?name=site_code'));
    expect((own.results as Obj[])[0]!.object_types).toEqual(['organization.site', 'dcim.device']);
    const patched = await ok(await alice.patch(`/api/dcim/sites/${site.id}/`, { custom_fields: { site_code: 'AMS' } }));
    expect(patched.custom_fields).toMatchObject({ site_code: 'AMS' });
    expect(await names('/api/dcim/sites/?cf_site_code=AMS')).toEqual(['Amsterdam 1']);
  });

  it('assigns an address to an interface by NetBox\'s generic pair, and reads it back', async () => {
    const alice = h.as('alice');
    const iface = await ok(await alice.post('/api/dcim/interfaces/', { device: device.id, name: 'eth0', type: '1000base-t' }), 201);
    expect(iface).toMatchObject({ type: { value: '1000base-t' }, device: { id: device.id, name: 'ams1-leaf1' } });
    const ip = await ok(await alice.post('/api/ipam/ip-addresses/', { address: '192.0.2.1/24', assigned_object_type: 'dcim.interface', assigned_object_id: iface.id, status: 'active', role: 'loopback' }), 201);
    expect(ip).toMatchObject({ assigned_object_type: 'dcim.interface', assigned_object_id: iface.id, assigned_object: { id: iface.id, name: 'eth0' }, role: { value: 'loopback', label: 'Loopback' } });
    expect(ip).not.toHaveProperty('assigned_interface');
    expect(ip.family).toEqual({ value: 4, label: 'IPv4' });
    const primary = await ok(await alice.patch(`/api/dcim/devices/${device.id}/`, { primary_ip4: ip.id }));
    expect(primary.primary_ip4).toMatchObject({ id: ip.id, address: '192.0.2.1/24' });
    expect(primary.primary_ip).toMatchObject({ id: ip.id });
    expect((await ok(await alice.get(`/api/dcim/interfaces/${iface.id}/`))).count_ipaddresses).toBe(1);
    expect(((await ok(await alice.get(`/api/ipam/ip-addresses/?device_id=${String(device.id)}`))).results as Obj[]).map((a) => a.address)).toEqual(['192.0.2.1/24']);
    await ok(await alice.patch(`/api/dcim/devices/${device.id}/`, { primary_ip4: null }));
    const unassigned = await ok(await alice.patch(`/api/ipam/ip-addresses/${ip.id}/`, { assigned_object_type: null, assigned_object_id: null }));
    expect(unassigned).toMatchObject({ assigned_object: null, assigned_object_type: null });
    const wrong = await alice.patch(`/api/ipam/ip-addresses/${ip.id}/`, { assigned_object_type: 'dcim.frontport', assigned_object_id: 1 });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toHaveProperty('assigned_object_type');
  });

  it('cables two interfaces by NetBox\'s terminations and traces the path', async () => {
    const alice = h.as('alice');
    const other = await ok(await alice.post('/api/dcim/devices/', { name: 'ams1-leaf2', device_type: { slug: '7050' }, role: { slug: 'leaf' }, site: site.id }), 201);
    const a = await ok(await alice.post('/api/dcim/interfaces/', { device: device.id, name: 'eth9', type: '10gbase-x-sfpp' }), 201);
    const b = await ok(await alice.post('/api/dcim/interfaces/', { device: other.id, name: 'eth9', type: '10gbase-x-sfpp' }), 201);
    const cable = await ok(
      await alice.post('/api/dcim/cables/', { a_terminations: [{ object_type: 'dcim.interface', object_id: a.id }], b_terminations: [{ object_type: 'dcim.interface', object_id: b.id }], status: 'connected' }),
      201,
    );
    expect(cable.a_terminations).toEqual([expect.objectContaining({ object_type: 'dcim.interface', object_id: a.id, object: expect.objectContaining({ id: a.id }) })]);
    const trace = (await ok(await alice.get(`/api/dcim/interfaces/${a.id}/trace/`))) as unknown as Obj[][];
    expect(trace).toHaveLength(1);
    const [near, through, far] = trace[0] as [Obj[], Obj, Obj[]];
    expect(near[0]).toMatchObject({ id: a.id, url: `http://localhost/api/dcim/interfaces/${a.id}/`, device: { id: device.id } });
    expect(through).toMatchObject({ id: cable.id });
    expect(far[0]).toMatchObject({ id: b.id, name: 'eth9', device: { id: other.id } });
    expect((await ok(await alice.get(`/api/dcim/interfaces/${a.id}/`))).link_peer).toMatchObject({ id: b.id });
  });

  it('updates and deletes lists in NetBox\'s bulk form, all or none', async () => {
    const alice = h.as('alice');
    const fra = (await list('alice', '/api/dcim/devices/?site=fra1&ordering=name')).results;
    const updated = (await ok(await alice.patch('/api/dcim/devices/', fra.map((d) => ({ id: d.id, serial: `S-${String(d.name)}` }))))) as unknown as Obj[];
    expect(updated.map((d) => d.serial)).toEqual(['S-fra1-leaf1', 'S-fra1-leaf2', 'S-fra1-leaf3']);
    const refused = await alice.delete('/api/dcim/devices/', [{ id: fra[0]!.id }, { id: 9999 }]);
    expect(refused.statusCode).toBe(400);
    expect((await list('alice', '/api/dcim/devices/?site=fra1')).count).toBe(3);
    // Another tenant's caller: the numbers name nothing in its fence.
    expect((await h.as('bob').delete('/api/dcim/devices/', [{ id: fra[0]!.id }])).statusCode).toBe(400);
    expect((await alice.delete('/api/dcim/devices/', fra.map((d) => ({ id: d.id })))).statusCode).toBe(204);
    expect((await list('alice', '/api/dcim/devices/?site=fra1')).count).toBe(0);
  });

  it('a bulk PUT is a PUT of each object: the required fields must be sent, and the rest keep their values', async () => {
    const alice = h.as('alice');
    const made = (await ok(await alice.post('/api/dcim/sites/', [{ name: 'Put 1', slug: 'put1', description: 'kept' }, { name: 'Put 2', slug: 'put2' }]), 201)) as unknown as Obj[];
    // As PATCH would take it, PUT does not: NetBox's bulk PUT validates each object with partial=False.
    const partial = await alice.put('/api/dcim/sites/', made.map((s) => ({ id: s.id, description: 'changed' })));
    expect(partial.statusCode).toBe(400);
    // NetBox, too, stops at the first object that fails (its serializers run one after the other).
    expect(partial.json()).toEqual({ '[0].name': ['This field is required.'], '[0].slug': ['This field is required.'] });
    expect((await ok(await alice.get(`/api/dcim/sites/${String(made[0]!.id)}/`))).description).toBe('kept');
    const put = (await ok(await alice.put('/api/dcim/sites/', made.map((s, i) => ({ id: s.id, name: `Put ${i + 1}b`, slug: s.slug, status: 'planned' }))))) as unknown as Obj[];
    expect(put.map((s) => [s.name, (s.status as Obj).value, s.description])).toEqual([['Put 1b', 'planned', 'kept'], ['Put 2b', 'planned', '']]);
    expect((await alice.patch('/api/dcim/sites/', made.map((s) => ({ id: s.id, description: 'patched' })))).statusCode).toBe(200);
    // Custom field values a PUT does not name are kept, as NetBox keeps them (its custom field data starts from the
    // stored values); Cairn's own PUT replaces them all.
    for (const name of ['put_floor', 'put_ref']) await ok(await alice.post('/api/extras/custom-fields/', { name, type: 'text', object_types: ['dcim.site'] }), 201);
    await ok(await alice.patch(`/api/dcim/sites/${String(made[0]!.id)}/`, { custom_fields: { put_floor: '1', put_ref: 'R-1' } }));
    const one = await ok(await alice.put(`/api/dcim/sites/${String(made[0]!.id)}/`, { name: 'Put 1b', slug: 'put1', custom_fields: { put_floor: '2' } }));
    expect(one.custom_fields).toMatchObject({ put_floor: '2', put_ref: 'R-1' });
    const bulk = (await ok(await alice.put('/api/dcim/sites/', [{ id: made[0]!.id, name: 'Put 1b', slug: 'put1', custom_fields: { put_ref: null } }]))) as unknown as Obj[];
    expect(bulk[0]!.custom_fields).toMatchObject({ put_floor: '2' });
    expect((bulk[0]!.custom_fields as Obj).put_ref ?? null).toBeNull();
    expect((await alice.delete('/api/dcim/sites/', made.map((s) => ({ id: s.id })))).statusCode).toBe(204);
  });

  it('keeps the fence and permissions: another tenant\'s numbers name nothing, a viewer cannot write', async () => {
    const bob = h.as('bob');
    const res = await bob.post('/api/dcim/devices/', { name: 'x', device_type: 1, role: 1, site: site.id });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ site: [expect.stringContaining('numeric ID')] });
    expect((await h.as('viewer').post('/api/dcim/sites/', { name: 'V', slug: 'v' })).statusCode).toBe(403);
    expect((await h.as('aliceRO').patch(`/api/dcim/devices/${device.id}/`, { serial: 'x' })).statusCode).toBe(403);
    expect((await h.as('anonymous').get('/api/dcim/devices/')).statusCode).toBe(401);
  });
});

describe('NetBox dialect: special routes', () => {
  it('answers the API root without credentials, with the version; sends browsers to the reference', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/', headers: { 'content-type': 'application/json;' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['api-version']).toBe('4.2');
    expect(res.json()).toMatchObject({ dcim: 'http://localhost/api/dcim/', ipam: 'http://localhost/api/ipam/' });
    const browser = await h.app.inject({ method: 'GET', url: '/api/', headers: { accept: 'text/html,*/*' } });
    expect(browser.headers.location).toBe('/api/docs/');
  });

  it('takes NetBox 4.5\'s Bearer nbt_<key id>.<secret> tokens, the key id being the prefix Cairn shows', async () => {
    const key = h.tokens.alice;
    const bearer = (header: string) => h.app.inject({ method: 'GET', url: '/api/dcim/sites/', headers: { authorization: header } });
    expect((await bearer(`Bearer nbt_${key.slice(0, 8)}.${key.slice(8)}`)).statusCode).toBe(200);
    expect((await bearer(`Bearer ${key}`)).statusCode).toBe(200);
    expect((await bearer(`Bearer nbt_${key.slice(0, 8)}.wrong`)).statusCode).toBe(401);
  });

  it('/api/status/ answers signed-in callers NetBox\'s status', async () => {
    expect(await ok(await h.as('alice').get('/api/status/'))).toMatchObject({ 'netbox-version': expect.stringMatching(/^4\.2\./), plugins: {} });
    expect((await h.as('anonymous').get('/api/status/')).statusCode).toBe(401);
  });

  it('OPTIONS on a list names the POST fields with their choices, statuses included', async () => {
    const res = await h.app.inject({ method: 'OPTIONS', url: '/api/dcim/devices/', headers: { authorization: `Token ${h.tokens.alice}` } });
    const meta = await ok(res);
    const post = (meta.actions as { POST: Record<string, { choices?: Array<{ value: string; display_name: string }> }> }).POST;
    expect(post.face!.choices).toEqual([{ value: 'front', display_name: 'Front' }, { value: 'rear', display_name: 'Rear' }]);
    expect(post.status!.choices!.map((c) => c.value)).toEqual(expect.arrayContaining(['active', 'planned', 'offline']));
    expect((await h.app.inject({ method: 'OPTIONS', url: '/api/dcim/devices/', headers: { authorization: `Token ${h.tokens.nobody}` } })).statusCode).toBe(403);
  });

  it('available-ips lists and allocates through Cairn\'s allocation', async () => {
    const alice = h.as('alice');
    const prefix = await ok(await alice.post('/api/ipam/prefixes/', { prefix: '10.1.0.0/30', status: 'active' }), 201);
    const free = (await ok(await alice.get(`/api/ipam/prefixes/${prefix.id}/available-ips/`))) as unknown as Obj[];
    expect(free.map((f) => f.address)).toEqual(['10.1.0.1/30', '10.1.0.2/30']);
    const made = (await ok(await alice.post(`/api/ipam/prefixes/${prefix.id}/available-ips/`, [{ description: 'a' }, { description: 'b' }]), 201)) as unknown as Obj[];
    expect(made.map((m) => [m.address, m.description])).toEqual([['10.1.0.1/30', 'a'], ['10.1.0.2/30', 'b']]);
    expect(made[0]!.id).toEqual(expect.any(Number));
    expect((await alice.post(`/api/ipam/prefixes/${prefix.id}/available-ips/`, {})).statusCode).toBe(409);
    expect((await h.as('bob').get(`/api/ipam/prefixes/${prefix.id}/available-ips/`)).statusCode).toBe(404);
  });

  it('available-prefixes and available-vlans list and carve through Cairn\'s own', async () => {
    const alice = h.as('alice');
    const parent = await ok(await alice.post('/api/ipam/prefixes/', { prefix: '10.20.0.0/24', status: 'container' }), 201);
    const free = (await ok(await alice.get(`/api/ipam/prefixes/${parent.id}/available-prefixes/`))) as unknown as Obj[];
    expect(free).toEqual([{ family: 4, prefix: '10.20.0.0/24', vrf: null }]);
    const carved = (await ok(await alice.post(`/api/ipam/prefixes/${parent.id}/available-prefixes/`, { prefix_length: 26, description: 'servers' }), 201)) as Obj;
    expect(carved).toMatchObject({ prefix: '10.20.0.0/26', description: 'servers', id: expect.any(Number) });
    const group = await ok(await alice.post('/api/ipam/vlan-groups/', { name: 'Campus', slug: 'campus', min_vid: 100, max_vid: 101 }), 201);
    const vids = (await ok(await alice.get(`/api/ipam/vlan-groups/${group.id}/available-vlans/`))) as unknown as Obj[];
    expect(vids).toEqual([{ vid: 100, group: expect.objectContaining({ id: group.id, slug: 'campus' }) }, { vid: 101, group: expect.objectContaining({ id: group.id }) }]);
    const vlans = (await ok(await alice.post(`/api/ipam/vlan-groups/${group.id}/available-vlans/`, [{ name: 'users' }, { name: 'voice' }]), 201)) as unknown as Obj[];
    expect(vlans.map((v) => [v.vid, v.name])).toEqual([[100, 'users'], [101, 'voice']]);
    expect((await alice.post(`/api/ipam/vlan-groups/${group.id}/available-vlans/`, { name: 'more' })).statusCode).toBe(409);
  });

  it('available-asns lists and allocates an ASN range\'s free numbers through Cairn\'s own', async () => {
    const alice = h.as('alice');
    const rir = await ok(await alice.post('/api/ipam/rirs/', { name: 'Private', slug: 'private-nb', is_private: true }), 201);
    const range = await ok(await alice.post('/api/ipam/asn-ranges/', { name: 'Fabric', slug: 'fabric-nb', rir: rir.id, start: 65100, end: 65101 }), 201);
    const free = (await ok(await alice.get(`/api/ipam/asn-ranges/${range.id}/available-asns/`))) as unknown as Obj[];
    expect(free).toEqual([{ asn: 65100, rir: expect.objectContaining({ id: rir.id, slug: 'private-nb' }) }, { asn: 65101, rir: expect.objectContaining({ id: rir.id }) }]);
    const made = (await ok(await alice.post(`/api/ipam/asn-ranges/${range.id}/available-asns/`, [{ description: 'spine' }, { description: 'leaf' }]), 201)) as unknown as Obj[];
    expect(made.map((a) => [a.asn, a.description, typeof a.id])).toEqual([[65100, 'spine', 'number'], [65101, 'leaf', 'number']]);
    expect((await alice.post(`/api/ipam/asn-ranges/${range.id}/available-asns/`, {})).statusCode).toBe(409);
    expect((await h.as('bob').get(`/api/ipam/asn-ranges/${range.id}/available-asns/`)).statusCode).toBe(404);
  });

  it('render-config renders the device\'s bound config template through Cairn\'s engine', async () => {
    const alice = h.as('alice');
    const tpl = await ok(await alice.post('/api/export-templates/', { name: 'leaf-config', object_type: 'dcim.device', template_code: 'hostname {{ device.name }}\n' }), 201);
    await ok(await alice.patch(`/api/dcim/device-roles/${(device.role as Obj).id}/`, { config_template: tpl.numid }));
    await ok(await alice.patch(`/api/dcim/devices/${device.id}/`, { config_template: tpl.numid }));
    // Written and answered under NetBox's name: the device's own template, one of NetBox's config templates.
    expect((await ok(await alice.get(`/api/dcim/devices/${device.id}/`))).config_template).toEqual({ id: tpl.numid, url: `http://localhost/api/extras/config-templates/${String(tpl.numid)}/`, display: 'leaf-config', name: 'leaf-config', description: '' });
    expect((await list('alice', '/api/dcim/devices/?site=ams1')).results.find((d) => d.id === device.id)!.config_template).toMatchObject({ id: tpl.numid });
    const rendered = await ok(await alice.post(`/api/dcim/devices/${device.id}/render-config/`, {}));
    expect(rendered).toMatchObject({ content: 'hostname ams1-leaf1', configtemplate: { id: tpl.numid, name: 'leaf-config', url: `http://localhost/api/extras/config-templates/${tpl.numid}/` } });
    expect((await ok(await alice.get(`/api/dcim/device-roles/${(device.role as Obj).id}/`))).config_template).toMatchObject({ id: tpl.numid, url: `http://localhost/api/extras/config-templates/${tpl.numid}/` });
    const text = await h.as('alice').post(`/api/dcim/devices/${device.id}/render-config/?format=txt`, {});
    expect(text.body).toBe('hostname ams1-leaf1');
  });

  it('serves Cairn\'s device templates as NetBox\'s config templates: list, read, create, change, delete', async () => {
    const alice = h.as('alice');
    // An export template of another kind (sites) is no config template.
    const other = await ok(await alice.post('/api/export-templates/', { name: 'site-list', object_type: 'organization.site', template_code: '{% for s in queryset %}{{ s.name }}{% endfor %}' }), 201);
    const made = await ok(await alice.post('/api/extras/config-templates/', { name: 'spine-config', description: 'spines', template_code: 'hostname {{ device.name }}', environment_params: {} }), 201);
    expect(made).toEqual({
      id: expect.any(Number), url: `http://localhost/api/extras/config-templates/${String(made.id)}/`, display_url: expect.stringContaining('/objects/extras.exporttemplate/'), display: 'spine-config',
      name: 'spine-config', description: 'spines', environment_params: {}, template_code: 'hostname {{ device.name }}', data_source: null, data_path: '', data_file: null, data_synced: null, tags: [],
      created: expect.any(String), last_updated: expect.any(String),
    });
    // It is a device export template of Cairn's, renderable and bindable.
    expect(await ok(await alice.get(`/api/export-templates/?name=spine-config`))).toMatchObject({ count: 1, results: [{ object_type: 'dcim.device', as_attachment: false }] });
    const listed = await list('alice', '/api/extras/config-templates/?ordering=name');
    expect(listed.results.map((t) => t.name)).toEqual(['leaf-config', 'spine-config']);
    expect((await list('alice', '/api/extras/config-templates/?brief=1&name=spine-config')).results).toEqual([{ id: made.id, url: made.url, display: 'spine-config', name: 'spine-config', description: 'spines' }]);
    expect((await h.as('alice').get(`/api/extras/config-templates/${String(other.numid)}/`)).statusCode).toBe(404);
    expect((await h.as('bob').get(`/api/extras/config-templates/${String(made.id)}/`)).statusCode).toBe(404);
    expect((await ok(await alice.patch(`/api/extras/config-templates/${String(made.id)}/`, { template_code: 'hostname {{ device.name | upper }}' }))).template_code).toBe('hostname {{ device.name | upper }}');
    const broken = await alice.patch(`/api/extras/config-templates/${String(made.id)}/`, { template_code: '{% if %}' });
    expect(broken.statusCode).toBe(400);
    expect(Object.keys(broken.json())).toEqual(['template_code']);
    expect((await alice.patch(`/api/extras/config-templates/${String(made.id)}/`, { environment_params: { trim_blocks: true } })).json()).toEqual({ environment_params: [expect.stringContaining('environment parameters')] });
    expect((await alice.put(`/api/extras/config-templates/${String(made.id)}/`, { name: 'spine-config' })).json()).toEqual({ template_code: ['This field is required.'] });
    expect((await h.as('viewer').post('/api/extras/config-templates/', { name: 'v', template_code: 'x' })).statusCode).toBe(403);
    expect((await alice.delete(`/api/extras/config-templates/${String(made.id)}/`)).statusCode).toBe(204);
    expect((await list('alice', '/api/extras/config-templates/')).count).toBe(1);
  });

  it('/api/schema/?format=json is NetBox\'s document; /api/schema/ stays Cairn\'s', async () => {
    const doc = await ok(await h.as('alice').get('/api/schema/?format=json'));
    const devices = (doc.paths as Record<string, { get: { parameters: Array<{ name: string }> } }>)['/api/dcim/devices/']!;
    expect(devices.get.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['site', 'site_id', 'role', 'name__ic', 'tag', 'q']));
    expect((doc.info as Obj).version).toBe('4.2');
    const yaml = await h.as('alice').get('/api/schema/');
    expect(yaml.headers['content-type']).toMatch(/yaml/);
    expect(yaml.body).not.toContain('/api/dcim/devices/');
  });

  it('leaves Cairn\'s own paths as they are, and answers NetBox lists Cairn has no model for empty', async () => {
    expect((await ok(await h.as('alice').get('/api/users/tokens/'))).results).toEqual(expect.arrayContaining([expect.objectContaining({ id: expect.stringMatching(/-/) })]));
    expect(await ok(await h.as('alice').get('/api/dcim/site-groups/'))).toEqual({ count: 0, next: null, previous: null, results: [] });
  });
});
