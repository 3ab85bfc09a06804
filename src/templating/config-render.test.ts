// Issue 7: device render context, bindings, bundles, render endpoints, push records, drift, keychain keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { created, createDevice, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';
import { sha256Hex } from './render.ts';

let h: Harness;
let b: Basics;
let spineRole: string;
let leaf1: { id: string };
let leaf2: { id: string };
let spine1: { id: string };
let frr: { id: string };
let ifaces: { id: string };

const pushCount = async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM config_pushes`.execute(h.database.db)).rows[0]!.n;

beforeAll(async () => {
  if (process.env.TEST_DATABASE_URL && !process.env.CAIRN_SECRET_KEY) process.env.CAIRN_SECRET_KEY = 'ab'.repeat(32);
  h = await startHarness();
  const admin = h.as('admin');
  b = await inventoryBasics(admin, ['eth0', 'eth1']);
  spineRole = (await created(admin, '/api/device-roles/', { name: 'spine', slug: 'spine' })).id;
  leaf1 = await createDevice(admin, b, 'leaf1');
  leaf2 = await createDevice(admin, b, 'leaf2');
  spine1 = await createDevice(admin, b, 'spine1', { role: spineRole });
  // Cable leaf1 eth0 to spine1 eth1.
  const ifOf = async (dev: string, name: string) => ((await admin.get(`/api/interfaces/?device_id=${dev}&name=${name}`)).json().results[0] as { id: string }).id;
  await created(admin, '/api/cables/', { a_terminations: [await ifOf(leaf1.id, 'eth0')], b_terminations: [await ifOf(spine1.id, 'eth1')] });
  await created(admin, '/api/ip-addresses/', { address: '10.0.0.1/31', assigned_interface: await ifOf(leaf1.id, 'eth0') });
  await created(admin, '/api/routing/keychains/', { name: 'FABRIC', algorithm: 'md5', key: 'very-secret-psk' });
  frr = await created(admin, '/api/export-templates/', {
    name: 'frr', object_type: 'dcim.device', target_path: '/etc/frr/frr.conf',
    template_code: 'hostname {{ device.name }}\npassword {{ routing.keychain_by_name.FABRIC.placeholder }}\n',
  });
  ifaces = await created(admin, '/api/export-templates/', {
    name: 'interfaces', object_type: 'dcim.device', target_path: '/etc/network/interfaces',
    template_code: '{% for i in interfaces %}{{ i.name }}: {% if i.link_peer %}to {{ i.link_peer.device }} {{ i.link_peer.interface }}{% else %}-{% endif %}{% for ip in ip_addresses if ip.assigned_interface_id == i.id %} {{ ip.address }}{% endfor %}\n{% endfor %}',
  });
  await created(admin, '/api/config-bundles/', { name: 'leaf-files', templates: [frr.id, ifaces.id], roles: [b.role] });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe('renders', () => {
  it('renders a bundle keyed by path with hashes, link_peer and the keychain placeholder, never the key', async () => {
    const res = await h.as('admin').get(`/api/devices/${leaf1.id}/render/?bundle=leaf-files`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.bundle).toBe('leaf-files');
    expect(Object.keys(body.files)).toEqual(['/etc/frr/frr.conf', '/etc/network/interfaces']);
    const f = body.files['/etc/frr/frr.conf'];
    expect(f).toMatchObject({ path: '/etc/frr/frr.conf', template: 'frr', template_id: frr.id, pushed: null, drift: null, diff: '' });
    // Like Jinja2, one trailing newline of the source is dropped.
    expect(f.output).toBe('hostname leaf1\npassword <keychain:FABRIC>');
    expect(f.sha256).toBe(sha256Hex(f.output));
    // trim_blocks eats the newline after the inner endfor, as Jinja2 does.
    expect(body.files['/etc/network/interfaces'].output).toBe('eth0: to spine1 eth1 10.0.0.1/31eth1: -');
    expect(res.body).not.toContain('very-secret-psk');
  });

  it('bundle=role resolves through the role, and names why it cannot', async () => {
    const ok = await h.as('admin').get(`/api/devices/${leaf1.id}/render/?bundle=role`);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().bundle).toBe('leaf-files');
    const spine = await h.as('admin').get(`/api/devices/${spine1.id}/render/?bundle=role`);
    expect(spine.statusCode).toBe(400);
    expect(spine.json().detail).toBe('No bundle is bound to the spine role.');
    const second = await created(h.as('admin'), '/api/config-bundles/', { name: 'extra', templates: [frr.id], roles: [spineRole] });
    const third = await created(h.as('admin'), '/api/config-bundles/', { name: 'extra2', templates: [], roles: [spineRole] });
    const two = await h.as('admin').get(`/api/devices/${spine1.id}/render/?bundle=role`);
    expect(two.json().detail).toBe('spine has more than one bundle (extra, extra2); name one.');
    await h.as('admin').delete(`/api/config-bundles/${second.id}/`);
    await h.as('admin').delete(`/api/config-bundles/${third.id}/`);
  });

  it('downloads a tar of <device>/<path> entries', async () => {
    const res = await h.as('admin').get(`/api/devices/${leaf1.id}/render/?bundle=leaf-files&archive=tar`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-tar');
    expect(res.headers['content-disposition']).toBe('attachment; filename="leaf1.tar"');
    const raw = res.rawPayload;
    expect(raw.subarray(0, 100).toString('utf8').replace(/\0+$/, '')).toBe('leaf1/etc/frr/frr.conf');
    expect(raw.subarray(512, 512 + 14).toString()).toBe('hostname leaf1');
    expect(raw.length % 512).toBe(0);
  });

  it('renders one template, and the bound template (device → role → platform)', async () => {
    const one = await h.as('admin').get(`/api/devices/${leaf1.id}/render/?template=${frr.id}`);
    expect(one.json()).toMatchObject({ path: '/etc/frr/frr.conf', template: 'frr', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((await h.as('admin').get(`/api/devices/${leaf1.id}/render/`)).statusCode).toBe(400);
    const patched = await h.as('admin').patch(`/api/device-roles/${b.role}/`, { config_template: ifaces.id });
    expect(patched.statusCode, patched.body).toBe(200);
    const dev = (await h.as('admin').get(`/api/devices/${leaf1.id}/`)).json();
    expect(dev.config_template).toEqual({ own: null, resolved: { id: ifaces.id, name: 'interfaces' } });
    await h.as('admin').patch(`/api/devices/${leaf1.id}/`, { config_template_id: frr.id });
    const dev2 = (await h.as('admin').get(`/api/devices/${leaf1.id}/`)).json();
    expect(dev2.config_template).toEqual({ own: { id: frr.id, name: 'frr' }, resolved: { id: frr.id, name: 'frr' } });
    expect((await h.as('admin').get(`/api/devices/${leaf1.id}/render/`)).json().template).toBe('frr');
    // A non-device template cannot be bound.
    const siteTpl = await created(h.as('admin'), '/api/export-templates/', { name: 'sites', object_type: 'organization.site', template_code: 'x' });
    const bad = await h.as('admin').patch(`/api/devices/${leaf1.id}/`, { config_template_id: siteTpl.id });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toHaveProperty('config_template_id');
  });

  it('renders many devices with filters, skips with reasons, hashes=1, and refuses beyond the cap', async () => {
    const res = await h.as('admin').get('/api/devices/render/?bundle=role');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body.devices).sort()).toEqual([leaf1.id, leaf2.id].sort());
    expect(body.skipped).toEqual({ [spine1.id]: 'No bundle is bound to the spine role.' });
    const bySlug = (await h.as('admin').get(`/api/devices/render/?bundle=role&role_slug=spine`)).json();
    expect(bySlug.devices).toEqual({});
    const hashes = (await h.as('admin').get(`/api/devices/render/?bundle=leaf-files&hashes=1&search=leaf2`)).json();
    const entry = hashes.devices[leaf2.id].files['/etc/frr/frr.conf'];
    expect(entry).not.toHaveProperty('output');
    expect(entry).not.toHaveProperty('diff');
    expect(entry.sha256).toBe(sha256Hex('hostname leaf2\npassword <keychain:FABRIC>'));
    const { renderLimits } = await import('./render.ts');
    renderLimits.maxDevices = 2;
    try {
      const capped = await h.as('admin').get('/api/devices/render/?bundle=role');
      expect(capped.statusCode).toBe(400);
      expect(capped.json().detail).toBe('3 devices match; the cap is 2. Narrow it with role, site, platform or search.');
    } finally {
      renderLimits.maxDevices = 500;
    }
  });

  it('refuses bad input with a 400 naming the parameter', async () => {
    const admin = h.as('admin');
    const cases: Array<[string, string]> = [
      [`/api/devices/${leaf1.id}/render/?template=00000000-0000-7000-8000-000000000000`, 'template'],
      [`/api/devices/${leaf1.id}/render/?template=nope`, 'template'],
      [`/api/devices/${leaf1.id}/render/?bundle=nope`, 'bundle'],
      [`/api/devices/${leaf1.id}/render/?bundle=${encodeURIComponent('a<b>')}`, 'bundle'],
      [`/api/devices/${leaf1.id}/render/?bundle=${encodeURIComponent('../x')}`, 'bundle'],
      [`/api/devices/${leaf1.id}/render/?bundle=leaf-files&archive=zip`, 'archive'],
      [`/api/devices/render/?bundle=nope`, 'bundle'],
    ];
    for (const [url, field] of cases) {
      const res = await admin.get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toHaveProperty(field);
    }
    expect((await admin.get(`/api/devices/${leaf1.id}/render/?bundle=nope`)).json().bundle[0]).toBe("No bundle called 'nope'.");
  });

  it('keeps tenants apart: another tenant\'s device, template and bundle', async () => {
    const bob = h.as('bob');
    expect((await bob.get(`/api/devices/${leaf1.id}/render/?bundle=leaf-files`)).statusCode).toBe(404);
    const bb = await inventoryBasics(h.as('adminB'));
    const other = await createDevice(h.as('adminB'), bb, 'b-leaf');
    expect((await bob.get(`/api/devices/${other.id}/render/?template=${frr.id}`)).statusCode).toBe(400);
    const bundleA = (await h.as('admin').get('/api/config-bundles/?name=leaf-files')).json().results[0].id as string;
    expect((await bob.get(`/api/devices/${other.id}/render/?bundle=${bundleA}`)).statusCode).toBe(400);
    expect((await bob.get(`/api/devices/${other.id}/render/?bundle=leaf-files`)).statusCode).toBe(400);
    const multi = (await bob.get('/api/devices/render/?template=' + frr.id));
    expect(multi.statusCode).toBe(400);
    expect((await bob.post(`/api/devices/${leaf1.id}/config-pushed/`, { path: '/x', output: 'x' })).statusCode).toBe(404);
  });
});

describe('bundles', () => {
  it('holds device templates only, refuses two templates at one path, also when a template is edited later', async () => {
    const admin = h.as('admin');
    const siteTpl = (await admin.get('/api/export-templates/?name=sites')).json().results[0] as { id: string };
    const wrong = await admin.post('/api/config-bundles/', { name: 'mixed', templates: [frr.id, siteTpl.id] });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().templates[0]).toBe('Only device templates go in a bundle; not sites.');
    const dup = await created(admin, '/api/export-templates/', { name: 'frr2', object_type: 'dcim.device', target_path: '/etc/frr/frr.conf', template_code: 'x' });
    const clash = await admin.post('/api/config-bundles/', { name: 'clash', templates: [frr.id, dup.id] });
    expect(clash.statusCode).toBe(400);
    expect(clash.json().templates[0]).toBe('frr and frr2 both land at /etc/frr/frr.conf; give one a target path.');
    const edit = await admin.patch(`/api/export-templates/${ifaces.id}/`, { target_path: '/etc/frr/frr.conf' });
    expect(edit.statusCode).toBe(400);
    expect(edit.json().target_path[0]).toContain('both land at /etc/frr/frr.conf');
    expect((await admin.get(`/api/export-templates/${ifaces.id}/`)).json().target_path).toBe('/etc/network/interfaces');
    expect((await admin.post('/api/config-bundles/', { name: 'role', templates: [] })).statusCode).toBe(400);
    expect((await admin.post('/api/config-bundles/', { name: 'a/b', templates: [] })).statusCode).toBe(400);
  });
});

describe('push records and drift', () => {
  it('records a push, reports no drift, then drift with a diff after the template changes', async () => {
    const admin = h.as('admin');
    const render = (await admin.get(`/api/devices/${leaf2.id}/render/?bundle=leaf-files`)).json();
    const f = render.files['/etc/frr/frr.conf'];
    const res = await admin.post(`/api/devices/${leaf2.id}/config-pushed/`, { files: [{ path: f.path, sha256: f.sha256, output: f.output, template: frr.id }], bundle: 'leaf-files', source: 'test', note: 'first' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ recorded: [{ path: '/etc/frr/frr.conf', sha256: f.sha256 }], pushed_at: expect.any(String) });
    const again = (await admin.get(`/api/devices/${leaf2.id}/render/?bundle=leaf-files`)).json().files['/etc/frr/frr.conf'];
    expect(again).toMatchObject({ drift: false, diff: '', pushed: { sha256: f.sha256, by: 'admin', source: 'test', note: 'first', has_output: true } });
    await admin.patch(`/api/export-templates/${frr.id}/`, { template_code: 'hostname {{ device.name }}\n! v2\n' });
    const drifted = (await admin.get(`/api/devices/${leaf2.id}/render/?bundle=leaf-files`)).json().files['/etc/frr/frr.conf'];
    expect(drifted.drift).toBe(true);
    expect(drifted.diff).toContain('+! v2');
    expect(drifted.diff).toContain('+++ rendered now');
    expect(drifted.diff).toContain('-password <keychain:FABRIC>');
    // Hash-only shorthand: drift still known, no diff.
    const short = await admin.post(`/api/devices/${leaf2.id}/config-pushed/`, { path: '/etc/network/interfaces', sha256: 'A'.repeat(64) });
    expect(short.statusCode).toBe(201);
    const e = (await admin.get(`/api/devices/${leaf2.id}/render/?bundle=leaf-files`)).json().files['/etc/network/interfaces'];
    expect(e).toMatchObject({ drift: true, diff: '', pushed: { has_output: false, sha256: 'a'.repeat(64) } });
    const history = (await admin.get(`/api/devices/${leaf2.id}/config-pushes/?path=/etc/frr/frr.conf`)).json();
    expect(history.count).toBe(1);
    expect((await admin.get(`/api/devices/${leaf2.id}/config-pushes/`)).json().count).toBe(2);
    // A stray lone surrogate in a path (valid JSON, not valid text) is kept as U+FFFD, as every other write keeps it.
    const stray = await admin.post(`/api/devices/${leaf2.id}/config-pushed/`, { path: '/etc/stray\ud800.conf', sha256: 'b'.repeat(64) });
    expect(stray.statusCode, stray.body).toBe(201);
    expect((await admin.get(`/api/devices/${leaf2.id}/config-pushes/`)).json().results.map((p: { path: string }) => p.path)).toContain('/etc/stray\ufffd.conf');
  });

  it('refuses every bad push with a 400 and records nothing', async () => {
    const before = await pushCount();
    const alice = h.as('alice');
    const url = `/api/devices/${leaf1.id}/config-pushed/`;
    const many = Array.from({ length: 51 }, (_, i) => ({ path: `/f${i}`, output: 'x' }));
    const bad: Array<[unknown, string]> = [
      [{ files: [] }, 'A list of files.'],
      [{ files: many }, 'At most 50 files per push.'],
      [{ files: ['x'] }, 'Entry 0 is not an object.'],
      [{ files: [{ path: '/a', sha256: 'zz' }] }, 'Entry 0 needs a path and a sha256'],
      [{ files: [{ path: '/a', sha256: 'a'.repeat(63) }] }, 'Entry 0 needs a path and a sha256'],
      [{ files: [{ path: '/a', output: 'x', sha256: sha256Hex('y') }] }, 'Entry 0: the sha256 does not match the output.'],
      [{ files: [{ path: '/ok', output: 'x' }, { path: '/etc/../shadow', output: 'x' }] }, 'Entry 1 has a path with a ".." segment.'],
      [{ files: [{ path: '/a\nb', output: 'x' }] }, 'Entry 0 has a path with NUL or control characters.'],
      [{ files: [{ output: 'x' }] }, 'Entry 0 needs a path'],
    ];
    for (const [body, message] of bad) {
      const res = await alice.post(url, body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(String(res.json().files[0])).toContain(message);
    }
    // NUL never reaches the route: the boundary refuses it, naming the entry's field.
    const nul = await alice.post(url, { files: [{ path: '/a\u0000b', output: 'x' }] });
    expect(nul.statusCode).toBe(400);
    expect(nul.json()['files[0].path'][0]).toMatch(/NUL/);
    expect((await alice.post(url, { path: '/a', output: 'x', color: 'red' })).statusCode).toBe(400);
    expect((await h.as('aliceRO').post(url, { path: '/a', output: 'x' })).statusCode).toBe(403);
    expect((await h.as('viewer').post(url, { path: '/a', output: 'x' })).statusCode).toBe(403);
    expect(await pushCount()).toBe(before);
    // A big output keeps its hash, not its text.
    const big = 'x'.repeat(1_048_577);
    expect((await alice.post(url, { path: '/big', output: big })).statusCode).toBe(201);
    const { rows } = await sql<{ has_output: boolean; sha256: string }>`SELECT has_output, sha256 FROM config_pushes WHERE path = '/big'`.execute(h.database.db);
    expect(rows[0]).toEqual({ has_output: false, sha256: sha256Hex(big) });
  });
});

describe('keychain reveal', () => {
  it('needs the reveal permission, is audited each time, and read-only tokens get 403', async () => {
    const kc = (await h.as('admin').get('/api/routing/keychains/?name=FABRIC')).json().results[0] as { id: string };
    const url = `/api/routing/keychains/${kc.id}/reveal-psk/`;
    expect((await h.as('alice').post(url)).statusCode).toBe(403);
    expect((await h.as('aliceRO').post(url)).statusCode).toBe(403);
    expect((await h.as('bob').post(url)).statusCode).toBe(403);
    const res = await h.as('admin').post(url);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ psk: 'very-secret-psk' });
    await h.as('admin').post(url);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM object_changes WHERE object_id = ${kc.id} AND action = 'reveal'`.execute(h.database.db);
    expect(rows[0]!.n).toBe(2);
    expect((await h.as('adminB').post(url)).statusCode).toBe(404);
  });
});

describe('VM renders', () => {
  it('renders a VM with vm and device naming it and its own static routes', async () => {
    const admin = h.as('admin');
    const vm = await created(admin, '/api/virtual-machines/', { name: 'web-1' });
    await created(admin, '/api/routing/static-routes/', { virtual_machine: vm.id, prefix: '0.0.0.0/0', next_hop: '10.9.0.1' });
    const tpl = await created(admin, '/api/export-templates/', { name: 'vmconf', object_type: 'dcim.device', template_code: '{{ vm.name }}/{{ device.name }}/{{ routing.static_routes | length }}/{{ routing.vtep }}/{{ count }}' });
    const res = await admin.get(`/api/virtual-machines/${vm.id}/render/?template=${tpl.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().output).toBe('web-1/web-1/1/None/1');
  });
});
