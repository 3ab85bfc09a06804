// NetBox's own clients against Cairn's NetBox dialect (src/netbox-api/): Debian's pynetbox (python3-pynetbox) and
// the netbox.netbox collection's nb_inventory (Debian's ansible package), against the app listening on a free port.
// .ci/run installs both when missing; without them these tests fail (they are what the dialect is for).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers/harness.ts';

const run = promisify(execFile);
const HERE = resolve(import.meta.dirname, 'netbox');
const COLLECTION = '/usr/lib/python3/dist-packages/ansible_collections/netbox/netbox';

let h: Harness;
let baseUrl = '';
let workDir = '';
/** Every request the clients sent: `METHOD path status` (query left out), for the report of what they call. */
const calls: string[] = [];
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
  h.app.server.on('request', (req, res) => res.on('finish', () => calls.push(`${req.method} ${String(req.url).split('?')[0]} ${res.statusCode}`)));
  const addr = h.app.server.address();
  baseUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});
afterAll(async () => {
  if (process.env.CAIRN_NETBOX_CALLS) console.log([...new Set(calls)].sort().join('\n'));
  await h?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('pynetbox', () => {
  it('lists, filters, gets, counts, pages, creates, saves, allocates, reads choices and deletes', async () => {
    const { stdout } = await run('/usr/bin/python3', [join(HERE, 'pynetbox_check.py')], { env: { ...process.env, NB_URL: baseUrl, NB_TOKEN: h.tokens.alice }, timeout: 60_000 });
    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(out).toMatchObject({
      version: '4.2',
      status: expect.stringMatching(/^4\.2\./),
      sites: ['ams1', 'fra1'],
      by_slug: ['leaf-01', 'leaf-02', 'leaf-03'],
      by_site_id: ['leaf-01', 'leaf-02', 'leaf-03'],
      by_ids: ['leaf-01', 'leaf-02', 'leaf-03'],
      name_ic: ['leaf-01', 'leaf-02', 'leaf-03'],
      get_name: ['leaf-01', 'ams1', 'active', 'Active', 'leaf', '7050SX3', 'arista'],
      primary_ip: '192.0.2.11/24',
      count: 3,
      count_all: 4,
      all_pages: ['leaf-01', 'leaf-02', 'leaf-03', 'spine-01'],
      created: ['leaf-99', 'planned', true],
      saved: true,
      after_save: ['SN-99', 'active', 'top', ['gold']],
      by_tag: ['leaf-99'],
      by_cf: ['leaf-99'],
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
});

describe('nb_inventory', () => {
  it('lists every device with its primary address, grouped by site, role and platform', async () => {
    expect(existsSync(COLLECTION), 'the netbox.netbox collection (apt-get install ansible)').toBe(true);
    const config = join(workDir, 'inventory.netbox.yml');
    writeFileSync(
      config,
      [
        'plugin: netbox.netbox.nb_inventory',
        `api_endpoint: ${baseUrl}`,
        `token: ${h.tokens.alice}`,
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
    const { stdout } = await run('ansible-inventory', ['-i', config, '--list'], { env, cwd: workDir, timeout: 60_000 });
    const inv = JSON.parse(stdout) as { _meta: { hostvars: Record<string, Record<string, unknown>> } } & Record<string, { hosts?: string[] }>;
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
});

describe('netbox.netbox modules', () => {
  it('netbox_device and netbox_ip_address create, then change nothing on a re-run, update and delete', async () => {
    expect(existsSync(COLLECTION), 'the netbox.netbox collection (apt-get install ansible)').toBe(true);
    const play = join(workDir, 'play.yml');
    const task = (module: string, name: string, data: Record<string, unknown>, state = 'present') =>
      `    - name: ${name}\n      ${module}:\n        netbox_url: "${baseUrl}"\n        netbox_token: "${h.tokens.alice}"\n        state: ${state}\n        data: ${JSON.stringify(data)}`;
    const device = { name: 'leaf-50', device_type: '7050sx3', device_role: 'leaf', site: 'ams1', status: 'active' };
    const address = { address: '192.0.2.50/24', status: 'active', description: 'loopback of leaf-50' };
    writeFileSync(
      play,
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
    const res = await run('ansible-playbook', [play], { env, cwd: workDir, timeout: 120_000 }).catch((err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? '', stderr: err.stderr ?? '' }));
    const report = JSON.parse(res.stdout) as { plays: Array<{ tasks: Array<{ task: { name: string }; hosts: { localhost: { changed?: boolean; failed?: boolean; msg?: string } } }> }> };
    const outcome = report.plays[0]!.tasks.map((t) => [t.task.name, t.hosts.localhost.failed ? `failed: ${t.hosts.localhost.msg}` : t.hosts.localhost.changed]);
    expect(outcome).toEqual([
      ['create device', true],
      ['device again', false],
      ['update device', true],
      ['create address', true],
      ['address again', false],
      ['update address', true],
      ['delete address', true],
      ['delete device', true],
    ]);
    expect((await h.as('alice').get('/api/devices/?name=leaf-50')).json()).toMatchObject({ count: 0 });
  });
});
