// List pages in a real browser against `cairn serve` with demo data (issue 51, point 4 and the small things): the
// Export menu downloads a filtered list as CSV (the columns shown, all columns, the selected rows) and runs an
// export template over the same rows; `/` focuses search; "Skip to results" reaches the first row in two key
// presses; a cable's page is titled by its two ends; a host address shows its /32 in lists as in search; tab strips
// have no stray scrollbar. Screenshots under test/web/screenshots/.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Download } from 'playwright-core';
import { chromiumAvailable, shot, type Browser, type WebServer } from '../helpers.ts';
import { openSession, type Page, type Row, type Session } from './fixtures.ts';
import { parseCsv } from '../../../src/core/crud/spreadsheet-import.ts';

const ready = chromiumAvailable();

describe.skipIf(!ready)('list pages in chromium', () => {
  let server: WebServer;
  let browser: Browser;
  let session: Session;
  let leaf: Row;
  let listUrl: string;
  let filteredCount: number;

  beforeAll(async () => {
    session = await openSession({ demoDevices: 4 });
    ({ server, browser } = session);
    leaf = (await server.api<Page<Row>>('GET', '/api/devices/?role=spine&limit=1')).body.results[0]!;
    // A spine's interfaces: more than a page of 25, so a file of every filtered row is not the page on screen.
    filteredCount = (await server.api<Page<Row>>('GET', `/api/interfaces/?device_id=${leaf.id}&limit=1`)).body.count;
    expect(filteredCount).toBeGreaterThan(25);
    listUrl = `${server.url}/objects/dcim.interface?device_id=${leaf.id}&limit=25`;
  }, 300_000);

  afterAll(async () => {
    await session?.close();
  });

  /** Clicks an entry of the list's Export menu and reads the file it downloads. */
  async function exported(entry: string | RegExp): Promise<{ name: string; text: string }> {
    const { page } = browser;
    await page.getByRole('button', { name: 'Export' }).click();
    const menu = page.getByRole('menu');
    await menu.waitFor();
    const [download] = (await Promise.all([page.waitForEvent('download'), menu.getByRole('menuitem', { name: entry }).click()])) as [Download, unknown];
    const path = await download.path();
    return { name: download.suggestedFilename(), text: readFileSync(path!, 'utf8') };
  }

  it("downloads the filtered list as CSV, every filtered row, with the columns shown or all of them", async () => {
    const { page } = browser;
    await page.goto(listUrl);
    await page.getByTestId('model-list').waitFor();
    expect(await page.getByTestId('page-range').innerText()).toBe(`1–25 of ${filteredCount}`);
    const headers = (await page.getByTestId('model-list').locator('thead th').allInnerTexts()).slice(1).map((t) => t.replace(/[▲▼↕]/g, '').trim());
    await page.getByRole('button', { name: 'Export' }).click();
    expect(await page.getByTestId('export-scope').innerText()).toBe(`All ${filteredCount} interfaces of this list, with its filters`);
    await shot(page, 'li01-export-menu');
    await page.keyboard.press('Escape');

    const shown = await exported(/^CSV: the columns shown/);
    expect(shown.name).toBe('interfaces.csv');
    const rows = parseCsv(shown.text);
    expect(rows).toHaveLength(filteredCount);
    expect(Object.keys(rows[0]!)).toEqual(headers);
    expect(new Set(rows.map((r) => r.Device))).toEqual(new Set([String(leaf.name)]));

    const all = parseCsv((await exported('CSV: all columns')).text);
    expect(all).toHaveLength(filteredCount);
    const fields = (await server.api<{ fields: unknown[] }>('GET', '/api/list-fields/?path=/api/interfaces/')).body.fields;
    expect(Object.keys(all[0]!).length).toBeGreaterThanOrEqual(fields.length);

    // Two rows selected: the export takes those alone.
    const boxes = page.getByTestId('model-list').locator('tbody').getByRole('checkbox');
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    await page.getByRole('button', { name: 'Export' }).click();
    expect(await page.getByTestId('export-scope').innerText()).toBe('2 selected interfaces');
    await page.keyboard.press('Escape');
    const picked = parseCsv((await exported(/^CSV: the columns shown/)).text);
    expect(picked.map((r) => r.Name)).toEqual(await page.getByTestId('model-list').locator(`tbody tr td:nth-child(${headers.indexOf('Name') + 2})`).evaluateAll((tds) => tds.slice(0, 2).map((td) => (td.textContent ?? '').trim())));
    await page.getByRole('button', { name: 'Clear selection' }).click();
  });

  it("runs an export template of the list's type from the menu over the filtered rows", async () => {
    const { page } = browser;
    const made = await server.api<Row>('POST', '/api/export-templates/', {
      name: 'Interface names',
      object_type: 'dcim.interface',
      template_code: '{% for i in queryset %}{{ i.device.name }} {{ i.name }}\n{% endfor %}',
      file_extension: 'txt',
    });
    expect(made.status).toBe(201);
    await page.goto(listUrl);
    await page.getByTestId('model-list').waitFor();
    const file = await exported(/^Interface names/);
    expect(file.name).toBe('Interface names.txt');
    const lines = file.text.trimEnd().split('\n');
    expect(lines).toHaveLength(filteredCount);
    expect(lines.every((l) => l.startsWith(`${String(leaf.name)} `))).toBe(true);
  });

  it('focuses search on / (but not while typing in a field), and skips to the first row in two key presses', async () => {
    const { page } = browser;
    await page.goto(listUrl);
    await page.getByTestId('model-list').waitFor();
    // The first Tab stop of a list page is "Skip to results"; Enter lands on the first row's link.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to results');
    await shot(page, 'li02-skip-to-results');
    await page.keyboard.press('Enter');
    const firstRowLink = page.getByTestId('model-list').locator('tbody tr').first().getByRole('link').first();
    expect(await firstRowLink.evaluate((el) => el === document.activeElement)).toBe(true);

    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('global-search');
    expect(await page.locator('#global-search').inputValue()).toBe('');
    await page.getByPlaceholder('Search this list…').fill('');
    await page.getByPlaceholder('Search this list…').pressSequentially('et/1');
    expect(await page.getByPlaceholder('Search this list…').inputValue()).toBe('et/1');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('list-q');
  });

  it("titles a cable's page by its two ends, with a tab strip that does not scroll", async () => {
    const { page } = browser;
    const cable = (await server.api<Page<Row & { a_terminations: Row[]; b_terminations: Row[] }>>('GET', '/api/cables/?limit=1')).body.results[0]!;
    await page.goto(`${server.url}/objects/dcim.cable/${cable.id}`);
    const title = page.getByRole('heading', { level: 1 });
    await title.waitFor();
    expect(await title.innerText()).toBe(`${String(cable.a_terminations[0]!.display)} ⇢ ${String(cable.b_terminations[0]!.display)}`);
    const strip = page.getByRole('tablist');
    expect(await strip.evaluate((el) => el.scrollHeight - el.clientHeight)).toBe(0);
    await shot(page, 'li03-cable-title');
  });

  it('shows a host address with its /32 in lists, as search does', async () => {
    const { page } = browser;
    const loopback = (await server.api<Page<Row & { address: string }>>('GET', '/api/ip-addresses/?role=loopback&limit=1')).body.results[0]!;
    expect(loopback.address).not.toContain('/');
    const search = (await server.api<{ results: Array<{ id: string; display: string }> }>('GET', `/api/search/?q=${loopback.address}`)).body.results.find((r) => r.id === loopback.id)!;
    expect(search.display).toBe(`${loopback.address}/32`);
    await page.goto(`${server.url}/objects/ipam.ipaddress?role=loopback`);
    await page.getByTestId('model-list').waitFor();
    const cells = await page.getByTestId('model-list').locator('tbody tr td:nth-child(2)').allInnerTexts();
    expect(cells).toContain(search.display);
    expect(cells.every((c) => /\/\d+$/.test(c.trim()))).toBe(true);
    await shot(page, 'li04-addresses-with-mask');
  });
});
