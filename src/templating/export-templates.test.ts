// Export templates through the API: records, rendering, preview, ?export=, headers, caps, permissions, tenants,
// and the no-N+1 rule (query count of a 2,000-device render).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, groupId, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';
import { createToken, createUser } from '../core/accounts.ts';
import { systemContext } from '../core/context.ts';
import { continueAfter, exportLimits, prepareListRender } from './export.ts';
import { RenderSession, RowGroup, proxyLimits } from './proxies.ts';
import { templateEnvironment } from './environment.ts';
import type { ItemReads } from './engine/index.ts';
import { requireModel } from '../core/registry.ts';

let h: Harness;
let basics: Basics;
let customizeToken: string;
const defaults = { ...exportLimits };
const proxyDefaults = { ...proxyLimits };

beforeAll(async () => {
  h = await startHarness();
  basics = await inventoryBasics(h.as('alice'), ['eth0', 'eth1']);
  await createDevice(h.as('alice'), basics, 'leaf1', { serial: 'S1', platform: basics.platform, custom_fields: {} });
  await createDevice(h.as('alice'), basics, 'leaf2', { serial: 'S2' });
  const customize = await groupId(h.database, 'Customize');
  await createUser(h.database.db, { username: 'carol', password: 'carol-password', tenantIds: [h.tenants.a], groupIds: [customize] });
  customizeToken = await createToken(h.database.db, { username: 'carol', tenantSlug: 'alpha' });
});
afterAll(async () => {
  await h?.close();
});
afterEach(() => {
  Object.assign(exportLimits, defaults);
  Object.assign(proxyLimits, proxyDefaults);
});

const csv = '{% for d in objects %}{{ d.name }},{{ d.site.name }},{{ d.platform.name if d.platform else "" }},{{ d.interfaces.count() }}\n{% endfor %}';

async function template(body: Record<string, unknown>, who: 'alice' | 'admin' | 'bob' = 'alice') {
  return created(h.as(who), '/api/export-templates/', { object_type: 'dcim.device', ...body });
}

function asCarol(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) {
  return h.app.inject({ method, url, headers: { authorization: `Token ${customizeToken}` }, ...(body === undefined ? {} : { payload: body as object }) });
}

/** The output of a preview rendered as alice; anything but a 200 fails with the answer. */
async function previewOutput(code: string, objectType = 'dcim.device'): Promise<string> {
  const res = await h.as('alice').post('/api/export-templates/preview/', { object_type: objectType, template_code: code });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().output as string;
}

async function countOf(table: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(h.database.db);
  return rows[0]!.n;
}

describe('export template records', () => {
  it('creates, reads computed fields, updates and deletes, each in the change log', async () => {
    const alice = h.as('alice');
    const t = await template({ name: 'devices-csv', template_code: 'a\nb\n{{ count }}', file_extension: 'csv', mime_type: 'text/csv' });
    expect(t).toMatchObject({ name: 'devices-csv', object_type: 'dcim.device', line_count: 3, bundle_path: 'devices-csv.csv', as_attachment: true, target_path: '', description: '' });
    const patched = (await alice.patch(`/api/export-templates/${t.id}/`, { target_path: '/etc/x.conf' })).json();
    expect(patched.bundle_path).toBe('/etc/x.conf');
    expect((await alice.delete(`/api/export-templates/${t.id}/`)).statusCode).toBe(204);
    const changes = (await alice.get(`/api/changes/?object_type=extras.exporttemplate&object_id=${t.id}`)).json();
    expect(changes.results.map((c: { action: string }) => c.action).sort()).toEqual(['create', 'delete', 'update']);
  });

  it('refuses bad input naming the field and writes nothing', async () => {
    const alice = h.as('alice');
    const before = await countOf('export_templates');
    const changesBefore = await countOf('object_changes');
    const cases: Array<[Record<string, unknown>, string, RegExp?]> = [
      [{ name: 'x1', template_code: '{% for x in objects %}\n{{ x.name }', object_type: 'dcim.device' }, 'template_code', /^line 2: /],
      [{ name: 'x2', template_code: '{{ x | nosuchfilter }}' }, 'template_code', /line 1/],
      [{ name: 'x3', template_code: 'ok', object_type: 'dcim.nosuch' }, 'object_type', /Unknown object type/],
      [{ name: 'x4', template_code: 'ok', object_type: 'extras.webhook' }, 'object_type', /^This type cannot be exported by template\.$/],
      [{ name: 'x5', template_code: 'ok', object_type: 'automation.automationtarget' }, 'object_type', /cannot be exported/],
      [{ name: 'x6', template_code: 'ok', object_type: 'dcim.devicecredential' }, 'object_type', /cannot be exported/],
      [{ name: 'x7', template_code: 'ok', object_type: 'users.user' }, 'object_type', /cannot be exported/],
      [{ name: 'x8', template_code: 'ok', object_type: 'users.group' }, 'object_type', /cannot be exported/],
      [{ name: 'x9', template_code: 'ok', object_type: 'users.permission' }, 'object_type', /cannot be exported/],
      [{ name: 'x10', template_code: 'ok', object_type: 'users.token' }, 'object_type', /cannot be exported/],
      [{ name: 'x11', template_code: 'ok', object_type: 'core.objectchange' }, 'object_type', /cannot be exported/],
      [{ name: 'x12', template_code: 'ok', mime_type: 'not a mime' }, 'mime_type'],
      [{ name: 'x13', template_code: 'ok', file_extension: '../x' }, 'file_extension'],
      [{ name: 'x14', template_code: 'ok', target_path: '/etc/../x' }, 'target_path'],
      [{ name: 'x15', template_code: 'ok', bogus: 1 }, 'bogus'],
      [{ name: 'x16', template_code: 'ok', line_count: 3 }, 'line_count'],
      [{ template_code: 'ok' }, 'name'],
      [{ name: 'x17' }, 'template_code'],
      [{ name: 'a/b', template_code: 'ok' }, 'name'],
      [{ name: 'x18', template_code: 5 }, 'template_code'],
    ];
    for (const [body, field, message] of cases) {
      const res = await alice.post('/api/export-templates/', { object_type: 'dcim.device', ...body });
      expect(res.statusCode, `${JSON.stringify(body)} → ${res.body}`).toBe(400);
      const errors = res.json() as Record<string, string[]>;
      expect(errors, res.body).toHaveProperty(field);
      if (message) expect(errors[field]![0]).toMatch(message);
    }
    // The keychain (secret key hidden) and the tenant type are allowed subjects.
    const kc = await template({ name: 'keychains', object_type: 'routing.keychain', template_code: '{{ count }}' });
    const tn = await template({ name: 'tenant', object_type: 'tenancy.tenant', template_code: '{% for t in objects %}{{ t.name }};{% endfor %}' });
    // A bad edit changes nothing either.
    const bad = await alice.patch(`/api/export-templates/${kc.id}/`, { template_code: '{% if %}', name: 'renamed' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().template_code[0]).toMatch(/^line 1: /);
    expect((await alice.get(`/api/export-templates/${kc.id}/`)).json().name).toBe('keychains');
    const dup = await alice.post('/api/export-templates/', { object_type: 'dcim.device', name: 'keychains', template_code: 'x' });
    expect(dup.statusCode).toBe(400);
    expect(dup.json()).toHaveProperty('name');
    expect(await countOf('export_templates')).toBe(before + 2);
    expect(await countOf('object_changes')).toBe(changesBefore + 2);
    // The tenant type covers only the tenant the render runs in (admin belongs to both).
    const res = await h.as('admin').get(`/api/export-templates/${tn.id}/render/`);
    expect(res.body).toBe('Alpha;');
    await alice.delete(`/api/export-templates/${kc.id}/`);
    await alice.delete(`/api/export-templates/${tn.id}/`);
  });

  it('keeps tenants apart', async () => {
    const t = await template({ name: 'alpha-only', template_code: csv });
    const bob = h.as('bob');
    expect((await bob.get(`/api/export-templates/${t.id}/`)).statusCode).toBe(404);
    expect((await bob.get(`/api/export-templates/${t.id}/render/`)).statusCode).toBe(404);
    expect((await bob.get(`/api/export-templates/${t.id}/preview/`)).statusCode).toBe(404);
    expect((await bob.patch(`/api/export-templates/${t.id}/`, { name: 'stolen' })).statusCode).toBe(404);
    expect((await bob.get('/api/devices/?export=alpha-only')).statusCode).toBe(400);
    expect((await bob.get(`/api/devices/?export=${t.id}`)).statusCode).toBe(400);
    expect((await bob.get('/api/export-templates/?name=alpha-only')).json().count).toBe(0);
    // Same name in another tenant; its render sees only that tenant's rows.
    const bobBasics = await inventoryBasics(bob);
    await createDevice(bob, bobBasics, 'beta-device');
    const bt = await template({ name: 'alpha-only', template_code: csv }, 'bob');
    const res = await bob.get(`/api/export-templates/${bt.id}/render/`);
    expect(res.body).toMatch(/^beta-device,/);
    expect(res.body).not.toContain('leaf1');
    await h.as('alice').delete(`/api/export-templates/${t.id}/`);
  });

  it('lets the Customize group manage templates, Viewer render only, read-only tokens not save', async () => {
    const res = await asCarol('POST', '/api/export-templates/', { name: 'carol', object_type: 'dcim.device', template_code: '{{ count }}' });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id as string;
    expect((await asCarol('PATCH', `/api/export-templates/${id}/`, { description: 'mine' })).statusCode).toBe(200);
    // Carol may not view devices: the template is hers, the rows are not.
    expect((await asCarol('GET', `/api/export-templates/${id}/render/`)).statusCode).toBe(403);
    const viewer = h.as('viewer');
    const r = await viewer.get(`/api/export-templates/${id}/render/`);
    expect(r.statusCode).toBe(200);
    expect(r.body).toBe('2');
    expect((await viewer.patch(`/api/export-templates/${id}/`, { description: 'x' })).statusCode).toBe(403);
    expect((await viewer.post('/api/export-templates/', { name: 'v', object_type: 'dcim.device', template_code: 'x' })).statusCode).toBe(403);
    expect((await viewer.post('/api/export-templates/preview/', { object_type: 'dcim.device', template_code: 'x' })).statusCode).toBe(403);
    expect((await h.as('aliceRO').post('/api/export-templates/', { name: 'ro', object_type: 'dcim.device', template_code: 'x' })).statusCode).toBe(403);
    expect((await h.as('aliceRO').get(`/api/export-templates/${id}/render/`)).statusCode).toBe(200);
    expect((await h.as('nobody').get(`/api/export-templates/${id}/render/`)).statusCode).toBe(403);
    expect((await h.as('anonymous').get(`/api/export-templates/${id}/render/`)).statusCode).toBe(401);
    expect((await asCarol('DELETE', `/api/export-templates/${id}/`)).statusCode).toBe(204);
  });
});

describe('rendering', () => {
  it('streams the rows with inert headers', async () => {
    const t = await template({ name: 'smoke "quoted"', template_code: csv, mime_type: 'text/html' });
    const res = await h.as('alice').get(`/api/export-templates/${t.id}/render/`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toBe('leaf1,Site 1,Platform 1,2\nleaf2,Site 1,,2\n');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe("sandbox; default-src 'none'");
    expect(res.headers['content-disposition']).toBe('attachment; filename="smoke \\"quoted\\".txt"');
    const inline = await template({ name: 'inline', template_code: '{"n": {{ count }}}', mime_type: 'application/json', as_attachment: false, file_extension: 'json' });
    const r2 = await h.as('alice').get(`/api/export-templates/${inline.id}/render/`);
    expect(r2.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r2.headers['content-disposition']).toBe('inline; filename="inline.json"');
    expect(r2.json()).toEqual({ n: 2 });
    for (const [mime, served] of [['text/csv', 'text/csv'], ['application/xml', 'application/xml'], ['text/yaml', 'text/yaml'], ['image/svg+xml', 'text/plain'], ['application/javascript', 'text/plain']]) {
      await h.as('alice').patch(`/api/export-templates/${inline.id}/`, { mime_type: mime });
      expect((await h.as('alice').get(`/api/export-templates/${inline.id}/render/`)).headers['content-type']).toBe(`${served}; charset=utf-8`);
    }
  });

  it('narrows rows with list filters, from the render and from ?export= on the list', async () => {
    const t = await template({ name: 'names', template_code: '{{ count }}:{% for d in queryset %}{{ d.name }};{% endfor %}' });
    const alice = h.as('alice');
    expect((await alice.get(`/api/export-templates/${t.id}/render/?name=leaf2`)).body).toBe('1:leaf2;');
    expect((await alice.get(`/api/export-templates/${t.id}/render/?ordering=-name`)).body).toBe('2:leaf2;leaf1;');
    const bad = await alice.get(`/api/export-templates/${t.id}/render/?nosuch=1`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toHaveProperty('nosuch');
    const viaList = await alice.get('/api/devices/?export=names&serial=S1');
    expect(viaList.statusCode).toBe(200);
    expect(viaList.body).toBe('1:leaf1;');
    expect(viaList.headers['content-disposition']).toBe('attachment; filename="names.txt"');
    expect((await alice.get(`/api/devices/?export=${t.id}`)).body).toBe('2:leaf1;leaf2;');
    const wrongType = await alice.get('/api/sites/?export=names');
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().export[0]).toMatch(/template for dcim\.device/);
    expect((await alice.get('/api/devices/?export=nosuch')).json()).toHaveProperty('export');
  });

  it('refuses more rows than the cap before rendering, with the count', async () => {
    const t = await template({ name: 'capped', template_code: '{{ count }}' });
    exportLimits.maxRows = 1;
    const res = await h.as('alice').get(`/api/export-templates/${t.id}/render/`);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/^2 devices is more than one render can take \(1\)/);
    expect((await h.as('alice').get(`/api/export-templates/${t.id}/render/?name=leaf1`)).body).toBe('1');
    // The preview skips the cap.
    expect((await h.as('alice').get(`/api/export-templates/${t.id}/preview/`)).json()).toEqual({ output: '2', count: 2, truncated: false });
  });

  it('previews the first rows with the real count', async () => {
    exportLimits.previewRows = 1;
    const res = await h.as('alice').post('/api/export-templates/preview/', { object_type: 'dcim.device', template_code: '{% for d in objects %}{{ d.name }}{% endfor %}/{{ count }}/{{ objects|length }}' });
    expect(res.json()).toEqual({ output: 'leaf1/2/1', count: 2, truncated: true });
    const bad = await h.as('alice').post('/api/export-templates/preview/', { object_type: 'dcim.device', template_code: '{% for %}', extra: 1 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toHaveProperty('extra');
    const syntax = await h.as('alice').post('/api/export-templates/preview/', { object_type: 'dcim.device', template_code: '\n{% for %}' });
    expect(syntax.json().template_code[0]).toMatch(/^line 2: /);
    const unknown = await h.as('alice').post('/api/export-templates/preview/', { object_type: 'users.user', template_code: 'x' });
    expect(unknown.json().object_type[0]).toBe('This type cannot be exported by template.');
  });

  // A failure after the first bytes cuts the transfer off: render-limits.test.ts shows it over a real socket.
  it('answers a template error before the first byte with 400 and its line', async () => {
    const t = await template({ name: 'fails', template_code: 'ok\n{{ 1 / 0 }}' });
    const res = await h.as('alice').get(`/api/export-templates/${t.id}/render/`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ line: 2 });
    expect(res.json().detail).toMatch(/^line 2: .*division/);
  });

  it('reads relations, choice labels, computed values and related lists', async () => {
    const alice = h.as('alice');
    const code = [
      '{% set d = objects|first %}',
      '{{ d.site.name }}|{{ d.role.name }}|{{ d.device_type.manufacturer.name }}|{{ d.status.name }}|{{ d.tenant.name }}',
      '{{ d.interfaces.filter(name__startswith="eth").count() }}|{{ d.interfaces.exclude(name="eth0").first().name }}|{{ d.interfaces.order_by("-name").first().name }}',
      '{{ d.interfaces.all().reverse().first().name }}|{{ d.interfaces.last().name }}|{{ d.interfaces.get(name="eth1").get_type_display() }}|{{ d.interfaces.none().exists() }}|{{ d.interfaces.exists() }}',
      '{{ d.interfaces.filter(name__in=["eth0", "zz"]).count() }}|{{ d.interfaces.filter(mtu__isnull=True).count() }}|{{ d.interfaces.filter(name__iexact="ETH0").count() }}|{{ d.interfaces.distinct().count() }}',
      '{% for i in d.interfaces.all() %}{{ i.name }}@{{ i.device.name }} {% endfor %}|{{ d.interfaces|length }}|{{ d.interfaces[1].name }}',
      '{{ d.site.devices.count() }}|{{ d.interfaces.get(pk=d.interfaces.first().id).name }}',
    ].join('\n');
    const lines = (await previewOutput(code)).split('\n');
    expect(lines[0]).toBe('Site 1|Role 1|Maker 1|Active|Alpha');
    expect(lines[1]).toBe('2|eth1|eth1');
    expect(lines[2]).toMatch(/^eth1\|eth1\|.+\|False\|True$/);
    expect(lines[3]).toBe('1|2|1|2');
    expect(lines[4]).toBe('eth0@leaf1 eth1@leaf1 |2|eth1');
    expect(lines[5]).toBe('2|eth0');
    const errors: Array<[string, RegExp]> = [
      ['{{ (objects|first).interfaces.filter(device__name="x").count() }}', /'device__name' walks a relation/],
      ['{{ (objects|first).interfaces.order_by("device__name").first() }}', /walks a relation/],
      ['{{ (objects|first).interfaces.filter("name").count() }}', /takes field=value lookups only/],
      ['{{ (objects|first).interfaces.get(name="nope") }}', /matching query does not exist/],
      ['{{ (objects|first).interfaces.values_list("name") }}', /not available on a related list/],
      ['{{ (objects|first).save() }}', /cannot be called/],
      ['{{ (objects|first).get_name_display() }}', /cannot be called/],
    ];
    for (const [src, msg] of errors) {
      const r = await alice.post('/api/export-templates/preview/', { object_type: 'dcim.device', template_code: src });
      expect(r.statusCode, `${src} → ${r.body}`).toBe(400);
      expect(r.json().detail).toMatch(msg);
    }
  });
});

describe('related lists in the model\'s default ordering', () => {
  it('gives device.interfaces.all() in natural order, as the interface list and the interfaces variable do', async () => {
    const alice = h.as('alice');
    const names = ['Ethernet1/10', 'Ethernet1/2', 'Ethernet1/1', 'Ethernet1/11', 'Ethernet1/3'];
    const b = await inventoryBasics(alice, names);
    const device = await createDevice(alice, b, 'natural-order-1');
    try {
      const listed = (await alice.get(`/api/interfaces/?device_id=${device.id}&limit=50`)).json().results.map((i: { name: string }) => i.name);
      expect(listed).toEqual(['Ethernet1/1', 'Ethernet1/2', 'Ethernet1/3', 'Ethernet1/10', 'Ethernet1/11']);
      const code = [
        '{% set d = objects|selectattr("name", "equalto", "natural-order-1")|first %}',
        '{% for i in d.interfaces.all() %}{{ i.name }} {% endfor %}.',
        '{{ d.interfaces.first().name }}|{{ d.interfaces.last().name }}|{{ d.interfaces.all().reverse().first().name }}',
        '{% for i in d.interfaces.order_by("-name") %}{{ i.name }} {% endfor %}.',
        '{% for i in d.interfaces.filter(name__startswith="Ethernet1/1") %}{{ i.name }} {% endfor %}.',
      ].join('\n');
      // The environment trims the newline after a block tag: each line ends in a dot to keep its own.
      const lines = (await previewOutput(code)).split('\n').filter(Boolean);
      expect(lines[0]).toBe(`${listed.join(' ')} .`);
      expect(lines[1]).toBe('Ethernet1/1|Ethernet1/11|Ethernet1/11');
      expect(lines[2]).toBe(`${[...listed].reverse().join(' ')} .`);
      expect(lines[3]).toBe('Ethernet1/1 Ethernet1/10 Ethernet1/11 .');
    } finally {
      expect((await alice.delete(`/api/devices/${device.id}/`)).statusCode).toBe(204);
    }
  });
});

describe('narrowed chunks', () => {
  it('renders the same text when later chunks carry only the columns read so far', async () => {
    const alice = h.as('alice');
    // Columns first read on a later row (serial, created, asset_tag, the site) and a computed value: a narrowed
    // chunk must fill them in, and its warmed loads must not run on ids it does not carry yet.
    const code = [
      '{% for d in objects %}{{ d.name }}|{{ d }}|{{ d.primary_ip }}|{{ d.platform.name if d.platform else "-" }}',
      '{% if loop.index > 1 %}|{{ d.serial }}|{{ d.created }}|{{ d.asset_tag }}|{{ d.site.name }}|{{ d.custom_fields }}|{{ d.tenant.name }}{% endif %}',
      '|{{ d.interfaces.count() }}\n{% endfor %}',
    ].join('');
    const whole = await previewOutput(code);
    exportLimits.chunkRows = 1;
    expect(await previewOutput(code)).toBe(whole);
    const lines = whole.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    expect(lines[1]).toMatch(/\|S2\|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\|None\|Site 1\|/);
    const api = (await alice.get('/api/devices/?name=leaf2')).json().results[0];
    expect(lines[1]).toContain(`|${api.created}|`);
  });
});

describe('plain records for loops that only read attributes', () => {
  // Every kind of attribute a row answers: columns, null ones, timestamps, foreign keys read below and whole, the
  // tenant, a computed value, custom fields, a related list.
  const reads =
    '{% for d in objects %}{{ d.name }}|{{ d.serial }}|{{ d.asset_tag }}|{{ d.created }}|{{ d.site.name }}/{{ d.site.slug }}|' +
    '{{ d.platform.name if d.platform else "-" }}|{{ d.role.name }}|{{ d.primary_ip }}|{{ d.custom_fields.support_tier }}|' +
    '{{ d.tenant.name }}|{{ d.interfaces.count() }}|{{ d.numid > 0 }}|{{ d.id|length }}\n{% endfor %}';

  it('render what the rows themselves render, chunk by chunk and whole', async () => {
    // A use of the row whole anywhere in the loop hands the loop the rows themselves.
    const rowsWhole = reads.replace('{% endfor %}', '{% if false %}{{ d }}{% endif %}{% endfor %}');
    const expected = await previewOutput(rowsWhole);
    expect(expected.split('\n')[0]).toMatch(/^leaf1\|S1\|None\|\d{4}-.*\|Site 1\/site-1\|.+\|.+\|None\|\|Alpha\|2\|True\|36$/);
    expect(await previewOutput(reads)).toBe(expected);
    exportLimits.chunkRows = 1;
    expect(await previewOutput(reads)).toBe(expected);
    expect(await previewOutput(rowsWhole)).toBe(expected);
  });

  it('are plain objects of the attributes read, a related row read below made once', async () => {
    const prepared = await prepareListRender(h.database.db, systemContext(h.tenants.a), { objectType: 'dcim.device', templateCode: reads, query: {}, preview: false, engineOnly: true });
    const objects = prepared.context.objects as { iterateBatches(r: ItemReads | null): AsyncIterator<readonly unknown[]> };
    const batch = async (r: ItemReads | null) => (await objects.iterateBatches(r).next()).value as Array<Record<string, unknown>>;
    const [leaf1, leaf2] = await batch(new Map<string, ReadonlySet<string> | null>([['name', null], ['site', new Set(['name'])], ['platform', null]]));
    expect(Object.getPrototypeOf(leaf1)).toBe(Object.prototype);
    expect(leaf1).toMatchObject({ name: 'leaf1', site: { name: 'Site 1' } });
    expect(Object.keys(leaf1!)).toEqual(['name', 'site', 'platform']);
    expect(leaf2!.site).toBe(leaf1!.site);
    expect(leaf2!.platform).toBeNull();
    // A platform read whole stays the platform's row.
    expect(Object.getPrototypeOf(leaf1!.platform)).not.toBe(Object.prototype);
    // A name rows do not answer, or no reads at all: the rows themselves.
    for (const r of [new Map([['nosuch', null]]), null]) {
      expect(Object.getPrototypeOf((await batch(r))[0])).not.toBe(Object.prototype);
    }
  });
});

describe('custom fields narrowed to the keys read', () => {
  it('renders the same text as whole values, and fetches only those keys', async () => {
    const alice = h.as('alice');
    const ids = (await alice.get('/api/devices/?ordering=name')).json().results.map((d: { id: string }) => d.id) as string[];
    await sql`UPDATE devices SET custom_fields = ${JSON.stringify({ support_tier: 'gold', other: 5, unread: 'x' })}::jsonb WHERE id = ${ids[0]}`.execute(h.database.db);
    await sql`UPDATE devices SET custom_fields = ${JSON.stringify({ support_tier: null })}::jsonb WHERE id = ${ids[1]}`.execute(h.database.db);
    try {
      const loop = "{% for d in objects %}{{ d.name }}:{{ d.custom_fields.support_tier }}:{{ d.custom_fields.missing is defined }}:{{ d.custom_fields['other'] }}\n{% endfor %}";
      // Printing one value whole anywhere in the source makes every row carry its whole object.
      const wholeCode = `${loop}{% if false %}{{ objects[0].custom_fields }}{% endif %}`;
      const narrow = await previewOutput(loop);
      expect(narrow).toBe(await previewOutput(wholeCode));
      expect(narrow).toContain(':gold:False:5\n');
      expect(narrow).toContain(':None:False:\n');

      const session = new RenderSession(h.database.db, systemContext(h.tenants.a));
      await session.prepare();
      session.useReads(templateEnvironment().compile(loop).reads());
      const narrowSql = session.selectList('devices', 't').compile(h.database.db).sql;
      expect(narrowSql).toContain('jsonb_build_object');
      session.useReads(templateEnvironment().compile(wholeCode).reads());
      expect(session.selectList('devices', 't').compile(h.database.db).sql).not.toContain('jsonb_build_object');
    } finally {
      await sql`UPDATE devices SET custom_fields = '{}'::jsonb WHERE id = ANY(${ids.slice(0, 2)}::uuid[])`.execute(h.database.db);
    }
  });

  it('reads one key as it reads the whole value, whatever the value', async () => {
    const alice = h.as('alice');
    const ids = (await alice.get('/api/devices/?ordering=name')).json().results.map((d: { id: string }) => d.id) as string[];
    const one = "{% for d in objects %}{{ d.name }}:{{ d.custom_fields.tier }}:{{ d.custom_fields.tier is defined }}:{{ d.custom_fields.tier|tojson if d.custom_fields.tier is defined }}\n{% endfor %}";
    const whole = `${one}{% if false %}{{ objects[0].custom_fields }}{% endif %}`;
    const values = ['"gold"', '"with \\"quotes\\", \\\\ and ünïcode"', '""', '5', '1.5', 'true', 'null', '{"a": [1, {"b": 2}]}', '[1, 2]'];
    // Stored values are objects (the search index's trigger refuses anything else).
    const wholes = ['{}', '{"other": 1}'];
    try {
      for (const stored of [...values.map((v) => `{"tier": ${v}, "other": 1}`), ...wholes]) {
        await sql`UPDATE devices SET custom_fields = ${stored}::jsonb WHERE id = ${ids[0]}`.execute(h.database.db);
        expect(await previewOutput(one), stored).toBe(await previewOutput(whole));
      }
      const session = new RenderSession(h.database.db, systemContext(h.tenants.a));
      await session.prepare();
      session.useReads(templateEnvironment().compile(one).reads());
      expect(session.selectList('devices', 't').compile(h.database.db).sql).toContain("'s' ||");
    } finally {
      await sql`UPDATE devices SET custom_fields = '{}'::jsonb WHERE id = ${ids[0]}`.execute(h.database.db);
    }
  });
});

describe('computed values read beside the rows', () => {
  it('gives the primary IP read with the list as the loader gives it, IPv4 first, host addresses without a mask', async () => {
    const alice = h.as('alice');
    const devices = (await alice.get('/api/devices/?ordering=name')).json().results as Array<{ id: string; name: string }>;
    const nic = async (id: string) => (await alice.get(`/api/interfaces/?device=${id}`)).json().results[0].id as string;
    const v4 = await created(alice, '/api/ip-addresses/', { address: '192.0.2.11/32', assigned_interface: await nic(devices[0]!.id) });
    const v6 = await created(alice, '/api/ip-addresses/', { address: '2001:db8::5/64', assigned_interface: await nic(devices[1]!.id) });
    expect((await alice.patch(`/api/devices/${devices[0]!.id}/`, { primary_ip4: v4.id })).statusCode).toBe(200);
    expect((await alice.patch(`/api/devices/${devices[1]!.id}/`, { primary_ip6: v6.id })).statusCode).toBe(200);
    try {
      // The list's own rows carry the value inline; the same devices reached through a related list use the loader.
      const code = [
        '{% for d in objects %}{{ d.name }}|{{ d.primary_ip }}|{{ d.primary_ip|host if d.primary_ip else "-" }}',
        '|{% for x in d.site.devices.all() %}{% if x.id == d.id %}{{ x.primary_ip }}{% endif %}{% endfor %}|\n{% endfor %}',
      ].join('');
      const lines = (await previewOutput(code)).trimEnd().split('\n');
      for (const line of lines) {
        const [, inline, , loaded] = line.split('|');
        expect(inline, line).toBe(loaded);
      }
      const api = (await alice.get(`/api/devices/${devices[0]!.id}/`)).json().primary_ip;
      expect(lines[0]).toContain(`|192.0.2.11|`);
      expect(lines[0]).toContain(`'url': '${new URL(api.url).pathname}'`);
      expect(lines[1]).toContain(`'address': '2001:db8::5/64'`);
      expect(lines[1]).toContain('|2001:db8::5|');
    } finally {
      for (const d of devices.slice(0, 2)) await alice.patch(`/api/devices/${d.id}/`, { primary_ip4: null, primary_ip6: null });
      await alice.delete(`/api/ip-addresses/${v4.id}/`);
      await alice.delete(`/api/ip-addresses/${v6.id}/`);
    }
  });
});

describe('no N+1', () => {
  it('renders 2,000 devices through four relations and a related list in at most 12 queries', async () => {
    const bob = h.as('bob');
    const b = await inventoryBasics(bob, ['p0']);
    const tenant = h.tenants.b;
    await sql`INSERT INTO devices (id, numid, tenant_id, name, device_type_id, role_id, site_id, platform_id, serial)
      SELECT gen_random_uuid(), 100000 + g, ${tenant}, 'bulk-' || lpad(g::text, 5, '0'), ${b.deviceType}, ${b.role}, ${b.site}, ${b.platform}, 'SN' || g
      FROM generate_series(1, 2000) g`.execute(h.database.db);
    await sql`INSERT INTO interfaces (id, numid, tenant_id, device_id, name, type)
      SELECT gen_random_uuid(), 100000 + row_number() OVER (), d.tenant_id, d.id, 'if' || k, '1000base-t'
      FROM devices d CROSS JOIN generate_series(1, 2) k WHERE d.name LIKE 'bulk-%'`.execute(h.database.db);
    const code = '{% for d in objects %}{{ d.name }},{{ d.site.name }},{{ d.role.name }},{{ d.platform.name }},{{ d.device_type.model }},{{ d.interfaces.count() }}\n{% endfor %}';
    // The render itself: the ids and the first chunk (all 2,000 rows), then 4 relations + 1 related list.
    const start = h.database.queryCount();
    const prepared = await prepareListRender(h.database.db, systemContext(h.tenants.b), { objectType: 'dcim.device', templateCode: code, query: { name__isw: 'bulk-' }, preview: false, engineOnly: true });
    const text = await prepared.template.render(prepared.context);
    expect(h.database.queryCount() - start).toBeLessThanOrEqual(12);
    expect(text.split('\n')).toHaveLength(2001);
    // Through the API one more query reads the template record.
    const t = await template({ name: 'n-plus-one', template_code: code }, 'bob');
    const before = h.database.queryCount();
    const res = await bob.get(`/api/export-templates/${t.id}/render/?name__isw=bulk-`);
    const used = h.database.queryCount() - before;
    expect(res.statusCode).toBe(200);
    const lines = res.body.trimEnd().split('\n');
    expect(lines).toHaveLength(2000);
    expect(lines[1999]).toMatch(/^bulk-02000,Site \d+,Role \d+,Platform \d+,Model \d+,2$/);
    expect(used, `queries: ${used}`).toBeLessThanOrEqual(13);
  });
});

describe('related rows across chunks', () => {
  it('reads a related row once for the whole render, and per chunk again once too many were read', async () => {
    const alice = h.as('alice');
    const other = await created(alice, '/api/sites/', { name: 'Chunk Site', slug: 'chunk-site' });
    const made = [
      await createDevice(alice, basics, 'chunk-1'),
      await createDevice(alice, basics, 'chunk-2', { site: other.id }),
      await createDevice(alice, basics, 'chunk-3'),
      await createDevice(alice, basics, 'chunk-4', { site: other.id }),
    ];
    exportLimits.chunkRows = 1;
    const ctx = systemContext(h.tenants.a);
    const render = async (code: string) => {
      const before = h.database.queryCount();
      const prepared = await prepareListRender(h.database.db, ctx, { objectType: 'dcim.device', templateCode: code, query: { name__isw: 'chunk-' }, preview: false, engineOnly: true });
      const text = await prepared.template.render(prepared.context);
      return { text, queries: h.database.queryCount() - before };
    };
    // The second of two: a first render reads things once per database handle (the column catalog).
    await render('{% for d in objects %}{{ d.name }};{% endfor %}');
    const names = await render('{% for d in objects %}{{ d.name }};{% endfor %}');
    const sites = await render('{% for d in objects %}{{ d.name }}@{{ d.site.name }};{% endfor %}');
    expect(sites.text).toBe('chunk-1@Site 1;chunk-2@Chunk Site;chunk-3@Site 1;chunk-4@Chunk Site;');
    // Four chunks, two sites: one query for each site's first chunk, none for the chunks after.
    expect(sites.queries - names.queries).toBe(2);
    proxyLimits.relatedRowsKept = 1;
    const perChunk = await render('{% for d in objects %}{{ d.name }}@{{ d.site.name }};{% endfor %}');
    expect(perChunk.text).toBe(sites.text);
    expect(perChunk.queries - names.queries).toBeGreaterThan(2);
    for (const d of made) await alice.delete(`/api/devices/${d.id}/`);
    await alice.delete(`/api/sites/${other.id}/`);
  });
});

describe('related rows of another tenant', () => {
  it('read as nothing in every chunk, and are not asked for again', async () => {
    const alice = h.as('alice');
    const hidden = await created(h.as('bob'), '/api/sites/', { name: 'Hidden SECRET Site', slug: 'hidden-secret-site' });
    const made = [];
    for (const name of ['fence-1', 'fence-2', 'fence-3', 'fence-4']) made.push(await createDevice(alice, basics, name));
    // Only a write below the API can point a row at another tenant's row.
    await sql`UPDATE devices SET site_id = ${hidden.id} WHERE id = ANY(${[made[1]!.id, made[3]!.id]}::uuid[])`.execute(h.database.db);
    try {
      exportLimits.chunkRows = 1;
      const ctx = systemContext(h.tenants.a);
      const render = async (code: string) => {
        const before = h.database.queryCount();
        const prepared = await prepareListRender(h.database.db, ctx, { objectType: 'dcim.device', templateCode: code, query: { name__isw: 'fence-' }, preview: false, engineOnly: true });
        const text = await prepared.template.render(prepared.context);
        return { text, queries: h.database.queryCount() - before };
      };
      await render('{% for d in objects %}{{ d.name }};{% endfor %}');
      const names = await render('{% for d in objects %}{{ d.name }};{% endfor %}');
      const sites = await render('{% for d in objects %}{{ d.name }}@{{ d.site.name }}@{{ d.site is none }};{% endfor %}');
      expect(sites.text).toBe('fence-1@Site 1@False;fence-2@@True;fence-3@Site 1@False;fence-4@@True;');
      // One query for the first chunk's site, one for the hidden one (found nothing), none after.
      expect(sites.queries - names.queries).toBe(2);
    } finally {
      await sql`UPDATE devices SET site_id = ${basics.site} WHERE id = ANY(${made.map((d) => d.id)}::uuid[])`.execute(h.database.db);
      for (const d of made) await alice.delete(`/api/devices/${d.id}/`);
      await h.as('bob').delete(`/api/sites/${hidden.id}/`);
    }
  });
});

describe('virtual machines', () => {
  it('gives the primary IP read with the list as the loader gives it, IPv4 first, host addresses without a mask', async () => {
    const alice = h.as('alice');
    const vms = [
      await created(alice, '/api/virtual-machines/', { name: 'exp-vm1', role: basics.role }),
      await created(alice, '/api/virtual-machines/', { name: 'exp-vm2', role: basics.role }),
      await created(alice, '/api/virtual-machines/', { name: 'exp-vm3', role: basics.role }),
    ];
    const nics = [];
    for (const vm of vms.slice(0, 2)) nics.push(await created(alice, '/api/vm-interfaces/', { virtual_machine: vm.id, name: 'eth0' }));
    const v4 = await created(alice, '/api/ip-addresses/', { address: '198.51.100.7/24', assigned_vm_interface: nics[0]!.id });
    const v6 = await created(alice, '/api/ip-addresses/', { address: '2001:db8::9/64', assigned_vm_interface: nics[1]!.id });
    const v6b = await created(alice, '/api/ip-addresses/', { address: '2001:db8::10/64', assigned_vm_interface: nics[0]!.id });
    expect((await alice.patch(`/api/virtual-machines/${vms[0]!.id}/`, { primary_ip4: v4.id, primary_ip6: v6b.id })).statusCode).toBe(200);
    expect((await alice.patch(`/api/virtual-machines/${vms[1]!.id}/`, { primary_ip6: v6.id })).statusCode).toBe(200);
    // The list's own rows carry the value inline (one query with the rows); the same machines reached through
    // their vm_interfaces use the loader.
    const code = [
      '{% for v in objects %}{{ v.name }}|{{ v.primary_ip }}|{{ v.primary_ip|host if v.primary_ip else "-" }}',
      '|{% for i in v.vm_interfaces.all() %}{{ i.virtual_machine.primary_ip }}{% endfor %}|\n{% endfor %}',
    ].join('');
    const lines = (await previewOutput(code, 'virtualization.virtualmachine')).trimEnd().split('\n');
    expect(lines.map((l) => l.split('|')[0])).toEqual(['exp-vm1', 'exp-vm2', 'exp-vm3']);
    for (const line of lines.slice(0, 2)) {
      const [, inline, , loaded] = line.split('|');
      expect(inline, line).toBe(loaded);
    }
    expect(lines[0]).toContain(`'address': '198.51.100.7/24'`);
    expect(lines[0]).toContain('|198.51.100.7|');
    expect(lines[1]).toContain(`'address': '2001:db8::9/64'`);
    expect(lines[1]).toContain('|2001:db8::9|');
    expect(lines[2]).toBe('exp-vm3|None|-||');
    const api = (await alice.get(`/api/virtual-machines/${vms[0]!.id}/`)).json().primary_ip;
    expect(lines[0]).toContain(`'id': '${v4.id}'`);
    expect(lines[0]).toContain(`'url': '${new URL(api.url).pathname}'`);
    // The inline value comes with the rows: no query per machine and none for the loader.
    const listCode = '{% for v in objects %}{{ v.primary_ip|host if v.primary_ip else "-" }};{% endfor %}';
    const start = h.database.queryCount();
    const prepared = await prepareListRender(h.database.db, systemContext(h.tenants.a), { objectType: 'virtualization.virtualmachine', templateCode: listCode, query: { name__isw: 'exp-vm' }, preview: false, engineOnly: true });
    expect(await prepared.template.render(prepared.context)).toBe('198.51.100.7;2001:db8::9;-;');
    expect(h.database.queryCount() - start).toBeLessThanOrEqual(3);
  });
});

describe('rows that change while a render runs', () => {
  it('leaves out a row deleted after the ids were read and shows a changed row as it is now', async () => {
    const alice = h.as('alice');
    const made = [];
    for (const name of ['drift-1', 'drift-2', 'drift-3', 'drift-4']) made.push(await createDevice(alice, basics, name, { serial: `D-${name}` }));
    exportLimits.chunkRows = 1;
    const code = '{% for d in objects %}{{ d.name }},{{ d.serial }},{{ d.site.name }}\n{% endfor %}{{ count }}';
    const prepared = await prepareListRender(h.database.db, systemContext(h.tenants.a), { objectType: 'dcim.device', templateCode: code, query: { name__isw: 'drift-' }, preview: false, engineOnly: true });
    // The ids are read (and the first chunk with them); the later chunks are read when the render reaches them.
    expect((await alice.delete(`/api/devices/${made[2]!.id}/`)).statusCode).toBe(204);
    expect((await alice.patch(`/api/devices/${made[3]!.id}/`, { serial: 'CHANGED' })).statusCode).toBe(200);
    expect(await prepared.template.render(prepared.context)).toBe('drift-1,D-drift-1,Site 1\ndrift-2,D-drift-2,Site 1\ndrift-4,CHANGED,Site 1\n4');
    for (const d of [made[0]!, made[1]!, made[3]!]) await alice.delete(`/api/devices/${d.id}/`);
  });

  it('continues after the first chunk where the ids put its last row, keeping each row once and in order', () => {
    const ids = (...xs: string[]) => xs.map((id) => ({ id }));
    // The usual case: the ids start with the first chunk.
    expect(continueAfter(['a', 'b'], ids('a', 'b', 'c', 'd'), 10)).toEqual(['a', 'b', 'c', 'd']);
    // Written between the reads: x sorts into the first chunk (left out, as if written after the render began), y
    // after it (kept); a deleted first-chunk row moves the rest up.
    expect(continueAfter(['a', 'b', 'c'], ids('a', 'x', 'b', 'c', 'y', 'd'), 10)).toEqual(['a', 'b', 'c', 'y', 'd']);
    expect(continueAfter(['a', 'b', 'c'], ids('a', 'b', 'd', 'e'), 10)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(continueAfter(['a', 'b', 'c'], ids('a', 'x', 'b', 'd'), 10)).toEqual(['a', 'b', 'c', 'd']);
    // A first-chunk row renamed to sort later is not rendered twice; the cap holds.
    expect(continueAfter(['a', 'b'], ids('b', 'c', 'a', 'd'), 10)).toEqual(['a', 'b', 'c', 'd']);
    expect(continueAfter(['a', 'b'], ids('a', 'b', 'c', 'd'), 3)).toEqual(['a', 'b', 'c']);
  });

  it('walks a list of several chunks: length, last item, a second loop and an item of a later chunk', async () => {
    exportLimits.chunkRows = 1;
    const code = '{{ objects|length }}|{{ objects[-1].name }}|{% for d in objects %}{{ d.name }};{% endfor %}|{% for d in objects %}{{ loop.index }}{{ d.serial }};{% endfor %}|{{ objects[1].name }}|{{ objects }}';
    const prepared = await prepareListRender(h.database.db, systemContext(h.tenants.a), { objectType: 'dcim.device', templateCode: code, query: { name__isw: 'leaf' }, preview: false, engineOnly: true });
    expect(await prepared.template.render(prepared.context)).toBe('2|leaf2|leaf1;leaf2;|1S1;2S2;|leaf2|<2 devices>');
  });

  it('fills in a narrowed chunk whose rows were deleted or changed since it was read', async () => {
    const alice = h.as('alice');
    const made = [];
    for (const name of ['fill-1', 'fill-2', 'fill-3']) made.push(await createDevice(alice, basics, name, { serial: `F-${name}` }));
    const ctx = systemContext(h.tenants.a);
    const session = new RenderSession(h.database.db, ctx);
    await session.prepare();
    const model = requireModel('dcim.device');
    // A chunk read with the name only (as a narrowed chunk of a template that had read nothing else yet).
    const { rows } = await sql<Record<string, unknown>>`SELECT id, name FROM devices WHERE name LIKE 'fill-%' ORDER BY name`.execute(h.database.db);
    const group = new RowGroup(session, model, rows, false);
    expect((await alice.delete(`/api/devices/${made[1]!.id}/`)).statusCode).toBe(204);
    expect((await alice.patch(`/api/devices/${made[2]!.id}/`, { serial: 'NEW', name: 'fill-3-renamed' })).statusCode).toBe(200);
    const before = h.database.queryCount();
    const serials = [];
    for (const p of group.proxies) serials.push(await p.getAttr('serial'));
    // One query completes the whole chunk; the deleted row reads as nothing, the changed one as it is now, and a
    // column the chunk already had keeps the value it was read with (each row stays one read of it).
    expect(h.database.queryCount() - before).toBe(1);
    expect(serials).toEqual(['F-fill-1', null, 'NEW']);
    expect(group.proxies.map((p) => p.getAttr('name'))).toEqual(['fill-1', 'fill-2', 'fill-3']);
    expect(group.full).toBe(true);
    for (const d of [made[0]!, made[2]!]) await alice.delete(`/api/devices/${d.id}/`);
  });
});
