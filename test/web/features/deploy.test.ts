// The Deploy button in a real browser: a real `cairn serve` launches a run on an AWX stand-in (a real HTTPS
// listener on 127.0.0.1, allow-listed and trusted through the environment the server inherits), and the dialog
// shows the run with the status the API reports. Only targets that apply to the device are offered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandin, type Standin } from '../../helpers/outbound.ts';
import { chromiumAvailable, shot, type Browser, type WebServer } from '../helpers.ts';
import { openSession, type Page, type Row, type Session } from './fixtures.ts';


const ready = chromiumAvailable();

describe.skipIf(!ready)('Deploy button in chromium', () => {
  let server: WebServer;
  let browser: Browser;
  let awx: Standin;
  let session: Session;

  beforeAll(async () => {
    awx = await startStandin((req) => {
      if (req.method === 'POST' && req.url === '/api/v2/job_templates/42/launch/') return { status: 201, json: { job: 7001, id: 7001, status: 'pending' } };
      if (req.method === 'GET' && req.url === '/api/v2/jobs/7001/') return { status: 200, json: { id: 7001, status: 'running' } };
      return { status: 404, json: { detail: 'not found' } };
    });
    session = await openSession({ demoDevices: 3, allowLoopback: true });
    ({ server, browser } = session);
  }, 300_000);

  afterAll(async () => {
    await session?.close();
    await awx?.close();
  });

  it('offers the targets that apply, launches a run and shows its status', async () => {
    const { page } = browser;
    const device = (await server.api<Page<Row>>('GET', '/api/devices/?limit=1&ordering=name')).body.results[0]!;
    const role = (device.role as { id: string }).id;
    const otherRole = await server.api<Row>('POST', '/api/device-roles/', { name: 'web-other-role', slug: 'web-other-role' });
    expect(otherRole.status).toBe(201);
    const applies = await server.api<Row>('POST', '/api/automation-targets/', { name: 'awx-web', kind: 'awx', base_url: awx.url, token: 'awx-token', job_template_id: 42, roles: [role] });
    expect(applies.status, JSON.stringify(applies.body)).toBe(201);
    const elsewhere = await server.api<Row>('POST', '/api/automation-targets/', { name: 'awx-elsewhere', kind: 'awx', base_url: awx.url, token: 'awx-token', job_template_id: 42, roles: [otherRole.body.id] });
    expect(elsewhere.status).toBe(201);

    await page.goto(`${server.url}/objects/dcim.device/${device.id}`);
    await page.getByRole('button', { name: 'Deploy' }).click();
    const dialog = page.getByRole('dialog', { name: `Deploy ${device.name}` });
    const target = dialog.getByLabel('Automation target');
    await target.waitFor();
    const offered = await target.locator('option').allTextContents();
    expect(offered).toEqual(['awx-web (awx)']);
    await dialog.getByLabel('Note').fill('from the browser test');
    await dialog.getByRole('button', { name: 'Deploy' }).click();
    const run = dialog.getByTestId('deploy-run');
    await run.waitFor();
    const runs = (await server.api<Page<Row & { status: string; note: string }>>('GET', `/api/deploy-runs/?device_id=${device.id}`)).body;
    expect(runs.count).toBe(1);
    expect(runs.results[0]!.note).toBe('from the browser test');
    await run.getByText(runs.results[0]!.status, { exact: true }).waitFor();
    expect(await run.innerText()).toContain('awx-web');
    expect(awx.received.filter((r) => r.method === 'POST')).toHaveLength(1);
    await shot(page, 'f20-deploy-run');
  });

  it('keeps the console free of errors', () => {
    expect(browser.errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
  });
});
