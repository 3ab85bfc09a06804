// NetBox's own clients against Cairn's NetBox dialect (src/netbox-api/): Debian's pynetbox (python3-pynetbox) and
// the netbox.netbox collection's nb_inventory and modules (Debian's ansible package), against the app listening on a
// free port: first over data written with Cairn's own API, then (PostgreSQL pass: NetBox lives in PostgreSQL) over
// NetBox's 4.1 demo database imported with `cairn import netbox` into a second tenant of the same server, where
// what the clients should see is read from NetBox's own tables.
// .ci/run installs both when missing; without them these tests fail (they are what the dialect is for).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers/harness.ts';
import { demoAvailable, demoCopy, type DemoCopy } from './netbox/demo-db.ts';
import { importNetBox } from '../src/netbox-import/importer.ts';

const run = promisify(execFile);
const HERE = resolve(import.meta.dirname, 'netbox');
const COLLECTION = '/usr/lib/python3/dist-packages/ansible_collections/netbox/netbox';
const serverUrl = process.env.TEST_DATABASE_URL;

let h: Harness;
let baseUrl = '';
let workDir = '';
/** Every request the clients sent: `METHOD path status` (query left out), for the report of what they call. */
const calls: string[] = [];
const allCalls = new Set<string>();
type Obj = Record<string, unknown> & { id: string };

async function made(path: string, body: Record<string, unknown>): Promise<Obj> {
  const res = await h.as('alice').post(path, body);
  if (res.statusCode !== 201) throw new Error(`POST ${path}: ${res.statusCode} ${res.body}`);
  return res.json() as Obj;
}

beforeAll(async () => {
  h = await startHarness();
  workDir = mkdtempSync(join(tmpdir(), 'cairn-netbox-clients-'));
  // Built with Cairn's own API: the dialect reads what Cairn wrote.
  const ams1 = await made('/api/sites/', { name: 'Amsterdam 1', slug: 'ams1' });
  const fra1 = await made('/api/sites/', { name: 'Frankfurt 1', slug: 'fra1' });
  const leaf = await made('/api/device-roles/', { name: 'Leaf', slug: 'leaf' });
  const spine = await made('/api/device-roles/', { name: 'Spine', slug: 'spine' });
  const maker = await made('/api/manufacturers/', { name: 'Arista', slug: 'arista' });
  const type = await made('/api/device-types/', { manufacturer: maker.id, model: '7050SX3', slug: '7050sx3' });
  const eos = await made('/api/platforms/', { name: 'EOS', slug: 'eos' });
  await made('/api/tags/', { name: 'gold', slug: 'gold' });
  await made('/api/custom-fields/', { name: 'rack_unit_note', type: 'text', object_types: ['dcim.device'] });
  const devices: Obj[] = [];
  for (const [name, site, role] of [['leaf-01', ams1, leaf], ['leaf-02', ams1, leaf], ['leaf-03', ams1, leaf], ['spine-01', fra1, spine]] as const) {
    devices.push(await made('/api/devices/', { name, site: site.id, role: role.id, device_type: type.id, platform: eos.id, custom_fields: { rack_unit_note: name === 'leaf-01' ? 'bottom' : null } }));
  }
  const mgmt = await made('/api/interfaces/', { device: devices[0]!.id, name: 'Management1', type: '1000base-t' });
  const address = await made('/api/ip-addresses/', { address: '192.0.2.11/24', assigned_interface: mgmt.id });
  expect((await h.as('alice').patch(`/api/devices/${devices[0]!.id}/`, { primary_ip4: address.id })).statusCode).toBe(200);
  await made('/api/prefixes/', { prefix: '10.9.0.0/29' });
  await made('/api/services/', { device: devices[0]!.id, name: 'ssh', protocol: 'tcp', ports: [22] });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  h.app.server.on('request', (req, res) =>
    res.on('finish', () => {
      const call = `${req.method} ${String(req.url).split('?')[0]!.replace(/\/\d+\//g, '/<id>/')} ${res.statusCode}`;
      calls.push(call);
      allCalls.add(call);
    }),
  );
  const addr = h.app.server.address();
  baseUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});
afterAll(async () => {
  if (process.env.CAIRN_NETBOX_CALLS) console.log([...allCalls].sort().join('\n'));
  await h?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

interface Listed {
  ids: number[];
  names: string[];
}
interface PynetboxParams {
  site: string;
  role: string;
  device: string;
  name_ic: string;
  prefix: string;
  tag_name: string;
  tag_slug: string;
  cf: string;
  new: string;
  page: number;
}

async function pynetbox(token: string, params: PynetboxParams): Promise<Record<string, unknown> & Record<'by_slug' | 'by_site_id' | 'by_ids' | 'name_ic' | 'all_pages' | 'by_tag' | 'by_cf', Listed>> {
  calls.length = 0;
  const { stdout } = await run('/usr/bin/python3', [join(HERE, 'pynetbox_check.py')], { env: { ...process.env, NB_URL: baseUrl, NB_TOKEN: token, NB_PARAMS: JSON.stringify(params) }, timeout: 120_000 });
  return JSON.parse(stdout);
}

type Inventory = { _meta: { hostvars: Record<string, Record<string, unknown>> } } & Record<string, { hosts?: string[] }>;

async function inventory(token: string, name: string): Promise<Inventory> {
  expect(existsSync(COLLECTION), 'the netbox.netbox collection (apt-get install ansible)').toBe(true);
  calls.length = 0;
  const config = join(workDir, `${name}.netbox.yml`);
  writeFileSync(
    config,
    [
      'plugin: netbox.netbox.nb_inventory',
      `api_endpoint: ${baseUrl}`,
      `token: ${token}`,
      'validate_certs: false',
      'config_context: false',
      'interfaces: true',
      'services: true',
      'group_by: [sites, device_roles, platforms]',
      'compose:',
      '  note: custom_fields.rack_unit_note',
      '',
    ].join('\n'),
  );
  const env = { ...process.env, ANSIBLE_NOCOLOR: '1', ANSIBLE_LOCAL_TEMP: join(workDir, 'tmp'), ANSIBLE_HOME: join(workDir, 'home'), ANSIBLE_INVENTORY_UNPARSED_FAILED: 'True' };
  const { stdout } = await run('ansible-inventory', ['-i', config, '--list'], { env, cwd: workDir, timeout: 120_000, maxBuffer: 64 << 20 });
  return JSON.parse(stdout) as Inventory;
}

/** A play with netbox_device and netbox_ip_address: each task's outcome (changed, or why it failed). */
async function play(token: string, name: string, device: Record<string, unknown>, address: Record<string, unknown>): Promise<Array<[string, unknown]>> {
  expect(existsSync(COLLECTION), 'the netbox.netbox collection (apt-get install ansible)').toBe(true);
  calls.length = 0;
  const file = join(workDir, `${name}.yml`);
  const task = (module: string, title: string, data: Record<string, unknown>, state = 'present') =>
    `    - name: ${title}\n      ${module}:\n        netbox_url: "${baseUrl}"\n        netbox_token: "${token}"\n        state: ${state}\n        data: ${JSON.stringify(data)}`;
  writeFileSync(
    file,
    [
      '- hosts: localhost',
      '  gather_facts: false',
      '  connection: local',
      '  tasks:',
      task('netbox.netbox.netbox_device', 'create device', device),
      task('netbox.netbox.netbox_device', 'device again', device),
      task('netbox.netbox.netbox_device', 'update device', { ...device, serial: 'SN-50' }),
      task('netbox.netbox.netbox_ip_address', 'create address', address),
      task('netbox.netbox.netbox_ip_address', 'address again', address),
      task('netbox.netbox.netbox_ip_address', 'update address', { ...address, description: 'changed' }),
      task('netbox.netbox.netbox_ip_address', 'delete address', { address: address.address }, 'absent'),
      task('netbox.netbox.netbox_device', 'delete device', { name: device.name }, 'absent'),
      '',
    ].join('\n'),
  );
  const env = { ...process.env, ANSIBLE_NOCOLOR: '1', ANSIBLE_LOCAL_TEMP: join(workDir, 'tmp'), ANSIBLE_HOME: join(workDir, 'home'), ANSIBLE_STDOUT_CALLBACK: 'json', ANSIBLE_LOCALHOST_WARNING: 'False', ANSIBLE_INVENTORY_UNPARSED_WARNING: 'False' };
  const res = await run('ansible-playbook', [file], { env, cwd: workDir, timeout: 120_000 }).catch((err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? '', stderr: err.stderr ?? '' }));
  const report = JSON.parse(res.stdout) as { plays: Array<{ tasks: Array<{ task: { name: string }; hosts: { localhost: { changed?: boolean; failed?: boolean; msg?: string } } }> }> };
  return report.plays[0]!.tasks.map((t) => [t.task.name, t.hosts.localhost.failed ? `failed: ${t.hosts.localhost.msg}` : t.hosts.localhost.changed]);
}

const PLAY_OUTCOME = [
  ['create device', true],
  ['device again', false],
  ['update device', true],
  ['create address', true],
  ['address again', false],
  ['update address', true],
  ['delete address', true],
  ['delete device', true],
];

describe("over Cairn's own data", () => {
  it('pynetbox lists, filters, gets, counts, pages, creates, saves, allocates, reads choices and deletes', async () => {
    const out = await pynetbox(h.tokens.alice, { site: 'ams1', role: 'leaf', device: 'leaf-01', name_ic: 'LEAF-0', prefix: '10.9.0.0/29', tag_name: 'gold', tag_slug: 'gold', cf: 'rack_unit_note', new: 'leaf-99', page: 2 });
    const leaves = ['leaf-01', 'leaf-02', 'leaf-03'];
    expect(out).toMatchObject({
      version: '4.2',
      status: expect.stringMatching(/^4\.2\./),
      sites: ['ams1', 'fra1'],
      by_slug: { names: leaves },
      by_site_id: { names: leaves },
      by_ids: { names: leaves },
      name_ic: { names: leaves },
      get_name: [expect.any(Number), 'leaf-01', 'ams1', 'active', 'Active', 'leaf', '7050SX3', 'arista'],
      primary_ip: '192.0.2.11/24',
      count: 3,
      count_all: 4,
      all_pages: { names: [...leaves, 'spine-01'] },
      created: ['leaf-99', 'planned', true],
      saved: true,
      after_save: ['SN-99', 'active', 'top', ['gold']],
      by_tag: { names: ['leaf-99'] },
      by_cf: { names: ['leaf-99'] },
      free_first: '10.9.0.1/29',
      allocated: ['10.9.0.1/29', 'allocated', 'active'],
      allocated_read: '10.9.0.1/29',
      deleted: true,
      gone: true,
      ip_deleted: true,
    });
    expect(out.choices_status).toEqual(['active', 'decommissioning', 'offline', 'planned']);
    expect(out.choices_face).toEqual(['front', 'rear']);
    expect(out.ip_roles).toContain('loopback');
    expect(calls.filter((c) => / (404|5\d\d)$/.test(c))).toEqual([]);
  });

  it('nb_inventory lists every device with its primary address, grouped by site, role and platform', async () => {
    const inv = await inventory(h.tokens.alice, 'cairn');
    const hosts = inv._meta.hostvars;
    expect(Object.keys(hosts).sort()).toEqual(['leaf-01', 'leaf-02', 'leaf-03', 'spine-01']);
    expect(hosts['leaf-01']).toMatchObject({ ansible_host: '192.0.2.11', primary_ip4: '192.0.2.11', note: 'bottom' });
    expect(inv.sites_ams1?.hosts?.sort()).toEqual(['leaf-01', 'leaf-02', 'leaf-03']);
    const interfaces = hosts['leaf-01']!.interfaces as Array<{ name: string; ip_addresses: Array<{ address: string }> }>;
    expect(interfaces.find((i) => i.name === 'Management1')?.ip_addresses.map((a) => a.address)).toEqual(['192.0.2.11/24']);
    expect((hosts['leaf-01']!.services as Array<{ name: string; ports: number[] }>).map((s) => [s.name, s.ports])).toEqual([['ssh', [22]]]);
    expect(inv.device_roles_spine?.hosts).toEqual(['spine-01']);
    expect(inv.platforms_eos?.hosts?.length).toBe(4);
    expect(calls.filter((c) => / (40\d|5\d\d)$/.test(c))).toEqual([]);
  });

  it('netbox_device and netbox_ip_address create, then change nothing on a re-run, update and delete', async () => {
    const outcome = await play(h.tokens.alice, 'cairn', { name: 'leaf-50', device_type: '7050sx3', device_role: 'leaf', site: 'ams1', status: 'active' }, { address: '192.0.2.50/24', status: 'active', description: 'loopback of leaf-50' });
    expect(outcome).toEqual(PLAY_OUTCOME);
    expect((await h.as('alice').get('/api/devices/?name=leaf-50')).json()).toMatchObject({ count: 0 });
  });
});

// The same clients over NetBox's 4.1 demo imported into tenant `netbox` of the same server. The demo gets what a
// real NetBox would have and the demo lacks: a token for its admin, a device custom field with a value, a tag on a
// device, and a device with an address on an interface as its primary address.
describe.skipIf(!serverUrl || !demoAvailable('4.1'))('over an imported NetBox 4.1 demo', () => {
  const TOKEN = 'fedcba9876543210fedcba9876543210fedcba98';
  const DEVICE = 1;
  let demo: DemoCopy;
  const nb = async <T = Record<string, unknown>>(q: string, params: unknown[] = []) => (await demo.client.query(q, params)).rows as T[];
  const ids = async (q: string, params: unknown[] = []) => (await nb<{ id: string }>(q, params)).map((r) => Number(r.id));
  const cairn = (url: string) => h.app.inject({ method: 'GET', url, headers: { authorization: `Token ${TOKEN}` } });
  let device: { name: string; site: string; status: string; role: string; model: string; type_slug: string; maker: string; address: string; platform: string };

  beforeAll(async () => {
    demo = await demoCopy(serverUrl!, '4.1', 'clients');
    await nb(`INSERT INTO users_token (created, key, write_enabled, description, user_id) VALUES (now(), $1, true, 'automation', 1)`, [TOKEN]);
    const ct = async (model: string) => (await nb<{ id: number }>("SELECT id FROM django_content_type WHERE app_label = 'dcim' AND model = $1", [model]))[0]!.id;
    const [cf] = await nb<{ id: string }>(`INSERT INTO extras_customfield (type, name, label, description, required, filter_logic, weight, validation_regex, created, last_updated, group_name, search_weight, is_cloneable, ui_editable, ui_visible, comments, "unique")
      VALUES ('text', 'rack_unit_note', '', '', false, 'exact', 100, '', now(), now(), '', 1000, false, 'yes', 'always', '', false) RETURNING id`);
    await nb('INSERT INTO extras_customfield_object_types (customfield_id, objecttype_id) VALUES ($1, $2)', [cf!.id, await ct('device')]);
    await nb(`UPDATE dcim_device SET custom_field_data = custom_field_data || '{"rack_unit_note": "bottom"}' WHERE id = $1`, [DEVICE]);
    await nb(`INSERT INTO extras_taggeditem (object_id, content_type_id, tag_id) SELECT $1, $2, id FROM extras_tag WHERE slug = 'alpha'`, [DEVICE, await ct('device')]);
    const [ip] = await nb<{ id: string }>(`UPDATE ipam_ipaddress SET assigned_object_type_id = $1, assigned_object_id = (SELECT min(id) FROM dcim_interface WHERE device_id = $2)
      WHERE id = (SELECT min(id) FROM ipam_ipaddress WHERE family(address) = 4 AND vrf_id IS NULL) RETURNING id`, [await ct('interface'), DEVICE]);
    await nb('UPDATE dcim_device SET primary_ip4_id = $1 WHERE id = $2', [ip!.id, DEVICE]);
    const started = Date.now();
    await importNetBox(h.database, { url: demo.url, tenantSlug: 'netbox' });
    console.log(`NetBox 4.1 demo imported for the clients in ${Date.now() - started} ms`);
    [device] = await nb(`SELECT d.name, s.slug AS site, d.status, r.slug AS role, t.model, t.slug AS type_slug, m.slug AS maker, a.address::text AS address, p.slug AS platform
      FROM dcim_device d JOIN dcim_site s ON s.id = d.site_id JOIN dcim_devicerole r ON r.id = d.role_id JOIN dcim_devicetype t ON t.id = d.device_type_id
      JOIN dcim_manufacturer m ON m.id = t.manufacturer_id JOIN ipam_ipaddress a ON a.id = d.primary_ip4_id LEFT JOIN dcim_platform p ON p.id = d.platform_id WHERE d.id = $1`, [DEVICE]);
  });
  afterAll(async () => {
    await demo?.drop();
  });

  it("pynetbox sees NetBox's objects by NetBox's ids, and writes among them", async () => {
    const [prefix] = await nb<{ prefix: string; first: string }>(`SELECT p.prefix::text AS prefix, host(p.prefix + 1) || '/' || masklen(p.prefix) AS first FROM ipam_prefix p
      WHERE family(p.prefix) = 4 AND masklen(p.prefix) BETWEEN 24 AND 30 AND p.vrf_id IS NULL AND NOT EXISTS (SELECT 1 FROM ipam_ipaddress a WHERE a.address << p.prefix)
        AND NOT EXISTS (SELECT 1 FROM ipam_prefix c WHERE c.prefix << p.prefix) ORDER BY p.id LIMIT 1`);
    const out = await pynetbox(TOKEN, { site: device.site, role: device.role, device: device.name, name_ic: device.site.replace(/^dm-/, '').toUpperCase(), prefix: prefix!.prefix, tag_name: 'Alpha', tag_slug: 'alpha', cf: 'rack_unit_note', new: 'new-device-99', page: 25 });
    const siteId = (await ids('SELECT id FROM dcim_site WHERE slug = $1', [device.site]))[0];
    const bySite = await ids('SELECT id FROM dcim_device WHERE site_id = $1 ORDER BY id', [siteId]);
    expect(bySite.length).toBeGreaterThan(1);
    const newId = out.new_id as number;
    expect(newId).toBeGreaterThan(Math.max(...(await ids('SELECT id FROM dcim_device'))));
    expect(out).toMatchObject({
      version: '4.2',
      sites: (await nb<{ slug: string }>('SELECT slug FROM dcim_site')).map((s) => s.slug).sort(),
      by_slug: { ids: bySite },
      by_site_id: { ids: bySite },
      by_ids: { ids: await ids('SELECT d.id FROM dcim_device d JOIN dcim_devicerole r ON r.id = d.role_id WHERE r.slug = $1 ORDER BY d.id', [device.role]) },
      name_ic: { ids: await ids('SELECT id FROM dcim_device WHERE name ILIKE $1 ORDER BY id', [`%${device.site.replace(/^dm-/, '')}%`]) },
      get_name: [DEVICE, device.name, device.site, device.status, expect.any(String), device.role, device.model, device.maker],
      primary_ip: device.address,
      count: bySite.length,
      count_all: (await ids('SELECT id FROM dcim_device')).length,
      all_pages: { ids: await ids('SELECT id FROM dcim_device ORDER BY id') },
      created: ['new-device-99', 'planned', true],
      saved: true,
      after_save: ['SN-99', 'active', 'top', ['alpha']],
      by_tag: { ids: [...(await ids(`SELECT x.object_id AS id FROM extras_taggeditem x JOIN extras_tag t ON t.id = x.tag_id JOIN django_content_type c ON c.id = x.content_type_id
        WHERE t.slug = 'alpha' AND c.model = 'device' ORDER BY 1`)), newId] },
      by_cf: { ids: [newId] },
      free_first: prefix!.first,
      allocated: [prefix!.first, 'allocated', 'active'],
      deleted: true,
      gone: true,
      ip_deleted: true,
    });
    expect(out.choices_status).toEqual(expect.arrayContaining([device.status]));
    expect(calls.filter((c) => / (404|5\d\d)$/.test(c))).toEqual([]);
  });

  it("nb_inventory lists every imported device, grouped by NetBox's sites, roles and platforms, with the primary address", async () => {
    const inv = await inventory(TOKEN, 'imported');
    const hosts = inv._meta.hostvars;
    // Every device and virtual machine, by the names Cairn gave them (unnamed NetBox devices are named on import).
    const names = async (path: string) => ((await cairn(`${path}?limit=1000`)).json() as { results: Array<{ name: string }> }).results.map((d) => d.name);
    const devices = await names('/api/devices/');
    const machines = await names('/api/virtual-machines/');
    expect(devices.length).toBe((await ids('SELECT id FROM dcim_device')).length);
    expect(machines.length).toBe((await ids('SELECT id FROM virtualization_virtualmachine')).length);
    expect(Object.keys(hosts).sort()).toEqual([...devices, ...machines].sort());
    expect(hosts[device.name]).toMatchObject({ ansible_host: device.address.split('/')[0], primary_ip4: device.address.split('/')[0], note: 'bottom' });
    const interfaces = hosts[device.name]!.interfaces as Array<{ name: string; ip_addresses: Array<{ address: string }> }>;
    expect(interfaces.flatMap((i) => i.ip_addresses.map((a) => a.address))).toEqual([device.address]);
    expect(interfaces.length).toBe((await ids('SELECT id FROM dcim_interface WHERE device_id = $1', [DEVICE])).length);
    const group = (prefix: string, slug: string) => inv[`${prefix}_${slug}`] ?? inv[`${prefix}_${slug.replace(/-/g, '_')}`];
    const named = async (q: string, p: unknown[]) => (await nb<{ name: string }>(q, p)).map((r) => r.name).sort();
    expect(group('sites', device.site)?.hosts?.filter((n) => !n.includes(' (')).sort()).toEqual(await named('SELECT d.name FROM dcim_device d JOIN dcim_site s ON s.id = d.site_id WHERE s.slug = $1 AND d.name IS NOT NULL', [device.site]));
    expect(group('device_roles', device.role)?.hosts?.sort()).toEqual(await named('SELECT d.name FROM dcim_device d JOIN dcim_devicerole r ON r.id = d.role_id WHERE r.slug = $1', [device.role]));
    expect(group('platforms', device.platform)?.hosts?.length).toBe((await ids('SELECT d.id FROM dcim_device d JOIN dcim_platform p ON p.id = d.platform_id WHERE p.slug = $1', [device.platform])).length);
    expect(calls.filter((c) => / (40\d|5\d\d)$/.test(c))).toEqual([]);
  });

  it('netbox_device and netbox_ip_address work among the imported objects', async () => {
    const outcome = await play(TOKEN, 'imported', { name: 'new-device-50', device_type: device.type_slug, device_role: device.role, site: device.site, status: 'active' }, { address: '192.0.2.50/24', status: 'active', description: 'loopback of new-device-50' });
    expect(outcome).toEqual(PLAY_OUTCOME);
    expect((await cairn('/api/devices/?name=new-device-50')).json()).toMatchObject({ count: 0 });
  });
});
