// The Ansible inventory through the API: document shape, groups, host variables, filters, bad input, tenant
// fence, permissions, ETag/304 and a constant number of queries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Client, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';
import { groupName } from './inventory.ts';
import { naturalCompare } from '../core/natural-compare.ts';

interface Inventory {
  all: { children: string[] };
  ungrouped: { hosts: string[] };
  _meta: { hostvars: Record<string, { ansible_host?: string; cairn: Record<string, unknown> & { interfaces: Array<{ name: string; addresses: string[] }> } }> };
  [group: string]: unknown;
}

let h: Harness;
let b: Basics;
const ids: Record<string, string> = {};

async function inventory(client: Client, query = ''): Promise<Inventory> {
  const res = await client.get(`/api/inventory/ansible/${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Inventory;
}

function hostsOf(doc: Inventory, group: string): string[] {
  return (doc[group] as { hosts: string[] } | undefined)?.hosts ?? [];
}

beforeAll(async () => {
  h = await startHarness();
  const alice = h.as('alice');
  b = await inventoryBasics(alice, ['eth10', 'eth2', 'eth1']);
  await created(alice, '/api/custom-fields/', { name: 'ntp_managed', type: 'boolean', object_types: ['dcim.device', 'virtualization.virtualmachine'] });
  await created(alice, '/api/custom-fields/', { name: 'owner', type: 'text', object_types: ['dcim.device'] });
  await created(alice, '/api/custom-fields/', { name: 'rack_unit', type: 'integer', object_types: ['dcim.device'] });
  await created(alice, '/api/custom-fields/', { name: 'vm_only', type: 'boolean', object_types: ['virtualization.virtualmachine'] });
  const tag = await created(alice, '/api/tags/', { name: 'Core Net', slug: 'core-net' });
  const region = await created(alice, '/api/regions/', { name: 'EU West', slug: 'eu-west' });
  const site = await created(alice, '/api/sites/', { name: 'AMS 1', slug: 'ams-1', region: region.id });
  ids.site = site.id;
  ids.r1 = (await createDevice(alice, b, 'r1', { site: site.id, platform: b.platform, tags: [tag.id], serial: 'SN1', custom_fields: { ntp_managed: true, owner: 'neteng', rack_unit: 4 } })).id;
  ids.r2 = (await createDevice(alice, b, 'r2', { custom_fields: { ntp_managed: false } })).id;
  ids.r3 = (await createDevice(alice, b, 'r3')).id;
  // r1's primary address, on its own interface.
  const eth1 = (await alice.get(`/api/interfaces/?device=${ids.r1}&name=eth1`)).json().results[0].id as string;
  const ip = await created(alice, '/api/ip-addresses/', { address: '10.0.0.5/24', assigned_interface: eth1 });
  await created(alice, '/api/ip-addresses/', { address: '10.0.1.5/24', assigned_interface: eth1 });
  expect((await alice.patch(`/api/devices/${ids.r1}/`, { primary_ip4: ip.id })).statusCode).toBe(200);
  await created(alice, '/api/config-contexts/', { name: 'ntp', data: { ntp: ['10.0.0.1'] }, sites: [site.id] });
  const cluster = await created(alice, '/api/clusters/', { name: 'Prod KVM' });
  ids.vm1 = (await created(alice, '/api/virtual-machines/', { name: 'vm1', cluster: cluster.id, custom_fields: { ntp_managed: true, vm_only: true } })).id;
  // Same name as a device: the device keeps the name in the inventory.
  ids.vmR3 = (await created(alice, '/api/virtual-machines/', { name: 'r3', cluster: cluster.id })).id;
  // Another tenant's hosts never show up in alpha's inventory.
  const bob = h.as('bob');
  const bb = await inventoryBasics(bob);
  await created(bob, '/api/custom-fields/', { name: 'ntp_managed', type: 'boolean', object_types: ['dcim.device'] });
  ids.beta1 = (await createDevice(bob, bb, 'beta-1', { custom_fields: { ntp_managed: true } })).id;
});
afterAll(async () => {
  await h?.close();
});

describe('group names', () => {
  it('lowercases and folds runs of other characters into one underscore', () => {
    expect(groupName('site', 'AMS-1 DC')).toBe('site_ams_1_dc');
    expect(groupName('cluster', '--Prod  KVM--')).toBe('cluster_prod_kvm');
    expect(groupName('tag', '***')).toBeNull();
    expect(['eth10', 'eth2', 'Eth1', 'eth1'].sort(naturalCompare)).toEqual(['Eth1', 'eth1', 'eth2', 'eth10']);
  });
});

describe('GET /api/inventory/ansible/', () => {
  it('answers the dynamic-inventory document with groups and host variables', async () => {
    const doc = await inventory(h.as('alice'));
    expect(Object.keys(doc._meta.hostvars)).toEqual(['r1', 'r2', 'r3', 'vm1']);
    expect(doc.all.children).toContain('ungrouped');
    expect(doc.all.children).toEqual([...doc.all.children].sort());
    for (const g of doc.all.children) expect(doc[g], g).toBeDefined();
    expect(hostsOf(doc, 'site_ams_1')).toEqual(['r1']);
    expect(hostsOf(doc, 'region_eu_west')).toEqual(['r1']);
    expect(hostsOf(doc, 'tag_core_net')).toEqual(['r1']);
    expect(hostsOf(doc, 'cluster_prod_kvm')).toEqual(['vm1']);
    const r1 = doc._meta.hostvars.r1!;
    expect(r1.ansible_host).toBe('10.0.0.5');
    expect(doc._meta.hostvars.r2!.ansible_host).toBeUndefined();
    expect(r1.cairn).toMatchObject({
      id: ids.r1,
      kind: 'device',
      site: 'ams-1',
      region: 'eu-west',
      serial: 'SN1',
      tags: ['core-net'],
      custom_fields: { ntp_managed: true, owner: 'neteng', rack_unit: 4 },
      config_context: { ntp: ['10.0.0.1'] },
    });
    expect(doc._meta.hostvars.r3!.cairn.custom_fields).toEqual({ ntp_managed: null, owner: null, rack_unit: null });
    expect(r1.cairn.interfaces.map((i) => i.name)).toEqual(['eth1', 'eth2', 'eth10']);
    expect(r1.cairn.interfaces[0]!.addresses).toEqual(['10.0.0.5/24', '10.0.1.5/24']);
    expect(doc._meta.hostvars.vm1!.cairn).toMatchObject({ kind: 'vm', cluster: 'Prod KVM', custom_fields: { ntp_managed: true, vm_only: true } });
    // A device and a VM both named r3: the device is listed.
    expect(doc._meta.hostvars.r3!.cairn.kind).toBe('device');
    // Every group a host is in is one of its role/platform/status/device-type groups or the ones above.
    const groupsOfR2 = doc.all.children.filter((g) => hostsOf(doc, g).includes('r2'));
    expect(groupsOfR2.some((g) => g.startsWith('role_'))).toBe(true);
    expect(groupsOfR2.some((g) => g.startsWith('device_type_'))).toBe(true);
    expect(groupsOfR2.some((g) => g.startsWith('status_'))).toBe(true);
  });

  it('puts exactly the hosts whose boolean flag is true in cf_<name>, and a PATCH flip moves them', async () => {
    const alice = h.as('alice');
    let doc = await inventory(alice);
    expect(hostsOf(doc, 'cf_ntp_managed')).toEqual(['r1', 'vm1']);
    expect(hostsOf(doc, 'cf_vm_only')).toEqual(['vm1']);
    // Other types never make groups.
    expect(doc.all.children.some((g) => g.startsWith('cf_owner') || g.startsWith('cf_rack_unit'))).toBe(false);
    const flip = await alice.patch(`/api/devices/${ids.r2}/`, { custom_fields: { ntp_managed: true } });
    expect(flip.statusCode).toBe(200);
    doc = await inventory(alice);
    expect(hostsOf(doc, 'cf_ntp_managed')).toEqual(['r1', 'r2', 'vm1']);
    const changes = (await alice.get(`/api/changes/?object_id=${ids.r2}&action=update`)).json().results as Array<{ username: string; before: { custom_fields: unknown }; after: { custom_fields: unknown } }>;
    expect(changes[0]).toMatchObject({ username: 'alice', before: { custom_fields: { ntp_managed: false } }, after: { custom_fields: { ntp_managed: true } } });
    await alice.patch(`/api/devices/${ids.r2}/`, { custom_fields: { ntp_managed: false } });
    expect(hostsOf(await inventory(alice), 'cf_ntp_managed')).toEqual(['r1', 'vm1']);
  });

  it('filters by site, role, platform, status, tag, kind, primary IP and custom fields', async () => {
    const alice = h.as('alice');
    const names = async (q: string) => Object.keys((await inventory(alice, q))._meta.hostvars);
    expect(await names('?site=ams-1')).toEqual(['r1']);
    expect(await names(`?site=${ids.site}`)).toEqual(['r1']);
    expect(await names('?tag=core-net')).toEqual(['r1']);
    expect(await names('?kind=vm')).toEqual(['r3', 'vm1']);
    expect(await names('?kind=device')).toEqual(['r1', 'r2', 'r3']);
    expect(await names('?has_primary_ip=1')).toEqual(['r1']);
    expect(await names('?has_primary_ip=false&kind=device')).toEqual(['r2', 'r3']);
    expect(await names('?cf_ntp_managed=true')).toEqual(['r1', 'vm1']);
    expect(await names('?cf_ntp_managed=no&kind=device')).toEqual(['r2', 'r3']);
    expect(await names('?cf_owner=neteng')).toEqual(['r1']);
    expect(await names('?cf_rack_unit=4')).toEqual(['r1']);
    expect(await names('?cf_vm_only=1')).toEqual(['vm1']);
    expect(await names('?platform=no-such-platform')).toEqual([]);
    const platformSlug = (await alice.get(`/api/platforms/${b.platform}/`)).json().slug as string;
    expect(await names(`?platform=${platformSlug}`)).toEqual(['r1']);
    const roleSlug = (await alice.get(`/api/device-roles/${b.role}/`)).json().slug as string;
    expect(await names(`?role=${roleSlug}`)).toEqual(['r1', 'r2', 'r3']);
    expect(await names('?status=active&kind=device')).toEqual(['r1', 'r2', 'r3']);
    expect(await names('?routing=1&site=ams-1')).toEqual(['r1']);
    const withRouting = (await alice.get('/api/inventory/ansible/?routing=1')).json();
    const r1 = withRouting._meta.hostvars.r1.cairn;
    expect(r1.routing).toMatchObject({ bgp: [], static_routes: [], vrfs: [] });
    expect(Array.isArray(r1.routing.keychains)).toBe(true);
    const without = (await alice.get('/api/inventory/ansible/')).json();
    expect(without._meta.hostvars.r1.cairn).not.toHaveProperty('routing');
  });

  it('refuses bad filters with a 400 naming the parameter', async () => {
    const alice = h.as('alice');
    const cases: Array<[string, string]> = [
      ['?cf_unknown=1', 'cf_unknown'],
      ['?cf_ntp_managed=yes%20please', 'cf_ntp_managed'],
      ['?cf_rack_unit=four', 'cf_rack_unit'],
      ['?kind=router', 'kind'],
      ['?has_primary_ip=maybe', 'has_primary_ip'],
      ['?routing=perhaps', 'routing'],
      ['?colour=red', 'colour'],
      ['?site=', 'site'],
    ];
    for (const [q, key] of cases) {
      const res = await alice.get(`/api/inventory/ansible/${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json(), q).toHaveProperty([key]);
    }
    expect(String((await alice.get('/api/inventory/ansible/?cf_unknown=1')).json().cf_unknown[0])).toContain('unknown');
  });

  it('answers 304 to a current If-None-Match and a new ETag after any change', async () => {
    const alice = h.as('alice');
    const first = await alice.get('/api/inventory/ansible/');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await h.app.inject({ method: 'GET', url: '/api/inventory/ansible/', headers: { authorization: `Token ${h.tokens.alice}`, 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // A change deep in a host's data (an interface's MTU) changes the document and so the tag.
    const eth2 = (await alice.get(`/api/interfaces/?device=${ids.r3}&name=eth2`)).json().results[0].id as string;
    expect((await alice.patch(`/api/interfaces/${eth2}/`, { mtu: 9000 })).statusCode).toBe(200);
    const after = await h.app.inject({ method: 'GET', url: '/api/inventory/ansible/', headers: { authorization: `Token ${h.tokens.alice}`, 'if-none-match': etag } });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(etag);
    // Filters are part of the document: another query string, another tag.
    expect((await alice.get('/api/inventory/ansible/?kind=vm')).headers.etag).not.toBe(after.headers.etag);
  });

  it('answers a current If-None-Match with one query, and stops once anything the document shows changed', async () => {
    const revalidate = async (who: 'alice' | 'viewer', etag: string) => {
      const before = h.database.queryCount();
      const res = await h.app.inject({ method: 'GET', url: '/api/inventory/ansible/', headers: { authorization: `Token ${h.tokens[who]}`, 'if-none-match': etag } });
      return { status: res.statusCode, etag: res.headers.etag as string, queries: h.database.queryCount() - before };
    };
    const current = async (who: 'alice' | 'viewer') => (await h.as(who).get('/api/inventory/ansible/')).headers.etag as string;
    let etag = await current('alice');
    // Built once: revalidating reads the data version, not the hosts.
    const built = await h.as('alice').get('/api/inventory/ansible/');
    const fresh = await revalidate('alice', etag);
    expect(fresh).toMatchObject({ status: 304, etag });
    const buildQueries = await (async () => {
      const before = h.database.queryCount();
      await h.as('alice').get('/api/inventory/ansible/?kind=device&kind=vm');
      return h.database.queryCount() - before;
    })();
    expect(fresh.queries).toBe(1);
    expect(buildQueries).toBeGreaterThan(3);
    expect(built.headers.etag).toBe(etag);

    // A bulk update deep in the data (a tag's description is not shown, a device's serial is).
    const r1 = (await h.as('alice').get('/api/devices/?name=r1')).json().results[0].id as string;
    expect((await h.as('alice').post('/api/devices/bulk-update/', { ids: [r1], fields: { serial: 'BULK-SERIAL-1' } })).statusCode).toBe(200);
    const afterBulk = await revalidate('alice', etag);
    expect(afterBulk.status).toBe(200);
    etag = afterBulk.etag;
    expect(await revalidate('alice', etag)).toMatchObject({ status: 304 });

    // A write that rolls back (refused half-way) changes nothing, and says so.
    // (the first row is written and logged, the second breaks the unique name: all or nothing).
    const r2 = (await h.as('alice').get('/api/devices/?name=r2')).json().results[0].id as string;
    const refused = await h.as('alice').patch('/api/devices/', [{ id: r1, serial: 'NEVER' }, { id: r2, name: 'r1' }]);
    expect(refused.statusCode, refused.body).toBe(400);
    expect((await h.as('alice').get(`/api/devices/${r1}/`)).json().serial).toBe('BULK-SERIAL-1');
    expect(await revalidate('alice', etag)).toMatchObject({ status: 304 });

    // Another tenant's writes leave this tenant's inventory current.
    await created(h.as('bob'), '/api/tags/', { name: 'beta-only-tag', slug: 'beta-only-tag' });
    expect(await revalidate('alice', etag)).toMatchObject({ status: 304 });

    // Each caller has their own document: the viewer's tag is not alice's.
    const viewerTag = await current('viewer');
    expect(await revalidate('viewer', viewerTag)).toMatchObject({ status: 304 });
  });

  it('keeps tenants apart and shows only what the caller may view', async () => {
    const beta = await inventory(h.as('bob'));
    expect(Object.keys(beta._meta.hostvars)).toEqual(['beta-1']);
    expect(hostsOf(beta, 'cf_ntp_managed')).toEqual(['beta-1']);
    expect(Object.keys((await inventory(h.as('adminB')))._meta.hostvars)).toEqual(['beta-1']);
    // A filter on alpha's site id from beta finds nothing.
    expect(Object.keys((await inventory(h.as('bob'), `?site=${ids.site}`))._meta.hostvars)).toEqual([]);
    // nobody has no grants at all: an empty inventory, not an error, so a play simply has no hosts.
    const none = await inventory(h.as('nobody'));
    expect(none._meta.hostvars).toEqual({});
    expect(none.all.children).toEqual(['ungrouped']);
    expect(Object.keys((await inventory(h.as('viewer')))._meta.hostvars)).toEqual(['r1', 'r2', 'r3', 'vm1']);
    expect((await h.as('anonymous').get('/api/inventory/ansible/')).statusCode).toBe(401);
  });

  it('builds the whole inventory with the same number of queries for 4 and 24 hosts', async () => {
    const admin = h.as('adminB');
    const bb = await inventoryBasics(admin, ['eth0', 'eth1']);
    const count = async () => {
      const before = h.database.queryCount();
      await inventory(admin);
      return h.database.queryCount() - before;
    };
    const cluster = await created(admin, '/api/clusters/', { name: 'c' });
    for (let i = 0; i < 2; i++) await createDevice(admin, bb, `q-${i}`, { custom_fields: { ntp_managed: i % 2 === 0 } });
    await created(admin, '/api/virtual-machines/', { name: 'qvm-0', cluster: cluster.id });
    const small = await count();
    for (let i = 2; i < 20; i++) await createDevice(admin, bb, `q-${i}`, { custom_fields: { ntp_managed: i % 2 === 0 } });
    for (let i = 1; i < 4; i++) await created(admin, '/api/virtual-machines/', { name: `qvm-${i}`, cluster: cluster.id });
    const large = await count();
    expect(large).toBe(small);
    expect(small).toBeLessThanOrEqual(12);
  });
});

describe('GET /api/devices/<id>/inventory/ and the VM equivalent', () => {
  it('answers one host with its groups and variables', async () => {
    const alice = h.as('alice');
    const res = await alice.get(`/api/devices/${ids.r1}/inventory/`);
    expect(res.statusCode, res.body).toBe(200);
    const one = res.json();
    expect(one.host).toBe('r1');
    expect(one.ansible_host).toBe('10.0.0.5');
    expect(one.groups).toContain('cf_ntp_managed');
    expect(one.groups).toContain('site_ams_1');
    expect(one.hostvars.cairn.id).toBe(ids.r1);
    const vm = (await alice.get(`/api/virtual-machines/${ids.vmR3}/inventory/`)).json();
    expect(vm).toMatchObject({ host: 'r3', ansible_host: null, hostvars: { cairn: { kind: 'vm' } } });
  });

  it('hides other tenants, refuses bad ids and callers without view', async () => {
    expect((await h.as('alice').get(`/api/devices/${ids.beta1}/inventory/`)).statusCode).toBe(404);
    expect((await h.as('alice').get(`/api/devices/${ids.vm1}/inventory/`)).statusCode).toBe(404);
    const bad = await h.as('alice').get('/api/devices/not-an-id/inventory/');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toHaveProperty('id');
    expect((await h.as('nobody').get(`/api/devices/${ids.r1}/inventory/`)).statusCode).toBe(403);
  });
});

describe('custom fields as feature flags: bad input', () => {
  it('refuses names that are not lowercase with underscores, values of the wrong type and fields that do not apply', async () => {
    const alice = h.as('alice');
    for (const name of ['Has-NTP', '1flag', 'a b']) {
      const res = await alice.post('/api/custom-fields/', { name, type: 'boolean', object_types: ['dcim.device'] });
      expect(res.statusCode, name).toBe(400);
      expect(res.json(), name).toHaveProperty('name');
    }
    expect((await alice.get('/api/custom-fields/?limit=100')).json().results.map((f: { name: string }) => f.name)).toEqual(['ntp_managed', 'owner', 'rack_unit', 'vm_only']);
    const before = (await alice.get(`/api/devices/${ids.r1}/`)).json().custom_fields;
    const yes = await alice.patch(`/api/devices/${ids.r1}/`, { custom_fields: { ntp_managed: 'yes please' } });
    expect(yes.statusCode).toBe(400);
    expect(yes.json()).toHaveProperty(['custom_fields.ntp_managed']);
    const notForDevices = await alice.patch(`/api/devices/${ids.r1}/`, { custom_fields: { vm_only: true } });
    expect(notForDevices.statusCode).toBe(400);
    expect(notForDevices.json()).toHaveProperty(['custom_fields.vm_only']);
    expect((await alice.get(`/api/devices/${ids.r1}/`)).json().custom_fields).toEqual(before);
  });
});
