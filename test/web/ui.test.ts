// The web UI in a real browser against a real `cairn serve`: sign in, create a device (with a field error on the
// way), flip a boolean custom-field flag, bulk edit three devices, and the "Updated" toast of a newer build.
// Each step saves a screenshot under test/web/screenshots/.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromiumAvailable, openBrowser, publishBuildId, shot, signIn, startServer, type Browser, type WebServer } from './helpers.ts';
import type { Page, Row } from './features/fixtures.ts';

/** A device as the API answers it: the fields these tests read beyond id and name. */
interface Device extends Row {
  display: string;
  status: { id: string; display: string } | null;
  custom_fields: Record<string, unknown>;
}

const ready = chromiumAvailable();

describe.skipIf(!ready)('web UI in chromium', () => {
  let server: WebServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer({ demoDevices: 12 });
    browser = await openBrowser();
  }, 300_000);

  // Every test but the sign-in one starts signed in, also when run alone (vitest -t).
  beforeEach(async (ctx) => {
    if (ctx.task.name.startsWith('signs in')) return;
    if (!(await browser.context.cookies()).some((c) => c.name === 'cairn_session')) await signIn(browser.page, server);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('signs in through the form and lands where it was sent from', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/objects/dcim.device`);
    await page.getByRole('heading', { name: 'Sign in to Cairn' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectText(page.getByRole('alert'), 'Invalid username or password.');
    await shot(page, '01-sign-in-refused');
    await page.getByLabel('Password').fill('web-test-admin-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Devices' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/objects/dcim.device');
    const total = (await server.api<Page<Device>>('GET', '/api/devices/?limit=1')).body.count;
    await expectText(page.getByTestId('page-range'), `1–${total} of ${total}`);
    await shot(page, '02-device-list');
  });

  it('creates a device, showing the API error on its field first', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/objects/dcim.device/new`);
    const form = page.getByRole('form', { name: 'Create device' });
    await form.waitFor();
    // Name left empty: the API answers 400 naming the field, shown under it.
    await pick(page, 'Device type', '');
    await pick(page, 'Role', '');
    await pick(page, 'Site', '');
    await page.getByRole('button', { name: 'Create' }).click();
    const nameField = page.locator('[data-field^="field-name-"]');
    await nameField.getByRole('alert').waitFor();
    expect(await nameField.getByRole('textbox').getAttribute('aria-invalid')).toBe('true');
    await shot(page, '03-create-device-field-error');
    expect((await server.api<Page<Device>>('GET', '/api/devices/?name=web-created-1')).body.count).toBe(0);

    await nameField.getByRole('textbox').fill('web-created-1');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'web-created-1' }).waitFor();
    await shot(page, '04-created-device');
    const found = await server.api<Page<Device>>('GET', '/api/devices/?name=web-created-1');
    expect(found.body.count).toBe(1);
    const device = found.body.results[0]!;
    expect(new URL(page.url()).pathname).toBe(`/objects/dcim.device/${device.id}`);
    // The pickers sent real ids: the device has the type, role and site that were picked.
    for (const key of ['device_type', 'role', 'site']) expect(device[key]).not.toBeNull();
  });

  it('flips a boolean custom-field flag on a device', async () => {
    const { page } = browser;
    const device = (await server.api<Page<Device>>('GET', '/api/devices/?name=web-created-1')).body.results[0]!;
    const before = device.custom_fields.snmp_v3 === true;
    await page.goto(`${server.url}/objects/dcim.device/${device.id}/edit`);
    const field = page.getByLabel('SNMPv3');
    await field.waitFor();
    await field.selectOption(before ? 'false' : 'true');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'web-created-1' }).waitFor();
    const shown = page.locator('[data-overview-field="custom_fields.snmp_v3"] dd');
    await expectText(shown, before ? 'No' : 'Yes');
    await shot(page, '05-custom-field-flipped');
    const after = (await server.api<Device>('GET', `/api/devices/${device.id}/`)).body;
    expect(after.custom_fields.snmp_v3).toBe(!before);
    // The other custom fields kept their values (the form sends only what was touched).
    for (const [k, v] of Object.entries(device.custom_fields)) if (k !== 'snmp_v3') expect(after.custom_fields[k]).toEqual(v);
    // The change log tab shows the change.
    // In words: the custom field by its label on a row of its own, its values as the overview shows them, related
    // objects by name (the log keeps their ids), no codes and no ids.
    const platform = await server.api<Row>('POST', '/api/platforms/', { name: 'Web log OS', slug: 'web-log-os' });
    expect(platform.status).toBe(201);
    expect((await server.api<Device>('PATCH', `/api/devices/${device.id}/`, { platform: platform.body.id })).status).toBe(200);
    // Opened by its address: after a reload and a click on the tab, the log's rows once never appeared on a loaded
    // CI machine (30 s of waiting; the cause was not found); what is checked here is the log's contents. Tabs opened
    // by a click: test/web/features/cable-trace.test.ts.
    await page.goto(`${server.url}/objects/dcim.device/${device.id}?tab=changelog`);
    const openTab = page.getByRole('tab', { name: 'Change log', selected: true });
    await openTab.waitFor();
    // The device's tabs do not fit at 1,280 px and the row scrolls sideways: the open one (the last) is in sight.
    const row = (await page.getByRole('tablist').boundingBox())!;
    const tab = (await openTab.boundingBox())!;
    expect(await page.getByRole('tablist').evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    expect(tab.x).toBeGreaterThanOrEqual(row.x - 0.5);
    expect(tab.x + tab.width).toBeLessThanOrEqual(row.x + row.width + 0.5);
    const flag = page.locator('[data-change="update"] [data-field="custom_fields.snmp_v3"]').first();
    await flag.waitFor();
    expect(await flag.locator('th').innerText()).toBe('SNMPv3');
    expect(await flag.locator('td').nth(1).innerText()).toContain(before ? 'No' : 'Yes');
    const platformRow = page.locator('[data-change="update"] [data-field="platform"]').first();
    await expectText(platformRow.locator('td').nth(1), 'Web log OS');
    expect(await platformRow.locator('th').innerText()).toBe('Platform');
    const log = await page.locator('ol').last().innerText();
    expect(log).not.toMatch(/custom_fields|[0-9a-f]{8}-[0-9a-f]{4}-/);
    await shot(page, '06-change-log');
    // The list of every change (Logs › Changes) names the kind and the object, links the object, shows no ids.
    await page.goto(`${server.url}/objects/core.objectchange`);
    const link = page.getByRole('link', { name: 'web-created-1', exact: true }).first();
    await link.waitFor();
    expect(await page.locator('[data-object-type="dcim.device"]').first().innerText()).toBe('Device');
    const table = await page.locator('table').first().innerText();
    expect(table).not.toMatch(/dcim\.device|[0-9a-f]{8}-[0-9a-f]{4}-/);
    await shot(page, '06b-change-list');
    await link.click();
    await page.getByRole('heading', { name: 'web-created-1' }).waitFor();
    // A change's own page shows what it wrote: the platform update before and after, by name; no Change log tab.
    const changes = (await server.api<Page<Row>>('GET', `/api/changes/?object_id=${device.id}&ordering=-time&limit=100`)).body.results;
    const update = changes.find((c) => c.action === 'update' && (c.after as Row | null)?.platform === platform.body.id)!;
    await page.goto(`${server.url}/objects/core.objectchange/${update.id}?tab=fields`);
    const changedPlatform = page.getByRole('region', { name: 'Fields' }).locator('[data-field="platform"]');
    await expectText(changedPlatform.locator('td').nth(1), 'Web log OS');
    expect(await page.getByRole('tab', { name: 'Change log' }).count()).toBe(0);
    expect(await page.getByRole('region', { name: 'Fields' }).innerText()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    await shot(page, '06c-change-fields');
    // The device's creation lists the values it was created with, in words, without ids or bookkeeping.
    const creation = changes.find((c) => c.action === 'create')!;
    await page.goto(`${server.url}/objects/core.objectchange/${creation.id}?tab=fields`);
    const created = page.getByRole('region', { name: 'Fields' });
    await created.getByText('Created with these values.').waitFor();
    await expectText(created.locator('[data-field="name"] td'), 'web-created-1');
    expect(await created.innerText()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-|tenant|numid/i);
    // Journal entries name the kind of object and link it, not its id.
    const entry = await server.api<Row>('POST', '/api/journal-entries/', { object_type: 'dcim.device', object_id: device.id, comments: 'web journal note' });
    expect(entry.status).toBe(201);
    await page.goto(`${server.url}/objects/core.journalentry`);
    const open = page.getByRole('link', { name: 'Open the device' }).first();
    await open.waitFor();
    expect(await page.locator('table').first().innerText()).not.toMatch(/dcim\.device|[0-9a-f]{8}-[0-9a-f]{4}-/);
    await open.click();
    await page.getByRole('heading', { name: 'web-created-1' }).waitFor();
  });

  it("sets a device's primary IPv4 by typing its address: the picker offers the device's own addresses", async () => {
    const { page } = browser;
    const device = (await server.api<Page<Device>>('GET', '/api/devices/?name=web-created-1')).body.results[0]!;
    const iface = await server.api<Row>('POST', '/api/interfaces/', { device: device.id, name: 'Ethernet9', type: '1000base-t' });
    expect(iface.status).toBe(201);
    const mine = await server.api<Row>('POST', '/api/ip-addresses/', { address: '192.0.2.77/24', assigned_interface: iface.body.id });
    expect(mine.status).toBe(201);
    // The same address text on no interface of this device: never offered.
    expect((await server.api<Row>('POST', '/api/ip-addresses/', { address: '192.0.2.78/24' })).status).toBe(201);
    await page.goto(`${server.url}/objects/dcim.device/${device.id}/edit`);
    const box = page.getByRole('combobox', { name: 'Primary IPv4' });
    await box.click();
    await box.fill('192.0.2.7');
    const options = page.getByRole('listbox', { name: 'Primary IPv4' }).getByRole('option');
    await options.first().waitFor();
    expect(await options.allInnerTexts()).toEqual([expect.stringContaining('192.0.2.77/24')]);
    await options.first().click();
    await page.getByRole('button', { name: 'Save' }).click();
    // The editor's heading names the device too: wait for the saved page (the detail address) before reading.
    await page.waitForURL((url) => url.pathname === `/objects/dcim.device/${device.id}`);
    await page.getByRole('heading', { name: 'web-created-1' }).waitFor();
    await shot(page, '07a-primary-ip-picked');
    // The page says it once, as Primary IPv4: the list's Primary IP column is no second row here.
    await expect.poll(() => page.locator('[data-overview-field="primary_ip4"] dd').textContent()).toContain('192.0.2.77/24');
    expect(await page.locator('[data-overview-field="primary_ip"]').count()).toBe(0);
    const after = (await server.api<Device & { primary_ip4: { id: string } | null }>('GET', `/api/devices/${device.id}/`)).body;
    expect(after.primary_ip4?.id).toBe(mine.body.id);
  });

  it('an interface picker shows each interface with its device', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/objects/ipam.ipaddress/new`);
    const box = page.getByRole('combobox', { name: 'Assigned interface', exact: true });
    await box.click();
    await box.fill('Ethernet9');
    const options = page.getByRole('listbox', { name: 'Assigned interface', exact: true }).getByRole('option');
    await options.first().waitFor();
    expect(await options.allInnerTexts()).toContainEqual(expect.stringContaining('web-created-1 › Ethernet9'));
    await shot(page, '07b-interface-picker-with-device');
  });

  it("fills a new site's slug from its name until the slug is edited by hand", async () => {
    const { page } = browser;
    await page.goto(`${server.url}/objects/organization.site/new`);
    const name = page.getByLabel(/^Name/);
    const slug = page.getByLabel(/^Slug/);
    await name.fill('Amsterdam Zuid 1');
    expect(await slug.inputValue()).toBe('amsterdam-zuid-1');
    await slug.fill('ams-z1');
    await name.fill('Amsterdam Zuid');
    expect(await slug.inputValue()).toBe('ams-z1');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Amsterdam Zuid' }).waitFor();
    expect((await server.api<Page<Row>>('GET', '/api/sites/?slug=ams-z1')).body.count).toBe(1);
  });

  it('bulk edits three selected devices and leaves the others alone', async () => {
    const { page } = browser;
    const all = (await server.api<Page<Device>>('GET', '/api/devices/?ordering=name&limit=1000')).body.results;
    await page.goto(`${server.url}/objects/dcim.device?ordering=name`);
    const table = page.getByTestId('model-list');
    await table.waitFor();
    const chosen = all.slice(0, 3);
    for (const d of chosen) await page.getByRole('checkbox', { name: `Select ${d.display}` }).check();
    await expectText(page.getByText('3 selected'), '3 selected');
    await page.getByRole('button', { name: 'Edit selected' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit 3 devices' });
    await dialog.getByRole('checkbox', { name: 'Change Status' }).check();
    await dialog.getByLabel('Status', { exact: true }).selectOption({ label: 'Planned' });
    await shot(page, '07-bulk-edit-dialog');
    await dialog.getByRole('button', { name: 'Apply to 3' }).click();
    await page.getByText('Updated 3 devices.').waitFor();
    await shot(page, '08-bulk-edited');
    const after = (await server.api<Page<Device>>('GET', '/api/devices/?ordering=name&limit=1000')).body.results;
    const byId = new Map(all.map((d) => [d.id, d]));
    for (const d of after) {
      if (chosen.some((c) => c.id === d.id)) expect(d.status?.display).toBe('Planned');
      else expect(d.status?.display).toBe(byId.get(d.id)!.status?.display);
    }
  });

  it('shows the dry-run impact before a bulk delete, and deletes only on confirmation', async () => {
    const { page } = browser;
    const device = (await server.api<Page<Device>>('GET', '/api/devices/?name=web-created-1')).body.results[0]!;
    await page.goto(`${server.url}/objects/dcim.device?name=web-created-1`);
    await page.getByRole('checkbox', { name: `Select ${device.display}` }).check();
    await page.getByRole('button', { name: 'Delete selected' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete 1 device?' });
    await expectText(dialog.getByTestId('bulk-delete-impact'), '1 device will be deleted.');
    const confirm = dialog.getByRole('button', { name: 'Delete 1' });
    expect(await confirm.isDisabled()).toBe(true);
    await shot(page, '09-bulk-delete-dry-run');
    // The dry run changed nothing.
    expect((await server.api('GET', `/api/devices/${device.id}/`)).status).toBe(200);
    await dialog.getByRole('checkbox', { name: 'I understand this cannot be undone.' }).check();
    await confirm.click();
    await page.getByText('Deleted 1 device.').waitFor();
    expect((await server.api('GET', `/api/devices/${device.id}/`)).status).toBe(404);
  });

  it('finds a device from the global search box with the keyboard alone', async () => {
    const { page } = browser;
    const target = (await server.api<Page<Device>>('GET', '/api/devices/?ordering=-name&limit=1')).body.results[0]!;
    await page.goto(`${server.url}/`);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    // Skip link first, then the brand link, then the search box.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('global-search');
    await page.keyboard.type(target.name);
    await page.keyboard.press('Enter');
    const result = page.getByRole('link', { name: target.name, exact: true });
    await result.waitFor();
    // Each hit names its kind and the field it matched as people read them (Device, Name; not device, name).
    const hit = await page.locator('li', { has: result }).first().innerText();
    expect(hit).toContain('Device');
    expect(hit).toContain('matched Name');
    await shot(page, '10-global-search');
    await result.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: target.name }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/objects/dcim.device/${target.id}`);
  });

  it('tells same-named VLANs apart in search results by their group', async () => {
    const { page } = browser;
    // A lab's own `servers (10)` beside the demo site's.
    const group = await server.api<Row>('POST', '/api/vlan-groups/', { name: 'Lab VLANs', slug: 'lab-vlans' });
    expect(group.status).toBe(201);
    expect((await server.api<Row>('POST', '/api/vlans/', { vid: 10, name: 'servers', group: group.body.id })).status).toBe(201);
    const vlans = (await server.api<Page<Row>>('GET', '/api/vlans/?name=servers&limit=100')).body.results;
    expect(vlans.length).toBeGreaterThan(1);
    await page.goto(`${server.url}/search?q=servers`);
    const first = page.getByRole('link', { name: 'servers (10)', exact: true }).first();
    await first.waitFor();
    const lines = await page.locator('li', { has: page.getByRole('link', { name: 'servers (10)', exact: true }) }).allInnerTexts();
    expect(lines.length).toBe(vlans.length);
    // Each in its own group: no two lines alike.
    expect(lines.every((l) => / in \S/.test(l.replace(/\s+/g, ' ')))).toBe(true);
    expect(new Set(lines).size).toBe(lines.length);
    await shot(page, '10b-search-vlan-context');
  });

  it('creates a read-only API token shown once, which reads but cannot write, and revokes it', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/preferences/tokens`);
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    await page.getByLabel('Read only').check();
    await page.getByLabel('Description').fill('web test token');
    await page.getByRole('button', { name: 'Create token' }).click();
    const keyBox = page.getByTestId('new-token-key');
    await keyBox.waitFor();
    const key = await keyBox.inputValue();
    expect(key.length).toBeGreaterThan(20);
    await shot(page, '11-token-created');
    const read = await fetch(`${server.url}/api/devices/?limit=1`, { headers: { authorization: `Token ${key}` } });
    expect(read.status).toBe(200);
    const write = await fetch(`${server.url}/api/tags/`, { method: 'POST', headers: { authorization: `Token ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'x', slug: 'x' }) });
    expect(write.status).toBe(403);
    await page.getByRole('button', { name: 'Done' }).click();
    // The list shows only the prefix; the key itself is gone from the page.
    expect(await page.getByTestId('tokens').innerText()).not.toContain(key);
    await page.getByRole('button', { name: `Revoke token ${key.slice(0, 8)}` }).click();
    await page.getByRole('dialog', { name: 'Revoke this token?' }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Token revoked.').waitFor();
    expect((await fetch(`${server.url}/api/devices/?limit=1`, { headers: { authorization: `Token ${key}` } })).status).toBe(401);
  });

  it('works on a narrow window: navigation behind a Menu button, no page-wide horizontal scroll', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${server.url}/objects/dcim.device`);
      await page.getByTestId('model-list').waitFor();
      const nav = page.getByRole('navigation', { name: 'Main' });
      expect(await nav.isVisible()).toBe(false);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await shot(page, '12-narrow-list');
      await page.getByRole('button', { name: 'Menu' }).click();
      await nav.waitFor({ state: 'visible' });
      await shot(page, '13-narrow-menu');
      await nav.getByText('Organization', { exact: true }).click();
      await nav.getByRole('link', { name: 'Sites' }).click();
      await page.getByRole('heading', { name: 'Sites' }).waitFor();
      expect(await nav.isVisible()).toBe(false);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('switches tenant: the lists show the other tenant (empty here), then switch back', async () => {
    const { page } = browser;
    const me = (await server.api<{ user: { id: string }; tenants: Array<{ id: string }> }>('GET', '/api/auth/me/')).body;
    const second = await server.api<{ id: string }>('POST', '/api/tenants/', { name: 'Second', slug: 'second' });
    expect(second.status).toBe(201);
    expect((await server.api('PATCH', `/api/users/${me.user.id}/`, { tenants: [...me.tenants.map((t) => t.id), second.body.id] })).status).toBe(200);
    await page.goto(`${server.url}/objects/dcim.device`);
    await page.getByTestId('model-list').waitFor();
    const switcher = page.getByLabel('Active tenant');
    const home = await switcher.inputValue();
    await switcher.selectOption({ label: 'Second' });
    await page.getByText('Switched to Second.').waitFor();
    await page.getByText('No devices yet').waitFor();
    await shot(page, '14-other-tenant-empty');
    await switcher.selectOption(home);
    await page.getByTestId('model-list').waitFor();
    expect(await page.getByTestId('model-list').locator('tbody tr').count()).toBeGreaterThan(0);
  });

  it('reloads once, and only once, when a page chunk is gone (replaced by a deploy)', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/`);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    const chunk = readdirSync(join(server.webDir, 'assets')).find((f) => f.startsWith('TokensPage-') && f.endsWith('.js'))!;
    const file = join(server.webDir, 'assets', chunk);
    const saved = readFileSync(file);
    rmSync(file);
    // The token test fetched this chunk already and hashed assets are cached for good (which is right: a cached
    // chunk keeps working after a deploy); this tab must be one that never fetched it.
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Network.clearBrowserCache');
    await cdp.detach();
    let loads = 0;
    const onLoad = () => loads++;
    page.on('load', onLoad);
    try {
      await page.getByText('admin ▾').click();
      await page.getByRole('link', { name: 'API tokens' }).click();
      // One reload; the chunk is still missing afterwards, so the page says so instead of reloading again.
      await page.getByText('This could not be loaded.').waitFor();
      expect(loads).toBe(1);
      await shot(page, '15-chunk-missing');
    } finally {
      page.off('load', onLoad);
      writeFileSync(file, saved);
    }
  });

  it('offers a reload when a newer build is served', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/`);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    const toast = page.locator('[data-toast="new-build"]');
    // Same build: focusing the tab shows nothing.
    const checked = page.waitForResponse((r) => r.url().endsWith('/build-id.json'));
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    // (build-id.json also carries the sources' fingerprint, for `cairn maintenance collectstatic`.)
    expect((await (await checked).json()) as unknown).toMatchObject({ build_id: await page.evaluate(() => document.documentElement.dataset.build) });
    expect(await toast.count()).toBe(0);
    publishBuildId(server, 'a-newer-build');
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await toast.getByText('Updated.').waitFor();
    await shot(page, '16-new-build-toast');
    await page.evaluate(() => ((window as unknown as { beforeReload: boolean }).beforeReload = true));
    await toast.getByRole('button', { name: 'Reload' }).click();
    await page.waitForFunction(() => !(window as unknown as { beforeReload?: boolean }).beforeReload);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  });
});

async function expectText(locator: import('playwright-core').Locator, text: string): Promise<void> {
  await locator.filter({ hasText: text }).first().waitFor();
  expect(await locator.first().innerText()).toContain(text);
}

/** Opens an object picker by its label and takes the first option it offers for `text`. */
async function pick(page: import('playwright-core').Page, label: string, text: string): Promise<void> {
  const box = page.getByRole('combobox', { name: label });
  await box.click();
  if (text) await box.fill(text);
  await page.getByRole('listbox', { name: label }).getByRole('option').first().click();
}
