// Issue 51, points 5 and 6, in a real browser against a real `cairn serve` (no demo data: thirteen leaves and a
// spine made here). Search: the exact name alone first with the text each hit matched, "Similar" below, a count
// per type that filters, and pages past the first 50. A prefix's Space tab: the runs of free addresses between the
// used ones as rows that open the add form filled in, "Assigned to" as links, "Next free address" opening the
// filled form (and "Save at once" beside it), a free child block opening the prefix form filled in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, shot, type Browser, type WebServer } from '../helpers.ts';
import { openSession, type Page, type Row, type Session } from './fixtures.ts';

const ready = chromiumAvailable();

describe.skipIf(!ready)('search and free space in chromium', () => {
  let server: WebServer;
  let browser: Browser;
  let session: Session;
  const leaves = new Map<string, Row>();
  let spine: Row;

  const made = async (path: string, body: unknown): Promise<Row> => {
    const res = await server.api<Row>('POST', path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };

  beforeAll(async () => {
    session = await openSession();
    ({ server, browser } = session);
    const site = await made('/api/sites/', { name: 'Amsterdam 1', slug: 'ams1' });
    const role = await made('/api/device-roles/', { name: 'Leaf', slug: 'leaf' });
    const maker = await made('/api/manufacturers/', { name: 'Arista', slug: 'arista' });
    const type = await made('/api/device-types/', { manufacturer: maker.id, model: '7050SX3', slug: '7050sx3' });
    for (const n of [1, 2, 3, 4]) await made('/api/interface-templates/', { device_type: type.id, name: `Ethernet${n}`, type: '10gbase-x-sfpp' });
    for (let i = 1; i <= 13; i++) {
      const name = `ams1-leaf${String(i).padStart(2, '0')}`;
      leaves.set(name, await made('/api/devices/', { name, site: site.id, role: role.id, device_type: type.id }));
    }
    spine = await made('/api/devices/', { name: 'ams1-spine01', site: site.id, role: role.id, device_type: type.id });
    const port = (await server.api<Page<Row>>('GET', `/api/interfaces/?device_id=${spine.id}&name=Ethernet3`)).body.results[0]!;
    expect((await server.api('PATCH', `/api/interfaces/${port.id}/`, { description: 'downlink to ams1-leaf07' })).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
  });

  it('search puts the exact name alone first, says what each hit matched, counts per type and filters by it', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/search?q=ams1-leaf07`);
    const exact = page.getByRole('region', { name: /^Exact match/ });
    await exact.waitFor();
    expect(await exact.getByRole('heading').innerText()).toBe('Exact match (1)');
    // Only the leaf itself is exact; its siblings are not mixed in with it.
    const exactHits = await exact.getByRole('listitem').allInnerTexts();
    expect(exactHits).toHaveLength(1);
    expect(exactHits[0]).toContain('ams1-leaf07');
    expect(exactHits[0]).toContain('matched Name: ams1-leaf07');
    // Below, apart: the spine port whose description names the leaf, with the text that matched.
    const similar = page.getByRole('region', { name: /^Similar/ });
    const portHit = similar.getByRole('listitem').filter({ hasText: 'ams1-spine01 › Ethernet3' });
    expect(await portHit.innerText()).toContain('matched Description: downlink to ams1-leaf07');
    expect(await similar.getByRole('link', { name: 'ams1-leaf07', exact: true }).count()).toBe(0);
    // A count per type, each a filter.
    const types = page.getByRole('navigation', { name: 'Filter by type' });
    const interfaces = types.getByRole('link', { name: /^Interfaces/ });
    expect((await interfaces.innerText()).replace(/\s+/g, ' ')).toBe('Interfaces 1');
    expect(await types.getByRole('link', { name: /^Devices \d+$/ }).count()).toBe(1);
    await shot(page, 's01-search-exact-first');
    await interfaces.click();
    await page.waitForURL(/type=dcim\.interface/);
    await page.getByText('1 result for “ams1-leaf07” among interfaces').waitFor();
    expect(await page.locator('[data-hit]').count()).toBe(1);
    expect(await types.getByRole('link', { name: /^Interfaces/ }).getAttribute('aria-current')).toBe('page');
    expect(await types.getByRole('link', { name: /^All/ }).getAttribute('aria-current')).toBeNull();
    // The other types stay offered, with their counts.
    expect(await types.getByRole('link', { name: /^Devices \d+$/ }).count()).toBe(1);
    await shot(page, 's02-search-type-filter');
  });

  it('search pages past the first 50 hits', async () => {
    const { page } = browser;
    // 14 devices × 4 ports: 56 interfaces match "ethernet".
    await page.goto(`${server.url}/search?q=ethernet&type=dcim.interface`);
    const pager = page.getByRole('navigation', { name: 'Pages of results' });
    await pager.waitFor();
    expect(await pager.innerText()).toContain('1–50 of 56');
    const firstPage = await page.locator('[data-hit] a').allInnerTexts();
    expect(firstPage).toHaveLength(50);
    await pager.getByRole('link', { name: 'Next' }).click();
    await page.waitForURL(/page=2/);
    await page.getByText('51–56 of 56').waitFor();
    const secondPage = await page.locator('[data-hit] a').allInnerTexts();
    expect(secondPage).toHaveLength(6);
    expect(new Set([...firstPage, ...secondPage]).size).toBe(56);
    await shot(page, 's03-search-second-page');
  });

  it("a prefix's Space tab shows the free runs between addresses, each opening the add form filled in", async () => {
    const { page } = browser;
    // In a VRF: what the form is filled with must keep the address in it.
    const vrf = await made('/api/vrfs/', { name: 'fabric' });
    const prefix = await made('/api/prefixes/', { prefix: '10.0.0.0/24', vrf: vrf.id, description: 'leaf loopbacks' });
    const leaf = leaves.get('ams1-leaf07')!;
    const eth1 = (await server.api<Page<Row>>('GET', `/api/interfaces/?device_id=${leaf.id}&name=Ethernet1`)).body.results[0]!;
    await made('/api/ip-addresses/', { address: '10.0.0.1/24', vrf: vrf.id, assigned_interface: eth1.id, dns_name: 'leaf07.example.net' });
    // .2 to .40 in one call, then .63: free are .41–.62 (22) and .64–.254 (191).
    const bulk = await server.api('POST', '/api/ip-addresses/', Array.from({ length: 39 }, (_, i) => ({ address: `10.0.0.${i + 2}/24`, vrf: vrf.id })));
    expect(bulk.status).toBe(201);
    await made('/api/ip-addresses/', { address: '10.0.0.63/24', vrf: vrf.id });
    const inVrf = async (address: string) => (await server.api<Page<Row>>('GET', `/api/ip-addresses/?address=${address}&vrf_id=${vrf.id}`)).body.count;

    await page.goto(`${server.url}/objects/ipam.prefix/${prefix.id}?tab=space`);
    const table = page.getByTestId('prefix-addresses');
    await table.waitFor();
    const runs = await table.locator('[data-free-range] td:first-child').allInnerTexts();
    expect(runs).toEqual(['10.0.0.41–10.0.0.62 · 22 free', '10.0.0.64–10.0.0.254 · 191 free']);
    // The run sits between .40 and .63, in address order.
    const order = await table.locator('tbody tr td:first-child').allInnerTexts();
    expect(order.indexOf('10.0.0.41–10.0.0.62 · 22 free')).toBe(order.indexOf('10.0.0.40/24') + 1);
    expect(order.indexOf('10.0.0.63/24')).toBe(order.indexOf('10.0.0.41–10.0.0.62 · 22 free') + 1);
    // "Assigned to" links to the device and to the interface.
    const holder = table.locator('tr', { hasText: '10.0.0.1/24' }).locator('[data-holder]');
    expect(await holder.getByRole('link', { name: 'ams1-leaf07' }).getAttribute('href')).toBe(`/objects/dcim.device/${leaf.id}`);
    expect(await holder.getByRole('link', { name: 'Ethernet1' }).getAttribute('href')).toBe(`/objects/dcim.interface/${eth1.id}`);
    await table.locator('[data-free-range]').first().scrollIntoViewIfNeeded();
    await shot(page, 's04-prefix-free-runs');

    // A run opens the add form with its first address filled in; saving creates it.
    await table.getByRole('link', { name: 'Add an address in 10.0.0.41–10.0.0.62' }).click();
    const address = page.getByLabel('Address', { exact: true });
    await address.waitFor();
    expect(await address.inputValue()).toBe('10.0.0.41/24');
    await shot(page, 's05-add-form-filled');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: '10.0.0.41/24' }).waitFor();
    expect(await inVrf('10.0.0.41/24')).toBe(1);

    // Next free address opens the same form, filled with the next one; nothing is saved until Create.
    await page.goto(`${server.url}/objects/ipam.prefix/${prefix.id}?tab=space`);
    await page.getByRole('button', { name: 'Next free address', exact: true }).click();
    await page.getByLabel('Address', { exact: true }).waitFor();
    expect(await page.getByLabel('Address', { exact: true }).inputValue()).toBe('10.0.0.42/24');
    expect(await inVrf('10.0.0.42/24')).toBe(0);
    // …and "Save at once" still takes it in one click.
    await page.goBack();
    await page.getByRole('button', { name: 'Save the next free address at once' }).click();
    await page.getByRole('heading', { name: '10.0.0.42/24' }).waitFor();
    expect(await inVrf('10.0.0.42/24')).toBe(1);

    // Child prefixes' free blocks open the prefix form filled in too.
    await made('/api/prefixes/', { prefix: '10.0.0.0/26', vrf: vrf.id });
    await page.goto(`${server.url}/objects/ipam.prefix/${prefix.id}?tab=space`);
    await page.getByRole('link', { name: 'Add prefix 10.0.0.128/25' }).waitFor();
    const runsNow = await page.getByTestId('prefix-addresses').locator('[data-free-range] td:first-child').allInnerTexts();
    expect(runsNow[0]).toBe('10.0.0.43–10.0.0.62 · 20 free');
    await shot(page, 's06-child-free-blocks');
    await page.getByRole('link', { name: 'Add prefix 10.0.0.128/25' }).click();
    const prefixField = page.getByLabel('Prefix', { exact: true });
    await prefixField.waitFor();
    expect(await prefixField.inputValue()).toBe('10.0.0.128/25');
    await shot(page, 's07-add-prefix-filled');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: '10.0.0.128/25' }).waitFor();
    expect((await server.api<Page<Row>>('GET', `/api/prefixes/?prefix=10.0.0.128/25&vrf_id=${vrf.id}`)).body.count).toBe(1);
  });
});
