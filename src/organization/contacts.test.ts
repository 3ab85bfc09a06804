// Site groups, owners on existing models (with ?owner= and ?owner_group=), contacts and their assignments.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics } from '../../test/helpers/inventory.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

type Obj = Record<string, unknown> & { id: string };
let n = 0;
const next = () => ++n;

async function count(path: string): Promise<number> {
  return (await h.as('alice').get(path)).json().count as number;
}

async function contactSetup(): Promise<{ site: Obj; contact: Obj; role: Obj; role2: Obj }> {
  const alice = h.as('alice');
  const i = next();
  const site = await created(alice, '/api/sites/', { name: `C site ${i}`, slug: `c-site-${i}` });
  const group = await created(alice, '/api/contact-groups/', { name: `NOC ${i}`, slug: `noc-${i}` });
  const contact = await created(alice, '/api/contacts/', { name: `Ada ${i}`, group: group.id, email: `ada${i}@example.com`, phone: '+31 20 555 0100' });
  const role = await created(alice, '/api/contact-roles/', { name: `Operations ${i}`, slug: `ops-${i}` });
  const role2 = await created(alice, '/api/contact-roles/', { name: `Billing ${i}`, slug: `billing-${i}` });
  return { site, contact, role, role2 };
}

describe('site groups', () => {
  it('nest, group sites, refuse a cycle, and leave their sites ungrouped when deleted', async () => {
    const alice = h.as('alice');
    const top = await created(alice, '/api/site-groups/', { name: 'Corporate', slug: 'corporate' });
    const child = await created(alice, '/api/site-groups/', { name: 'Offices', slug: 'offices', parent: top.id });
    const site = await created(alice, '/api/sites/', { name: 'HQ', slug: 'hq', group: child.id });
    expect((site.group as Obj).id).toBe(child.id);
    expect((await alice.get(`/api/sites/?group=${child.id}`)).json().results.map((s: Obj) => s.name)).toEqual(['HQ']);

    const cycle = await alice.patch(`/api/site-groups/${top.id}/`, { parent: child.id });
    expect(cycle.statusCode).toBe(400);
    expect(cycle.json().parent[0]).toMatch(/cannot be placed under itself/);
    expect((await alice.get(`/api/site-groups/${top.id}/`)).json().parent).toBeNull();

    // A group with subgroups stays (as regions do); a leaf group goes and its sites stay, ungrouped.
    expect((await alice.delete(`/api/site-groups/${top.id}/`)).statusCode).toBe(409);
    expect((await alice.delete(`/api/site-groups/${child.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/sites/${site.id}/`)).json().group).toBeNull();
  });

  it('are the tenant\'s own: another tenant\'s group is no group', async () => {
    const mine = await created(h.as('alice'), '/api/site-groups/', { name: 'Alpha only', slug: 'alpha-only' });
    const res = await h.as('bob').post('/api/sites/', { name: 'B1', slug: 'b1', group: mine.id });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toHaveProperty('group');
    expect((await h.as('bob').get('/api/site-groups/')).json().count).toBe(0);
  });
});

describe('owners on existing models', () => {
  it('are set on sites, devices, prefixes and VMs, filtered by owner and by owner group with its subgroups', async () => {
    const alice = h.as('alice');
    const parentGroup = await created(alice, '/api/owner-groups/', { name: 'Customers', slug: 'customers' });
    const subGroup = await created(alice, '/api/owner-groups/', { name: 'Retail', slug: 'retail', parent: parentGroup.id });
    const acme = await created(alice, '/api/owners/', { name: 'Acme', slug: 'acme', group: subGroup.id });
    const other = await created(alice, '/api/owners/', { name: 'Other', slug: 'other' });
    const b = await inventoryBasics(alice);
    await alice.patch(`/api/sites/${b.site}/`, { owner: acme.id });
    const d1 = await createDevice(alice, b, 'own-1', { owner: acme.id });
    await createDevice(alice, b, 'own-2', { owner: other.id });
    await createDevice(alice, b, 'own-3');
    expect((d1.owner as Obj).id).toBe(acme.id);
    const prefix = await created(alice, '/api/prefixes/', { prefix: '10.77.0.0/16', owner: acme.id });
    expect((prefix.owner as Obj).display).toBe('Acme');
    const cluster = await created(alice, '/api/clusters/', { name: `Cl ${next()}`, owner: acme.id });
    expect((cluster.owner as Obj).id).toBe(acme.id);

    const names = async (q: string) => (await alice.get(`/api/devices/?${q}&ordering=name`)).json().results.map((d: Obj) => d.name);
    expect(await names(`owner=${acme.id}`)).toEqual(['own-1']);
    expect(await names(`owner_group=${parentGroup.id}`)).toEqual(['own-1']);
    expect(await names('owner_group=retail')).toEqual(['own-1']);
    expect((await alice.get(`/api/prefixes/?owner_group=customers`)).json().count).toBe(1);
    expect((await alice.get(`/api/sites/?owner_group=${subGroup.id}`)).json().results.map((s: Obj) => s.id)).toEqual([b.site]);

    // An owner in use stays.
    const del = await alice.delete(`/api/owners/${acme.id}/`);
    expect(del.statusCode).toBe(409);
    expect(del.json().detail).toMatch(/device/);
  });

  it('are the tenant\'s own: bob cannot give his device alice\'s owner, nor filter by her group', async () => {
    const acme = await created(h.as('alice'), '/api/owners/', { name: 'Alpha owner', slug: 'alpha-owner' });
    const bob = h.as('bob');
    const b = await inventoryBasics(bob);
    const res = await bob.post('/api/devices/', { name: 'bob-1', device_type: b.deviceType, role: b.role, site: b.site, owner: acme.id });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toHaveProperty('owner');
    expect((await bob.get('/api/devices/?owner_group=customers')).json().count).toBe(0);
  });
});

describe('contact assignments', () => {
  it('assign a contact to a site with a role and a priority, listed by object and by contact', async () => {
    const alice = h.as('alice');
    const { site, contact, role } = await contactSetup();
    const a = await created(alice, '/api/contact-assignments/', { object_type: 'organization.site', object_id: site.id, contact: contact.id, role: role.id, priority: 'primary' });
    expect(a).toMatchObject({ object_type: 'organization.site', object_id: site.id, priority: 'primary', display: contact.name });
    expect((a.contact as Obj).display).toBe(contact.name);
    // The object itself, as a brief naming its model (so the UI links it), in the answer and in lists.
    expect(a.object).toEqual({ object_type: 'organization.site', id: site.id, display: site.name });
    const byObject = (await alice.get(`/api/contact-assignments/?object_type=organization.site&object_id=${site.id}`)).json();
    expect(byObject.results.map((r: Obj) => [r.id, (r.object as Obj).display])).toEqual([[a.id, site.name]]);
    expect((await alice.get(`/api/contact-assignments/?contact=${contact.id}`)).json().count).toBe(1);
    expect((await alice.get('/api/dcim/choices/')).json().contact_priorities).toEqual([
      { value: 'primary', label: 'Primary' },
      { value: 'secondary', label: 'Secondary' },
      { value: 'tertiary', label: 'Tertiary' },
      { value: 'inactive', label: 'Inactive' },
    ]);
  });

  it('refuse an object type without contacts, an object that does not exist, a bad priority: 400 naming the field, nothing made', async () => {
    const alice = h.as('alice');
    const { site, contact, role } = await contactSetup();
    const before = await count('/api/contact-assignments/');
    const tag = await created(alice, '/api/tags/', { name: `T${next()}`, slug: `t-${n}` });
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ object_type: 'extras.tag', object_id: tag.id }, 'object_type', /not an object type contacts can be assigned to/],
      [{ object_type: 'circuits.nothing', object_id: site.id }, 'object_type', /not an object type/],
      [{ object_type: 'dcim.device', object_id: site.id }, 'object_id', /No device with id/],
      [{ object_type: 'organization.site', object_id: site.id, priority: 'urgent' }, 'priority', /./],
    ];
    for (const [body, field, message] of cases) {
      const res = await alice.post('/api/contact-assignments/', { object_type: 'organization.site', object_id: site.id, contact: contact.id, role: role.id, ...body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()[field]?.[0], res.body).toMatch(message);
    }
    expect(await count('/api/contact-assignments/')).toBe(before);
  });

  it('hold one role once per contact and object (NetBox\'s unique constraint), on create and on update', async () => {
    const alice = h.as('alice');
    const { site, contact, role, role2 } = await contactSetup();
    const body = { object_type: 'organization.site', object_id: site.id, contact: contact.id, role: role.id };
    await created(alice, '/api/contact-assignments/', body);
    const dup = await alice.post('/api/contact-assignments/', { ...body, priority: 'secondary' });
    expect(dup.statusCode).toBe(400);
    expect(dup.json().contact[0]).toMatch(/already has this role/);
    const second = await created(alice, '/api/contact-assignments/', { ...body, role: role2.id });
    const moved = await alice.patch(`/api/contact-assignments/${second.id}/`, { role: role.id });
    expect(moved.statusCode).toBe(400);
    expect(moved.json()).toHaveProperty('contact');
    expect((await alice.get(`/api/contact-assignments/?object_id=${site.id}`)).json().count).toBe(2);
  });

  it('find contacts by name, title and email address, in the global search and in a picker\'s q', async () => {
    const alice = h.as('alice');
    const c = await created(alice, '/api/contacts/', { name: 'Linus Searchable', title: 'Peering coordinator', email: 'peering-desk@example.org' });
    const found = (await alice.get('/api/search/?q=peering-desk')).json().results as Obj[];
    expect(found.find((r) => r.id === c.id)?.display).toBe('Linus Searchable');
    expect((await alice.get('/api/contacts/?q=coordinator')).json().results.map((r: Obj) => r.id)).toEqual([c.id]);
  });

  it('refuse a contact with a bad email address', async () => {
    const res = await h.as('alice').post('/api/contacts/', { name: 'No mail', email: 'not-an-address' });
    expect(res.statusCode).toBe(400);
    expect(res.json().email[0]).toMatch(/email address/);
    expect((await h.as('alice').get('/api/contacts/?name=No%20mail')).json().count).toBe(0);
  });

  it('go with their object, change-logged; a contact or role in use cannot be deleted', async () => {
    const alice = h.as('alice');
    const { site, contact, role } = await contactSetup();
    const b = await inventoryBasics(alice);
    const device = await createDevice(alice, b, `ca-dev-${next()}`);
    const onSite = await created(alice, '/api/contact-assignments/', { object_type: 'organization.site', object_id: site.id, contact: contact.id, role: role.id });
    const onDevice = await created(alice, '/api/contact-assignments/', { object_type: 'dcim.device', object_id: device.id, contact: contact.id, role: role.id, priority: 'tertiary' });

    expect((await alice.delete(`/api/contacts/${contact.id}/`)).statusCode).toBe(409);
    expect((await alice.delete(`/api/contact-roles/${role.id}/`)).statusCode).toBe(409);

    expect((await alice.delete(`/api/sites/${site.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/contact-assignments/${onSite.id}/`)).statusCode).toBe(404);
    const log = (await alice.get(`/api/changes/?object_type=tenancy.contactassignment&action=delete&object_id=${onSite.id}`)).json();
    expect(log.results).toHaveLength(1);
    expect(log.results[0].object_repr).toBe(contact.name);

    // Bulk deletes clean up too.
    const bulk = await alice.post('/api/devices/bulk-delete/', { ids: [device.id] });
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect((await alice.get(`/api/contact-assignments/${onDevice.id}/`)).statusCode).toBe(404);
    expect((await alice.delete(`/api/contacts/${contact.id}/`)).statusCode).toBe(204);
  });

  it('name objects of the caller\'s tenant only: alice\'s site is no object for bob', async () => {
    const { site } = await contactSetup();
    const bob = h.as('bob');
    const contact = await created(bob, '/api/contacts/', { name: 'Bob contact' });
    const role = await created(bob, '/api/contact-roles/', { name: 'Bob role', slug: 'bob-role' });
    const res = await bob.post('/api/contact-assignments/', { object_type: 'organization.site', object_id: site.id, contact: contact.id, role: role.id });
    expect(res.statusCode).toBe(400);
    expect(res.json().object_id[0]).toMatch(/No site with id/);
    expect((await bob.get('/api/contact-assignments/')).json().count).toBe(0);
    expect((await bob.get(`/api/contact-assignments/?object_id=${site.id}`)).json().count).toBe(0);
  });
});
