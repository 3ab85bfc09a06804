// Console and power in a real browser against a real `cairn serve` with demo data: a leaf's power supply traces
// through its rack's PDU (outlet ⇢ inlet) to the rack's A feed and the site's power panel on the power port's Trace
// tab; the leaf's Console/Power tab names the console server line its console reaches and the feed of each PSU; a
// feed's page reads its utilisation in watts. Each step saves a screenshot under test/web/screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, shot, type Browser, type WebServer } from '../helpers.ts';
import { openSession, type Page, type Row, type Session } from './fixtures.ts';

const ready = chromiumAvailable();

interface Endpoint {
  id: string;
  object_type: string;
  display: string;
  name: string;
  parent: { object_type: string; id: string; display: string };
}

describe.skipIf(!ready)('console and power in chromium', () => {
  let server: WebServer;
  let browser: Browser;
  let session: Session;
  let leaf: Row;
  let psu1: Row;

  beforeAll(async () => {
    // 10 devices: 4 spines, 2 borders, 2 firewalls and 2 leaves in one site, each with two PSUs and a console.
    session = await openSession({ demoDevices: 10 });
    ({ server, browser } = session);
    leaf = (await server.api<Page<Row>>('GET', '/api/devices/?role=leaf&limit=1')).body.results[0]!;
    psu1 = (await server.api<Page<Row>>('GET', `/api/power-ports/?device_id=${leaf.id}&name=PSU1`)).body.results[0]!;
    expect((psu1.connected_endpoint as Endpoint).object_type).toBe('dcim.powerfeed');
  }, 300_000);

  afterAll(async () => {
    await session?.close();
  });

  it("draws a server's power path through its PDU to the feed and the panel on the power port's Trace tab", async () => {
    const { page } = browser;
    await page.goto(`${server.url}/objects/dcim.powerport/${psu1.id}?tab=trace`);
    const path = page.getByRole('list', { name: 'Cable path' });
    await path.waitFor();
    const nodes = await path.locator('[data-trace-node]').evaluateAll((els) => els.map((e) => e.getAttribute('data-trace-node')));
    const feed = psu1.connected_endpoint as Endpoint;
    expect(nodes).toEqual([
      `${String(leaf.name)} › PSU1`,
      expect.stringMatching(/-pdu-a › Outlet \d+$/),
      expect.stringMatching(/-pdu-a › Inlet$/),
      `${feed.parent.display} › ${feed.name}`,
    ]);
    expect(feed.name).toMatch(/-A$/);
    const status = page.getByRole('status').filter({ hasText: 'Connected to' });
    expect(await status.innerText()).toContain(`Connected to ${feed.parent.display} › ${feed.name} through 2 cables.`);
    expect(await page.getByText('through the PDU (the inlet feeding this outlet)').count()).toBe(1);
    await shot(page, 'p01-power-port-trace-to-panel');
  });

  it("names the leaf's console line and each PSU's feed on its Console/Power tab", async () => {
    const { page } = browser;
    await page.goto(`${server.url}/objects/dcim.device/${leaf.id}`);
    await page.getByRole('tab', { name: 'Console/Power' }).click();
    const line = page.locator('[data-console-line]');
    await line.waitFor();
    expect(await line.innerText()).toMatch(/^Console on \S+-cs1 › Port \d+ at 9,600 bps$/);
    const power = page.getByRole('table', { name: 'Power ports' });
    expect(await power.locator('tr[data-port="PSU1"]').innerText()).toMatch(/-RPP1 › \S+-A/);
    expect(await power.locator('tr[data-port="PSU2"]').innerText()).toMatch(/-RPP1 › \S+-B/);
    expect(await power.locator('tr[data-port="PSU1"]').innerText()).toContain('180 W / 450 W');
    await shot(page, 'p02-device-console-power-tab');
  });

  it("reads a feed's utilisation in watts on its page", async () => {
    const { page } = browser;
    const feed = psu1.connected_endpoint as Endpoint;
    await page.goto(`${server.url}/objects/dcim.powerfeed/${feed.id}`);
    const cell = page.locator('[data-overview-field="power_utilization"] [data-power-utilization]');
    await cell.waitFor();
    expect(await cell.innerText()).toMatch(/ %\s*[\d,]+ W of 5,888 W/);
    expect(await page.locator('[data-overview-field="available_power"] dd').innerText()).toBe('5888');
    await cell.scrollIntoViewIfNeeded();
    await shot(page, 'p03-power-feed-utilisation');
    // The feed's rack reads the draw of its A and B feeds over both.
    const rack = feed.parent && (await server.api<Row>('GET', `/api/power-feeds/${feed.id}/`)).body.rack as Row;
    await page.goto(`${server.url}/objects/dcim.rack/${rack.id}`);
    const rackCell = page.locator('[data-overview-field="power_utilization"] [data-power-utilization]');
    await rackCell.waitFor();
    expect(await rackCell.innerText()).toMatch(/[\d,]+ W of 11,776 W/);
    await rackCell.scrollIntoViewIfNeeded();
    await shot(page, 'p04-rack-power-utilisation');
  });
});
