import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics } from '../../test/helpers/inventory.ts';
import { deepMerge, renderConfigContexts } from './config-context.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('deepMerge', () => {
  it('merges mappings key by key and replaces everything else with a copy', () => {
    const layer = { ntp: { servers: ['b'] }, snmp: { community: 'x' }, list: [1] };
    const out = deepMerge({ ntp: { servers: ['a'], prefer: true }, snmp: 'off', keep: 1 }, layer);
    expect(out).toEqual({ ntp: { servers: ['b'], prefer: true }, snmp: { community: 'x' }, list: [1], keep: 1 });
    (out.list as number[]).push(2);
    expect(layer.list).toEqual([1]);
  });
});

describe('config contexts', () => {
  it('refuses data that is not an object', async () => {
    const alice = h.as('alice');
    for (const data of [[1, 2], 'text', 3, null]) {
      const res = await alice.post('/api/config-contexts/', { name: 'bad', data });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toHaveProperty('data');
    }
    expect((await alice.get('/api/config-contexts/?name=bad')).json().count).toBe(0);
  });

  it('merges matching contexts by weight then name, with region ancestors', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const europe = await created(alice, '/api/regions/', { name: 'Europe', slug: 'europe' });
    const france = await created(alice, '/api/regions/', { name: 'France', slug: 'france', parent: europe.id });
    const paris = await created(alice, '/api/regions/', { name: 'Paris', slug: 'paris', parent: france.id });
    const asia = await created(alice, '/api/regions/', { name: 'Asia', slug: 'asia' });
    expect((await alice.patch(`/api/sites/${b.site}/`, { region: paris.id })).statusCode).toBe(200);
    const device = await createDevice(alice, b, 'cc-1', { platform: b.platform });
    const otherRole = await created(alice, '/api/device-roles/', { name: 'Other', slug: 'other' });

    await created(alice, '/api/config-contexts/', { name: 'zz-base', weight: 100, data: { ntp: { servers: ['10.0.0.1'], prefer: true }, dns: ['1.1.1.1'] } });
    await created(alice, '/api/config-contexts/', { name: 'aa-base', weight: 100, data: { ntp: { servers: ['10.0.0.2'] }, banner: 'first' } });
    await created(alice, '/api/config-contexts/', { name: 'europe', weight: 500, regions: [europe.id], data: { dns: ['9.9.9.9'], ntp: { tz: 'CET' } } });
    await created(alice, '/api/config-contexts/', { name: 'asia', regions: [asia.id], data: { dns: ['8.8.8.8'] } });
    await created(alice, '/api/config-contexts/', { name: 'role-match', roles: [b.role], platforms: [b.platform], data: { banner: 'role' } });
    await created(alice, '/api/config-contexts/', { name: 'role-miss', roles: [otherRole.id], data: { banner: 'nope' } });
    await created(alice, '/api/config-contexts/', { name: 'and-miss', roles: [b.role], sites: [], regions: [asia.id], data: { banner: 'nope' } });
    await created(alice, '/api/config-contexts/', { name: 'inactive', is_active: false, weight: 9999, data: { banner: 'off' } });

    const res = await alice.get(`/api/devices/${device.id}/config-context/`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      applied: ['aa-base', 'zz-base', 'europe', 'role-match'],
      rendered: { ntp: { servers: ['10.0.0.1'], prefer: true, tz: 'CET' }, dns: ['9.9.9.9'], banner: 'role' },
    });
    // Devices filter by region, its ancestors included.
    expect((await alice.get('/api/devices/?region=europe')).json().results.map((d: { name: string }) => d.name)).toEqual(['cc-1']);
    expect((await alice.get(`/api/devices/?region=${france.id}`)).json().count).toBe(1);
    expect((await alice.get('/api/devices/?region=asia')).json().count).toBe(0);
    expect((await alice.get(`/api/devices/?manufacturer=${b.manufacturer}&has_primary_ip=false`)).json().count).toBe(1);
    // Moving the site out of the region tree drops the regional context.
    await alice.patch(`/api/sites/${b.site}/`, { region: null });
    expect((await alice.get(`/api/devices/${device.id}/config-context/`)).json().applied).toEqual(['aa-base', 'zz-base', 'role-match']);
  });

  it('says for each key of the merged context which context it came from and which it overrode', async () => {
    const bob = h.as('bob');
    const b = await inventoryBasics(bob);
    const device = await createDevice(bob, b, 'sources-1');
    const base = await created(bob, '/api/config-contexts/', { name: 'src-base', weight: 100, roles: [b.role], data: { ntp: { servers: ['a'], prefer: true }, snmp: { community: 'x' } } });
    const site = await created(bob, '/api/config-contexts/', { name: 'src-site', weight: 200, sites: [b.site], data: { ntp: { servers: ['b'] }, snmp: 'off', empty: {} } });
    const late = await created(bob, '/api/config-contexts/', { name: 'src-late', weight: 300, roles: [b.role], data: { snmp: { location: 'r1' } } });
    const res = await bob.get(`/api/devices/${device.id}/config-context/sources/`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.rendered).toEqual((await bob.get(`/api/devices/${device.id}/config-context/`)).json().rendered);
    expect(body.rendered).toEqual({ ntp: { servers: ['b'], prefer: true }, snmp: { location: 'r1' }, empty: {} });
    expect(body.applied).toEqual(['src-base', 'src-site', 'src-late']);
    expect(body.contexts.map((c: { id: string; weight: number }) => [c.id, c.weight])).toEqual([[base.id, 100], [site.id, 200], [late.id, 300]]);
    const keys = body.keys.map((k: { path: string[]; value: unknown; source: { name: string }; overridden: Array<{ name: string }> }) => [k.path.join('.'), k.value, k.source.name, k.overridden.map((o) => o.name)]);
    // In the merged context's key order (PostgreSQL's jsonb keeps keys shortest first): sorted here by path.
    expect(keys.sort((x: string[], y: string[]) => x[0]!.localeCompare(y[0]!))).toEqual([
      ['empty', {}, 'src-site', []],
      ['ntp.prefer', true, 'src-base', []],
      ['ntp.servers', ['b'], 'src-site', ['src-base']],
      ['snmp.location', 'r1', 'src-late', []],
    ]);
    expect(body.keys.find((k: { path: string[] }) => k.path.join('.') === 'ntp.servers').source.url).toMatch(new RegExp(`/api/config-contexts/${site.id}/$`));
    // Another tenant's device is a 404, a malformed id a 400 naming it.
    expect((await h.as('alice').get(`/api/devices/${device.id}/config-context/sources/`)).statusCode).toBe(404);
    const bad = await bob.get('/api/devices/not-an-id/config-context/sources/');
    expect(bad.statusCode).toBe(400);
    // A device no context matches has an empty context and no keys.
    const other = await createDevice(bob, await inventoryBasics(bob), 'sources-2');
    expect((await bob.get(`/api/devices/${other.id}/config-context/sources/`)).json()).toEqual({ rendered: {}, applied: [], contexts: [], keys: [] });
    for (const c of [base, site, late]) await bob.delete(`/api/config-contexts/${c.id}/`);
  });

  it('evaluates many devices with a constant number of queries', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const region = await created(alice, '/api/regions/', { name: 'Bulk', slug: 'bulk' });
    await alice.patch(`/api/sites/${b.site}/`, { region: region.id });
    const subjects = [];
    for (let i = 0; i < 5; i++) {
      const d = await createDevice(alice, b, `bulk-${i}`);
      subjects.push({ id: d.id, siteId: b.site, roleId: b.role, platformId: null });
    }
    await created(alice, '/api/config-contexts/', { name: 'bulk-region', regions: [region.id], data: { x: 1 } });
    const before = h.database.queryCount();
    const out = await renderConfigContexts(h.database.db, h.tenants.a, subjects);
    expect(h.database.queryCount() - before).toBe(2);
    for (const s of subjects) expect(out.get(s.id)!.rendered.x).toBe(1);
  });

  it('serves virtual machines the same way', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    await created(alice, '/api/config-contexts/', { name: 'vm-role', roles: [b.role], data: { vm: true } });
    const vm = await created(alice, '/api/virtual-machines/', { name: 'vm-1', site: b.site, role: b.role });
    const res = await alice.get(`/api/virtual-machines/${vm.id}/config-context/`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().applied).toContain('vm-role');
    expect(res.json().rendered.vm).toBe(true);
    expect((await h.as('bob').get(`/api/virtual-machines/${vm.id}/config-context/`)).statusCode).toBe(404);
  });

  it('keeps tenants apart', async () => {
    const alice = h.as('alice');
    const bob = h.as('bob');
    const b = await inventoryBasics(alice);
    const res = await bob.post('/api/config-contexts/', { name: 'steal', sites: [b.site], data: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toHaveProperty('sites');
    const bobBasics = await inventoryBasics(bob);
    const bobDevice = await createDevice(bob, bobBasics, 'bob-1');
    expect((await bob.get(`/api/devices/${bobDevice.id}/config-context/`)).json().applied).toEqual([]);
  });

  it('refuses a region placed under its own child', async () => {
    const alice = h.as('alice');
    const top = await created(alice, '/api/regions/', { name: 'Top', slug: 'top' });
    const child = await created(alice, '/api/regions/', { name: 'Child', slug: 'child', parent: top.id });
    const res = await alice.patch(`/api/regions/${top.id}/`, { parent: child.id });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toHaveProperty('parent');
    expect((await alice.patch(`/api/regions/${top.id}/`, { parent: top.id })).statusCode).toBe(400);
    const del = await alice.delete(`/api/regions/${top.id}/`);
    expect(del.statusCode).toBe(409);
  });
});
