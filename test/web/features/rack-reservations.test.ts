// Rack reservations in a real browser against a real `cairn serve` with demo data: the units a reservation holds
// with no device in them are drawn reserved on the rack's elevation (front and rear), with its description and
// who made it, and a click opens the reservation. Each step saves a screenshot under test/web/screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page as BrowserPage } from 'playwright-core';
import { chromiumAvailable, shot, type Browser, type WebServer } from '../helpers.ts';
import { openSession, type Page, type Row, type Session } from './fixtures.ts';

const ready = chromiumAvailable();

/**
 * Until the page has drawn its heading (or an error) and nothing in main still loads (a Loading spinner, a table
 * fetching): what the user waits for. Not Playwright's `networkidle`, which waits out half a second of silence after
 * every load (21 pages here: some ten seconds in which the test did nothing).
 */
async function settled(page: BrowserPage): Promise<void> {
  await page.locator('main h1, main [role="alert"]').first().waitFor();
  await page.waitForFunction(() => !document.querySelector('main [role="status"][aria-live="polite"], main [aria-busy="true"]'));
}

describe.skipIf(!ready)('rack reservations in chromium', () => {
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

  it('draws reserved units on the elevation with the description and user, and opens the reservation on a click', async () => {
    const { page } = browser;
    const demo = (await server.api<Page<Row>>('GET', '/api/rack-reservations/?limit=1')).body.results[0]!;
    const rack = demo.rack as Row;
    // One more, made through the API: its user is the caller.
    const made = await server.api<Row>('POST', '/api/rack-reservations/', { rack: rack.id, units: [20, 21], description: 'Firewall refresh' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const taken = await server.api<Record<string, string[]>>('POST', '/api/rack-reservations/', { rack: rack.id, units: [21], description: 'x' });
    expect(taken.status).toBe(400);
    expect(taken.body.units![0]).toMatch(/U21 of rack .* is already reserved \(Firewall refresh\)/);
    const user = (made.body.user as Row).display as string;

    await page.goto(`${server.url}/objects/dcim.rack/${rack.id}?tab=elevation`);
    const front = page.locator('svg[data-face="front"]');
    const block = front.locator(`a[data-reservation="${made.body.id}"]`);
    await block.waitFor();
    expect(await block.getAttribute('aria-label')).toBe(`Reserved U20–U21: Firewall refresh (${user})`);
    expect(await block.textContent()).toContain('Firewall refresh');
    const demoBlock = front.locator(`a[data-reservation="${demo.id}"]`);
    expect(await demoBlock.getAttribute('aria-label')).toContain('Held for the next leaf pair');
    // Reserved on both faces, as NetBox draws it.
    expect(await page.locator(`svg[data-face="rear"] a[data-reservation="${made.body.id}"]`).count()).toBe(1);
    await shot(page, 'rr01-rack-elevation-reservations');

    await block.click();
    await page.waitForURL(`**/objects/dcim.rackreservation/${made.body.id}**`);
    // The Overview lists its units, description and user.
    await page.locator('main').getByText('Firewall refresh').first().waitFor();
    await page.locator('main').getByText(user, { exact: true }).first().waitFor();
    expect(await page.locator('main').innerText()).toMatch(/Reserved units\s*U20–U21/);
    await shot(page, 'rr02-rack-reservation-overview');
  });

  // Their add forms (and so their edit forms) are opened by forms.test.ts's walk over every model.
  it('opens the list and detail pages of the new models without an error', async () => {
    const { page } = browser;
    const models: Record<string, string> = {
      'dcim.rackreservation': '/api/rack-reservations/', 'dcim.racktype': '/api/rack-types/', 'virtualization.clustertype': '/api/cluster-types/',
      'virtualization.clustergroup': '/api/cluster-groups/', 'virtualization.virtualdisk': '/api/virtual-disks/', 'wireless.wirelesslangroup': '/api/wireless-lan-groups/',
      'wireless.wirelesslan': '/api/wireless-lans/', 'wireless.wirelesslink': '/api/wireless-links/', 'vpn.l2vpn': '/api/l2vpns/', 'vpn.l2vpntermination': '/api/l2vpn-terminations/',
    };
    for (const [model, listPath] of Object.entries(models)) {
      const first = (await server.api<Page<Row>>('GET', `${listPath}?limit=1`)).body.results[0];
      const urls = [`/objects/${model}`, ...(first ? [`/objects/${model}/${first.id}`] : [])];
      for (const url of urls) {
        await page.goto(`${server.url}${url}`);
        await settled(page);
        expect(await page.locator('main [role="alert"]').count(), `${url}: ${await page.locator('main').innerText()}`).toBe(0);
      }
    }
    await page.goto(`${server.url}/objects/dcim.rackreservation/new`);
    await page.getByRole('form', { name: /rack reservation/i }).waitFor();
    await shot(page, 'rr03-rack-reservation-add-form');
  });
});
