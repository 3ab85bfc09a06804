// Admin and overview pages in a real browser against a real `cairn serve`: Settings → End of life (enable, import a
// catalog document through the file input), a platform's mapping picker preselecting the suggested product and
// cycle, the Compliance page with a rule's violations and Evaluate now, the Jobs page listing that evaluation,
// Updates and Backups. Screenshots under test/web/screenshots/.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, shot, type Browser, type WebServer } from '../helpers.ts';
import { openSession, type Page, type Row, type Session } from './fixtures.ts';


const ready = chromiumAvailable();

/** A two-cycle catalog document in the endoflife.date /api/v1/products/full shape. */
function catalog(): Buffer {
  const releases = [
    { name: '24.04', label: '24.04 LTS', releaseDate: '2024-04-25', eolFrom: '2029-05-31', isLts: true, isEol: false },
    { name: '22.04', label: '22.04 LTS', releaseDate: '2022-04-21', eolFrom: '2027-06-01', isLts: true, isEol: false },
    { name: '18.04', label: '18.04 LTS', releaseDate: '2018-04-26', eolFrom: '2023-05-31', isLts: true, isEol: true },
  ];
  return Buffer.from(JSON.stringify({ schema_version: '1.2.0', total: 2, result: [
    { name: 'ubuntu', label: 'Ubuntu', category: 'os', aliases: [], releases },
    { name: 'debian', label: 'Debian', category: 'os', aliases: [], releases: [{ name: '12', label: '12', releaseDate: '2023-06-10', eolFrom: '2026-06-10', isLts: false, isEol: true }] },
  ] }));
}

describe.skipIf(!ready)('admin pages in chromium', () => {
  let server: WebServer;
  let browser: Browser;
  // A stand-in for the public release feed (a real HTTP listener on loopback, allowed by the SSRF allow-list).
  let feed: Server;
  let feedUrl = '';
  let session: Session;

  beforeAll(async () => {
    feed = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ releases: [{ version: '99.1.0', bundle_url: 'http://127.0.0.1:9/cairn-99.1.0.tar.gz', sha256: 'a'.repeat(64), prerelease: false, published: '2026-11-01T00:00:00Z', notes_url: null }] }));
    });
    await new Promise<void>((done) => feed.listen(0, '127.0.0.1', done));
    feedUrl = `http://127.0.0.1:${(feed.address() as { port: number }).port}/feed.json`;
    session = await openSession({ demoDevices: 4, allowLoopback: true });
    ({ server, browser } = session);
  }, 300_000);

  afterAll(async () => {
    await session?.close();
    feed?.close();
  });

  it('enables end-of-life data, imports a catalog and maps a platform with the suggested cycle preselected', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/settings/end-of-life`);
    const form = page.getByRole('form', { name: 'End-of-life settings' });
    await form.waitFor();
    await form.getByLabel('Enable end-of-life data').check();
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('End-of-life settings saved.').waitFor();
    expect((await server.api<{ enabled: boolean }>('GET', '/api/eol/settings/')).body.enabled).toBe(true);

    await page.getByLabel('Catalog file').setInputFiles({ name: 'full.json', mimeType: 'application/json', buffer: catalog() });
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByText('Imported full.json.').waitFor();
    await page.getByText('2 catalog products').waitFor();
    await shot(page, 'f10-eol-settings-imported');

    const platform = await server.api<Row>('POST', '/api/platforms/', { name: 'Ubuntu 22.04', slug: 'ubuntu-22-04' });
    expect(platform.status).toBe(201);
    await page.goto(`${server.url}/objects/dcim.platform/${platform.body.id}?tab=eol`);
    const picker = page.getByRole('region', { name: 'Map to a catalog cycle' });
    await picker.waitFor();
    // The suggestion comes first and its cycle (from the platform's name) is preselected.
    await expect.poll(() => picker.getByLabel('Product').inputValue()).toMatch(/\/ubuntu$/);
    await expect.poll(() => picker.getByLabel('Cycle').inputValue()).toBe('22.04');
    expect(await picker.locator('optgroup[label="Suggested"] option').first().textContent()).toContain('Ubuntu');
    await picker.getByRole('button', { name: 'Save mapping' }).click();
    await page.getByText('Mapped to ubuntu 22.04.').waitFor();
    const mapping = (await server.api<{ product: string; cycle: string; status: string }>('GET', `/api/eol/platforms/${platform.body.id}/`)).body;
    expect([mapping.product, mapping.cycle]).toEqual(['ubuntu', '22.04']);
    const label = { supported: 'Supported', ending: 'End of life soon', eol: 'End of life', unknown: 'EOL unknown' }[mapping.status]!;
    await page.getByRole('region', { name: 'End-of-life status' }).getByText(label, { exact: true }).waitFor();
    await shot(page, 'f11-platform-eol-mapped');

    // The mapping is an object like any other: listed under Compliance, shown with its platform.
    const nav = page.getByRole('navigation', { name: 'Main' });
    // Every model sits in a named group (deploy targets and runs under Automation, not a catch-all "Other").
    expect(await nav.getByText('Other', { exact: true }).count()).toBe(0);
    await nav.getByText('Compliance', { exact: true }).click();
    await nav.getByRole('link', { name: 'End-of-life mappings' }).click();
    await page.getByRole('heading', { name: 'End-of-life mappings' }).waitFor();
    const row = page.getByRole('row', { name: /Ubuntu 22\.04/ });
    await expect.poll(async () => (await row.getByRole('cell').allTextContents()).slice(1, 5)).toEqual(['Ubuntu 22.04', 'ubuntu', '22.04', 'endoflife_date']);
    await shot(page, 'f11b-eol-mapping-list');
    // The platform's cell opens the platform; the product's opens the mapping.
    expect(await row.getByRole('link', { name: 'Ubuntu 22.04' }).getAttribute('href')).toBe(`/objects/dcim.platform/${platform.body.id}`);
    await row.getByRole('link', { name: 'ubuntu', exact: true }).click();
    await page.getByRole('heading', { name: 'Ubuntu 22.04 › ubuntu 22.04' }).waitFor();
    await shot(page, 'f11c-eol-mapping-detail');
  });

  it('lists a rule\'s violations on the Compliance page and the evaluation on the Jobs page', async () => {
    const { page } = browser;
    // Before any rule: the device list says nothing is checked, not a green OK.
    expect((await server.api<Page<Row>>('GET', '/api/compliance/rules/?limit=1')).body.count).toBe(0);
    await page.goto(`${server.url}/objects/dcim.device`);
    await page.getByText('No rules', { exact: true }).first().waitFor();
    expect(await page.getByText('OK', { exact: true }).count()).toBe(0);
    // A virtual machine's list reads the same (its summary was printed as JSON).
    expect((await server.api<Row>('POST', '/api/virtual-machines/', { name: 'web-vm-1' })).status).toBe(201);
    await page.goto(`${server.url}/objects/virtualization.virtualmachine`);
    await page.getByRole('row', { name: /web-vm-1/ }).getByText('No rules', { exact: true }).waitFor();
    expect(await page.locator('main').innerText()).not.toContain('{"');
    const rule = await server.api<Row>('POST', '/api/compliance/rules/', { name: 'web-name-pattern', object_type: 'dcim.device', check_kind: 'field_regex', settings: { field: 'name', pattern: '^never-matches$' } });
    expect(rule.status).toBe(201);
    const devices = (await server.api<Page<Row>>('GET', '/api/devices/?limit=1')).body.count;
    await page.goto(`${server.url}/compliance`);
    await page.getByLabel('Rule', { exact: true }).selectOption(rule.body.id);
    await page.getByText(`1–${devices} of ${devices}`).waitFor();
    const violations = page.getByRole('region', { name: 'Open violations' });
    expect(await violations.getByRole('row').filter({ hasText: 'web-name-pattern' }).count()).toBe(devices);
    // Objects are named, not shown as ids.
    const first = (await server.api<Page<Row>>('GET', '/api/devices/?limit=1&ordering=name')).body.results[0]!;
    await violations.getByRole('link', { name: first.name, exact: true }).waitFor();
    await page.getByRole('button', { name: 'Evaluate now' }).click();
    const rules = (await server.api<Page<Row>>('GET', '/api/compliance/rules/?limit=1')).body.count;
    await page.getByText(`Evaluated ${rules} ${rules === 1 ? 'rule' : 'rules'}: ${devices} violations.`).waitFor();
    await shot(page, 'f12-compliance');

    // The device's own Compliance tab shows the same violation.
    await page.goto(`${server.url}/objects/dcim.device/${first.id}?tab=compliance`);
    await page.getByText('1 violation', { exact: true }).waitFor();
    await page.getByRole('cell', { name: 'name does not match ^never-matches$.' }).waitFor();
    await shot(page, 'f12b-device-compliance-tab');

    // The device list shows a violation marker per device by default (no column picked by hand).
    await page.goto(`${server.url}/objects/dcim.device`);
    await page.getByText('1 violation', { exact: true }).first().waitFor();
    expect(await page.getByText('1 violation', { exact: true }).count()).toBe(devices);
    await shot(page, 'f12c-device-list-violation-markers');

    await page.goto(`${server.url}/jobs`);
    await page.locator('[data-job="compliance.evaluate"]').first().waitFor();
    // Labels, not codes: what the job is, its status, and who started it by name.
    const row = await page.locator('[data-job="compliance.evaluate"]').first().innerText();
    expect(row).toContain('Compliance evaluation');
    expect(row).toContain('Succeeded');
    expect(row).not.toMatch(/compliance\.evaluate|user:/);
    await page.getByRole('heading', { name: 'Schedules' }).waitFor();
    await shot(page, 'f13-jobs');
  });

  it('shows Updates and Backups, or says they are not available here', async () => {
    const { page } = browser;
    const upgrade = await server.api<{ running_version?: string }>('GET', '/api/system/upgrade/');
    await page.goto(`${server.url}/system/updates`);
    await page.getByRole('heading', { name: 'Updates' }).waitFor();
    if (upgrade.status === 200) await page.getByTestId('running-version').filter({ hasText: upgrade.body.running_version! }).waitFor();
    else await page.getByText('Upgrade status is not available on this server.').waitFor();
    await page.getByRole('heading', { name: 'After-upgrade steps' }).waitFor();
    await shot(page, 'f14-updates');

    const backups = await server.api<{ count: number }>('GET', '/api/system/backups/');
    await page.goto(`${server.url}/settings/backups`);
    await page.getByRole('heading', { name: 'Backups' }).waitFor();
    if (backups.status === 404) await page.getByText('The backup list is not available on this server.').waitFor();
    else if (backups.body.count === 0) await page.getByText('No backups yet').waitFor();
    else expect(await page.getByRole('row').count()).toBe(backups.body.count + 1);
    await shot(page, 'f15-backups');
  });

  it('saves update settings, checks the feed and shows the update-available badge on the page and in the nav', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/settings/updates`);
    const form = page.getByRole('form', { name: 'Update settings' });
    await form.waitFor();
    // A bad value is named on its field and nothing is saved.
    await form.getByLabel('Port').fill('not-a-port');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.locator('#up-smtp-port-error').waitFor();
    expect((await server.api<{ smtp_port: number }>('GET', '/api/system/upgrade/settings/')).body.smtp_port).toBe(587);
    await form.getByLabel('Port').fill('2525');
    await form.getByLabel('Release feed URL').fill(feedUrl);
    await form.getByLabel('Digest recipients').fill('ops@example.com\nnoc@example.com');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Update settings saved.').waitFor();
    const saved = (await server.api<{ feed_url: string; smtp_port: number; digest_recipients: string[] }>('GET', '/api/system/upgrade/settings/')).body;
    expect(saved).toMatchObject({ feed_url: feedUrl, smtp_port: 2525, digest_recipients: ['ops@example.com', 'noc@example.com'] });
    await shot(page, 'f14b-update-settings');

    await page.goto(`${server.url}/system/updates`);
    await page.getByRole('button', { name: 'Check now' }).click();
    await page.getByText('Update available: 99.1.0').waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByText('update available').waitFor();
    // This test server runs from a checkout, not an installed release: it says so instead of offering the upgrade.
    const status = (await server.api<{ installed: boolean }>('GET', '/api/system/upgrade/')).body;
    if (!status.installed) await page.getByText('cannot upgrade itself').waitFor();
    else await page.getByRole('button', { name: 'Upgrade to 99.1.0' }).waitFor();
    await shot(page, 'f14c-update-available');
  });

  it('filters the device list by a site picked from the site list with the keyboard', async () => {
    const { page } = browser;
    const site = (await server.api<Page<Row>>('GET', '/api/sites/?limit=1&ordering=name')).body.results[0]!;
    const expected = (await server.api<Page<Row>>('GET', `/api/devices/?limit=1&site=${site.id}`)).body.count;
    expect(expected).toBeGreaterThan(0);
    await page.goto(`${server.url}/objects/dcim.device`);
    await page.getByLabel('Filter field').selectOption({ label: 'Site' });
    const picker = page.getByRole('combobox', { name: 'Site to filter by' });
    await picker.fill(site.name);
    await page.getByRole('option', { name: site.name, exact: true }).waitFor();
    // Arrow down to the site (other names may contain the typed text too), then Enter picks it.
    const names = await page.getByRole('option').allInnerTexts();
    for (let i = 0; i < names.indexOf(site.name); i++) await picker.press('ArrowDown');
    await picker.press('Enter');
    // The chip names the site, the URL carries its id, and the list holds that site's devices only.
    await page.getByRole('list', { name: 'Active filters' }).getByText(`Site: ${site.name}`).waitFor();
    expect(new URL(page.url()).searchParams.get('site')).toBe(site.id);
    await page.getByText(new RegExp(`of ${expected}$`)).first().waitFor();
    await shot(page, 'f16-device-list-site-filter');
  });

  it('keeps the console free of errors', () => {
    // The 401 is /api/auth/me/ before signing in; the one 400 is the bad port the settings test sends on purpose.
    expect(browser.errors.filter((e) => /status of 400/.test(e))).toHaveLength(1);
    expect(browser.errors.filter((e) => !/status of 40[01]/.test(e))).toEqual([]);
  });
});
