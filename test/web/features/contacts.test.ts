// Contacts in a real browser against a real `cairn serve` with demo data: a site's Contacts tab lists the demo's
// NOC contacts with their roles, priorities and email addresses; a contact assigned through the tab's form
// (picked by typing, with a role and a priority) appears in the list and through the API. Screenshots under
// test/web/screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, shot, type Browser, type WebServer } from '../helpers.ts';
import { openSession, type Page, type Row, type Session } from './fixtures.ts';

const ready = chromiumAvailable();

describe.skipIf(!ready)('contacts in chromium', () => {
  let server: WebServer;
  let browser: Browser;
  let session: Session;

  beforeAll(async () => {
    session = await openSession({ demoDevices: 10 });
    ({ server, browser } = session);
  }, 300_000);

  afterAll(async () => {
    await session?.close();
  });

  it('assigns a contact to a site from its Contacts tab and lists it beside the demo\'s', async () => {
    const { page } = browser;
    const site = (await server.api<Page<Row>>('GET', '/api/sites/?limit=1&ordering=name')).body.results[0]!;
    const made = await server.api<Row>('POST', '/api/contacts/', { name: 'Grace Hopper', title: 'On-call engineer', email: 'grace@example.net', phone: '+1 555 0199' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);

    await page.goto(`${server.url}/objects/organization.site/${site.id}?tab=contacts`);
    const list = page.getByRole('table', { name: 'Contacts' });
    await list.getByRole('link', { name: 'NOC on-call' }).waitFor();
    // Email addresses and phone numbers come from each contact's own row, read after the list.
    await list.getByText('noc@example.net').waitFor();

    const contact = page.getByRole('combobox', { name: 'Contact', exact: true });
    await contact.click();
    await contact.fill('Grace');
    await page.getByRole('listbox', { name: 'Contact', exact: true }).getByRole('option', { name: 'Grace Hopper' }).click();
    const role = page.getByRole('combobox', { name: 'Role', exact: true });
    await role.click();
    await role.fill('Escal');
    await page.getByRole('listbox', { name: 'Role', exact: true }).getByRole('option', { name: 'Escalation' }).click();
    await page.getByLabel('Priority').selectOption('secondary');
    await page.getByRole('button', { name: 'Assign contact' }).click();

    const row = list.getByRole('row').filter({ has: page.getByRole('link', { name: 'Grace Hopper' }) });
    await row.waitFor();
    await row.getByText('grace@example.net').waitFor();
    expect(await row.innerText()).toMatch(/Escalation\s+Secondary/);
    await shot(page, 'c01-site-contacts-assigned');

    const assigned = (await server.api<Page<Row>>('GET', `/api/contact-assignments/?object_id=${site.id}&contact=${made.body.id}`)).body.results;
    expect(assigned.map((a) => [(a.role as Row).display, a.priority])).toEqual([['Escalation', 'secondary']]);

    // The same contact in the same role again is refused, the message shown by the picker.
    await contact.click();
    await contact.fill('Grace');
    await page.getByRole('listbox', { name: 'Contact', exact: true }).getByRole('option', { name: 'Grace Hopper' }).click();
    await role.click();
    await role.fill('Escal');
    await page.getByRole('listbox', { name: 'Role', exact: true }).getByRole('option', { name: 'Escalation' }).click();
    await page.getByRole('button', { name: 'Assign contact' }).click();
    await page.getByText('This contact already has this role on this site.').waitFor();
    await shot(page, 'c02-site-contacts-refused-twice');
  });

  it('shows a site\'s group and owner on its Overview, linked to their pages', async () => {
    const { page } = browser;
    const site = (await server.api<Page<Row>>('GET', '/api/sites/?owner__isnull=false&limit=1&ordering=name')).body.results[0]!;
    const group = site.group as Row;
    const owner = site.owner as Row;
    await page.goto(`${server.url}/objects/organization.site/${site.id}`);
    const main = page.locator('main');
    await main.getByRole('link', { name: String(owner.display) }).waitFor();
    await main.getByRole('link', { name: String(group.display) }).waitFor();
    expect(await main.innerText()).toMatch(/Site group\s*(Core data centres|Edge sites)/);
    await shot(page, 'c03-site-overview-group-owner');
  });
});
