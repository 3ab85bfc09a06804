// A device's components as a NetBox user works them, in a real browser against `cairn serve` with demo data: an
// interface picked by its device first, then among that device's interfaces (20 at a time, "Show more" for the next);
// the picker's search matching "device name + interface name" and a device's name meaning that device (not the
// spine ports whose description names it); "Add components" making 48 interfaces from `Ethernet9/[1-48]` in one
// request, a bad pattern refused on the Name field; a row's Actions connecting a cable (far end by device, then
// port) and adding an IP address with the interface filled in. Each step saves a screenshot under test/web/screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, shot, type Browser, type WebServer } from '../helpers.ts';
import { openSession, type Page, type Row, type Session } from './fixtures.ts';

const ready = chromiumAvailable();

describe.skipIf(!ready)('device components in chromium', () => {
  let server: WebServer;
  let browser: Browser;
  let session: Session;
  let leaf: Row;
  let otherLeaf: Row;
  let mgmt: Row;
  let free: Row[];
  let otherFree: Row;

  beforeAll(async () => {
    // 10 devices: 4 spines, 2 borders, 2 firewalls and 2 leaves in one site; a leaf has ~30 interfaces.
    session = await openSession({ demoDevices: 10 });
    ({ server, browser } = session);
    [leaf, otherLeaf] = (await server.api<Page<Row>>('GET', '/api/devices/?role=leaf&limit=2&ordering=name')).body.results as [Row, Row];
    mgmt = (await server.api<Page<Row>>('GET', `/api/interfaces/?device_id=${leaf.id}&mgmt_only=true`)).body.results[0]!;
    free = (await server.api<Page<Row>>('GET', `/api/interfaces/?device_id=${leaf.id}&cabled=false&mgmt_only=false&type__n=lag&type__n=virtual&limit=1000`)).body.results;
    otherFree = (await server.api<Page<Row>>('GET', `/api/interfaces/?device_id=${otherLeaf.id}&cabled=false&mgmt_only=false&type__n=lag&type__n=virtual&limit=1`)).body.results[0]!;
    expect(free.length).toBeGreaterThan(2);
    // The spines' fabric ports are described with the leaf's name: the search below must not list them.
    const described = (await server.api<Page<Row>>('GET', `/api/interfaces/?description__ic=${encodeURIComponent(leaf.name)}&limit=1`)).body;
    expect(described.count).toBeGreaterThan(0);
  }, 300_000);

  afterAll(async () => {
    await session?.close();
  });

  const options = async (name: string) => {
    const list = browser.page.getByRole('listbox', { name });
    await list.locator('[role="option"]:not([data-show-more])').first().waitFor();
    return list.locator('[role="option"]:not([data-show-more])').allInnerTexts();
  };

  it("picks an address's interface by device, then among the device's interfaces, past the first 20", async () => {
    const { page } = browser;
    await page.goto(`${server.url}/objects/ipam.ipaddress/new`);
    const component = page.getByRole('combobox', { name: 'Assigned interface', exact: true });
    await component.waitFor();

    // Device name and interface name together, as the interface is shown.
    await component.fill(`${leaf.name} ${mgmt.name}`);
    await page.waitForFunction(
      ([name]) => [...document.querySelectorAll(`[role="listbox"][aria-label="Assigned interface"] [role="option"]`)].map((o) => o.textContent).join('|') === name,
      [`${leaf.name} › ${mgmt.name}`],
    );
    // The device's name alone: its interfaces only, not the spine ports whose description names it.
    await component.fill(leaf.name);
    await page.waitForFunction(([name]) => document.querySelector(`[role="listbox"][aria-label="Assigned interface"] [role="option"]`)?.textContent?.startsWith(name!), [`${leaf.name} › `]);
    expect((await options('Assigned interface')).every((o) => o.startsWith(`${leaf.name} › `))).toBe(true);
    await component.fill('');

    // The device first: the interface field then lists that device's interfaces only, 20 at a time.
    const device = page.getByRole('combobox', { name: 'Device of Assigned interface' });
    await device.fill(leaf.name);
    await page.getByRole('listbox', { name: 'Device of Assigned interface' }).getByRole('option', { name: leaf.name, exact: true }).click();
    await component.focus();
    const first = await options('Assigned interface');
    expect(first).toHaveLength(20);
    expect(first.every((o) => o.startsWith(`${leaf.name} › `))).toBe(true);
    const more = page.getByRole('listbox', { name: 'Assigned interface' }).locator('[data-show-more]');
    const total = (await server.api<Page<Row>>('GET', `/api/interfaces/?device_id=${leaf.id}&limit=1`)).body.count;
    expect(await more.innerText()).toBe(`Show more (20 of ${total} shown)`);
    await shot(page, 'dc01-interface-picker-scoped-by-device');
    await more.dispatchEvent('mousedown');
    await page.waitForFunction((n) => document.querySelectorAll('[role="listbox"][aria-label="Assigned interface"] [role="option"]:not([data-show-more])').length === n, Math.min(40, total));
    const last = free.at(-1)!;
    await component.fill(String(last.name));
    await page.getByRole('listbox', { name: 'Assigned interface' }).getByRole('option', { name: `${leaf.name} › ${last.name}`, exact: true }).click();
    await page.getByText(`${leaf.name} › ${last.name}`, { exact: true }).waitFor();
    await page.getByRole('textbox', { name: 'Address' }).fill('10.231.0.1/24');
    await shot(page, 'dc02-address-form-interface-picked');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/objects\/ipam\.ipaddress\/[0-9a-f-]{36}$/);
    const saved = (await server.api<Page<Row>>('GET', '/api/ip-addresses/?address=10.231.0.1/24')).body.results[0]!;
    expect((saved.assigned_interface as Row).id).toBe(last.id);
  });

  it('adds 48 interfaces to the device from one name pattern, and names a bad pattern on its field', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/objects/dcim.device/${leaf.id}?tab=interfaces`);
    await page.getByRole('button', { name: 'Add components' }).click();
    const dialog = page.getByRole('dialog', { name: `Add components to ${leaf.name}` });
    const name = dialog.getByRole('textbox', { name: 'Name' });
    await name.fill('Ethernet9/[48-1]');
    await dialog.getByRole('alert').filter({ hasText: 'runs backwards' }).waitFor();
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    await name.fill('Ethernet9/[1-48]');
    expect(await dialog.locator('[data-name-preview]').innerText()).toBe('48 interfaces: Ethernet9/1, Ethernet9/2 … Ethernet9/48');
    // No type: the API's answer (one 400 for the list) is shown on the Type field, and nothing is created.
    await dialog.getByRole('button', { name: 'Create 48 interfaces' }).click();
    const typeField = dialog.locator('[data-field^="field-type-"]');
    await typeField.getByRole('alert').waitFor();
    expect((await server.api<Page<Row>>('GET', `/api/interfaces/?device_id=${leaf.id}&name__isw=Ethernet9/&limit=1`)).body.count).toBe(0);
    await typeField.locator('select').selectOption('1000base-t');
    await name.scrollIntoViewIfNeeded();
    await shot(page, 'dc03-add-components-range');
    await dialog.getByRole('button', { name: 'Create 48 interfaces' }).click();
    await page.getByText(`Added 48 interfaces to ${leaf.name}.`).waitFor();
    await page.locator('tr[data-interface="Ethernet9/48"]').waitFor();
    const made = (await server.api<Page<Row>>('GET', `/api/interfaces/?device_id=${leaf.id}&name__isw=Ethernet9/&limit=100`)).body;
    expect(made.count).toBe(48);
    expect(made.results.every((i) => i.type === '1000base-t')).toBe(true);
  });

  it("connects a cable from a row's actions, the far end picked by device, then port", async () => {
    const { page } = browser;
    const port = free[0]!;
    await page.goto(`${server.url}/objects/dcim.device/${leaf.id}?tab=interfaces`);
    await page.getByRole('button', { name: `Actions for ${port.name}`, exact: true }).click();
    await page.getByRole('menuitem', { name: 'Connect a cable' }).click();
    const dialog = page.getByRole('dialog', { name: `Connect a cable to ${leaf.name} › ${port.name}` });
    await dialog.getByRole('list', { name: 'Chosen A side' }).getByText(`${leaf.name} › ${port.name}`).waitFor();
    await dialog.getByRole('combobox', { name: 'Device of B side' }).fill(otherLeaf.name);
    await dialog.getByRole('option', { name: otherLeaf.name, exact: true }).click();
    const b = dialog.getByRole('combobox', { name: 'B side', exact: true });
    await b.fill(String(otherFree.name));
    await dialog.getByRole('option', { name: `${otherLeaf.name} › ${otherFree.name}`, exact: true }).click();
    await shot(page, 'dc04-connect-cable-from-row');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('link', { name: `Cable to ${otherLeaf.name} › ${otherFree.name}` }).waitFor();
    const after = (await server.api<Row>('GET', `/api/interfaces/${port.id}/`)).body;
    expect((after.link_peer as { interface_id: string }).interface_id).toBe(otherFree.id);
  });

  it("adds an IP address from a row's actions with the interface filled in; the interface page offers the same", async () => {
    const { page } = browser;
    const port = free[1]!;
    await page.goto(`${server.url}/objects/dcim.device/${leaf.id}?tab=interfaces`);
    await page.getByRole('button', { name: `Actions for ${port.name}`, exact: true }).click();
    await page.getByRole('menuitem', { name: 'Add an IP address' }).click();
    const dialog = page.getByRole('dialog', { name: `Add an IP address to ${leaf.name} › ${port.name}` });
    await dialog.getByText(`${leaf.name} › ${port.name}`, { exact: true }).waitFor();
    await dialog.getByRole('textbox', { name: 'Address' }).fill('10.231.1.1/31');
    await shot(page, 'dc05-add-address-from-row');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.locator(`tr[data-interface="${port.name}"]`).getByRole('link', { name: '10.231.1.1/31' }).waitFor();
    await shot(page, 'dc06-interfaces-tab-after-actions');
    const saved = (await server.api<Page<Row>>('GET', '/api/ip-addresses/?address=10.231.1.1/31')).body.results[0]!;
    expect((saved.assigned_interface as Row).id).toBe(port.id);

    await page.goto(`${server.url}/objects/dcim.interface/${free[2]!.id}`);
    for (const action of ['Connect a cable', 'Add an IP address']) await page.getByRole('button', { name: action }).waitFor();
    await page.getByRole('link', { name: 'Trace', exact: true }).first().waitFor();
    await shot(page, 'dc07-interface-page-actions');
  });
});
