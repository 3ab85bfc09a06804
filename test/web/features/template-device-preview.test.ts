// Issue 27: the export-template editor previews a device template against a chosen device (a picker), and a
// render-time error of the preview is marked on its line. Screenshots under test/web/screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, shot, type Browser, type WebServer } from '../helpers.ts';
import { openSession, type Page, type Row, type Session } from './fixtures.ts';

const ready = chromiumAvailable();

describe.skipIf(!ready)('template editor preview against a device', () => {
  let server: WebServer;
  let browser: Browser;
  let device: Row;
  let session: Session;

  beforeAll(async () => {
    session = await openSession({ demoDevices: 3 });
    ({ server, browser } = session);
    // A spine: a network device with interfaces (not one of the PDUs or console servers demo data adds around them).
    device = (await server.api<Page<Row>>('GET', '/api/devices/?role=spine&limit=1&ordering=name')).body.results[0]!;
  }, 300_000);

  afterAll(async () => {
    await session?.close();
  });

  it('picks a device, renders its context, and marks a render error on its line', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/export-templates/new`);
    await page.getByRole('form', { name: 'Create export template' }).waitFor();
    await page.getByLabel('Object type').selectOption('dcim.device');
    await page.locator('#et-code').fill('hostname {{ device.name }}\n{% for i in interfaces %}interface {{ i.name }}\n{% endfor %}');
    await page.getByRole('combobox', { name: 'Preview device' }).fill(String(device.name));
    await page.getByRole('option', { name: new RegExp(String(device.name)) }).first().click();
    await page.getByRole('button', { name: 'Run preview' }).click();
    const output = page.getByTestId('preview-output');
    await output.waitFor();
    expect(await output.innerText()).toContain(`hostname ${String(device.name)}`);
    expect(await output.innerText()).toContain('interface ');
    await shot(page, 'p01-preview-against-device');

    // A failure while rendering (not at compile time) is shown on its line.
    await page.locator('#et-code').fill('hostname {{ device.name }}\n{{ device.name / 2 }}\n');
    await page.getByRole('button', { name: 'Run preview' }).click();
    const error = page.getByTestId('template-error');
    await error.waitFor();
    expect(await error.innerText()).toMatch(/^Line 2:/);
    expect(await page.locator('[data-error-line]').innerText()).toContain('2');
    await shot(page, 'p02-preview-error-on-line');
  });

  it('is the one editor: the generic form addresses and the detail page Edit lead to it, target path included', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/objects/extras.exporttemplate/new`);
    await page.getByRole('form', { name: 'Create export template' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/export-templates/new');
    await page.getByLabel(/^Name/).fill('web-one-editor');
    await page.getByLabel('Target path').fill('etc//frr/./frr.conf');
    await page.locator('#et-code').fill('hostname {{ device.name }}\n');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Edit web-one-editor' }).waitFor();
    // Stored as a path, shown as stored, and nothing left unsaved.
    expect(await page.getByLabel('Target path').inputValue()).toBe('/etc/frr/frr.conf');
    await page.getByText('Saved', { exact: true }).waitFor();
    const saved = (await server.api<Page<Row>>('GET', '/api/export-templates/?name=web-one-editor')).body.results[0]!;
    expect(saved.target_path).toBe('/etc/frr/frr.conf');
    await page.goto(`${server.url}/objects/extras.exporttemplate/${saved.id}`);
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByRole('heading', { name: 'Edit web-one-editor' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/export-templates/${saved.id}/editor`);
    await page.goto(`${server.url}/objects/extras.exporttemplate/${saved.id}/edit`);
    await page.getByRole('heading', { name: 'Edit web-one-editor' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/export-templates/${saved.id}/editor`);
    await shot(page, 'p03-one-editor-target-path');
  });
});
