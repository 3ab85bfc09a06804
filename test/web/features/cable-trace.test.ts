// Cable tracing in a real browser against a real `cairn serve` with demo data: a leaf uplink runs through the
// site's two patch panels (leaf › pp01 front ⇢ rear ═ trunk ═ pp02 rear ⇢ front › spine). The interface's Trace
// tab draws that path with the far interface, the panel's Front/Rear ports tab lists its ports and what they
// reach, the leaf's Interfaces tab shows the far end, and the cable form takes a front port as an end.
// Each step saves a screenshot under test/web/screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, shot, type Browser, type WebServer } from '../helpers.ts';
import { openSession, type Page, type Row, type Session } from './fixtures.ts';

const ready = chromiumAvailable();

interface Peer {
  object_type: string;
  device: string;
  device_id: string;
  name: string;
}

describe.skipIf(!ready)('cable trace in chromium', () => {
  let server: WebServer;
  let browser: Browser;
  let session: Session;
  let leafIf: Row;
  let spineIf: { id: string; display: string; name: string; device: { id: string; display: string } };

  beforeAll(async () => {
    // 10 devices: 4 spines, 2 borders, 2 firewalls and 2 leaves in one site, so leaf uplinks are patched.
    session = await openSession({ demoDevices: 10 });
    ({ server, browser } = session);
    const cabled = (await server.api<Page<Row>>('GET', '/api/interfaces/?cabled=true&limit=1000')).body.results;
    leafIf = cabled.find((i) => (i.link_peer as Peer | null)?.object_type === 'dcim.frontport' && String((i.device as Row).name ?? (i.device as Row).display).includes('leaf'))!;
    expect(leafIf, 'a leaf interface patched through a panel').toBeDefined();
    spineIf = leafIf.connected_endpoint as typeof spineIf;
    expect(spineIf.device.display).toMatch(/spine01$/);
  }, 300_000);

  afterAll(async () => {
    await session?.close();
  });

  it("draws an interface's path through two patch panels to the far interface", async () => {
    const { page } = browser;
    await page.goto(`${server.url}/objects/dcim.interface/${leafIf.id}`);
    // The Overview names both ends: the link peer (a panel's front port) and the far interface, each a link.
    const peer = leafIf.link_peer as Peer;
    const farLink = page.getByRole('link', { name: spineIf.display, exact: true });
    await farLink.waitFor();
    await page.getByRole('link', { name: `${peer.device} › ${peer.name}`, exact: true }).waitFor();
    await farLink.scrollIntoViewIfNeeded();
    await shot(page, 'c00-interface-overview-peer-and-far-end');
    await page.getByRole('tab', { name: 'Trace' }).click();
    const path = page.getByRole('list', { name: 'Cable path' });
    await path.waitFor();
    const nodes = await path.locator('[data-trace-node]').evaluateAll((els) => els.map((e) => e.getAttribute('data-trace-node')));
    const site = spineIf.device.display.split('-')[0];
    expect(nodes).toEqual([
      String(leafIf.display),
      expect.stringMatching(new RegExp(`^${site}-pp01 › Front\\d+$`)),
      `${site}-pp01 › Rear1`,
      `${site}-pp02 › Rear1`,
      expect.stringMatching(new RegExp(`^${site}-pp02 › Front\\d+$`)),
      spineIf.display,
    ]);
    // Three cables, each named and linked; the panel steps drawn between them.
    expect(await path.locator('[data-trace-cable]').count()).toBe(3);
    expect(await page.getByText('through the panel').count()).toBe(2);
    const status = page.getByRole('status').filter({ hasText: 'Connected to' });
    expect(await status.innerText()).toContain(`Connected to ${spineIf.display} through 3 cables.`);
    await shot(page, 'c01-interface-trace-through-patch-panels');

    // The far interface is a link to its own page, whose trace runs the same path back.
    await path.locator(`[data-trace-node="${spineIf.display}"]`).getByRole('link', { name: spineIf.name, exact: true }).click();
    await page.waitForURL(`**/objects/dcim.interface/${spineIf.id}*`);
    await page.getByRole('tab', { name: 'Trace' }).click();
    await page.getByRole('list', { name: 'Cable path' }).locator(`[data-trace-node="${String(leafIf.display)}"]`).waitFor();
    await shot(page, 'c02-trace-back-from-the-spine');
  });

  it("shows the far end on the leaf's Interfaces tab and the panel's ports on its Front/Rear ports tab", async () => {
    const { page } = browser;
    const leaf = leafIf.device as Row;
    await page.goto(`${server.url}/objects/dcim.device/${leaf.id}`);
    await page.getByRole('tab', { name: 'Interfaces' }).click();
    const row = page.getByRole('table', { name: 'Interfaces' }).locator(`tr[data-interface="${leafIf.name}"]`);
    await row.locator('[data-far-end]').waitFor();
    expect(await row.locator('[data-far-end]').innerText()).toContain(`Far end ${spineIf.display}`);
    await row.scrollIntoViewIfNeeded();
    await shot(page, 'c03-interfaces-tab-far-end');

    const peer = leafIf.link_peer as Peer;
    await page.goto(`${server.url}/objects/dcim.device/${peer.device_id}`);
    await page.getByRole('tab', { name: 'Front/Rear ports' }).click();
    const fronts = page.getByRole('table', { name: 'Front ports' });
    await fronts.waitFor();
    expect(await fronts.locator('tbody tr').count()).toBe(24);
    const front = fronts.locator(`tr[data-port="${peer.name}"]`);
    expect(await front.innerText()).toContain(String(leafIf.display));
    expect(await front.innerText()).toContain('Rear1');
    const rear = page.getByRole('table', { name: 'Rear ports' }).locator('tr[data-port="Rear1"]');
    expect(await rear.innerText()).toMatch(/MPO\s+24/);
    expect(await rear.innerText()).toMatch(/pp02 › Rear1/);
    await shot(page, 'c04-panel-front-rear-ports-tab');
  });

  it('creates a cable from a free front port to a free interface with the cable form', async () => {
    const { page } = browser;
    const peer = leafIf.link_peer as Peer;
    const free = (await server.api<Page<Row>>('GET', `/api/front-ports/?device_id=${peer.device_id}&cabled=false&ordering=name&limit=1`)).body.results[0]!;
    const leaf = leafIf.device as Row;
    const uncabled = (await server.api<Page<Row>>('GET', `/api/interfaces/?device_id=${leaf.id}&cabled=false&limit=100`)).body.results;
    // One the picker's first page of matches for its name holds (the picker searches names, across devices).
    let freeIf: Row | undefined;
    for (const i of uncabled.filter((x) => !['lag', 'loopback', 'virtual', 'bridge', 'tunnel'].includes(String(x.type)))) {
      const offered = (await server.api<Page<Row>>('GET', `/api/interfaces/?q=${encodeURIComponent(i.name)}&cabled=false&limit=20`)).body.results;
      if (offered.some((o) => o.id === i.id)) {
        freeIf = i;
        break;
      }
    }
    expect(freeIf).toBeDefined();
    await page.goto(`${server.url}/objects/dcim.cable/new`);
    await page.getByLabel('Kind of A side').selectOption('dcim.frontport');
    const aSide = page.getByRole('combobox', { name: 'A side', exact: true });
    await aSide.fill(free.name);
    await page.getByRole('option', { name: String(free.display) }).click();
    await page.getByLabel('Kind of B side').selectOption('dcim.interface');
    const bSide = page.getByRole('combobox', { name: 'B side', exact: true });
    await bSide.fill(freeIf!.name);
    await page.getByRole('option', { name: String(freeIf!.display), exact: true }).click();
    await page.getByLabel('Label').fill('web-patch-cord');
    await page.getByLabel('Length', { exact: true }).fill('2.5');
    await page.getByLabel('Length unit').selectOption('m');
    await shot(page, 'c05-cable-form-front-port-end');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/objects\/dcim\.cable\/[0-9a-f-]{36}$/);
    const cable = (await server.api<Page<Row>>('GET', '/api/cables/?label=web-patch-cord')).body.results[0]!;
    expect((cable.a_terminations as Row[]).map((t) => [t.object_type, t.object_id])).toEqual([['dcim.frontport', free.id]]);
    expect((cable.b_terminations as Row[]).map((t) => [t.object_type, t.object_id])).toEqual([['dcim.interface', freeIf!.id]]);
    expect([cable.length, cable.length_unit]).toEqual([2.5, 'm']);
    // Its page reads the length with its unit in one row, as NetBox's does; the unit has no row of its own.
    await expect.poll(() => page.locator('[data-overview-field="length"] dd').textContent()).toBe('2.5 Meters');
    expect(await page.locator('[data-overview-field="length_unit"]').count()).toBe(0);
    await shot(page, 'c06-cable-created');
    // Its change log still names the unit, by label and in words (the list-fields catalog describes the fields it
    // leaves out of its columns).
    expect((await server.api<Row>('PATCH', `/api/cables/${cable.id}/`, { length_unit: 'ft' })).status).toBe(200);
    await page.reload();
    await page.getByRole('tab', { name: 'Change log' }).click();
    const unit = page.locator('[data-change="update"] [data-field="length_unit"]').first();
    await unit.waitFor();
    expect(await unit.locator('th').innerText()).toBe('Length unit');
    expect(await unit.locator('td').nth(0).innerText()).toContain('Meters');
    expect(await unit.locator('td').nth(1).innerText()).toContain('Feet');
    await shot(page, 'c07-cable-change-log');
  });
});
