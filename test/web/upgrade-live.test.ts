// The Updates page of a REAL install (test/upgrade/install.ts: vN unpacked into a temporary root, run by the local
// supervisor) in chromium: the admin uploads the vN+1 bundle and follows the run live. Between quiesce and resume
// the site is held by the maintenance responder, which serves the admin the upgrade card from the journal; the
// page must show the running step then, and the new version once the run is done. One upgrade (~30 s); the
// bundles are the ones every upgrade test shares. Screenshots: upgrade-live-window.png and upgrade-live-done.png.
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundles, installRelease, type Bundles, type Install } from '../upgrade/install.ts';
import { chromiumAvailable, ensureBuilt, openBrowser, ROOT, shot, type Browser } from './helpers.ts';

const ready = chromiumAvailable();
const INSTALL_PASSWORD = 'admin-password-for-tests';
const WINDOW_STEPS = ['quiesce', 'swap', 'deps', 'snapshot', 'migrate', 'static', 'verify', 'start', 'resume'];

interface CardAnswer {
  running_version: string;
  maintenance?: boolean;
  last_upgrade: { id: string; state: string; current_step: string | null } | null;
}

describe.skipIf(!ready)('Updates page follows a real upgrade live', () => {
  let bundles: Bundles;
  let inst: Install;
  let browser: Browser;
  let webDir: string;

  beforeAll(async () => {
    ensureBuilt();
    // The bundles are built without the UI: the install serves a copy of this checkout's build (a copy, so a
    // rebuild by someone else during the run changes nothing), through its env file, which the new release reads too.
    webDir = mkdtempSync(join(tmpdir(), 'cairn-upgrade-web-'));
    cpSync(join(ROOT, 'web', 'dist'), webDir, { recursive: true });
    bundles = await buildBundles();
    inst = await installRelease(bundles.vN, bundles.versionN);
    await inst.host.stop('web');
    appendFileSync(inst.layout.envFile, `CAIRN_WEB_DIR=${webDir}\n`);
    await inst.host.start('web');
    await inst.waitHealthy(bundles.versionN);
    browser = await openBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await inst?.close();
    if (webDir) rmSync(webDir, { recursive: true, force: true });
  }, 120_000);

  it('uploads the newer bundle, shows step progress during the maintenance window, then the new version', async () => {
    const { page } = browser;
    const url = `http://127.0.0.1:${inst.port}`;
    // What the page's own polls of the card were answered, in order (the maintenance responder's say so).
    const answers: { status: number; body: CardAnswer | null }[] = [];
    page.on('response', (res: Response) => {
      if (new URL(res.url()).pathname !== '/api/system/upgrade/' || res.request().method() !== 'GET') return;
      void res
        .json()
        .then((body: CardAnswer) => answers.push({ status: res.status(), body }))
        .catch(() => answers.push({ status: res.status(), body: null }));
    });

    await page.goto(`${url}/system/updates`);
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(INSTALL_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Updates' }).waitFor();
    await expect.poll(() => page.getByTestId('running-version').textContent(), { timeout: 30_000 }).toBe(bundles.versionN);

    await page.getByLabel('Release bundle').setInputFiles(bundles.vN1);
    await page.getByRole('button', { name: 'Upload bundle' }).click();
    // An embedded install: the dialog says the site goes into maintenance (the setting to keep reads needs PostgreSQL).
    await page.getByRole('dialog').getByText('The site goes into maintenance while the new release is installed').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Start upgrade' }).click();

    // The window: a card the responder served (maintenance: true) with a step of the window running, on screen.
    const currentStep = page.getByTestId('current-step');
    let windowStep: string | null = null;
    const deadline = Date.now() + 300_000;
    while (windowStep === null && Date.now() < deadline) {
      const served = answers.filter((a) => a.status === 200 && a.body?.maintenance === true && a.body.last_upgrade?.state === 'running');
      if (served.length) {
        const shown = await currentStep.textContent({ timeout: 1000 }).catch(() => null);
        if (shown && WINDOW_STEPS.includes(shown) && served.some((a) => a.body!.last_upgrade!.current_step === shown)) windowStep = shown;
      }
      if (windowStep === null) await new Promise((r) => setTimeout(r, 100));
    }
    expect(windowStep, `answers seen: ${JSON.stringify(answers.map((a) => [a.status, a.body?.maintenance, a.body?.last_upgrade?.current_step]))}`).not.toBeNull();
    await page.getByText('The site is in maintenance while the upgrade runs').waitFor();
    await shot(page, 'upgrade-live-window');
    // The card lists the steps done so far (preflight, backup, prepare were before the window).
    const steps = page.getByRole('list', { name: 'Upgrade steps' });
    expect(await steps.getByText('preflight', { exact: true }).count()).toBe(1);

    // The end: the new web answers, the run is done, the page shows the new version and the outcome.
    await expect.poll(() => page.getByTestId('running-version').textContent(), { timeout: 300_000, interval: 500 }).toBe(bundles.versionN1);
    await page.getByRole('heading', { name: 'Last upgrade' }).waitFor({ timeout: 60_000 });
    await page.getByRole('heading', { name: `${bundles.versionN} → ${bundles.versionN1}` }).waitFor();
    await page.getByText('Upgraded', { exact: true }).waitFor();
    await expect.poll(() => steps.getByText('running', { exact: true }).count()).toBe(0);
    expect(await page.getByText('The site is in maintenance while the upgrade runs').count()).toBe(0);
    // The file input was emptied when the run started.
    expect(await page.getByLabel('Release bundle').inputValue()).toBe('');
    await shot(page, 'upgrade-live-done');
    expect(answers.some((a) => a.status === 200 && a.body?.maintenance === true)).toBe(true);
    expect((await inst.api('/api/health/')).body).toMatchObject({ status: 'ok', version: bundles.versionN1, maintenance: false });
  }, 900_000);
});
