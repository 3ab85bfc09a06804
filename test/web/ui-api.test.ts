// The server side of the web UI through app.inject: the model index, per-user preferences, and how web/dist is
// served (caching, SPA fallback, API paths never answered with HTML).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.ts';

const webDir = mkdtempSync(join(tmpdir(), 'cairn-webdist-'));
let h: Harness;

beforeAll(async () => {
  mkdirSync(join(webDir, 'assets'));
  writeFileSync(join(webDir, 'index.html'), '<!doctype html><title>Cairn</title><div id="root"></div>');
  writeFileSync(join(webDir, 'assets', 'index-abc123.js'), 'console.log("app")');
  writeFileSync(join(webDir, 'build-id.json'), '{"build_id":"b1"}');
  process.env.CAIRN_WEB_DIR = webDir;
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
  delete process.env.CAIRN_WEB_DIR;
  rmSync(webDir, { recursive: true, force: true });
});

interface ModelEntry {
  model: string;
  path: string;
  can: { view: boolean; add: boolean; change: boolean; delete: boolean };
}

describe('/api/models/', () => {
  it('lists what the caller may view, with the actions each may take', async () => {
    const admin = (await h.as('admin').get('/api/models/')).json() as { models: ModelEntry[] };
    const device = admin.models.find((m) => m.model === 'dcim.device')!;
    expect(device).toMatchObject({ path: '/api/devices/', can: { view: true, add: true, change: true, delete: true } });
    // The change log has no write routes, so nobody may add to it, not even a superuser.
    expect(admin.models.find((m) => m.model === 'core.objectchange')!.can).toMatchObject({ add: false, change: false, delete: false });

    const viewer = (await h.as('viewer').get('/api/models/')).json() as { models: ModelEntry[] };
    expect(viewer.models.find((m) => m.model === 'dcim.device')!.can).toEqual({ view: true, add: false, change: false, delete: false });

    const nobody = (await h.as('nobody').get('/api/models/')).json() as { models: ModelEntry[] };
    expect(nobody.models.some((m) => m.model === 'dcim.device')).toBe(false);
  });

  it('refuses anonymous callers', async () => {
    expect((await h.as('anonymous').get('/api/models/')).statusCode).toBe(401);
  });
});

describe('/api/users/me/preferences/', () => {
  const url = '/api/users/me/preferences/';

  it('starts empty, merges keys, removes keys sent as null, and is per user', async () => {
    expect((await h.as('alice').get(url)).json()).toEqual({ preferences: {} });
    const set = await h.as('alice').patch(url, { 'list:dcim.device': { columns: ['name', 'site'], limit: 100 } });
    expect(set.statusCode).toBe(200);
    await h.as('alice').patch(url, { 'list:ipam.prefix': { columns: ['prefix'] } });
    expect((await h.as('alice').get(url)).json()).toEqual({
      preferences: { 'list:dcim.device': { columns: ['name', 'site'], limit: 100 }, 'list:ipam.prefix': { columns: ['prefix'] } },
    });
    const removed = await h.as('alice').patch(url, { 'list:ipam.prefix': null });
    expect(removed.json()).toEqual({ preferences: { 'list:dcim.device': { columns: ['name', 'site'], limit: 100 } } });
    // Another user (in another tenant or not) sees only their own.
    expect((await h.as('bob').get(url)).json()).toEqual({ preferences: {} });
    expect((await h.as('viewer').get(url)).json()).toEqual({ preferences: {} });
  });

  it('refuses bad input with a 400 naming the problem, changing nothing', async () => {
    const before = (await h.as('alice').get(url)).json();
    const badKey = await h.as('alice').patch(url, { '../etc': 1 });
    expect(badKey.statusCode).toBe(400);
    expect(JSON.stringify(badKey.json())).toMatch(/pattern|must match/i);
    const empty = await h.as('alice').patch(url, {});
    expect(empty.statusCode).toBe(400);
    const notObject = await h.as('alice').patch(url, [1, 2]);
    expect(notObject.statusCode).toBe(400);
    const huge = await h.as('alice').patch(url, { 'list:x': 'y'.repeat(70 * 1024) });
    expect(huge.statusCode).toBe(400);
    expect(huge.json()).toEqual({ non_field_errors: [expect.stringContaining('64 KB')] });
    expect((await h.as('alice').get(url)).json()).toEqual(before);
  });

  it('is refused to read-only tokens and anonymous callers', async () => {
    const before = (await h.as('alice').get(url)).json();
    expect((await h.as('aliceRO').patch(url, { 'list:dcim.site': { columns: ['name'] } })).statusCode).toBe(403);
    expect((await h.as('anonymous').get(url)).statusCode).toBe(401);
    expect((await h.as('alice').get(url)).json()).toEqual(before);
  });
});

describe('serving web/dist', () => {
  it('answers the app shell for client routes, uncached, with a CSP', async () => {
    for (const path of ['/', '/objects/dcim.device', '/objects/dcim.device/0190-x/edit?tab=journal']) {
      const res = await h.app.inject({ method: 'GET', url: path });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.body).toContain('<div id="root">');
    }
  });

  it('caches hashed assets for good and build-id.json never', async () => {
    const asset = await h.app.inject({ method: 'GET', url: '/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-type']).toContain('javascript');
    const id = await h.app.inject({ method: 'GET', url: '/build-id.json' });
    expect(id.json()).toEqual({ build_id: 'b1' });
    expect(id.headers['cache-control']).toBe('no-cache');
    // A missing asset is a 404, not the HTML page (a stale tab must see the chunk failure and reload).
    expect((await h.app.inject({ method: 'GET', url: '/assets/index-gone.js' })).statusCode).toBe(404);
  });

  it('never answers API paths or escaping paths with files', async () => {
    const api = await h.app.inject({ method: 'GET', url: '/api/no-such-thing/', headers: { authorization: `Token ${h.tokens.admin}` } });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toEqual({ detail: 'Not found.' });
    const escape = await h.app.inject({ method: 'GET', url: '/assets/..%2f..%2fpackage.json' });
    expect(escape.statusCode).toBe(404);
    const dotdot = await h.app.inject({ method: 'GET', url: '/%2e%2e/%2e%2e/package.json' });
    expect(dotdot.body).not.toContain('"dependencies"');
  });
});
