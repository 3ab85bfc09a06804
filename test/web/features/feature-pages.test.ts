// Feature pages in a real browser against a real `cairn serve`: write an export template (a broken one first, the
// error marked on its line), preview it and download it; toggle monitoring on a service from a device's Services
// tab and from the service's page; see a device's Config drift badge flip as push records arrive through the API.
// Each step saves a screenshot under test/web/screenshots/.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { chromiumAvailable, shot, type Browser, type WebServer } from '../helpers.ts';
import { openSession, type Page, type Row, type Session } from './fixtures.ts';


const ready = chromiumAvailable();

async function hasText(locator: Locator, text: string): Promise<void> {
  await locator.filter({ hasText: text }).first().waitFor();
  expect(await locator.first().innerText()).toContain(text);
}

describe.skipIf(!ready)('feature pages in chromium', () => {
  let server: WebServer;
  let browser: Browser;
  let device: Row;
  let session: Session;

  beforeAll(async () => {
    session = await openSession({ demoDevices: 5 });
    ({ server, browser } = session);
    device = (await server.api<Page<Row>>('GET', '/api/devices/?limit=1&ordering=name')).body.results[0]!;
  }, 300_000);

  afterAll(async () => {
    await session?.close();
  });

  it('creates an export template (error on its line first), previews it and downloads the render', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/export-templates/new`);
    await page.getByRole('form', { name: 'Create export template' }).waitFor();
    await page.getByLabel(/^Name/).fill('web-device-names');
    await page.getByLabel('Object type').selectOption('dcim.device');
    await page.getByLabel('File extension').fill('csv');
    await page.getByLabel('MIME type').fill('text/csv');
    // An unclosed for loop: the server names the line, the editor marks it.
    await page.locator('#et-code').fill('name,serial\n{% for d in queryset %}\n{{ d.name }},{{ d.serial }}\n');
    await page.getByRole('button', { name: 'Create' }).click();
    const error = page.getByTestId('template-error');
    await error.waitFor();
    expect(await error.innerText()).toMatch(/^Line \d+:/);
    const marked = Number(/^Line (\d+):/.exec(await error.innerText())![1]);
    expect(await page.locator('[data-error-line]').innerText()).toContain(String(marked));
    expect(await page.locator('#et-code').getAttribute('aria-invalid')).toBe('true');
    await shot(page, 'f01-template-error-on-line');
    expect((await server.api<Page<Row>>('GET', '/api/export-templates/?name=web-device-names')).body.count).toBe(0);

    await page.locator('#et-code').fill('name,serial\n{% for d in queryset %}\n{{ d.name }},{{ d.serial }}\n{% endfor %}\n');
    await page.getByRole('button', { name: 'Run preview' }).click();
    const total = (await server.api<Page<Row>>('GET', '/api/devices/?limit=1')).body.count;
    await hasText(page.getByTestId('preview-count'), `${total} rows`);
    expect(await page.getByTestId('preview-output').innerText()).toContain(device.name);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Edit web-device-names' }).waitFor();
    // The preview run before saving stays on the page.
    expect(await page.getByTestId('preview-output').innerText()).toContain(device.name);
    await shot(page, 'f02-template-saved-with-preview');
    const saved = (await server.api<Page<Row>>('GET', '/api/export-templates/?name=web-device-names')).body.results[0]!;
    expect(saved.object_type).toBe('dcim.device');
    expect(new URL(page.url()).pathname).toBe(`/export-templates/${saved.id}/editor`);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Render & download' }).click()]);
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    const file = readFileSync((await download.path())!, 'utf8');
    const lines = file.trim().split('\n');
    expect(lines[0]).toBe('name,serial');
    expect(lines.length).toBe(total + 1);
    expect(lines).toContain(`${device.name},${String(device.serial ?? '')}`);

    // The detail page: Template tab with the highlighted source and a preview of the saved template.
    await page.goto(`${server.url}/objects/extras.exporttemplate/${saved.id}?tab=template`);
    await page.getByRole('button', { name: 'Run preview' }).click();
    await hasText(page.getByTestId('preview-count'), `${total} rows`);
    await shot(page, 'f03-template-detail');
  });

  it('toggles monitoring on a service from the Services tab and from its own page', async () => {
    const { page } = browser;
    const created = await server.api<Row>('POST', '/api/services/', { device: device.id, name: 'web-ssh', protocol_ports: { tcp: [22] }, monitored: false });
    expect(created.status).toBe(201);
    await page.goto(`${server.url}/objects/dcim.device/${device.id}?tab=services`);
    const item = page.locator('[data-service="web-ssh"]');
    await item.getByText('Not monitored', { exact: true }).waitFor();
    const toggle = item.getByRole('switch', { name: 'Monitor web-ssh' });
    await toggle.check();
    await item.getByText('Monitored', { exact: true }).waitFor();
    expect(await item.getByText('Not monitored', { exact: true }).count()).toBe(0);
    await page.getByText(/web-ssh is monitored/).waitFor();
    await shot(page, 'f04-services-tab-monitored');
    expect((await server.api<Row>('GET', `/api/services/${created.body.id}/`)).body.monitored).toBe(true);

    await page.goto(`${server.url}/objects/monitoring.service/${created.body.id}`);
    const own = page.getByRole('switch', { name: 'Monitor web-ssh' });
    expect(await own.isChecked()).toBe(true);
    await own.uncheck();
    await page.getByText('web-ssh is no longer monitored.').waitFor();
    await shot(page, 'f05-service-page-unmonitored');
    expect((await server.api<Row>('GET', `/api/services/${created.body.id}/`)).body.monitored).toBe(false);

    // One Edit in the header (the service dialog), not the generic edit page's link beside it.
    const header = page.getByRole('main');
    expect(await header.getByRole('button', { name: 'Edit', exact: true }).count()).toBe(1);
    expect(await header.getByRole('link', { name: 'Edit', exact: true }).count()).toBe(0);
    // Edit: a port out of range is refused with the API's message on the ports, and nothing changes.
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const dialog = page.getByRole('form', { name: 'Edit service web-ssh' });
    await dialog.getByLabel('TCP ports').fill('22, 70000');
    await page.getByRole('button', { name: 'Save' }).click();
    await dialog.getByRole('alert').waitFor();
    expect(await dialog.getByRole('alert').innerText()).toMatch(/^Ports: .+/);
    expect(await dialog.getByLabel('TCP ports').getAttribute('aria-invalid')).toBe('true');
    expect(await dialog.getByLabel('UDP ports').getAttribute('aria-invalid')).toBeNull();
    await shot(page, 'f05b-service-edit-port-error');
    expect((await server.api<Row>('GET', `/api/services/${created.body.id}/`)).body.protocol_ports).toEqual({ tcp: [22] });
    await dialog.getByLabel('TCP ports').fill('22, 2222');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved web-ssh.').waitFor();
    expect((await server.api<Row>('GET', `/api/services/${created.body.id}/`)).body.protocol_ports).toEqual({ tcp: [22, 2222] });
  });

  it('ticks Monitor on a device type\'s service template (Components → Services)', async () => {
    const { page } = browser;
    const deviceType = (await server.api<Page<Row>>('GET', '/api/device-types/?limit=1')).body.results[0]!;
    const created = await server.api<Row>('POST', '/api/device-type-services/', { device_type: deviceType.id, name: 'web-type-syslog', protocol_ports: { udp: [514] }, monitor: false });
    expect(created.status).toBe(201);
    await page.goto(`${server.url}/objects/dcim.devicetype/${deviceType.id}?tab=services`);
    const tick = page.getByRole('checkbox', { name: 'Monitor web-type-syslog' });
    expect(await tick.isChecked()).toBe(false);
    // A click (not check(): the tick follows the saved row, so it settles once the server has answered).
    await tick.click();
    await page.getByText('web-type-syslog: new services are monitored.').waitFor();
    await expect.poll(() => tick.isChecked()).toBe(true);
    expect((await server.api<Row>('GET', `/api/device-type-services/${created.body.id}/`)).body.monitor).toBe(true);
    await shot(page, 'f06-device-type-services-monitor');
    await tick.click();
    await page.getByText('web-type-syslog: new services are not monitored.').waitFor();
    await expect.poll(() => tick.isChecked()).toBe(false);
    expect((await server.api<Row>('GET', `/api/device-type-services/${created.body.id}/`)).body.monitor).toBe(false);
  });

  it('works in a narrow window: the menu opens the navigation and a device page fits', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${server.url}/`);
      const nav = page.getByRole('navigation', { name: 'Main' });
      // The side navigation is folded away behind Menu until asked for.
      await page.getByRole('button', { name: 'Menu' }).waitFor();
      expect(await nav.isVisible()).toBe(false);
      await page.getByRole('button', { name: 'Menu' }).click();
      await nav.waitFor({ state: 'visible' });
      await shot(page, 'f20-narrow-nav-open');
      await nav.getByText('Devices', { exact: true }).first().click();
      await nav.getByRole('link', { name: 'Devices', exact: true }).click();
      await nav.waitFor({ state: 'hidden' });
      await page.getByRole('heading', { name: 'Devices', level: 1 }).waitFor();
      await page.goto(`${server.url}/objects/dcim.device/${device.id}`);
      await page.getByRole('heading', { name: device.name, level: 1 }).waitFor();
      await page.getByRole('tablist').waitFor();
      // Nothing wider than the window: the page does not scroll sideways.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await shot(page, 'f21-narrow-device-page');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('shows the Config drift badge flip as push records arrive', async () => {
    const { page } = browser;
    const tpl = await server.api<Row>('POST', '/api/export-templates/', { name: 'web-device-config', object_type: 'dcim.device', template_code: 'hostname {{ device.name }}\n', file_extension: 'cfg' });
    expect(tpl.status).toBe(201);
    expect((await server.api('PATCH', `/api/devices/${device.id}/`, { config_template_id: tpl.body.id })).status).toBe(200);
    const file = (await server.api<{ path: string; sha256: string; output: string }>('GET', `/api/devices/${device.id}/render/`)).body;
    expect(file.sha256).toBe(createHash('sha256').update(`hostname ${device.name}`).digest('hex'));

    await page.goto(`${server.url}/objects/dcim.device/${device.id}?tab=config`);
    const card = page.locator(`[data-config-file="${file.path}"]`);
    await hasText(card, 'Never pushed');
    await hasText(page.getByRole('region', { name: 'Config template binding' }), 'web-device-config');
    await hasText(page.getByRole('region', { name: 'Config template binding' }), 'this device');
    await shot(page, 'f06-config-never-pushed');

    // A push of exactly what renders now: the badge says it matches.
    expect((await server.api('POST', `/api/devices/${device.id}/config-pushed/`, { path: file.path, output: file.output, source: 'web-test' })).status).toBe(201);
    await page.getByRole('button', { name: 'Render again' }).click();
    await hasText(card, 'Matches last push');
    await shot(page, 'f07-config-matches');

    // A push of something else: the badge flips and the diff shows the two sides.
    expect((await server.api('POST', `/api/devices/${device.id}/config-pushed/`, { path: file.path, output: 'hostname old-name\n', source: 'web-test' })).status).toBe(201);
    await page.getByRole('button', { name: 'Render again' }).click();
    await hasText(card, 'Changed since last push');
    await card.getByRole('button', { name: 'Diff' }).click();
    const diff = card.getByLabel('Diff against the last push');
    await hasText(diff, '-hostname old-name');
    await hasText(diff, `+hostname ${device.name}`);
    await shot(page, 'f08-config-drift-diff');
  });

  it('lists prefixes with their utilisation as a bar, and finds one by an address inside it', async () => {
    const { page } = browser;
    const parent = await server.api<Row>('POST', '/api/prefixes/', { prefix: '10.77.0.0/29', description: 'web utilisation' });
    expect(parent.status).toBe(201);
    expect((await server.api('POST', `/api/prefixes/${parent.body.id}/available-ips/`, [{}, {}, {}, {}, {}])).status).toBe(201);
    await page.goto(`${server.url}/objects/ipam.prefix?q=10.77.0.3`);
    const meter = page.getByRole('meter', { name: 'Utilisation' }).first();
    await meter.waitFor();
    expect(await meter.getAttribute('aria-valuenow')).toBe('83.3');
    await hasText(page.locator('main'), '10.77.0.0/29');
    // The prefixes holding an address come closest first: no tree is drawn, so no child stands indented above its parent.
    expect(await page.locator('main table').innerText()).not.toContain('└');
    await shot(page, 'f09-prefix-utilisation');
  });

  it('a prefix page shows its parents, children, free blocks and addresses, and allocates from them', async () => {
    const { page } = browser;
    const top = await server.api<Row>('POST', '/api/prefixes/', { prefix: '10.78.0.0/16', status: 'container', description: 'web hierarchy' });
    expect(top.status, JSON.stringify(top.body)).toBe(201);
    const mid = await server.api<Row>('POST', '/api/prefixes/', { prefix: '10.78.0.0/24', description: 'web servers' });
    expect((await server.api('POST', '/api/prefixes/', { prefix: '10.78.0.0/26', description: 'web racks' })).status).toBe(201);
    const iface = (await server.api<Page<Row>>('GET', `/api/interfaces/?device_id=${device.id}&limit=1`)).body.results[0]!;
    expect((await server.api('POST', '/api/ip-addresses/', { address: '10.78.0.70/24', dns_name: 'web70.example.net', assigned_interface: iface.id })).status).toBe(201);

    // The prefix list indents by depth: the /26 sits two levels in.
    await page.goto(`${server.url}/objects/ipam.prefix?q=10.78.`);
    await page.getByTitle('Inside 2 prefixes').first().waitFor();

    await page.goto(`${server.url}/objects/ipam.prefix/${mid.body.id}?tab=space`);
    await hasText(page.getByRole('list', { name: 'Containing prefixes' }), '10.78.0.0/16');
    const spaceTable = page.getByTestId('prefix-space');
    await hasText(spaceTable, '10.78.0.0/26');
    await hasText(spaceTable, '10.78.0.64/26');
    await hasText(page.getByTestId('prefix-addresses'), `${device.name} › ${iface.name}`);
    await shot(page, 'f10-prefix-space');

    // A free block is one click from being a prefix, which opens.
    await page.getByRole('button', { name: 'Create prefix 10.78.0.64/26' }).click();
    await page.getByRole('heading', { name: '10.78.0.64/26' }).waitFor();
    // Next free address in it, saved at once: .65, opened.
    await page.getByRole('button', { name: 'Save the next free address at once' }).click();
    await page.getByRole('heading', { name: '10.78.0.65/26' }).waitFor();
    // Carving a /28 from the /24 takes its first free /28 (after the /26 and the new /26): 10.78.0.128/28.
    await page.goto(`${server.url}/objects/ipam.prefix/${mid.body.id}`);
    // Its own page draws no tree: the /24 is not indented there (its depth is a field of its own).
    const ownPrefix = page.locator('[data-overview-field="prefix"] dd');
    await hasText(ownPrefix, '10.78.0.0/24');
    expect(await ownPrefix.innerText()).not.toContain('└');
    await page.getByRole('button', { name: 'Carve child prefix' }).click();
    await page.getByLabel('Prefix length').fill('28');
    await page.getByRole('button', { name: 'Carve', exact: true }).click();
    await page.getByRole('heading', { name: '10.78.0.128/28' }).waitFor();
    await shot(page, 'f11-prefix-carved');
    // A prefix without children is not offered as a free block of itself (creating it would be its duplicate).
    await page.goto(`${page.url().split('?')[0]}?tab=space`);
    await page.getByText('No child prefixes', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Create prefix 10.78.0.128/28' }).count()).toBe(0);
  });

  it("a device's Interfaces tab shows each interface's addresses and the far end of its cable", async () => {
    const { page } = browser;
    const cabled = (await server.api<Page<Row>>('GET', '/api/interfaces/?cabled=true&limit=1')).body.results[0]!;
    const owner = cabled.device as Row;
    const peer = cabled.link_peer as { device: string; interface: string };
    const address = (await server.api<Page<Row>>('GET', `/api/ip-addresses/?device_id=${owner.id}&limit=1`)).body.results[0]!;
    await page.goto(`${server.url}/objects/dcim.device/${owner.id}`);
    await page.getByRole('tab', { name: 'Interfaces' }).click();
    const table = page.getByRole('table', { name: 'Interfaces' });
    await table.waitFor();
    const row = table.locator(`tr[data-interface="${cabled.name}"]`);
    await hasText(row, `${peer.device} › ${peer.interface}`);
    const holder = table.locator(`tr[data-interface="${(address.assigned_interface as Row).name}"]`);
    await hasText(holder, String(address.address));
    // Labels, not codes: the type as the choices catalog names it, here and in the interface list.
    const types = (await server.api<Record<string, Array<{ value: string; label: string }>>>('GET', '/api/dcim/choices/')).body.interface_types!;
    const typeLabel = types.find((t) => t.value === cabled.type)!.label;
    expect(typeLabel).not.toBe(cabled.type);
    await hasText(row, typeLabel);
    await shot(page, 'f20-device-interfaces');
    // The far end is a link to that interface, whose page names its device.
    await row.getByRole('link', { name: peer.interface, exact: true }).click();
    await page.getByRole('heading', { name: `${peer.device} › ${peer.interface}` }).waitFor();
    await page.goto(`${server.url}/objects/dcim.interface?device_id=${owner.id}&name=${encodeURIComponent(String(cabled.name))}`);
    await hasText(page.getByRole('row').filter({ hasText: String(cabled.name) }), typeLabel);
    // Where its cable goes is a default column of the interface list, as on the device's tab.
    await hasText(page.getByRole('row').filter({ hasText: String(cabled.name) }), `${peer.device} › ${peer.interface}`);
    // The filter chip names the device, not its id.
    await hasText(page.getByRole('list', { name: 'Active filters' }), `Device: ${String(owner.name)}`);
    expect(await page.getByRole('list', { name: 'Active filters' }).innerText()).not.toContain(owner.id);
    await shot(page, 'f20b-interface-list-labels');

    // Bulk edit from the tab: the filter narrows the rows, "select all shown" picks them, one dialog edits them.
    await page.goto(`${server.url}/objects/dcim.device/${owner.id}`);
    await page.getByRole('tab', { name: 'Interfaces' }).click();
    await table.waitFor();
    const all = (await server.api<Page<Row>>('GET', `/api/interfaces/?device_id=${owner.id}&limit=1000`)).body.results;
    const fragment = String(cabled.name).slice(0, -1);
    const matching = all.filter((i) => String(i.name).toLowerCase().includes(fragment.toLowerCase()) || String(i.description).toLowerCase().includes(fragment.toLowerCase()));
    await page.getByPlaceholder('Name, address, far device…').fill(fragment);
    await page.getByRole('checkbox', { name: 'Select all interfaces shown' }).check();
    await page.getByRole('button', { name: 'Edit selected' }).click();
    const dialog = page.getByRole('dialog', { name: /^Edit \d+ interfaces?$/ });
    await dialog.getByRole('checkbox', { name: 'Change Description' }).check();
    await dialog.getByLabel('Description', { exact: true }).fill('patched in bulk');
    await shot(page, 'f20c-interfaces-tab-bulk-edit');
    await dialog.getByRole('button', { name: /^Apply to \d+$/ }).click();
    await page.getByText(/^Updated \d+ interfaces?\.$/).waitFor();
    await hasText(table.locator(`tr[data-interface="${cabled.name}"]`), 'patched in bulk');
    const after = (await server.api<Page<Row>>('GET', `/api/interfaces/?device_id=${owner.id}&limit=1000`)).body.results;
    const changed = after.filter((i) => i.description === 'patched in bulk').map((i) => i.id);
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.length).toBeLessThan(after.length);
    expect(changed).toContain(cabled.id);
    // The rows the filter hid kept their own description.
    for (const i of after) if (!changed.includes(i.id)) expect(i.description).toBe(all.find((a) => a.id === i.id)!.description);
    expect(matching.length).toBeGreaterThanOrEqual(changed.length);
  });

  it('the home page counts what the tenant holds and what to look at, each a link to its list', async () => {
    const { page } = browser;
    const devices = (await server.api<Page<Row>>('GET', '/api/devices/?limit=1')).body.count;
    const prefixes = (await server.api<Page<Row>>('GET', '/api/prefixes/?limit=1')).body.count;
    const violations = (await server.api<Page<Row>>('GET', '/api/compliance/violations/?limit=1')).body.count;
    await page.goto(`${server.url}/`);
    const counts = page.getByRole('region', { name: 'In this tenant' });
    await counts.getByRole('link', { name: `Devices: ${devices}` }).waitFor();
    await counts.getByRole('link', { name: `Prefixes: ${prefixes}` }).waitFor();
    await page.getByRole('region', { name: 'To look at' }).getByRole('link', { name: `Open compliance violations: ${violations}` }).waitFor();
    await shot(page, 'f21-home-counts');
    await counts.getByRole('link', { name: `Devices: ${devices}` }).click();
    await page.waitForURL(/\/objects\/dcim\.device/);
  });

  it('a VLAN group and an IP range hand out their next free VLAN and address from their pages', async () => {
    const { page } = browser;
    const group = (await server.api<Row>('POST', '/api/vlan-groups/', { name: 'web-pool', slug: 'web-pool', min_vid: 300, max_vid: 310 })).body;
    expect((await server.api<Row>('POST', '/api/vlans/', { vid: 300, name: 'taken', group: group.id })).status).toBe(201);
    await page.goto(`${server.url}/objects/ipam.vlangroup/${group.id}`);
    await page.getByRole('button', { name: 'Next free VLAN' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('web-guests');
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'web-guests' }).waitFor();
    expect((await server.api<Page<Row>>('GET', '/api/vlans/?name=web-guests')).body.results[0]).toMatchObject({ vid: 301 });

    const range = (await server.api<Row>('POST', '/api/ip-ranges/', { start_address: '10.199.0.10/24', end_address: '10.199.0.20/24' })).body;
    await page.goto(`${server.url}/objects/ipam.iprange/${range.id}`);
    await page.getByRole('button', { name: 'Save the next free address at once' }).click();
    await page.getByRole('heading', { name: '10.199.0.10/24' }).waitFor();
    await shot(page, 'f22-range-next-free-address');
  });

  it("a read-only model's edit and add pages say the caller cannot, with nothing to retry", async () => {
    const { page } = browser;
    const change = (await server.api<Page<Row>>('GET', '/api/changes/?limit=1')).body.results[0]!;
    await page.goto(`${server.url}/objects/core.objectchange/${change.id}/edit`);
    await page.getByText('You cannot edit changes.').waitFor();
    expect(await page.getByRole('alert').innerText()).toContain('You do not have access to this.');
    // The form used to load and fail on its first request: the permission's code, and a retry that could not help.
    expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    expect(await page.locator('main').innerText()).not.toContain('objectchange');
    await shot(page, 'f23-read-only-edit');
    await page.goto(`${server.url}/objects/core.objectchange/new`);
    await page.getByText('You cannot add changes.').waitFor();
  });

  it('keeps the console free of errors', () => {
    // 400s are the template error the first test provokes; the 401 is /api/auth/me/ before signing in.
    expect(browser.errors.filter((e) => !/status of 40[01]/.test(e))).toEqual([]);
  });
});
