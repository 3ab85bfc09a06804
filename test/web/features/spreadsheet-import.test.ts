// Spreadsheet import in a real browser: 20 interfaces pasted as CSV on the interface list, one bad row shown with
// its field and message before anything is written (the list unchanged), then fixed and imported. Screenshots
// under test/web/screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, shot, type Browser, type WebServer } from '../helpers.ts';
import { openSession, type Page, type Row, type Session } from './fixtures.ts';

const ready = chromiumAvailable();

describe.skipIf(!ready)('spreadsheet import in chromium', () => {
  let server: WebServer;
  let browser: Browser;
  let session: Session;

  beforeAll(async () => {
    session = await openSession({ demoDevices: 1 });
    ({ server, browser } = session);
  }, 300_000);

  afterAll(async () => {
    await session?.close();
  });

  it('imports 20 interfaces from CSV, showing the one bad row first and writing nothing until it is fixed', async () => {
    const { page } = browser;
    const device = (await server.api<Page<Row>>('GET', '/api/devices/?limit=1')).body.results[0]!;
    const before = (await server.api<Page<Row>>('GET', `/api/interfaces/?device_id=${device.id}&limit=1`)).body.count;
    const rows = Array.from({ length: 20 }, (_v, i) => `${String(device.numid)},imp${i + 1},${i === 6 ? 'not-a-type' : '1000base-t'},Imported ${i + 1}`);
    await page.goto(`${server.url}/objects/dcim.interface`);
    await page.getByRole('button', { name: 'Import' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Rows').fill(['device,name,type,description', ...rows].join('\n'));
    await dialog.getByRole('button', { name: 'Check' }).click();
    const errors = dialog.getByTestId('import-errors');
    await errors.waitFor();
    expect(await errors.innerText()).toContain('Row 7, type:');
    // The first five rows, and the refused one highlighted.
    const shown = dialog.getByTestId('import-preview').locator('tbody tr');
    expect(await shown.count()).toBe(6);
    expect(await shown.last().innerText()).toContain('not-a-type');
    await shot(page, 'si01-import-bad-row');
    expect((await server.api<Page<Row>>('GET', `/api/interfaces/?device_id=${device.id}&limit=1`)).body.count).toBe(before);

    rows[6] = rows[6]!.replace('not-a-type', '1000base-t');
    await dialog.getByLabel('Rows').fill(['device,name,type,description', ...rows].join('\n'));
    await dialog.getByRole('button', { name: 'Check' }).click();
    await dialog.getByTestId('import-checked').waitFor();
    expect(await dialog.getByTestId('import-checked').innerText()).toBe('Ready: 20 to create, 0 to update.');
    await shot(page, 'si02-import-checked');
    await dialog.getByRole('button', { name: 'Import 20 rows' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await server.api<Page<Row>>('GET', `/api/interfaces/?device_id=${device.id}&limit=1`)).body.count).toBe(before + 20);
    await shot(page, 'si03-imported');
  });
});
