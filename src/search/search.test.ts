// Global search through the API: ranking, addresses, custom fields, the index following every kind of write,
// tenant and permission fences, bad input, and the rebuild.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { created, createDevice, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';
import { rebuildSearchIndex } from './indexer.ts';
import { queueSearchRebuild, runQueuedSearchRebuild } from './rebuild.ts';
import { searchableModels } from './fields.ts';
import { extensionState } from './support.ts';

let h: Harness;
let b: Basics;
interface Hit { object_type: string; id: string; display: string; url: string; matched_field: string; matched_label: string; score: number }

async function find(who: Parameters<Harness['as']>[0], query: string): Promise<Hit[]> {
  const res = await h.as(who).get(`/api/search/?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().results;
}
const q = (text: string, extra = '') => `q=${encodeURIComponent(text)}${extra}`;

beforeAll(async () => {
  h = await startHarness();
  b = await inventoryBasics(h.as('alice'), ['eth1']);
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe('search', () => {
  it('has a delete trigger on every searchable table straight after migrations (before any rebuild)', async () => {
    const { rows } = await sql<{ tbl: string }>`SELECT tgrelid::regclass::text AS tbl FROM pg_trigger WHERE tgname LIKE '%\\_search\\_forget'`.execute(h.database.db);
    const withTrigger = new Set(rows.map((r) => r.tbl));
    // The triggers of tables added after migration 0011 come from syncSearchTriggers, run after every migration.
    expect(searchableModels().map((s) => s.model.table).filter((t) => !withTrigger.has(t))).toEqual([]);
  });

  it('ranks exact above prefix above similar, accent-blind, with the matched field and url', async () => {
    const exact = await createDevice(h.as('alice'), b, 'core');
    const prefixed = await createDevice(h.as('alice'), b, 'core-zürich-01', { serial: 'SN-77-ALPHA', asset_tag: 'AT-5512' });
    const inside = await createDevice(h.as('alice'), b, 'edge-core-9');
    const hits = await find('alice', q('core', '&types=dcim.device'));
    expect(hits.map((x) => x.id).slice(0, 3)).toEqual([exact.id, prefixed.id, inside.id]);
    expect(hits[0]).toMatchObject({ object_type: 'dcim.device', display: 'core', matched_field: 'name', score: 1 });
    expect(hits[0]!.url).toMatch(new RegExp(`/api/devices/${exact.id}/$`));
    expect(hits[1]!.score).toBeLessThan(1);
    expect(hits[1]!.score).toBeGreaterThan(hits[2]!.score);
    const ext = await extensionState(h.database.db);
    if (ext.unaccent) expect((await find('alice', q('zurich'))).map((x) => x.id)).toContain(prefixed.id);
    // The matched field as a person reads it: its label, not its key.
    expect(await find('alice', q('sn-77-alpha'))).toMatchObject([{ id: prefixed.id, matched_field: 'serial', matched_label: 'Serial number', score: 0.98 }]);
    expect((await find('alice', q('AT-55'))).find((x) => x.id === prefixed.id)).toMatchObject({ matched_field: 'asset_tag', matched_label: 'Asset tag' });
  });

  it('looks for typos only when substrings do not fill the page', async () => {
    const ext = await extensionState(h.database.db);
    for (let i = 0; i < 4; i++) await createDevice(h.as('alice'), b, `tyrell-node-${i}`);
    const statements = async (query: string) => {
      const before = h.database.queryCount();
      const hits = await find('alice', query);
      return { hits, queries: h.database.queryCount() - before };
    };
    // Four substring hits fill a page of four: one search statement, no similarity pass.
    const filled = await statements(q('tyrell', '&types=dcim.device&limit=4'));
    expect(filled.hits).toHaveLength(4);
    // A page left short asks again with typos allowed: one statement more.
    const short = await statements(q('tyrell', '&types=dcim.device&limit=5'));
    expect(short.queries).toBe(filled.queries + (ext.pg_trgm ? 1 : 0));
    // …which is what finds a misspelt name.
    if (ext.pg_trgm) expect((await find('alice', q('tyrel-node-2', '&types=dcim.device'))).map((x) => x.display)).toContain('tyrell-node-2');
  });

  it("an exact device name ranks above the same name on another model; an interface is shown with its device", async () => {
    // The interface exists first (an older id), so before field weights it won the tie with the device.
    const peer = await createDevice(h.as('alice'), b, 'peer-7');
    const iface = await created(h.as('alice'), '/api/interfaces/', { device: peer.id, name: 'ams9-border01', type: '1000base-t' });
    const device = await createDevice(h.as('alice'), b, 'ams9-border01');
    const hits = await find('alice', q('ams9-border01'));
    expect(hits.slice(0, 2).map((x) => x.id)).toEqual([device.id, iface.id]);
    expect(hits[0]).toMatchObject({ display: 'ams9-border01', score: 1 });
    expect(hits[1]).toMatchObject({ object_type: 'dcim.interface', display: 'peer-7 › ams9-border01', score: 0.99 });

    // The same parent-first display in the API (the object, a list, a brief inside another object) and the change log.
    expect((await h.as('alice').get(`/api/interfaces/${iface.id}/`)).json().display).toBe('peer-7 › ams9-border01');
    const listed = (await h.as('alice').get(`/api/interfaces/?device_id=${peer.id}`)).json().results as Array<{ id: string; display: string }>;
    expect(listed.find((r) => r.id === iface.id)?.display).toBe('peer-7 › ams9-border01');
    const address = await created(h.as('alice'), '/api/ip-addresses/', { address: '172.30.77.1/24', assigned_interface: iface.id });
    expect((address.assigned_interface as { display: string }).display).toBe('peer-7 › ams9-border01');
    const changes = (await h.as('alice').get(`/api/changes/?object_id=${iface.id}`)).json().results as Array<{ object_repr: string }>;
    expect(changes[0]?.object_repr).toBe('peer-7 › ams9-border01');
  });

  it('puts exact matches first and apart, with the matched value; counts per type; filters by type; pages', async () => {
    const alice = h.as('alice');
    // leaf07 itself, five similar names, and a port of another device naming leaf07 in its description.
    const leaf = await createDevice(alice, b, 'qx-leaf07');
    const similar = [];
    for (const n of ['01', '02', '03', '04', '05']) similar.push(await createDevice(alice, b, `qx-leaf${n}`));
    const spine = await createDevice(alice, b, 'qx-spine1');
    const port = await created(alice, '/api/interfaces/', { device: spine.id, name: 'swp7', type: '1000base-t', description: 'downlink to qx-leaf07 port 49' });
    type Answer = { count: number; next: string | null; previous: string | null; exact_count: number; counts: Array<{ object_type: string; label: string; count: number; exact: number }>; results: Array<Hit & { matched_value: string; exact: boolean }> };
    const ask = async (query: string): Promise<Answer> => {
      const res = await alice.get(`/api/search/?${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };

    const all = await ask(q('qx-leaf07'));
    // The exact hit alone first, then the rest: the description holding the name, then the typos (where trigrams exist).
    expect(all.exact_count).toBe(1);
    expect(all.results[0]).toMatchObject({ id: leaf.id, exact: true, matched_field: 'name', matched_label: 'Name', matched_value: 'qx-leaf07' });
    expect(all.results.slice(1).every((x) => !x.exact)).toBe(true);
    // A hit whose display is not what matched says what did: the description's text.
    expect(all.results.find((x) => x.id === port.id)).toMatchObject({ exact: false, matched_field: 'description', matched_value: 'downlink to qx-leaf07 port 49', display: 'qx-spine1 › swp7' });
    // Counted per type, over every type, most first.
    const devices = all.counts.find((c) => c.object_type === 'dcim.device')!;
    expect(devices).toMatchObject({ label: 'Devices', exact: 1 });
    expect(all.counts.find((c) => c.object_type === 'dcim.interface')).toMatchObject({ count: 1, exact: 0 });
    expect(all.count).toBe(all.counts.reduce((n, c) => n + c.count, 0));
    const ext = await extensionState(h.database.db);
    if (ext.pg_trgm) {
      expect(devices.count).toBe(6);
      expect(all.results.filter((x) => x.object_type === 'dcim.device').map((x) => x.id).sort()).toEqual([leaf.id, ...similar.map((d) => d.id)].sort());
    }

    // The type filter answers that type's hits; the counts still cover every type, so the others can be offered.
    const onlyPorts = await ask(q('qx-leaf07', '&types=dcim.interface'));
    expect(onlyPorts.results.map((x) => x.id)).toEqual([port.id]);
    expect(onlyPorts).toMatchObject({ count: 1, exact_count: 0 });
    expect(onlyPorts.counts).toEqual(all.counts);

    // Another tenant counts nothing of alice's.
    expect((await h.as('bob').get(`/api/search/?${q('qx-leaf07')}`)).json()).toMatchObject({ count: 0, exact_count: 0, counts: [], results: [] });

    // Pages: limit and offset walk the same ordered list, with next and previous links and the total.
    const byPages: string[] = [];
    let page = await ask(q('qx-leaf', '&types=dcim.device&limit=2'));
    expect(page.count).toBe(7 - 1); // six qx-leafNN devices (the spine's name does not hold "qx-leaf")
    expect(page.previous).toBeNull();
    for (;;) {
      byPages.push(...page.results.map((x) => x.id));
      if (!page.next) break;
      const next = new URL(page.next);
      expect(next.searchParams.get('limit')).toBe('2');
      page = await ask(next.search.slice(1));
      expect(page.previous).not.toBeNull();
    }
    const whole = await ask(q('qx-leaf', '&types=dcim.device&limit=100'));
    expect(byPages).toEqual(whole.results.map((x) => x.id));
    expect(new Set(byPages).size).toBe(6);
    // Past the end: an empty page, the counts still there.
    const past = await ask(q('qx-leaf', '&types=dcim.device&offset=50'));
    expect(past).toMatchObject({ count: 6, results: [], next: null });
    expect(past.counts.find((c) => c.object_type === 'dcim.device')?.count).toBe(6);
    // An address query: the address itself is the exact hit, its prefix follows as a non-exact one.
    const net = await created(alice, '/api/prefixes/', { prefix: '10.231.0.0/24' });
    const addr = await created(alice, '/api/ip-addresses/', { address: '10.231.0.9/24' });
    const byAddress = await ask(q('10.231.0.9'));
    expect(byAddress.results.slice(0, 2)).toMatchObject([{ id: addr.id, exact: true, matched_value: '10.231.0.9' }, { id: net.id, exact: false, matched_value: '10.231.0.0/24' }]);
    expect((await ask(q('10.231.0.0/24'))).results[0]).toMatchObject({ id: net.id, exact: true });
  });

  it('finds an address and its containing prefixes, most specific first, and not its neighbours', async () => {
    const p16 = await created(h.as('alice'), '/api/prefixes/', { prefix: '10.1.0.0/16' });
    const p24 = await created(h.as('alice'), '/api/prefixes/', { prefix: '10.1.2.0/24' });
    const other = await created(h.as('alice'), '/api/prefixes/', { prefix: '10.2.0.0/16' });
    const addr = await created(h.as('alice'), '/api/ip-addresses/', { address: '10.1.2.3/24' });
    const neighbour = await created(h.as('alice'), '/api/ip-addresses/', { address: '10.1.2.5/24' });
    const hits = await find('alice', q('10.1.2.3'));
    const ids = hits.map((x) => x.id);
    expect(ids.slice(0, 3)).toEqual([addr.id, p24.id, p16.id]);
    expect(hits[0]).toMatchObject({ object_type: 'ipam.ipaddress', matched_field: 'address', score: 1 });
    expect(ids).not.toContain(other.id);
    expect(ids).not.toContain(neighbour.id);
    // A network query finds the network itself first, then the networks holding it, then what lies inside it.
    const net = (await find('alice', q('10.1.2.0/24'))).map((x) => x.id);
    expect(net.slice(0, 2)).toEqual([p24.id, p16.id]);
    expect(net.slice(2).sort()).toEqual([addr.id, neighbour.id].sort());
    expect(net).not.toContain(other.id);
    const wide = (await find('alice', q('10.1.0.0/16'))).map((x) => x.id);
    // Inside a network, the most specific first: the addresses, then the /24.
    expect(wide[0]).toBe(p16.id);
    expect(wide.indexOf(addr.id)).toBeGreaterThan(0);
    expect(wide.indexOf(addr.id)).toBeLessThan(wide.indexOf(p24.id));
  });

  it('finds VLAN ids and custom-field text', async () => {
    const vlan = await created(h.as('alice'), '/api/vlans/', { vid: 3071, name: 'guests' });
    expect((await find('alice', q('3071')))[0]).toMatchObject({ id: vlan.id, matched_field: 'vid', score: 0.98 });
    await created(h.as('alice'), '/api/custom-fields/', { name: 'owner_team', type: 'text', object_types: ['dcim.device'] });
    const dev = await createDevice(h.as('alice'), b, 'cf-holder', { custom_fields: { owner_team: 'Plasmatronics' } });
    expect((await find('alice', q('plasmatronics')))[0]).toMatchObject({ id: dev.id, matched_field: 'cf.owner_team', matched_label: 'Custom field owner_team' });
  });

  it('shows where an address lives (its interface with its device), else its VRF; a prefix by its VRF', async () => {
    const alice = h.as('alice');
    const vrf = await created(alice, '/api/vrfs/', { name: 'ctx-blue', rd: '65000:77' });
    const dev = await createDevice(alice, b, 'ctx-leaf1');
    const iface = (await alice.get(`/api/interfaces/?device=${dev.id}`)).json().results[0];
    const onPort = await created(alice, '/api/ip-addresses/', { address: '10.177.0.1/24', assigned_interface: iface.id });
    const inVrf = await created(alice, '/api/ip-addresses/', { address: '10.177.0.1/24', vrf: vrf.id });
    const pGlobal = await created(alice, '/api/prefixes/', { prefix: '10.177.0.0/24' });
    const pVrf = await created(alice, '/api/prefixes/', { prefix: '10.177.0.0/24', vrf: vrf.id });
    const byId = new Map((await find('alice', q('10.177.0.1'))).map((x) => [x.id, x as Hit & { context?: string }]));
    expect(byId.get(onPort.id)?.context).toBe(`ctx-leaf1 › ${iface.name}`);
    expect(byId.get(inVrf.id)?.context).toBe(vrf.display);
    expect(byId.get(pVrf.id)?.context).toBe(vrf.display);
    expect(byId.get(pGlobal.id)).toBeDefined();
    expect(byId.get(pGlobal.id)).not.toHaveProperty('context');
  });

  it("tells same-named VLANs apart by what they are in: their group, else their site; a global one has no context", async () => {
    const alice = h.as('alice');
    const other = await inventoryBasics(alice);
    const group = await created(alice, '/api/vlan-groups/', { name: 'Hall A VLANs', slug: 'hall-a-vlans', site: b.site });
    const grouped = await created(alice, '/api/vlans/', { vid: 40, name: 'backup-net', group: group.id, site: b.site });
    const sited = await created(alice, '/api/vlans/', { vid: 40, name: 'backup-net', site: other.site });
    const global = await created(alice, '/api/vlans/', { vid: 41, name: 'backup-net-global' });
    const hits = await find('alice', q('backup-net'));
    const byId = new Map(hits.map((x) => [x.id, x as Hit & { context?: string }]));
    const siteName = (await alice.get(`/api/sites/${other.site}/`)).json().display;
    expect(byId.get(grouped.id)).toMatchObject({ display: 'backup-net (40)', context: 'Hall A VLANs' });
    expect(byId.get(sited.id)).toMatchObject({ display: 'backup-net (40)', context: siteName });
    expect(byId.get(global.id)).toBeDefined();
    expect(byId.get(global.id)).not.toHaveProperty('context');
    // The other tenant's same-named VLAN in its own group: bob sees his with his group, alice nothing of his.
    const bob = h.as('bob');
    const bobGroup = await created(bob, '/api/vlan-groups/', { name: 'Beta hall VLANs', slug: 'beta-hall-vlans' });
    const bobs = await created(bob, '/api/vlans/', { vid: 40, name: 'backup-net', group: bobGroup.id });
    const bobHits = await find('bob', q('backup-net'));
    expect(bobHits.map((x) => x.id)).toEqual([bobs.id]);
    expect(bobHits[0]).toMatchObject({ context: 'Beta hall VLANs' });
    const again = await find('alice', q('backup-net'));
    expect(again.map((x) => x.id)).not.toContain(bobs.id);
    expect(JSON.stringify(again)).not.toContain('Beta hall');
  });

  it('follows updates, bulk updates and deletes (cascades included), and indexes materialised components', async () => {
    const dev = await createDevice(h.as('alice'), b, 'rename-me-1');
    expect((await h.as('alice').patch(`/api/devices/${dev.id}/`, { name: 'renamed-device-1' })).statusCode).toBe(200);
    // The old name is gone: at most a fuzzy match of the new one is left.
    expect((await find('alice', q('rename-me-1'))).filter((x) => x.score >= 0.8)).toEqual([]);
    expect((await find('alice', q('renamed-device-1')))[0]!.id).toBe(dev.id);

    // The interface came from the type's template through the dcim service's own SQL.
    const iface = (await h.as('alice').get(`/api/interfaces/?device_id=${dev.id}`)).json().results[0];
    expect((await find('alice', q('eth1', '&types=dcim.interface&limit=100'))).map((x) => x.id)).toContain(iface.id);

    const tags = [];
    for (let i = 0; i < 3; i++) tags.push(await created(h.as('alice'), '/api/tags/', { name: `bulky-${i}`, slug: `bulky-${i}` }));
    const res = await h.as('alice').post('/api/tags/bulk-update/', { ids: tags.map((t) => t.id), fields: { description: 'quarantined fleet' } });
    expect(res.statusCode, res.body).toBe(200);
    expect((await find('alice', q('quarantined fleet'))).map((x) => x.id).sort()).toEqual(tags.map((t) => t.id).sort());

    expect((await h.as('alice').delete(`/api/devices/${dev.id}/`)).statusCode).toBe(204);
    expect(await find('alice', q('renamed-device-1'))).toEqual([]);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM search_index WHERE object_id = ${iface.id}`.execute(h.database.db);
    expect(rows[0]!.n).toBe(0);
    expect((await h.as('alice').post('/api/tags/bulk-delete/', { ids: tags.map((t) => t.id) })).statusCode).toBeLessThan(300);
    expect(await find('alice', q('quarantined fleet'))).toEqual([]);
  });

  it('keeps bulk updates set-based: the same number of queries for 2 rows as for 12', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await created(h.as('alice'), '/api/tags/', { name: `count-${i}`, slug: `count-${i}` })).id);
    const run = async (n: number, text: string) => {
      const before = h.database.queryCount();
      const res = await h.as('alice').post('/api/tags/bulk-update/', { ids: ids.slice(0, n), fields: { description: text } });
      expect(res.statusCode).toBe(200);
      return h.database.queryCount() - before;
    };
    expect(await run(2, 'first pass')).toBe(await run(12, 'second pass'));
    expect((await find('alice', q('second pass', '&limit=100'))).length).toBe(12);
  });

  it('stays inside the tenant and the caller’s view permission', async () => {
    const dev = await createDevice(h.as('alice'), b, 'alpha-only-box');
    expect((await find('viewer', q('alpha-only-box')))[0]!.id).toBe(dev.id);
    expect(await find('bob', q('alpha-only-box'))).toEqual([]);
    expect(await find('adminB', q('alpha-only-box'))).toEqual([]);
    expect(await find('nobody', q('alpha-only-box'))).toEqual([]);
    const refused = await h.as('nobody').get(`/api/search/?${q('alpha', '&types=dcim.device')}`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().types[0]).toMatch(/permission/);
    expect((await h.as('anonymous').get(`/api/search/?${q('alpha')}`)).statusCode).toBe(401);
  });

  it('answers bad input with a 400 naming the parameter', async () => {
    const cases: Array<[string, string]> = [
      ['', 'q'],
      ['q=', 'q'],
      ['q=%20%20', 'q'],
      [q('x'.repeat(10_000)), 'q'],
      [q('core', '&types=dcim.nothing'), 'types'],
      [q('core', '&types=core.objectchange'), 'types'],
      [q('core', '&types=,'), 'types'],
      [q('core', '&limit=0'), 'limit'],
      [q('core', '&limit=100000'), 'limit'],
      [q('core', '&limit=ten'), 'limit'],
      [q('core', '&limit=-1'), 'limit'],
      [q('core', '&offset=-1'), 'offset'],
      [q('core', '&offset=ten'), 'offset'],
      [q('core', '&offset=99999999'), 'offset'],
      [q('core', '&page=2'), 'page'],
      ['q=a%00b', 'q'],
      ['q=a%0Ab', 'q'],
    ];
    for (const [query, param] of cases) {
      const res = await h.as('alice').get(`/api/search/?${query}`);
      expect(res.statusCode, query.slice(0, 40)).toBe(400);
      expect(Object.keys(res.json()), query.slice(0, 40)).toContain(param);
    }
    // LIKE wildcards are text, not patterns.
    expect(await find('alice', q('%'))).toEqual([]);
    expect(await find('alice', q('x%y'))).toEqual([]);
    // Quotes, backslashes and other scripts are plain text.
    for (const text of ["o'brien", 'a\\b', '東京', '🙂', '10.1.2.3/33', '::ffff:10.1.2.3', 'fe80::1%eth0']) await find('alice', q(text));
  });

  it('is rebuilt from the tables', async () => {
    const dev = await createDevice(h.as('alice'), b, 'rebuilt-box');
    await sql`DELETE FROM search_index`.execute(h.database.db);
    expect(await find('alice', q('rebuilt-box'))).toEqual([]);
    const report = await rebuildSearchIndex(h.database.db);
    expect(report.entries).toBeGreaterThan(10);
    expect((await find('alice', q('rebuilt-box')))[0]!.id).toBe(dev.id);
  });

  it('runs the rebuild an upgrade queued once, under its own record', async () => {
    const first = await queueSearchRebuild(h.database.db, 'system');
    expect(await queueSearchRebuild(h.database.db, 'system')).toBe(first);
    expect((await h.as('admin').get(`/api/jobs/${first}/`)).json()).toMatchObject({ kind: 'search.rebuild', status: 'queued', tenant: null });
    const report = await runQueuedSearchRebuild(h.database.db);
    expect(report?.entries).toBeGreaterThan(0);
    const job = (await h.as('admin').get(`/api/jobs/${first}/`)).json();
    expect(job).toMatchObject({ status: 'succeeded', progress: { done: report!.models, total: report!.models } });
    expect(await runQueuedSearchRebuild(h.database.db)).toBeNull();
  });

});
