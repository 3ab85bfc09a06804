// Issue 27, small correctness points: slicing a list of rows, tojson on rows, host trimming, named bundles and
// their roles, inline Content-Disposition, the push text cap in bytes, and what a read-only token is told on
// reveal-psk. Each failed before its fix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { created, createDevice, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';
import { createToken } from '../core/accounts.ts';
import { exportLimits } from './export.ts';
import { pushLimits } from './pushes.ts';
import { renderSeedOf } from './render.ts';
import { PyRandom } from './engine/py-random.ts';

let h: Harness;
let b: Basics;
let leaf: { id: string };
let spine: { id: string };

beforeAll(async () => {
  h = await startHarness();
  b = await inventoryBasics(h.as('admin'), ['eth0']);
  for (const n of ['fx1', 'fx2', 'fx3', 'fx4', 'fx5']) await createDevice(h.as('admin'), b, n);
  leaf = (await h.as('admin').get('/api/devices/?name=fx1')).json().results[0];
  const spineRole = (await created(h.as('admin'), '/api/device-roles/', { name: 'fx-spine', slug: 'fx-spine' })).id;
  spine = await createDevice(h.as('admin'), b, 'fx-spine1', { role: spineRole });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

async function preview(code: string) {
  return h.as('admin').post('/api/export-templates/preview/?ordering=name', { object_type: 'dcim.device', template_code: code });
}

describe('engine points', () => {
  it('slices objects like a list, across chunks too', async () => {
    const res = await preview('{% for d in objects[:3] %}{{ d.name }} {% endfor %}|{{ objects[-2:]|join(",") }}|{{ objects[::2]|length }}|{{ objects[1:2][0].name }}');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().output).toBe('fx-spine1 fx1 fx2 |fx4,fx5|3|fx1');
    const saved = { ...exportLimits };
    exportLimits.chunkRows = 2;
    try {
      const t = await created(h.as('admin'), '/api/export-templates/', { name: 'fx-slice', object_type: 'dcim.device', template_code: '{{ objects[1:5]|join(",") }}/{{ objects[::-2]|join(",") }}' });
      const r = await h.as('admin').get(`/api/export-templates/${t.id}/render/?ordering=name`);
      expect(r.body).toBe('fx1,fx2,fx3,fx4/fx5,fx3,fx1');
    } finally {
      Object.assign(exportLimits, saved);
    }
  });

  it('says what tojson cannot write, naming the line, in words a template author knows', async () => {
    for (const code of ['\n{{ objects|tojson }}', '\n{{ objects[0]|tojson }}', '\n{{ {"d": objects[0]}|tojson }}']) {
      const res = await preview(code);
      expect(res.statusCode).toBe(400);
      expect(res.json().line).toBe(2);
      expect(res.json().detail).toMatch(/^line 2: Object of type (Device|list of devices) is not JSON serializable: tojson writes strings, numbers, lists and mappings/);
      expect(res.json().detail).not.toMatch(/RowProxy|circular|object object/i);
    }
    // Rows inside a list of a lookup are keyed by id, not walked (that was the "circular structure" answer).
    const res = await preview('{% for d in objects[:1] %}{{ d.interfaces.filter(device__in=[d, d]).count() if false else d.interfaces.filter(id__in=[d]).count() }}{% endfor %}');
    expect(res.json().detail ?? '').not.toMatch(/circular/i);
  });

  it('prints whole floats of decimal columns as Python prints floats', async () => {
    const admin = h.as('admin');
    const ifaceOf = async (dev: string) => (await admin.get(`/api/interfaces/?device_id=${dev}&name=eth0`)).json().results[0].id as string;
    const fx2 = (await admin.get('/api/devices/?name=fx2')).json().results[0].id as string;
    const fx3 = (await admin.get('/api/devices/?name=fx3')).json().results[0].id as string;
    await created(admin, '/api/cables/', { a_terminations: [await ifaceOf(fx2)], b_terminations: [await ifaceOf(fx3)], length: 3, length_unit: 'm' });
    const res = await admin.post('/api/export-templates/preview/', { object_type: 'dcim.cable', template_code: '{% for c in objects %}{{ c.length }} {{ c.length * 2 }} {{ c.length|int }}{% endfor %}' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().output).toBe('3.0 6.0 3');
  });

  it('trims an address before host and the other address filters', async () => {
    const res = await preview('{{ " 10.1.2.3 "|host }}|{{ " 10.1.2.0/24\\n"|network }}|{{ "\\t2001:db8::1/64 "|prefixlen }}');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().output).toBe('10.1.2.3|10.1.2.0/24|64');
  });
});

describe('addresses without a mask', () => {
  it("take their prefix's length in address filters, their own mask otherwise", async () => {
    const admin = h.as('admin');
    await created(admin, '/api/prefixes/', { prefix: '10.77.0.0/16' });
    await created(admin, '/api/prefixes/', { prefix: '10.77.1.0/24' });
    const iface = (await admin.get(`/api/interfaces/?device_id=${leaf.id}&name=eth0`)).json().results[0].id as string;
    await created(admin, '/api/ip-addresses/', { address: '10.77.1.5', assigned_interface: iface });
    await created(admin, '/api/ip-addresses/', { address: '10.77.1.9/31', assigned_interface: iface });
    await created(admin, '/api/ip-addresses/', { address: '10.99.0.1', assigned_interface: iface });
    const code = '{% for ip in ip_addresses %}{{ ip|cidr }} {{ ip.prefix_length }};{% endfor %}';
    const res = await admin.post('/api/export-templates/preview/', { object_type: 'dcim.device', template_code: code, device: leaf.id });
    expect(res.statusCode, res.body).toBe(200);
    // The most specific prefix holding it; no prefix at all leaves a host address a host.
    expect(res.json().output).toBe('10.77.1.5/24 24;10.77.1.9/31 24;10.99.0.1/32 None;');
    const list = await admin.post('/api/export-templates/preview/?ordering=address', { object_type: 'ipam.ipaddress', template_code: '{% for a in objects %}{{ a|network }} {% endfor %}' });
    expect(list.json().output).toBe('10.77.1.0/24 10.77.1.8/31 10.99.0.1/32 ');
  });
});

describe('random in a device config', () => {
  it('draws the same on every render of one device (no drift from a new draw), its own per device, as Python would', async () => {
    const admin = h.as('admin');
    const code = '{{ range(100000)|random }} {{ range(100000)|random }}';
    const t = await created(admin, '/api/export-templates/', { name: 'fx-random', object_type: 'dcim.device', template_code: code, target_path: '/etc/fx-random' });
    await created(admin, '/api/config-bundles/', { name: 'fx-random', templates: [t.id] });
    const render = async (id: string) => {
      const res = await admin.get(`/api/devices/${id}/render/?bundle=fx-random`);
      expect(res.statusCode, res.body).toBe(200);
      return Object.values(res.json().files as Record<string, { output: string }>)[0]!.output;
    };
    const first = await render(leaf.id);
    expect(await render(leaf.id)).toBe(first);
    expect(await render(spine.id)).not.toBe(first);
    // The preview against the device draws what its render draws.
    const preview = await admin.post('/api/export-templates/preview/', { object_type: 'dcim.device', template_code: code, device: leaf.id });
    expect(preview.json().output).toBe(first);
    // Python's random.seed(renderSeedOf(id)) then two random.choice(range(100000)).
    const rng = new PyRandom(renderSeedOf(leaf.id));
    expect(first).toBe(`${rng.choiceIndex(100000)} ${rng.choiceIndex(100000)}`);
  });
});

describe('bundles and files', () => {
  it('gives a named bundle bound to roles only to devices of those roles', async () => {
    const t = await created(h.as('admin'), '/api/export-templates/', { name: 'fx-motd', object_type: 'dcim.device', template_code: '{{ device.name }}', target_path: '/etc/motd' });
    await created(h.as('admin'), '/api/config-bundles/', { name: 'fx-leaves', templates: [t.id], roles: [b.role] });
    await created(h.as('admin'), '/api/config-bundles/', { name: 'fx-any', templates: [t.id] });
    expect((await h.as('admin').get(`/api/devices/${leaf.id}/render/?bundle=fx-leaves`)).statusCode).toBe(200);
    const refused = await h.as('admin').get(`/api/devices/${spine.id}/render/?bundle=fx-leaves`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().detail).toMatch(/^Bundle fx-leaves is for the .+ role; fx-spine1 has the fx-spine role\.$/);
    expect((await h.as('admin').get(`/api/devices/${spine.id}/render/?bundle=fx-any`)).statusCode).toBe(200);
    const many = (await h.as('admin').get('/api/devices/render/?bundle=fx-leaves&name=fx1&name=fx-spine1')).json();
    expect(Object.keys(many.devices)).toEqual([leaf.id]);
    expect(many.skipped[spine.id]).toMatch(/fx-spine role/);
  });

  it('serves as_attachment: false inline, on the render and on ?export=', async () => {
    const t = await created(h.as('admin'), '/api/export-templates/', { name: 'fx-inline', object_type: 'dcim.device', template_code: '{{ count }}' });
    expect((await h.as('admin').patch(`/api/export-templates/${t.id}/`, { as_attachment: false })).statusCode).toBe(200);
    expect((await h.as('admin').get(`/api/export-templates/${t.id}/render/`)).headers['content-disposition']).toBe('inline; filename="fx-inline.txt"');
    expect((await h.as('admin').get('/api/devices/?export=fx-inline')).headers['content-disposition']).toBe('inline; filename="fx-inline.txt"');
  });

  it('keeps pushed text up to the cap counted in bytes', async () => {
    const saved = pushLimits.maxKeptOutput;
    pushLimits.maxKeptOutput = 10;
    try {
      // Six characters, twelve bytes: over a 10-byte cap, so the hash is kept and the text is not.
      const res = await h.as('admin').post(`/api/devices/${leaf.id}/config-pushed/`, { path: '/etc/fx', output: 'éééééé' });
      expect(res.statusCode, res.body).toBe(201);
      const { rows } = await sql<{ has_output: boolean }>`SELECT has_output FROM config_pushes WHERE path = '/etc/fx'`.execute(h.database.db);
      expect(rows).toEqual([{ has_output: false }]);
    } finally {
      pushLimits.maxKeptOutput = saved;
    }
  });
});

describe('reveal-psk', () => {
  it('tells a read-only token which permission it needs', async () => {
    const kc = await created(h.as('admin'), '/api/routing/keychains/', { name: 'FX', algorithm: 'md5', key: 'fx-secret' });
    const readOnly = await createToken(h.database.db, { username: 'admin', tenantSlug: 'alpha', readOnly: true });
    const res = await h.app.inject({ method: 'POST', url: `/api/routing/keychains/${kc.id}/reveal-psk/`, headers: { authorization: `Token ${readOnly}` } });
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toMatch(/needs the keychain\.reveal permission, and a read-only token never has it/);
    const alice = await h.as('alice').post(`/api/routing/keychains/${kc.id}/reveal-psk/`);
    expect(alice.json().detail).toBe('Revealing a keychain key needs the keychain.reveal permission.');
  });
});
