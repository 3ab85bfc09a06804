// Racks in a real browser against a real `cairn serve` with demo data: a device placed in a rack through the API
// shows in the rack's front elevation (its name in its units, spanning its height), the rear shows it through
// the depth, free units stay visible, and a click opens the device, whose Overview names the rack and position.
// Each step saves a screenshot under test/web/screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, shot, type Browser, type WebServer } from '../helpers.ts';
import { openSession, type Page, type Row, type Session } from './fixtures.ts';

const ready = chromiumAvailable();

describe.skipIf(!ready)('rack elevations in chromium', () => {
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

  it('draws a device placed through the API in its units, front and rear, and opens it on a click', async () => {
    const { page } = browser;
    const device = (await server.api<Page<Row>>('GET', '/api/devices/?role=leaf&limit=1&ordering=name')).body.results[0]!;
    const site = (device.site as Row).id;
    const made = await server.api<Row>('POST', '/api/racks/', { site, name: 'R-web', u_height: 12, facility_id: 'WEB-12' });
    expect(made.status).toBe(201);
    const rack = made.body;
    const moved = await server.api<Row>('PATCH', `/api/devices/${device.id}/`, { rack: rack.id, position: 5, face: 'front' });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    // Another device onto the same unit is refused, naming the occupant.
    const other = (await server.api<Page<Row>>('GET', '/api/devices/?role=spine&limit=1&ordering=name')).body.results[0]!;
    const refused = await server.api<Record<string, string[]>>('PATCH', `/api/devices/${other.id}/`, { rack: rack.id, position: 5, face: 'front' });
    expect(refused.status).toBe(400);
    expect(refused.body.position).toEqual([`U5 front is taken by ${device.name}.`]);

    await page.goto(`${server.url}/objects/dcim.rack/${rack.id}?tab=elevation`);
    const front = page.locator('svg[data-face="front"]');
    await front.waitFor();
    const block = front.locator(`a[data-device="${device.name}"]`);
    await block.waitFor();
    expect(await block.textContent()).toContain(device.name);
    // Twelve units, one taken: eleven free slots drawn.
    expect(await front.locator('rect[data-unit]').count()).toBe(11);
    expect(await page.getByText('1 of 12 units used').count()).toBe(2);
    // Full depth: the rear shows it too, marked as mounted on the front.
    expect(await page.locator(`svg[data-face="rear"] a[data-device="${device.name}"]`).textContent()).toContain('(front)');
    await shot(page, 'r01-rack-elevation-placed-device');

    await block.click();
    await page.waitForURL(`**/objects/dcim.device/${device.id}**`);
    const overview = page.locator('main');
    await overview.getByText('R-web').first().waitFor();
    expect(await overview.innerText()).toMatch(/Position \(U\)\s*5/);
    await shot(page, 'r02-device-overview-rack-position');
  });

  it('draws the demo core rack with every device of the site in its units', async () => {
    const { page } = browser;
    const spine = (await server.api<Page<Row>>('GET', '/api/devices/?role=spine&limit=1&ordering=name')).body.results[0]!;
    const rackId = (spine.rack as Row).id;
    // Devices in units: the rack's PDUs stand in it without one (0U) and are not drawn in the units.
    const placed = (await server.api<Page<Row>>(`GET`, `/api/devices/?rack_id=${rackId}&limit=100`)).body.results.filter((d) => d.position !== null);
    await page.goto(`${server.url}/objects/dcim.rack/${rackId}?tab=elevation`);
    const front = page.locator('svg[data-face="front"]');
    await front.locator('a[data-device]').first().waitFor();
    const names = await front.locator('a[data-device]').evaluateAll((els) => els.map((e) => e.getAttribute('data-device')));
    expect(names.sort()).toEqual(placed.map((d) => d.name).sort());
    await shot(page, 'r03-demo-core-rack');
  });

  it('places a device through its edit form: the rack picker offers the racks of the device\'s site only', async () => {
    const { page } = browser;
    const device = (await server.api<Page<Row>>('GET', '/api/devices/?role=leaf&limit=1&offset=1&ordering=name')).body.results[0]!;
    const far = await server.api<Row>('POST', '/api/sites/', { name: 'Elsewhere', slug: 'elsewhere' });
    expect((await server.api<Row>('POST', '/api/racks/', { site: far.body.id, name: 'R-far' })).status).toBe(201);
    const rack = (await server.api<Page<Row>>('GET', '/api/racks/?name=R-web')).body.results[0]!;
    await page.goto(`${server.url}/objects/dcim.device/${device.id}/edit`);
    // It stands in a leaf rack now: change it.
    await page.getByRole('button', { name: 'Clear Rack', exact: true }).click();
    const box = page.getByRole('combobox', { name: 'Rack', exact: true });
    await box.click();
    await box.fill('R-');
    const options = page.getByRole('listbox', { name: 'Rack', exact: true }).getByRole('option');
    await options.first().waitFor();
    expect(await options.allInnerTexts()).toEqual([expect.stringContaining('R-web')]);
    await options.first().click();
    // The face first: the position is a list of the units free on it.
    await page.locator('[data-field^="field-face-"] select').selectOption('front');
    const position = page.locator('[data-field^="field-position-"] select');
    await position.locator('option[value="8"]').waitFor({ state: 'attached' });
    await position.selectOption('8');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL((url) => url.pathname === `/objects/dcim.device/${device.id}`);
    await page.goto(`${server.url}/objects/dcim.rack/${rack.id}?tab=elevation`);
    await page.locator(`svg[data-face="front"] a[data-device="${device.name}"]`).waitFor();
    await shot(page, 'r04-device-placed-through-form');
  });

  it('counts the racks on the home page, a link to their list', async () => {
    const { page } = browser;
    const racks = (await server.api<Page<Row>>('GET', '/api/racks/?limit=1')).body.count;
    await page.goto(`${server.url}/`);
    const counts = page.getByRole('region', { name: 'In this tenant' });
    await counts.getByRole('link', { name: `Racks: ${racks}` }).click();
    await page.waitForURL(/\/objects\/dcim\.rack/);
    await page.getByText('WEB-12').first().waitFor();
    await shot(page, 'r05-rack-list');
    // A row opens from its own name, not from its site (a link inside the row's link took the click: the site opened).
    const row = page.getByRole('row', { name: /WEB-12/ });
    const site = row.getByRole('link', { name: 'Amsterdam DC1' });
    expect(await site.getAttribute('href')).toMatch(/^\/objects\/organization\.site\//);
    expect(await site.locator('xpath=ancestor::a').count()).toBe(0);
    await row.getByRole('link', { name: 'R-web' }).click();
    await page.getByRole('heading', { name: 'R-web' }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/objects\/dcim\.rack\//);
  });
  it("shows what refers to a site beside its fields; a count opens that list filtered to the site", async () => {
    const { page } = browser;
    const site = (await server.api<Page<Row>>('GET', '/api/sites/?limit=1&ordering=name')).body.results[0]!;
    const related = (await server.api<{ results: Array<{ label: string; count: number }> }>('GET', `/api/sites/${site.id}/related/`)).body.results;
    const devices = related.find((r) => r.label === 'Devices')!.count;
    const racks = related.find((r) => r.label === 'Racks')!.count;
    expect(devices).toBeGreaterThan(0);
    await page.goto(`${server.url}/objects/organization.site/${site.id}`);
    const panel = page.getByRole('region', { name: 'Related objects' });
    await panel.getByRole('link', { name: 'Racks' }).waitFor();
    expect(await panel.getByLabel(`${racks} Racks`).textContent()).toBe(String(racks));
    // Kinds with nothing are named once, not linked.
    expect(await panel.getByText(/^None: /).textContent()).toContain('Virtual machines');
    expect(await panel.getByRole('link', { name: 'Virtual machines' }).count()).toBe(0);
    await shot(page, 'r06-site-related-objects');
    await panel.getByRole('link', { name: 'Devices' }).click();
    await page.waitForURL(`**/objects/dcim.device?**site=${site.id}**`);
    await page.getByText(`${devices} device${devices === 1 ? '' : 's'}`, { exact: true }).waitFor();
    await shot(page, 'r07-site-devices-filtered');
  });
});
