// Demo data, organisation: two site groups (core data centres and edge sites, alternating), two owner groups with
// three owners (an internal platform team and two customers), and a NOC contact group whose contacts are
// assigned to every site (operations, escalation, facilities). Written before the sites, whose rows then carry
// their group and owner (demo-data.ts's sites and devices steps), so nothing is updated afterwards.
import type { DemoRowWriter } from './demo-racks.ts';

export interface DemoOrganisation {
  /** The site group of the site at this plan index. */
  siteGroup(site: number): string;
  /** The owner of the site at this plan index (a third of the sites have none). */
  siteOwner(site: number): string | null;
  /** Border routers and firewalls belong to the platform team; leaves to their site's customer, if any. */
  deviceOwner(device: { site: number; role: string }): string | null;
}

const CONTACTS = [
  { name: 'NOC on-call', title: 'Network operations centre', phone: '+31 20 555 0100', email: 'noc@example.net', role: 0, priority: 'primary' },
  { name: 'Maria Jensen', title: 'Network engineering lead', phone: '+31 20 555 0142', email: 'm.jensen@example.net', role: 1, priority: 'secondary' },
  { name: 'Facilities desk', title: 'Data centre facilities', phone: '+31 20 555 0190', email: 'facilities@example.net', role: 2, priority: 'primary' },
] as const;
const ROLES = [
  { name: 'Operations', slug: 'operations', description: 'First call for incidents and changes' },
  { name: 'Escalation', slug: 'escalation', description: 'Called when operations cannot resolve it' },
  { name: 'Facilities', slug: 'facilities', description: 'Power, cooling and physical access' },
] as const;

/** Writes the organisation catalog and the contact assignments of `siteIds` (sites written next, by the caller). */
export async function writeOrganisation(w: DemoRowWriter, siteIds: string[]): Promise<DemoOrganisation> {
  w.begin();
  const sg = await w.identities('site_groups', 2);
  await w.insert('site_groups', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['description', 'text']], [
    sg.ids, sg.numids, ['Core data centres', 'Edge sites'], ['core-dc', 'edge'], ['Sites with a full spine-leaf fabric', 'Smaller sites close to users'],
  ]);

  const og = await w.identities('owner_groups', 2);
  await w.insert('owner_groups', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['description', 'text']], [
    og.ids, og.numids, ['Internal', 'Customers'], ['internal', 'customers'], ['Teams of our own', 'Customers with dedicated capacity'],
  ]);
  const ow = await w.identities('owners', 3);
  await w.insert('owners', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['group_id', 'uuid'], ['description', 'text']], [
    ow.ids, ow.numids, ['Platform Engineering', 'Acme Retail', 'Globex Bank'], ['platform-engineering', 'acme-retail', 'globex-bank'],
    [og.ids[0], og.ids[1], og.ids[1]], ['Runs the shared network', 'Retail customer', 'Banking customer'],
  ]);
  const [platform, ...customers] = ow.ids as [string, string, string];
  // Site i: platform team, Acme, Globex, none, … so each owner and "no owner" show up in the lists.
  const siteOwner = (site: number): string | null => [platform, customers[0]!, customers[1]!, null][site % 4]!;

  const cg = await w.identities('contact_groups', 1);
  await w.insert('contact_groups', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['description', 'text']], [
    cg.ids, cg.numids, ['NOC'], ['noc'], ['Network operations and the people it escalates to'],
  ]);
  const cr = await w.identities('contact_roles', ROLES.length);
  await w.insert('contact_roles', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['description', 'text']], [
    cr.ids, cr.numids, ROLES.map((r) => r.name), ROLES.map((r) => r.slug), ROLES.map((r) => r.description),
  ]);
  const ct = await w.identities('contacts', CONTACTS.length);
  await w.insert('contacts', [['id', 'uuid'], ['numid', 'int8'], ['group_id', 'uuid'], ['name', 'text'], ['title', 'text'], ['phone', 'text'], ['email', 'text']], [
    ct.ids, ct.numids, CONTACTS.map(() => cg.ids[0]), CONTACTS.map((c) => c.name), CONTACTS.map((c) => c.title), CONTACTS.map((c) => c.phone), CONTACTS.map((c) => c.email),
  ]);
  // Every contact on every site, in its role.
  const assignments = siteIds.flatMap((site) => CONTACTS.map((c, i) => ({ site, contact: ct.ids[i]!, role: cr.ids[c.role]!, priority: c.priority })));
  const ca = await w.identities('contact_assignments', assignments.length);
  await w.insert('contact_assignments', [['id', 'uuid'], ['numid', 'int8'], ['object_type', 'text'], ['object_id', 'uuid'], ['contact_id', 'uuid'], ['role_id', 'uuid'], ['priority', 'text']], [
    ca.ids, ca.numids, assignments.map(() => 'organization.site'), assignments.map((a) => a.site), assignments.map((a) => a.contact), assignments.map((a) => a.role),
    assignments.map((a) => a.priority),
  ]);
  w.report('site groups, owners and contacts', 2 + 2 + 3 + 1 + ROLES.length + CONTACTS.length + assignments.length);

  return {
    siteGroup: (site) => sg.ids[site % 2]!,
    siteOwner,
    deviceOwner: ({ site, role }) => {
      if (role === 'border' || role === 'firewall') return platform;
      const owner = siteOwner(site);
      return role === 'leaf' && owner !== platform ? owner : null;
    },
  };
}
