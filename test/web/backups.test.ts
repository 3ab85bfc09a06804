// Settings → Backups in chromium against a real `cairn serve`: "Create backup" takes a real backup (listed by the
// API and in the table), and "Restore" asks first, naming what it replaces; on the embedded database the server
// refuses (it holds the database open) and the dialog says how to restore on the server, on PostgreSQL the
// restore runs and a tenant made after the backup is gone. Screenshots: backups-created.png, backups-restore.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, openBrowser, shot, signInContext, startServer, type Browser, type WebServer } from './helpers.ts';

interface Backup {
  id: string;
  kind: string;
  version: string;
}

const ready = chromiumAvailable();
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe.skipIf(!ready)('Settings → Backups in chromium', () => {
  let server: WebServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer();
    browser = await openBrowser();
    await signInContext(browser.context, server);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('creates a backup, then restore asks first and names what it replaces', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/settings/backups`);
    await page.getByRole('heading', { name: 'Backups' }).waitFor();
    await page.getByText('No backups yet').waitFor();

    await page.getByRole('button', { name: 'Create backup' }).click();
    const row = page.getByRole('row').filter({ hasText: 'manual' });
    await row.waitFor({ timeout: 120_000 });
    const listed = (await server.api<{ results: Backup[] }>('GET', '/api/system/backups/')).body.results;
    expect(listed).toHaveLength(1);
    const made = listed[0]!;
    expect(made).toMatchObject({ kind: 'manual' });
    await expect.poll(() => row.textContent()).toContain(`${made.id}.tar.gz`);
    await page.getByText(`Backup ${made.id} created`).waitFor();
    await shot(page, 'backups-created');

    // A tenant made after the backup: gone after a restore, still there after a refused one.
    expect((await server.api('POST', '/api/tenants/', { name: 'After the backup', slug: 'after-the-backup' })).status).toBe(201);
    await page.getByRole('button', { name: `Restore ${made.id}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('the database', { exact: true }).waitFor();
    await dialog.getByText('the data directory', { exact: true }).waitFor();
    await dialog.getByText('the environment file', { exact: true }).waitFor();
    await dialog.getByRole('button', { name: 'Restore' }).click();
    const tenants = async () => (await server.api<{ results: { slug: string }[] }>('GET', '/api/tenants/?limit=100')).body.results.map((t) => t.slug);
    if (onPostgres) {
      await page.getByText(`Restored backup ${made.id}.`).waitFor({ timeout: 120_000 });
      expect(await tenants()).not.toContain('after-the-backup');
    } else {
      await dialog.getByRole('alert').waitFor();
      expect(await dialog.getByRole('alert').textContent()).toContain(`cairn backup restore ${made.id} --yes`);
      expect(await tenants()).toContain('after-the-backup');
    }
    await shot(page, 'backups-restore');
  }, 300_000);
});
