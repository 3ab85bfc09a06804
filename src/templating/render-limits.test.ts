// Issue 27: a render request's budget (bytes and time), honest failures, and client disconnects, over real HTTP:
// app.inject cannot show a cut-off transfer, a client of a real socket can (response.complete stays false).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { created, createDevice, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';
import { eventually } from '../../test/helpers/outbound.ts';
import { loadConfig, ConfigError, RENDER_DEFAULTS } from '../config.ts';
import { configureRenderBudget, renderBudgetLimits } from './render-budget.ts';
import { streamingRenders } from './routes.ts';
import { planPushdown } from './pushdown.ts';
import { templateEnvironment } from './environment.ts';
import { systemContext } from '../core/context.ts';
import { requireModel } from '../core/registry.ts';

let h: Harness;
let basics: Basics;
let base: string;
const defaults = { ...renderBudgetLimits };

beforeAll(async () => {
  h = await startHarness();
  basics = await inventoryBasics(h.as('alice'), ['eth0']);
  await createDevice(h.as('alice'), basics, 'lim1');
  await createDevice(h.as('alice'), basics, 'lim2');
  base = await h.app.listen({ host: '127.0.0.1', port: 0 });
}, 120_000);
afterAll(async () => {
  await h?.close();
});
afterEach(() => configureRenderBudget(defaults));

interface RawAnswer {
  status: number;
  body: string;
  /** Whether the transfer ended properly (the terminating chunk arrived). */
  complete: boolean;
}

/** A GET over a real socket, reading until the end or until the server cuts the transfer off. */
function get(path: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { headers: { authorization: `Token ${h.tokens.alice}` } }, (res: IncomingMessage) => {
      const parts: Buffer[] = [];
      let settled = false;
      const done = () => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8'), complete: res.complete });
      };
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', done);
      res.on('error', done);
      res.on('close', done);
    });
    req.on('error', reject);
    req.end();
  });
}

async function template(name: string, code: string, objectType = 'dcim.device'): Promise<string> {
  return (await created(h.as('alice'), '/api/export-templates/', { name, object_type: objectType, template_code: code })).id;
}

describe('configuration', () => {
  it('reads CAIRN_RENDER_MAX_BYTES and CAIRN_RENDER_TIME_BUDGET_MS, with defaults, and refuses nonsense', () => {
    expect(loadConfig({}, {})).toMatchObject({ renderMaxBytes: 256 * 1024 * 1024, renderTimeBudgetMs: RENDER_DEFAULTS.timeBudgetMs });
    expect(loadConfig({}, { CAIRN_RENDER_MAX_BYTES: '1000', CAIRN_RENDER_TIME_BUDGET_MS: '5000' })).toMatchObject({ renderMaxBytes: 1000, renderTimeBudgetMs: 5000 });
    expect(() => loadConfig({}, { CAIRN_RENDER_MAX_BYTES: '-1' })).toThrow(ConfigError);
    expect(() => loadConfig({}, { CAIRN_RENDER_MAX_BYTES: '1e3x' })).toThrow(/CAIRN_RENDER_MAX_BYTES/);
  });
});

describe('export streams', () => {
  it('cuts the transfer off at the output cap once bytes were sent, and answers 400 before any', async () => {
    configureRenderBudget({ ...defaults, maxBytes: 300_000 });
    const big = await template('big', '{% for i in range(20000) %}{{ "%-99s" % i }}\n{% endfor %}');
    const res = await get(`/api/export-templates/${big}/render/`);
    expect(res.status).toBe(200);
    expect(res.complete).toBe(false);
    expect(Buffer.byteLength(res.body)).toBeLessThanOrEqual(300_000);
    // Counted in bytes, not characters: 31,000 characters are 91,000 bytes here (refused before the first write).
    configureRenderBudget({ ...defaults, maxBytes: 60_000 });
    const wide = await template('wide', '{% for i in range(1000) %}{{ "€" * 30 }}\n{% endfor %}');
    const refused = await get(`/api/export-templates/${wide}/render/`);
    expect(refused.status, refused.body).toBe(400);
    expect(JSON.parse(refused.body)).toMatchObject({ kind: 'limit' });
    configureRenderBudget({ ...defaults, maxBytes: 1000 });
    const early = await get(`/api/export-templates/${big}/render/`);
    expect(early.status).toBe(400);
    expect(early.complete).toBe(true);
    expect(JSON.parse(early.body).detail).toMatch(/output exceeds the limit of 1000 bytes/);
    configureRenderBudget(defaults);
    const whole = await get(`/api/export-templates/${big}/render/`);
    expect(whole.complete).toBe(true);
    expect(whole.body.length).toBe(20000 * 100);
  });

  it('holds a render PostgreSQL writes (pushdown.ts) to the same cap: 400 before the first byte, a cut-off after', async () => {
    const header = `${'h'.repeat(69_999)}\n`;
    const code = `${header}{% for d in objects %}{{ d.name }},{{ d.serial }},{{ d.site.name }}\n{% endfor %}`;
    expect(planPushdown(systemContext(h.tenants.a), requireModel('dcim.device'), templateEnvironment().compile(code, 't').statements())).not.toBeNull();
    const id = await template('pushed', code);
    const whole = await get(`/api/export-templates/${id}/render/?name__isw=lim`);
    expect(whole.complete).toBe(true);
    expect(whole.body).toMatch(/^h{69999}\nlim1,,Site \d+\nlim2,,Site \d+\n$/);
    // The header (past the route's 64 KB first write) is sent on its own; the rows then pass the cap: cut off.
    configureRenderBudget({ ...defaults, maxBytes: 70_005 });
    const cut = await get(`/api/export-templates/${id}/render/?name__isw=lim`);
    expect(cut.status).toBe(200);
    expect(cut.complete).toBe(false);
    configureRenderBudget({ ...defaults, maxBytes: 1000 });
    const refused = await get(`/api/export-templates/${id}/render/?name__isw=lim`);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).detail).toMatch(/output exceeds the limit of 1000 bytes/);
  });

  it('stops at the time budget: 400 before the first byte, a cut-off transfer after', async () => {
    // Budgets far from what either part takes: no output at all, or 100 KB at once followed by endless work.
    configureRenderBudget({ ...defaults, timeBudgetMs: 1000 });
    const slow = await template('slow', '{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}');
    const before = await get(`/api/export-templates/${slow}/render/`);
    expect(before.status).toBe(400);
    expect(JSON.parse(before.body)).toMatchObject({ kind: 'timeout' });
    const started = await template('slow-started', '{{ "x" * 100000 }}\n{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}');
    const after = await get(`/api/export-templates/${started}/render/`);
    expect(after.status).toBe(200);
    expect(after.complete).toBe(false);
  });

  it('cuts the transfer off when the template fails after streaming began, and answers 400 with the line before', async () => {
    const early = await template('fails-early', 'ok\n{{ 1 / 0 }}');
    const r1 = await get(`/api/export-templates/${early}/render/`);
    expect(r1.status).toBe(400);
    expect(JSON.parse(r1.body)).toMatchObject({ line: 2 });
    const late = await template('fails-late', '{% for i in range(5000) %}{{ "x" * 100 }}\n{% endfor %}{{ 1 / 0 }}');
    // The app logs nowhere in tests: its (silent) logger is the one every request's logger is made from.
    const logged = vi.spyOn(h.app.log, 'error');
    try {
      const r2 = await get(`/api/export-templates/${late}/render/`);
      expect(r2.status).toBe(200);
      expect(r2.complete).toBe(false);
      expect(r2.body).not.toContain('Render failed');
      const entry = logged.mock.calls.find((c) => typeof c[1] === 'string' && c[1].includes('fails-late'));
      expect(entry?.[1]).toMatch(/^export render of fails-late failed after streaming began; response cut off: line \d+: division by zero$/);
      expect(entry?.[0]).toMatchObject({ reqId: expect.any(String), template: 'fails-late' });
    } finally {
      logged.mockRestore();
    }
  });

  it('stops rendering when the client goes away', async () => {
    const endless = await template('endless', '{% for i in range(100000) %}{% for j in range(100000) %}{{ i }}.{{ j }}\n{% endfor %}{% endfor %}');
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${base}/api/export-templates/${endless}/render/`, { headers: { authorization: `Token ${h.tokens.alice}` } }, (res) => {
        res.once('data', () => {
          expect(streamingRenders.active).toBe(1);
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => undefined);
      req.on('close', () => resolve());
      req.end();
      setTimeout(() => reject(new Error('no data')), 30_000).unref();
    });
    await eventually(async () => (streamingRenders.active === 0 ? true : undefined), 'the render to stop');
  });
});

describe('config renders', () => {
  it('share one budget across every device of a multi-device render and refuse past it with 400', async () => {
    const t = await template('per-device', '{{ device.name }}{{ "y" * 600 }}');
    expect((await h.as('alice').get(`/api/devices/render/?template=${t}`)).statusCode).toBe(200);
    configureRenderBudget({ ...defaults, maxBytes: 1000 });
    const res = await h.as('alice').get(`/api/devices/render/?template=${t}`);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ kind: 'limit' });
    expect(res.json().detail).toMatch(/^Rendering stopped at lim2: the output of this request passed its limit of 1000 bytes/);
    const lim1 = (await h.as('alice').get('/api/devices/?name=lim1')).json().results[0].id as string;
    const tar = await h.as('alice').get(`/api/devices/${lim1}/render/?template=${t}&archive=tar`);
    expect(tar.statusCode).toBe(200);
    configureRenderBudget({ ...defaults, maxBytes: 100 });
    const refused = await h.as('alice').get(`/api/devices/${lim1}/render/?template=${t}&archive=tar`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().detail).toMatch(/passed its limit of 100 bytes/);
  });
});
