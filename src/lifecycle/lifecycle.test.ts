// End-of-life data through the API: settings, import of the real catalog document, refresh from a local HTTPS
// stand-in through the SSRF guard, mappings (missing, change log, write only on change), status around the window
// edges, the `eol` field and filters, bad input, permissions and tenant isolation.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Who } from '../../test/helpers/harness.ts';
import { guardedGet } from '../core/ssrf.ts';
import { startQueueDispatcher } from '../jobs/host.ts';
import { addDays, setToday } from './status.ts';
import { eolOfPlatforms } from './service.ts';
import { createDevice, inventoryBasics } from '../../test/helpers/inventory.ts';

const REPO = new URL('../../', import.meta.url);
const FULL_DOC = fileURLToPath(new URL('../shared/data/endoflife-full.json', REPO));
const haveDoc = existsSync(FULL_DOC);
if (!haveDoc) console.warn(`skipping real-catalog tests: ${FULL_DOC} is absent`);

const TODAY = '2026-11-21';
let h: Harness;

function multipart(bytes: Buffer, field = 'file', fields: Record<string, string> = {}): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----cairn${Date.now()}`;
  const extra = Object.entries(fields).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('');
  const head = Buffer.from(`${extra}--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="full.json"\r\nContent-Type: application/json\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { payload: Buffer.concat([head, bytes, tail]), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function upload(who: Who, bytes: Buffer, field = 'file', fields: Record<string, string> = {}) {
  const { payload, headers } = multipart(bytes, field, fields);
  return h.app.inject({ method: 'POST', url: '/api/eol/import/', payload, headers: { ...headers, authorization: `Token ${h.tokens[who as Exclude<Who, 'anonymous'>]}` } });
}

async function count(table: string, where = sql`true`): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)} WHERE ${where}`.execute(h.database.db);
  return rows[0]!.n;
}

const eolChanges = () => count('object_changes', sql`object_type LIKE 'lifecycle.%'`);

interface Rel {
  name: string;
  eolFrom?: string | null;
  isEol?: boolean | null;
  releaseDate?: string;
  eoasFrom?: string | null;
  isLts?: boolean;
  latest?: { name: string } | null;
}

function doc(products: { name: string; label?: string; aliases?: string[]; releases: Rel[] }[]): Buffer {
  return Buffer.from(JSON.stringify({ schema_version: '1.2.0', total: products.length, result: products.map((p) => ({ category: 'os', aliases: [], label: p.name, ...p })) }));
}

/** A product whose cycles sit on the window edges around TODAY with warning_days 180, plus boolean-only ones. */
function edgeDoc(extra: Rel[] = []): Buffer {
  return doc([
    {
      name: 'edgeos',
      label: 'Edge OS',
      releases: [
        { name: 'today', eolFrom: TODAY, isEol: false },
        { name: 'yesterday', eolFrom: addDays(TODAY, -1), isEol: false },
        { name: 'tomorrow', eolFrom: addDays(TODAY, 1), isEol: true },
        { name: 'edge', eolFrom: addDays(TODAY, 180), isEol: true },
        { name: 'edge-1', eolFrom: addDays(TODAY, 179) },
        { name: 'edge+1', eolFrom: addDays(TODAY, 181), isEol: true },
        { name: 'bool-eol', eolFrom: null, isEol: true },
        { name: 'bool-ok', eolFrom: null, isEol: false },
        { name: 'no-answer', eolFrom: null },
        ...extra,
      ],
    },
    { name: 'ubuntu', label: 'Ubuntu', aliases: ['ubuntu-linux'], releases: [{ name: '22.04', releaseDate: '2022-04-21', eoasFrom: '2027-06-01', eolFrom: '2032-04-09', isLts: true, latest: { name: '22.04.5' } }, { name: '24.04', eolFrom: '2034-04-25' }] },
  ]);
}

async function enable(patch: Record<string, unknown> = {}) {
  const res = await h.as('admin').put('/api/eol/settings/', { enabled: true, warning_days: 180, ...patch });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function platform(who: Who, name: string): Promise<string> {
  const slug = name.toLowerCase().replace(/\+/g, 'plus').replace(/[^a-z0-9]+/g, '-');
  const res = await h.as(who).post('/api/platforms/', { name, slug });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

beforeAll(async () => {
  h = await startHarness();
  setToday(TODAY);
});
afterAll(async () => {
  setToday(null);
  await h?.close();
});

describe('while off', () => {
  it('tenant endpoints are 404, eol is null, filters are ignored but validated', async () => {
    const p = await platform('admin', 'Off Platform');
    expect((await h.as('admin').get(`/api/eol/platforms/${p}/`)).statusCode).toBe(404);
    expect((await h.as('admin').get('/api/eol/products/')).statusCode).toBe(404);
    const one = await h.as('admin').get(`/api/platforms/${p}/`);
    expect(one.json().eol).toBeNull();
    const all = await h.as('admin').get('/api/platforms/?eol=eol');
    expect(all.statusCode).toBe(200);
    expect(all.json().count).toBeGreaterThan(0);
    const bad = await h.as('admin').get('/api/platforms/?eol=dead');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().eol[0]).toMatch(/supported, ending, eol, unknown/);
    expect((await upload('admin', edgeDoc())).statusCode).toBe(409);
    expect((await h.as('admin').post('/api/eol/refresh/')).statusCode).toBe(409);
  });
});

describe('settings', () => {
  it('non-admins read enabled and warning_days only, and cannot write, refresh or import', async () => {
    const res = await h.as('alice').get('/api/eol/settings/');
    expect(res.json()).toEqual({ enabled: false, warning_days: 180 });
    expect((await h.as('alice').put('/api/eol/settings/', { enabled: true })).statusCode).toBe(403);
    expect((await h.as('alice').patch('/api/eol/settings/', { warning_days: 3 })).statusCode).toBe(403);
    expect((await h.as('alice').post('/api/eol/refresh/')).statusCode).toBe(403);
    expect((await upload('alice', edgeDoc())).statusCode).toBe(403);
    expect((await h.as('anonymous').get('/api/eol/settings/')).statusCode).toBe(401);
  });

  it('bad values are 400 naming the field, and change nothing', async () => {
    const before = (await h.as('admin').get('/api/eol/settings/')).json();
    const changes = await eolChanges();
    const cases: [Record<string, unknown>, string][] = [
      [{ warning_days: -1 }, 'warning_days'],
      [{ warning_days: 'x' }, 'warning_days'],
      [{ warning_days: true }, 'warning_days'],
      [{ warning_days: 3651 }, 'warning_days'],
      [{ source_urls: { endoflife_date: 'http://mirror.example.com' } }, 'source_urls'],
      [{ source_urls: { endoflife_date: 'https://10.0.0.1' } }, 'source_urls'],
      [{ source_urls: { endoflife_date: 'https://127.0.0.1:8443' } }, 'source_urls'],
      [{ source_urls: { nope: 'https://mirror.example.com' } }, 'source_urls'],
      [{ sources: ['nope'] }, 'sources'],
      [{ ssrf_allowlist: ['not a cidr/99'] }, 'ssrf_allowlist'],
      [{ enabled: 'yes' }, 'enabled'],
      [{ enabled: true, warning_days: -1 }, 'warning_days'],
    ];
    for (const [body, field] of cases) {
      const res = await h.as('admin').patch('/api/eol/settings/', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.json()), JSON.stringify(body)).toContain(field);
    }
    expect((await h.as('admin').get('/api/eol/settings/')).json()).toEqual(before);
    expect(await eolChanges()).toBe(changes);
    const http = await h.as('admin').patch('/api/eol/settings/', { source_urls: { endoflife_date: 'http://mirror.example.com' } });
    expect(http.json().source_urls[0]).toMatch(/https/);
    const priv = await h.as('admin').patch('/api/eol/settings/', { source_urls: { endoflife_date: 'https://10.0.0.1' } });
    expect(priv.json().source_urls[0]).toMatch(/non-public/);
  });

  it('enabling picks the built-in source and is change-logged', async () => {
    const changes = await eolChanges();
    const s = await enable();
    expect(s.enabled).toBe(true);
    expect(s.sources).toEqual(['endoflife_date']);
    expect(s.available_sources[0].key).toBe('endoflife_date');
    expect(await eolChanges()).toBe(changes + 1);
    // Saving the same values again writes nothing.
    await enable();
    expect(await eolChanges()).toBe(changes + 1);
  });
});

describe('import', () => {
  beforeEach(async () => {
    await enable();
  });

  it.skipIf(!haveDoc)('loads the real document (464 products, 8,321 cycles); a second import writes nothing', async () => {
    const bytes = readFileSync(FULL_DOC);
    const first = await upload('admin', bytes);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ products: 464 });
    expect(await count('eol_products', sql`source = 'endoflife_date'`)).toBe(464);
    const { rows } = await sql<{ n: number }>`SELECT sum(jsonb_array_length(releases))::int AS n FROM eol_products`.execute(h.database.db);
    expect(rows[0]!.n).toBe(8321);
    const stamp = await sql<{ t: string }>`SELECT max(updated)::text AS t FROM eol_products`.execute(h.database.db);
    const changes = await count('object_changes');
    const again = await upload('admin', bytes);
    expect(again.json()).toMatchObject({ products: 464, added: 0, removed: 0, changed: 0 });
    expect((await sql<{ t: string }>`SELECT max(updated)::text AS t FROM eol_products`.execute(h.database.db)).rows[0]!.t).toBe(stamp.rows[0]!.t);
    expect(await count('object_changes')).toBe(changes);
    // The real catalog: ubuntu 22.04 is mapped from the stored cycle; `ios` is Apple's and is not suggested for Cisco.
    const p = await platform('admin', 'Ubuntu 22.04');
    const list = await h.as('admin').get(`/api/eol/products/?platform=${p}&q=ubuntu`);
    expect(list.statusCode).toBe(200);
    expect(list.json().suggestions[0]).toMatchObject({ name: 'ubuntu', cycle: '22.04' });
    // The vendor first (issue 27): Cisco's IOS XE above Apple's ios, by the name's first word or the manufacturer.
    const byName = (await h.as('admin').post('/api/platforms/', { name: 'Cisco IOS XE', slug: 'iosxe-17' })).json().id as string;
    expect((await h.as('admin').get(`/api/eol/products/?platform=${byName}`)).json().suggestions[0]).toMatchObject({ name: 'cisco-ios-xe' });
    const cisco = (await h.as('admin').post('/api/manufacturers/', { name: 'Cisco', slug: 'cisco-eol' })).json().id as string;
    const byMaker = (await h.as('admin').post('/api/platforms/', { name: 'IOS XE 17.9', slug: 'ios-xe-17-9', manufacturer: cisco })).json().id as string;
    const ranked = (await h.as('admin').get(`/api/eol/products/?platform=${byMaker}`)).json().suggestions as Array<{ name: string }>;
    expect(ranked.map((r) => r.name).slice(0, 2)).toEqual(['cisco-ios-xe', 'ios']);
    await h.as('admin').delete(`/api/platforms/${byName}/`);
    await h.as('admin').delete(`/api/platforms/${byMaker}/`);
    await h.as('admin').delete(`/api/manufacturers/${cisco}/`);
    const detail = await h.as('admin').get('/api/eol/products/endoflife_date/ubuntu/');
    expect(detail.json().releases.some((r: { name: string }) => r.name === '22.04')).toBe(true);
    await h.as('admin').delete(`/api/platforms/${p}/`);
  });

  it('mirrors the document: products that left it are removed, past half of the catalog only with force=true', async () => {
    // Issue 27: a 2-product document against the 464-product catalog is refused, naming what it would remove.
    const refused = await upload('admin', edgeDoc());
    expect(refused.statusCode).toBe(400);
    expect(refused.json().file[0]).toMatch(/^This document would remove 46\d of the 464 products in the catalog \(.+\)\. Send force=true to import it anyway\.$/);
    expect(await count('eol_products')).toBe(464);
    expect((await upload('admin', edgeDoc(), 'file', { force: 'maybe' })).json().force[0]).toBe('true or false.');
    const res = await upload('admin', edgeDoc(), 'file', { force: 'true' });
    expect(res.statusCode, res.body).toBe(200);
    expect(await count('eol_products')).toBe(2);
    expect(res.json().products).toBe(2);
    expect(res.json().removed).toBeGreaterThan(460);
    expect(res.json().removed_products).toHaveLength(50);
    expect(res.json().removed_products).toContain('adonisjs');
  });

  it('bad documents are 400 on file and change nothing', async () => {
    await upload('admin', edgeDoc());
    const snapshot = (await sql<{ t: string }>`SELECT string_agg(name || releases::text, ',' ORDER BY name) AS t FROM eol_products`.execute(h.database.db)).rows[0]!.t;
    const bad: Buffer[] = [
      Buffer.from('this is not json'),
      Buffer.from(JSON.stringify({ hello: 'world' })),
      Buffer.from(JSON.stringify({ result: [{ name: 'x' }] })),
      doc([{ name: 'broken', releases: [{ name: '1', eolFrom: '2025-13-45' }] }]),
      doc([{ name: 'broken', releases: [{ name: '1', releaseDate: 'soon' }] }]),
    ];
    for (const b of bad) {
      const res = await upload('admin', b);
      expect(res.statusCode, b.toString().slice(0, 60)).toBe(400);
      expect(res.json().file[0]).toBeTruthy();
    }
    expect((await upload('admin', Buffer.from('{}'), 'other')).json().file[0]).toMatch(/Upload the catalog JSON/);
    const after = (await sql<{ t: string }>`SELECT string_agg(name || releases::text, ',' ORDER BY name) AS t FROM eol_products`.execute(h.database.db)).rows[0]!.t;
    expect(after).toBe(snapshot);
  });

  it('a 65 MB upload is refused with a clear message', async () => {
    const big = Buffer.alloc(65 * 1024 * 1024, 0x20);
    const res = await upload('admin', big);
    expect([400, 413]).toContain(res.statusCode);
    expect(res.body).toMatch(/larger than 64 MB/);
  });
});

describe('mappings and status', () => {
  let platforms: Record<string, string>;
  beforeAll(async () => {
    await enable();
    expect((await upload('admin', edgeDoc())).statusCode).toBe(200);
    platforms = {};
    for (const cycle of ['today', 'yesterday', 'tomorrow', 'edge', 'edge-1', 'edge+1', 'bool-eol', 'bool-ok', 'no-answer']) {
      platforms[cycle] = await platform('admin', `Edge ${cycle}`);
      const res = await h.as('admin').put(`/api/eol/platforms/${platforms[cycle]}/`, { product: 'edgeos', cycle });
      expect(res.statusCode, res.body).toBe(200);
    }
    platforms.unmapped = await platform('admin', 'Edge unmapped');
  });

  it('derives the status from dates around the window edges and booleans only without a date', async () => {
    const expected: Record<string, string> = {
      today: 'eol',
      yesterday: 'eol',
      tomorrow: 'ending',
      edge: 'ending',
      'edge-1': 'ending',
      'edge+1': 'supported',
      'bool-eol': 'eol',
      'bool-ok': 'supported',
      'no-answer': 'unknown',
      unmapped: 'unknown',
    };
    for (const [cycle, status] of Object.entries(expected)) {
      const res = await h.as('admin').get(`/api/eol/platforms/${platforms[cycle]}/`);
      expect(res.json().status, cycle).toBe(status);
      expect((await h.as('admin').get(`/api/platforms/${platforms[cycle]}/`)).json().eol.status, cycle).toBe(status);
    }
    // The list filter agrees with the payload, in SQL.
    for (const status of ['eol', 'ending', 'supported', 'unknown']) {
      const res = await h.as('admin').get(`/api/platforms/?eol=${status}&name__isw=Edge&limit=100`);
      expect(res.statusCode).toBe(200);
      const names = res.json().results.map((p: { name: string }) => p.name.slice(5)).sort();
      expect(names, status).toEqual(Object.keys(expected).filter((c) => expected[c] === status).sort());
    }
    const both = await h.as('admin').get('/api/platforms/?eol=eol,ending&name__isw=Edge&limit=100');
    expect(both.json().count).toBe(6);
    // A page reads `eol` in its own statement (a platform's and a device's platform brief): the payload the
    // service builds, field for field.
    const listed = (await h.as('admin').get('/api/platforms/?name__isw=Edge&limit=100')).json().results as Array<{ id: string; slug: string; eol: unknown }>;
    const built = await eolOfPlatforms(h.database.db, listed.map((p) => p.id));
    expect(listed.filter((p) => (p.eol as { synced_at?: string } | null)?.synced_at).length).toBeGreaterThan(5);
    for (const p of listed) expect(p.eol, p.slug).toEqual(built.get(p.id));
    const device = await createDevice(h.as('admin'), await inventoryBasics(h.as('admin')), 'eol-brief', { platform: platforms.tomorrow });
    expect((device.platform as { eol: unknown }).eol).toEqual(built.get(platforms.tomorrow!));
    // The calendar moves the status without a refresh: a day later, "tomorrow" has ended.
    setToday(addDays(TODAY, 1));
    expect((await h.as('admin').get(`/api/eol/platforms/${platforms.tomorrow}/`)).json().status).toBe('eol');
    expect((await h.as('admin').get(`/api/eol/platforms/${platforms['edge+1']}/`)).json().status).toBe('ending');
    setToday(TODAY);
    // A smaller window moves the line.
    await enable({ warning_days: 30 });
    expect((await h.as('admin').get(`/api/eol/platforms/${platforms['edge-1']}/`)).json().status).toBe('supported');
    await enable({ warning_days: 180 });
  });

  it('shows eol on the nested platform of devices and filters devices and VMs', async () => {
    const site = (await h.as('admin').post('/api/sites/', { name: 'EOL site', slug: 'eol-site' })).json().id;
    const mf = (await h.as('admin').post('/api/manufacturers/', { name: 'EOL mf', slug: 'eol-mf' })).json().id;
    const dt = (await h.as('admin').post('/api/device-types/', { manufacturer: mf, model: 'EOL box', slug: 'eol-box' })).json().id;
    const role = (await h.as('admin').post('/api/device-roles/', { name: 'EOL role', slug: 'eol-role' })).json().id;
    const mk = async (name: string, p: string | null) => {
      const res = await h.as('admin').post('/api/devices/', { name, device_type: dt, role, site, platform: p });
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };
    const dead = await mk('eol-dev-dead', platforms.yesterday!);
    await mk('eol-dev-ok', platforms['edge+1']!);
    await mk('eol-dev-none', null);
    expect(dead.platform.eol.status).toBe('eol');
    const list = await h.as('admin').get('/api/devices/?eol=eol&name__isw=eol-dev');
    expect(list.json().results.map((d: { name: string }) => d.name)).toEqual(['eol-dev-dead']);
    const unknown = await h.as('admin').get('/api/devices/?eol=unknown&name__isw=eol-dev');
    expect(unknown.json().results.map((d: { name: string }) => d.name)).toEqual(['eol-dev-none']);
    expect((await h.as('admin').get('/api/devices/?eol=bogus')).statusCode).toBe(400);
    const vm = await h.as('admin').post('/api/virtual-machines/', { name: 'eol-vm', platform: platforms['bool-eol'] });
    expect(vm.statusCode, vm.body).toBe(201);
    expect(vm.json().platform.eol.status).toBe('eol');
    expect((await h.as('admin').get('/api/virtual-machines/?eol=eol')).json().results.map((v: { name: string }) => v.name)).toEqual(['eol-vm']);
    expect((await h.as('admin').get('/api/virtual-machines/?eol=supported')).json().count).toBe(0);
  });

  it('cycles that leave the catalog keep their dates and are marked missing; they come back', async () => {
    const before = (await h.as('admin').get(`/api/eol/platforms/${platforms.edge}/`)).json();
    const changes = await eolChanges();
    const withoutEdge = JSON.parse(edgeDoc().toString());
    withoutEdge.result[0].releases = withoutEdge.result[0].releases.filter((r: Rel) => r.name !== 'edge');
    const res = await upload('admin', Buffer.from(JSON.stringify(withoutEdge)));
    expect(res.json()).toMatchObject({ changed: 1 });
    const gone = (await h.as('admin').get(`/api/eol/platforms/${platforms.edge}/`)).json();
    expect(gone).toMatchObject({ missing: true, eol_date: before.eol_date, synced_at: before.synced_at, status: 'ending' });
    expect(await eolChanges()).toBe(changes + 1);
    const back = await upload('admin', edgeDoc());
    expect(back.json()).toMatchObject({ changed: 1 });
    expect((await h.as('admin').get(`/api/eol/platforms/${platforms.edge}/`)).json()).toMatchObject({ missing: false, eol_date: before.eol_date });
    // Same document again: nothing is written.
    const same = await upload('admin', edgeDoc());
    expect(same.json()).toMatchObject({ changed: 0, added: 0, removed: 0 });
    expect(await eolChanges()).toBe(changes + 2);
  });

  it('a mapping is an object of the write service: listed with its number and platform, logged by that name, announced to webhooks, refreshed as the system', async () => {
    // A webhook may follow mappings (a type it could not name while mappings were written beside the registry).
    const hook = await h.as('admin').post('/api/webhooks/', {
      name: 'eol mappings', payload_url: 'https://hooks.cairn.invalid/eol', object_types: ['lifecycle.eolmapping'], events: ['created', 'updated', 'deleted'],
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const p = await platform('admin', 'Edge object');
    const put = await h.as('admin').put(`/api/eol/platforms/${p}/`, { product: 'edgeos', cycle: 'edge' });
    expect(put.statusCode, put.body).toBe(200);
    const list = await h.as('admin').get(`/api/eol/mappings/?platform_id=${p}`);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().count).toBe(1);
    const m = list.json().results[0];
    expect(m).toMatchObject({ display: 'Edge object › edgeos edge', platform: { id: p }, source: 'endoflife_date', product: 'edgeos', cycle: 'edge', label: 'edgeos edge' });
    expect(m).toMatchObject({ eol_date: put.json().eol_date, release_date: put.json().release_date, lts: put.json().lts, missing: false });
    expect(Number.isInteger(m.numid)).toBe(true);
    expect((await h.as('admin').get(`/api/eol/mappings/${m.id}/`)).json()).toMatchObject({ id: m.id, numid: m.numid, label: 'edgeos edge' });
    // Written through the platform's endpoint only: the list takes no writes of its own.
    expect((await h.as('admin').post('/api/eol/mappings/', { platform: p, product: 'edgeos', cycle: 'today' })).statusCode).toBeGreaterThanOrEqual(404);
    // Its tenant's editors see it as platforms; another tenant sees none of it.
    expect((await h.as('alice').get(`/api/eol/mappings/?platform_id=${p}`)).json().count).toBe(1);
    expect((await h.as('bob').get(`/api/eol/mappings/?platform_id=${p}`)).json().count).toBe(0);
    expect((await h.as('bob').get(`/api/eol/mappings/${m.id}/`)).statusCode).toBe(404);

    // The cycle leaves the catalog: the refresh marks the mapping missing as the system, through the same path.
    const withoutEdge = JSON.parse(edgeDoc().toString());
    withoutEdge.result[0].releases = withoutEdge.result[0].releases.filter((r: Rel) => r.name !== 'edge');
    expect((await upload('admin', Buffer.from(JSON.stringify(withoutEdge)))).statusCode).toBe(200);
    expect((await h.as('admin').get(`/api/eol/mappings/${m.id}/`)).json().missing).toBe(true);
    expect((await upload('admin', edgeDoc())).statusCode).toBe(200);
    expect((await h.as('admin').delete(`/api/eol/platforms/${p}/`)).statusCode).toBe(204);
    expect((await h.as('admin').get(`/api/eol/mappings/?platform_id=${p}`)).json().count).toBe(0);

    const { rows } = await sql<{ action: string; object_repr: string; username: string; missing: boolean | null }>`
      SELECT action, object_repr, username, (after->>'missing')::boolean AS missing FROM object_changes
      WHERE object_type = 'lifecycle.eolmapping' AND object_id = ${m.id} ORDER BY time, id`.execute(h.database.db);
    expect(rows).toEqual([
      { action: 'create', object_repr: 'Edge object › edgeos edge', username: 'admin', missing: false },
      { action: 'update', object_repr: 'Edge object › edgeos edge', username: 'system', missing: true },
      { action: 'update', object_repr: 'Edge object › edgeos edge', username: 'system', missing: false },
      { action: 'delete', object_repr: 'Edge object › edgeos edge', username: 'admin', missing: null },
    ]);
    // Each change queued for the webhook in the writer's transaction, as for any object.
    expect(await count('webhook_outbox', sql`webhook_id = ${hook.json().id} AND change_id IN (SELECT id FROM object_changes WHERE object_id = ${m.id})`)).toBe(4);
    expect((await h.as('admin').delete(`/api/webhooks/${hook.json().id}/`)).statusCode).toBe(204);
  });

  it("a refresh writes every tenant's mappings, each tenant's as its own system", async () => {
    const mine = await platform('admin', 'Edge alpha refresh');
    const theirs = await platform('adminB', 'Edge beta refresh');
    expect((await h.as('admin').put(`/api/eol/platforms/${mine}/`, { product: 'edgeos', cycle: 'edge' })).statusCode).toBe(200);
    expect((await h.as('adminB').put(`/api/eol/platforms/${theirs}/`, { product: 'edgeos', cycle: 'edge' })).statusCode).toBe(200);
    const withoutEdge = JSON.parse(edgeDoc().toString());
    withoutEdge.result[0].releases = withoutEdge.result[0].releases.filter((r: Rel) => r.name !== 'edge');
    expect((await upload('admin', Buffer.from(JSON.stringify(withoutEdge)))).statusCode).toBe(200);
    expect((await h.as('admin').get(`/api/eol/platforms/${mine}/`)).json().missing).toBe(true);
    expect((await h.as('adminB').get(`/api/eol/platforms/${theirs}/`)).json().missing).toBe(true);
    const { rows } = await sql<{ platform: string; tenant: string; username: string }>`
      SELECT m.platform_id AS platform, c.tenant_id AS tenant, c.username FROM object_changes c JOIN eol_mappings m ON m.id = c.object_id
      WHERE c.object_type = 'lifecycle.eolmapping' AND c.action = 'update' AND m.platform_id IN (${mine}, ${theirs}) ORDER BY c.tenant_id = ${h.tenants.b}`.execute(h.database.db);
    expect(rows).toEqual([
      { platform: mine, tenant: h.tenants.a, username: 'system' },
      { platform: theirs, tenant: h.tenants.b, username: 'system' },
    ]);
    expect((await upload('admin', edgeDoc())).statusCode).toBe(200);
    expect((await h.as('admin').delete(`/api/eol/platforms/${mine}/`)).statusCode).toBe(204);
    expect((await h.as('adminB').delete(`/api/eol/platforms/${theirs}/`)).statusCode).toBe(204);
  });

  it("documents the platform endpoint's answer as it is: every field the GET and PUT answer is in the schema", async () => {
    const doc = (await h.as('admin').get('/api/docs/json')).json();
    const op = doc.paths['/api/eol/platforms/{id}/'];
    const schemaOf = (method: string) => {
      const s = op[method].responses['200'].content['application/json'].schema;
      return s.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s;
    };
    const mapped = (await h.as('admin').get(`/api/eol/platforms/${platforms.edge}/`)).json();
    const unmapped = (await h.as('admin').get(`/api/eol/platforms/${platforms.unmapped}/`)).json();
    const put = (await h.as('admin').put(`/api/eol/platforms/${platforms.edge}/`, { product: 'edgeos', cycle: 'edge' })).json();
    for (const [method, answer] of [['get', mapped], ['get', unmapped], ['put', put]] as const) {
      const schema = schemaOf(method);
      expect(Object.keys(answer).filter((k) => !(k in schema.properties)), method).toEqual([]);
      for (const key of schema.required) expect(answer, method).toHaveProperty(key);
    }
    expect(Object.keys(mapped).length).toBe(Object.keys(schemaOf('get').properties).length);
    expect(Object.keys(unmapped)).toEqual(['status']);
  });

  it('copies facts on PUT, logs create/change/delete, refuses unknown products and cycles', async () => {
    const p = await platform('admin', 'Ubuntu Server 22.04.3');
    const sugg = await h.as('admin').get(`/api/eol/products/?platform=${p}`);
    expect(sugg.json().suggestions[0]).toMatchObject({ name: 'ubuntu', cycle: '22.04' });
    const changes = await eolChanges();
    for (const [body, field] of [
      [{ product: 'nope', cycle: '1' }, 'product'],
      [{ product: 'ubuntu', cycle: '99.99' }, 'cycle'],
      [{ product: '', cycle: '22.04' }, 'product'],
      [{ product: 'ubuntu' }, 'cycle'],
      [{ source: 'nope', product: 'ubuntu', cycle: '22.04' }, 'source'],
    ] as const) {
      const res = await h.as('admin').put(`/api/eol/platforms/${p}/`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.json())).toContain(field);
    }
    expect(await count('eol_mappings', sql`platform_id = ${p}`)).toBe(0);
    expect(await eolChanges()).toBe(changes);
    const put = await h.as('admin').put(`/api/eol/platforms/${p}/`, { product: 'ubuntu', cycle: '22.04' });
    expect(put.json()).toMatchObject({ status: 'supported', release_date: '2022-04-21', support_until: '2027-06-01', eol_date: '2032-04-09', lts: true, latest_version: '22.04.5', missing: false });
    await h.as('admin').put(`/api/eol/platforms/${p}/`, { product: 'ubuntu', cycle: '22.04' });
    expect(await eolChanges()).toBe(changes + 1);
    await h.as('admin').put(`/api/eol/platforms/${p}/`, { product: 'ubuntu', cycle: '24.04' });
    expect(await eolChanges()).toBe(changes + 2);
    expect((await h.as('admin').delete(`/api/eol/platforms/${p}/`)).statusCode).toBe(204);
    expect((await h.as('admin').delete(`/api/eol/platforms/${p}/`)).statusCode).toBe(204);
    expect(await eolChanges()).toBe(changes + 3);
    // Hand-entered platform dates are separate.
    await h.as('admin').patch(`/api/platforms/${p}/`, { end_of_support: '2030-01-01' });
    await h.as('admin').put(`/api/eol/platforms/${p}/`, { product: 'ubuntu', cycle: '22.04' });
    expect((await h.as('admin').get(`/api/platforms/${p}/`)).json().end_of_support).toBe('2030-01-01');
  });

  it('keeps tenants apart and checks platform permissions', async () => {
    const mine = platforms.today!;
    expect((await h.as('bob').get(`/api/eol/platforms/${mine}/`)).statusCode).toBe(404);
    expect((await h.as('bob').put(`/api/eol/platforms/${mine}/`, { product: 'edgeos', cycle: 'edge' })).statusCode).toBe(404);
    expect((await h.as('bob').delete(`/api/eol/platforms/${mine}/`)).statusCode).toBe(404);
    expect((await h.as('bob').get(`/api/eol/products/?platform=${mine}`)).statusCode).toBe(404);
    expect((await h.as('admin').get(`/api/eol/platforms/${mine}/`)).json().cycle).toBe('today');
    expect((await h.as('viewer').get(`/api/eol/platforms/${mine}/`)).statusCode).toBe(200);
    expect((await h.as('viewer').put(`/api/eol/platforms/${mine}/`, { product: 'edgeos', cycle: 'edge' })).statusCode).toBe(403);
    expect((await h.as('nobody').get('/api/eol/products/')).statusCode).toBe(403);
    // Bob's tenant sees nothing of tenant A's mappings through the filter.
    expect((await h.as('bob').get('/api/platforms/?eol=eol')).json().count).toBe(0);
  });
});

describe('refresh through the SSRF guard', () => {
  let server: Server | null = null;
  let port = 0;
  let served: Buffer = edgeDoc();
  const dir = mkdtempSync(join(tmpdir(), 'cairn-eol-'));
  let haveOpenssl = true;

  beforeAll(async () => {
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
    } catch {
      haveOpenssl = false;
      console.warn('skipping refresh tests: openssl is not available to make a test certificate');
      return;
    }
    server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
      if (req.url === '/api/v1/products/full') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(served);
      } else if (req.url === '/redirect/api/v1/products/full') {
        res.writeHead(302, { location: 'https://127.0.0.1/' });
        res.end();
      } else {
        res.writeHead(404);
        res.end('<html>not found</html>');
      }
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    writeFileSync(join(dir, 'ca.pem'), readFileSync(join(dir, 'cert.pem')));
    process.env.CAIRN_EXTRA_CA_FILE = join(dir, 'ca.pem');
  });
  afterAll(async () => {
    delete process.env.CAIRN_EXTRA_CA_FILE;
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  // Refreshes run on the outbound worker's pg-boss queue, as in `cairn serve` or `cairn worker`.
  let stopWorker: (() => Promise<void>) | null = null;
  beforeAll(async () => {
    stopWorker = await startQueueDispatcher(h.database);
  });
  afterAll(async () => {
    await stopWorker?.();
  });

  async function waitForRefresh(): Promise<Record<string, unknown>> {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      const s = (await h.as('admin').get('/api/eol/settings/')).json();
      if (s.last_refresh_status === 'ok' || s.last_refresh_status === 'failed') return s;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('refresh did not finish');
  }

  it('refuses the stand-in until it is allow-listed, then refreshes from it', async () => {
    if (!haveOpenssl) return;
    const url = `https://127.0.0.1:${port}`;
    await h.as('admin').patch('/api/eol/settings/', { ssrf_allowlist: [] });
    const refused = await h.as('admin').patch('/api/eol/settings/', { enabled: true, source_urls: { endoflife_date: url } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().source_urls[0]).toMatch(/non-public/);
    await expect(guardedGet(`${url}/api/v1/products/full`)).rejects.toThrow(/non-public/);

    const saved = await h.as('admin').patch('/api/eol/settings/', { enabled: true, ssrf_allowlist: ['127.0.0.1/32'], source_urls: { endoflife_date: url } });
    expect(saved.statusCode, saved.body).toBe(200);
    served = edgeDoc([{ name: 'fresh', eolFrom: '2040-01-01' }]);
    const res = await h.as('admin').post('/api/eol/refresh/');
    expect(res.statusCode, res.body).toBe(202);
    expect(['queued', 'running', 'ok']).toContain(res.json().last_refresh_status);
    const done = await waitForRefresh();
    expect(done.last_refresh_error).toBe('');
    expect(done).toMatchObject({ last_refresh_status: 'ok', last_refresh_via: 'online' });
    const detail = (await h.as('admin').get('/api/eol/products/endoflife_date/edgeos/')).json();
    expect(detail.releases.some((r: { name: string }) => r.name === 'fresh')).toBe(true);

    // An import followed by a refresh of the same data writes nothing.
    await upload('admin', served);
    const changes = await count('object_changes');
    await h.as('admin').post('/api/eol/refresh/');
    await waitForRefresh();
    expect(await count('object_changes')).toBe(changes);

    // Without the allow-list the same URL is refused at fetch time, and the status says why.
    await h.as('admin').patch('/api/eol/settings/', { ssrf_allowlist: [] });
    await h.as('admin').post('/api/eol/refresh/');
    const failed = await waitForRefresh();
    expect(failed.last_refresh_status).toBe('failed');
    expect(String(failed.last_refresh_error)).toMatch(/non-public/);

    // No redirects are followed; a non-200 answer is an error.
    process.env.CAIRN_SSRF_ALLOWLIST = '127.0.0.1';
    try {
      const redirect = await guardedGet(`${url}/redirect/api/v1/products/full`);
      expect(redirect.status).toBe(302);
      await h.as('admin').patch('/api/eol/settings/', { source_urls: { endoflife_date: `${url}/nothing` } });
      await h.as('admin').post('/api/eol/refresh/');
      expect(String((await waitForRefresh()).last_refresh_error)).toMatch(/answered HTTP 404/);
      await expect(guardedGet(`${url}/api/v1/products/full`, { maxBytes: 100 })).rejects.toThrow(/larger than/);
      // Streamed: the chunks reach the sink, not the body; the cap and a failing sink still end the request.
      const whole = await guardedGet(`${url}/api/v1/products/full`);
      const parts: Buffer[] = [];
      const streamed = await guardedGet(`${url}/api/v1/products/full`, { onChunk: (c) => parts.push(c) });
      expect(streamed.body.length).toBe(0);
      expect(Buffer.concat(parts).equals(whole.body)).toBe(true);
      await expect(guardedGet(`${url}/api/v1/products/full`, { maxBytes: 100, onChunk: () => undefined })).rejects.toThrow(/larger than/);
      await expect(guardedGet(`${url}/api/v1/products/full`, { onChunk: () => { throw new Error('disk full'); } })).rejects.toThrow('disk full');
    } finally {
      delete process.env.CAIRN_SSRF_ALLOWLIST;
    }
    await expect(guardedGet(`http://127.0.0.1:${port}/`)).rejects.toThrow(/https/);
  });

  it('answers 409 while a refresh is queued', async () => {
    if (!haveOpenssl) return;
    await sql`UPDATE system_state SET value = jsonb_set(jsonb_set(value, '{status}', '"running"'), '{changed}', to_jsonb(now()::text)) WHERE key = 'eol_refresh'`.execute(h.database.db);
    const res = await h.as('admin').post('/api/eol/refresh/');
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toMatch(/already running/);
  });
});
