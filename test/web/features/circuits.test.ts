// Circuits in a real browser against a real `cairn serve` with demo data: a border router's transit uplink is
// cabled to a circuit's A termination, whose Z termination is cabled to the provider's edge router at its PoP.
// The uplink's Trace tab draws border › cable › circuit A ⇢ circuit Z › cable › provider edge, the border's
// Interfaces tab names the circuit in the cable column with the far end, and the circuit's Terminations tab shows
// both sides (site or provider network, the cable and the far end). Screenshots under test/web/screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, shot, type Browser, type WebServer } from '../helpers.ts';
import { openSession, type Page, type Row, type Session } from './fixtures.ts';

const ready = chromiumAvailable();

interface Peer {
  object_type: string;
  parent_type: string;
  device: string;
  device_id: string;
  name: string;
  interface_id: string;
}

describe.skipIf(!ready)('circuits in chromium', () => {
  let server: WebServer;
  let browser: Browser;
  let session: Session;
  let uplink: Row;
  let far: { id: string; display: string; name: string; device: { id: string; display: string } };
  let peer: Peer;

  beforeAll(async () => {
    // 10 devices: one site with 2 border routers, each with two transit circuits.
    session = await openSession({ demoDevices: 10 });
    ({ server, browser } = session);
    const cabled = (await server.api<Page<Row>>('GET', '/api/interfaces/?cabled=true&limit=1000')).body.results;
    uplink = cabled.find((i) => (i.link_peer as Peer | null)?.object_type === 'circuits.circuittermination'
      && (i.connected_endpoint as { object_type: string } | null)?.object_type === 'dcim.interface')!;
    expect(uplink, 'a border uplink crossing a circuit').toBeDefined();
    peer = uplink.link_peer as Peer;
    far = uplink.connected_endpoint as typeof far;
    expect(far.device.display).toMatch(/-pop-pe1$/);
  }, 300_000);

  afterAll(async () => {
    await session?.close();
  });

  it("draws a border uplink's path through the circuit to the provider's edge router", async () => {
    const { page } = browser;
    await page.goto(`${server.url}/objects/dcim.interface/${uplink.id}`);
    await page.getByRole('tab', { name: 'Trace' }).click();
    const path = page.getByRole('list', { name: 'Cable path' });
    await path.waitFor();
    const nodes = await path.locator('[data-trace-node]').evaluateAll((els) => els.map((e) => e.getAttribute('data-trace-node')));
    expect(nodes).toEqual([String(uplink.display), `${peer.device} › Side A`, `${peer.device} › Side Z`, far.display]);
    expect(await path.locator('[data-trace-cable]').count()).toBe(2);
    expect(await page.getByText('through the circuit').count()).toBe(1);
    const status = page.getByRole('status').filter({ hasText: 'Connected to' });
    expect(await status.innerText()).toContain(`Connected to ${far.display} through 2 cables.`);
    await shot(page, 'ci01-uplink-trace-through-circuit');
  });

  it("names the circuit and the far end on the border's Interfaces tab", async () => {
    const { page } = browser;
    const border = uplink.device as Row;
    await page.goto(`${server.url}/objects/dcim.device/${border.id}`);
    await page.getByRole('tab', { name: 'Interfaces' }).click();
    const row = page.getByRole('table', { name: 'Interfaces' }).locator(`tr[data-interface="${uplink.name}"]`);
    await row.locator('[data-far-end]').waitFor();
    const text = await row.innerText();
    expect(text).toContain(`${peer.device} › Side A`);
    expect(text).toContain('(circuit)');
    expect(await row.locator('[data-far-end]').innerText()).toContain(`Far end ${far.display}`);
    await row.scrollIntoViewIfNeeded();
    await shot(page, 'ci02-border-interfaces-circuit-in-cable-column');
  });

  it("shows both terminations on the circuit's page", async () => {
    const { page } = browser;
    await page.goto(`${server.url}/objects/circuits.circuit/${peer.device_id}`);
    await page.getByRole('tab', { name: 'Terminations' }).click();
    const a = page.getByRole('region', { name: 'Termination A' });
    const z = page.getByRole('region', { name: 'Termination Z' });
    await a.getByTestId('peer-A').waitFor();
    expect(await a.innerText()).toContain(`Site: `);
    expect(await a.getByTestId('peer-A').innerText()).toContain(`Cable to ${String((uplink.device as Row).display ?? (uplink.device as Row).name)} › ${uplink.name}`);
    expect(await z.innerText()).toMatch(/Site: \S+ PoP/);
    expect(await z.getByTestId('peer-Z').innerText()).toContain(`Cable to ${far.device.display} › ${far.name}`);
    expect(await a.innerText()).toContain('10 Gbps');
    await shot(page, 'ci03-circuit-terminations-tab');

    // The other circuit of the border ends on a provider network: its Z side says so, with no cable.
    const circuits = (await server.api<Page<Row>>('GET', `/api/circuit-terminations/?termination_type=circuits.providernetwork&limit=1`)).body.results;
    const onNetwork = circuits[0]!;
    await page.goto(`${server.url}/objects/circuits.circuit/${(onNetwork.circuit as Row).id}`);
    await page.getByRole('tab', { name: 'Terminations' }).click();
    const z2 = page.getByRole('region', { name: 'Termination Z' });
    await z2.getByTestId('peer-Z').waitFor();
    expect(await z2.innerText()).toContain('Provider network: ');
    expect(await z2.getByTestId('peer-Z').innerText()).toBe("Ends in the provider's network");
    await shot(page, 'ci04-circuit-on-provider-network');
  });
});
