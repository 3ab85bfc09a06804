// The device page a NetBox user expects (issue 51, points 7 and 8) in a real browser against `cairn serve` with
// demo data: the device drawn in its rack on the Overview, counts on the tabs, MTU and MAC columns and row states
// on the Interfaces tab, role colours in rack elevations and a utilisation column in the rack list; on the Config
// tab, a template's device.interfaces.all() in natural order, Copy and Download of the output, and the role's bundle
// offered only when there is one; the Config context tab with each key's source. Screenshots: test/web/screenshots/dp*.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, shot, type Browser, type WebServer } from '../helpers.ts';
import { openSession, type Page, type Row, type Session } from './fixtures.ts';

const ready = chromiumAvailable();

interface Brief {
  id: string;
  display: string;
}

describe.skipIf(!ready)('the device page in chromium', () => {
  let server: WebServer;
  let browser: Browser;
  let session: Session;
  let leaf: Row;
  let role: Row;
  let ifaces: Row[];

  const api = async <T = Row>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await server.api<T>(method, path, body);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };

  beforeAll(async () => {
    // 10 devices: spines, borders, firewalls and two leaves in racks of one site, with config contexts.
    session = await openSession({ demoDevices: 10 });
    ({ server, browser } = session);
    leaf = (await api<Page<Row>>('GET', '/api/devices/?role=leaf&limit=1')).results[0]!;
    role = await api('GET', `/api/device-roles/${(leaf.role as Brief).id}/`);
    ifaces = (await api<Page<Row>>('GET', `/api/interfaces/?device_id=${leaf.id}&limit=200`)).results;
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  }, 300_000);

  afterAll(async () => {
    await session?.close();
  });

  it('draws the device outlined in its rack on the Overview, in its role colour, and counts rows on the tabs', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/objects/dcim.device/${leaf.id}`);
    const panel = page.getByRole('region', { name: /^Rack/ });
    await panel.waitFor();
    expect(await panel.innerText()).toContain(`U${String(leaf.position)}, front face`);
    const self = panel.locator(`svg[data-face="${String(leaf.face)}"] a[aria-current="true"]`);
    await self.waitFor();
    expect(await self.getAttribute('data-device')).toBe(leaf.name);
    expect(await self.getAttribute('data-role-color')).toBe(role.color);
    expect(await self.getAttribute('aria-label')).toContain('(this device)');
    // Other devices of the rack are drawn too, each in its own role's colour, and the legend names the roles.
    expect(await panel.locator('a[data-device]').count()).toBeGreaterThan(1);
    expect(await panel.getByRole('list', { name: 'Device roles' }).innerText()).toContain(String(role.name));
    const related = (await api<{ results: Array<{ model: string; count: number }> }>('GET', `/api/devices/${leaf.id}/related/`)).results;
    const countOf = (m: string) => related.find((r) => r.model === m)?.count ?? 0;
    expect(countOf('dcim.interface')).toBe(ifaces.length);
    await page.getByRole('tab', { name: `Interfaces ${ifaces.length}` }).waitFor();
    const power = ['dcim.consoleport', 'dcim.consoleserverport', 'dcim.powerport', 'dcim.poweroutlet'].reduce((n, m) => n + countOf(m), 0);
    expect(power).toBeGreaterThan(0);
    await page.getByRole('tab', { name: `Console/Power ${power}` }).waitFor();
    await page.getByRole('tab', { name: 'Services 0' }).waitFor();
    await shot(page, 'dp01-device-overview-rack-and-tab-counts');
    await panel.scrollIntoViewIfNeeded();
    await shot(page, 'dp01b-device-overview-rack-picture');
  });

  it('shows MTU and MAC columns and marks connected, disabled and virtual ports on the Interfaces tab', async () => {
    const { page } = browser;
    const byName = (n: string) => ifaces.find((i) => i.name === n)!;
    const cabled = ifaces.find((i) => i.link_peer)!;
    // The port just above the first cabled one, so the screenshot shows a disabled row beside connected ones.
    const plain = ifaces[ifaces.indexOf(cabled) - 1]!;
    expect(plain.link_peer).toBeNull();
    await api('PATCH', `/api/interfaces/${plain.id}/`, { enabled: false, mtu: 9216, mac_address: 'aabb.cc00.1122' });
    await page.goto(`${server.url}/objects/dcim.device/${leaf.id}?tab=interfaces`);
    const table = page.getByRole('table', { name: 'Interfaces' });
    await table.waitFor();
    const headers = await table.locator('thead th').allInnerTexts();
    expect(headers).toEqual(expect.arrayContaining(['MTU', 'MAC address']));
    const row = (n: string) => table.locator(`tr[data-interface="${n}"]`);
    expect(await row(plain.name).getAttribute('data-state')).toBe('disabled');
    expect(await row(plain.name).innerText()).toMatch(/disabled[\s\S]*9216[\s\S]*AA:BB:CC:00:11:22/);
    expect(await row(cabled.name).getAttribute('data-state')).toBe('connected');
    expect(await row(byName('loopback0').name).getAttribute('data-state')).toBe('virtual');
    expect(await row(byName('port-channel1').name).getAttribute('data-state')).toBe('virtual');
    expect(await row(byName('mgmt0').name).getAttribute('data-state')).toBe('unconnected');
    // Every row says its state: as many connected rows as interfaces with a cable, the rest disabled, virtual or plain.
    const states = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-state')));
    expect(states.filter((s) => s === 'connected').length).toBe(ifaces.filter((i) => i.link_peer && i.type !== 'lag').length);
    await row(cabled.name).scrollIntoViewIfNeeded();
    await shot(page, 'dp02-interfaces-mtu-mac-and-row-states');
  });

  it('colours rack elevations by device role and shows each rack\'s space utilisation in the rack list', async () => {
    const { page } = browser;
    const racks = (await api<Page<Row>>('GET', '/api/racks/?limit=50&ordering=name')).results;
    expect(racks.some((r) => Number(r.utilization) > 0)).toBe(true);
    await page.goto(`${server.url}/objects/dcim.rack`);
    const table = page.getByRole('table').first();
    await table.getByRole('columnheader', { name: /Space utilisation/ }).waitFor();
    const meters = await table.getByRole('meter', { name: 'Utilisation' }).evaluateAll((els) => els.map((e) => Number(e.getAttribute('aria-valuenow'))));
    expect(meters).toEqual(racks.map((r) => Number(r.utilization)));
    await shot(page, 'dp03-rack-list-utilisation');
    // The spines' rack holds devices of several roles.
    const spine = (await api<Page<Row>>('GET', '/api/devices/?role=spine&limit=1')).results[0]!;
    const rack = spine.rack as Brief;
    await page.goto(`${server.url}/objects/dcim.rack/${rack.id}?tab=elevation`);
    const front = page.locator('svg[data-face="front"]');
    await front.locator('a[data-device]').first().waitFor();
    const fills = await front.locator('a[data-device]').evaluateAll((as) => as.map((a) => [a.getAttribute('data-device'), a.getAttribute('data-role-color'), a.querySelector('rect')?.getAttribute('fill')]));
    const devices = (await api<Page<Row>>('GET', `/api/devices/?rack_id=${rack.id}&position__isnull=false&limit=100`)).results;
    const roles = (await api<Page<Row>>('GET', '/api/device-roles/?limit=100')).results;
    const colourOf = new Map(devices.map((d) => [d.name, String(roles.find((r) => r.id === (d.role as Brief).id)!.color)]));
    expect(new Set(fills.map((f) => f[1])).size).toBeGreaterThan(2);
    for (const [name, colour, fill] of fills) {
      expect(colour, String(name)).toBe(colourOf.get(String(name)));
      expect(fill).toBe(`#${colour}`);
    }
    await shot(page, 'dp04-rack-elevation-role-colours');
  });

  it('renders device.interfaces.all() in natural order, offers the role bundle only when there is one, and copies and downloads the output', async () => {
    const { page } = browser;
    // An automation target for the leaf role, so the Deploy dialog shows its bundle picker (never called here).
    await api('POST', '/api/automation-targets/', { name: 'dp-awx', kind: 'awx', base_url: 'https://awx.example.com', token: 't', job_template_id: 1, roles: [role.id] });
    const deployBundles = async () => {
      await page.getByRole('button', { name: 'Deploy', exact: true }).click();
      const dialog = page.getByRole('dialog');
      const select = dialog.getByLabel('Bundle');
      await select.waitFor();
      const options = await select.locator('option').allInnerTexts();
      await dialog.getByRole('button', { name: 'Close' }).last().click();
      await dialog.waitFor({ state: 'hidden' });
      return options;
    };
    await page.goto(`${server.url}/objects/dcim.device/${leaf.id}?tab=config`);
    const picker = page.getByLabel('Render');
    await picker.waitFor();
    // The role has no bundle: neither the Config tab nor the Deploy dialog offers it.
    expect(await picker.locator('option').allInnerTexts()).not.toContainEqual(expect.stringContaining('The bundle of its role'));
    expect(await deployBundles()).toEqual(['None']);
    const template = await api('POST', '/api/export-templates/', {
      name: 'dp-interfaces',
      object_type: 'dcim.device',
      target_path: '/etc/dp/interfaces.txt',
      template_code: '{% for i in device.interfaces.all() %}{{ i.name }}\n{% endfor %}',
    });
    const bundle = await api('POST', '/api/config-bundles/', { name: 'dp-leaf', templates: [template.id], roles: [role.id] });
    // A bundle for another role is not offered either.
    const otherRole = (await api<Page<Row>>('GET', '/api/device-roles/?limit=100')).results.find((r) => r.id !== role.id)!;
    await api('POST', '/api/config-bundles/', { name: 'dp-other', templates: [template.id], roles: [otherRole.id] });
    await page.reload();
    await picker.waitFor();
    // The picker is drawn before the bundles are read: its options are read once the bundles' are there.
    await picker.locator('option', { hasText: 'Bundle: ' }).first().waitFor({ state: 'attached' });
    const options = await picker.locator('option').allInnerTexts();
    expect(options).toContain(`The bundle of its role (${String(bundle.name)})`);
    expect(options).toContain('Bundle: dp-leaf');
    expect(options).not.toContain('Bundle: dp-other');
    expect(await deployBundles()).toEqual(['None', 'The bundle of its role (dp-leaf)', 'dp-leaf']);
    await picker.selectOption('role');
    const file = page.locator('[data-config-file="/etc/dp/interfaces.txt"]');
    await file.getByRole('button', { name: 'Output' }).click();
    const output = await page.getByLabel('Rendered /etc/dp/interfaces.txt').innerText();
    expect(output.trimEnd().split('\n')).toEqual(ifaces.map((i) => i.name));
    await file.getByRole('button', { name: 'Copy /etc/dp/interfaces.txt' }).click();
    await page.getByText(`Copied /etc/dp/interfaces.txt (${ifaces.length} lines).`).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(output.trimEnd() + '\n');
    const [download] = await Promise.all([page.waitForEvent('download'), file.getByRole('button', { name: 'Download /etc/dp/interfaces.txt' }).click()]);
    expect(download.suggestedFilename()).toBe(`${leaf.name}-interfaces.txt`);
    expect(readFileSync((await download.path())!, 'utf8')).toBe(output.trimEnd() + '\n');
    await shot(page, 'dp05-config-natural-order-copy-download');
  });

  it("shows the device's merged config context with the context each key came from", async () => {
    const { page } = browser;
    // A context of the leaf role, last by weight, replaces the global NTP servers.
    await api('POST', '/api/config-contexts/', { name: 'dp-leaf-ntp', weight: 9000, roles: [role.id], data: { ntp: { servers: ['192.0.2.1'] } } });
    const sources = await api<{ contexts: Array<{ name: string }>; keys: Array<{ path: string[]; source: { name: string }; overridden: Array<{ name: string }> }> }>(
      'GET',
      `/api/devices/${leaf.id}/config-context/sources/`,
    );
    expect(sources.keys.length).toBeGreaterThan(2);
    await page.goto(`${server.url}/objects/dcim.device/${leaf.id}?tab=config-context`);
    const table = page.getByRole('table', { name: 'Config context keys and their sources' });
    await table.waitFor();
    const shown = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-key'), tr.querySelector('[data-source]')?.getAttribute('data-source')]));
    expect(shown).toEqual(sources.keys.map((k) => [k.path.join('.'), k.source.name]));
    expect(await page.getByRole('list', { name: 'Applied contexts in merge order' }).locator('li').count()).toBe(sources.contexts.length);
    // A key a later context overrode says which.
    const ntp = sources.keys.find((k) => k.path.join('.') === 'ntp.servers')!;
    expect(ntp.source.name).toBe('dp-leaf-ntp');
    expect(ntp.overridden.length).toBeGreaterThan(0);
    expect(await table.locator('tr[data-key="ntp.servers"]').innerText()).toMatch(new RegExp(`192\\.0\\.2\\.1[\\s\\S]*dp-leaf-ntp[\\s\\S]*overrides ${ntp.overridden[0]!.name}`));
    await shot(page, 'dp06-config-context-sources');
    await page.getByRole('button', { name: 'Merged JSON' }).click();
    const merged = JSON.parse(await page.getByLabel('Merged config context').innerText());
    expect(merged).toEqual((await api<{ rendered: unknown }>('GET', `/api/devices/${leaf.id}/config-context/`)).rendered);
    // The 401 is the sign-in page asking who is signed in before anyone is.
    expect(browser.errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
  });
});
