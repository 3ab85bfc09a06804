// End to end with the real tools: a `cairn serve` process on a free port, data created through its API, then
// Debian's ansible-inventory and ansible-playbook reading contrib/ansible/cairn_inventory.py. ansible-core is
// installed with apt when missing; only when apt cannot install it are the tests skipped, with the reason.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, seedMigratedDataDir } from './helpers/cairn-process.ts';

const ROOT = resolve(import.meta.dirname, '..');
const SCRIPT = join(ROOT, 'contrib/ansible/cairn_inventory.py');
const FLAG = 'ntp_managed';

function haveAnsible(): boolean {
  return spawnSync('sh', ['-c', 'command -v ansible-inventory && command -v ansible-playbook'], { encoding: 'utf8' }).status === 0;
}

/** Installs Debian's ansible-core when missing; answers why it is unavailable, or null when it is there. */
function ensureAnsible(): string | null {
  if (haveAnsible()) return null;
  const install = () => spawnSync('apt-get', ['install', '-y', '-qq', 'ansible-core'], { encoding: 'utf8', timeout: 600_000, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  let res = install();
  if (res.status !== 0) {
    spawnSync('apt-get', ['update', '-qq'], { encoding: 'utf8', timeout: 300_000 });
    res = install();
  }
  if (haveAnsible()) return null;
  return `apt-get install ansible-core failed (${res.error?.message ?? `exit ${res.status}`}): ${(res.stderr ?? '').trim().split('\n').slice(-2).join(' ')}`;
}

const unavailable = ensureAnsible();
if (unavailable) console.warn(`Skipping the ansible-inventory end-to-end tests: ${unavailable}`);

let dataDir = '';
let workDir = '';
let server: ChildProcess | null = null;
let serverLog = '';
let baseUrl = '';
let token = '';
const flagged = ['edge-01', 'edge-03', 'edge-05'];
const all = ['edge-01', 'edge-02', 'edge-03', 'edge-04', 'edge-05', 'edge-06'];

function cli(args: string[]): string {
  const res = spawnSync(process.execPath, [join(ROOT, 'bin/cairn.mjs'), ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CAIRN_DATA_DIR: dataDir }, timeout: 120_000 });
  if (res.status !== 0) throw new Error(`cairn ${args.join(' ')} failed: ${res.stderr}`);
  return res.stdout.trim();
}

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Token ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

function ansibleEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    CAIRN_URL: baseUrl,
    CAIRN_TOKEN: token,
    // A script that fails must fail the run, not leave Ansible with an empty inventory and a warning.
    ANSIBLE_INVENTORY_UNPARSED_FAILED: 'True',
    ANSIBLE_NOCOLOR: '1',
    ANSIBLE_LOCAL_TEMP: join(workDir, 'ansible-tmp'),
    ANSIBLE_HOME: join(workDir, 'ansible-home'),
    ANSIBLE_RETRY_FILES_ENABLED: 'False',
    ...extra,
  };
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): { status: number | null; stdout: string; stderr: string } {
  const res = spawnSync(cmd, args, { cwd: workDir, env, encoding: 'utf8', timeout: 120_000 });
  return { status: res.status, stdout: res.stdout ?? '', stderr: res.stderr ?? '' };
}

beforeAll(async () => {
  if (unavailable) return;
  dataDir = mkdtempSync(join(tmpdir(), 'cairn-ansible-data-'));
  seedMigratedDataDir(dataDir);
  workDir = mkdtempSync(join(tmpdir(), 'cairn-ansible-work-'));
  // The embedded database allows one process: accounts and the token first, then the server.
  cli(['createsuperuser', '--username', 'admin', '--password', 'ansible-e2e-password']);
  token = cli(['token', 'create', '--username', 'admin']);
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, [join(ROOT, 'bin/cairn.mjs'), 'serve'], {
    cwd: ROOT,
    env: { ...process.env, CAIRN_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', CAIRN_ADMIN_PASSWORD: 'ansible-e2e-password', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (d: Buffer) => (serverLog += d.toString()));
  server.stderr?.on('data', (d: Buffer) => (serverLog += d.toString()));
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      if ((await fetch(`${baseUrl}/api/health/`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`cairn serve did not start: ${serverLog}`);
    await new Promise((r) => setTimeout(r, 250));
  }

  const site = await api('POST', '/api/sites/', { name: 'AMS 1', slug: 'ams1' });
  const role = await api('POST', '/api/device-roles/', { name: 'Edge', slug: 'edge' });
  const maker = await api('POST', '/api/manufacturers/', { name: 'Acme', slug: 'acme' });
  const type = await api('POST', '/api/device-types/', { manufacturer: maker.id, model: 'E1', slug: 'e1' });
  await api('POST', '/api/custom-fields/', { name: FLAG, type: 'boolean', label: 'NTP managed', object_types: ['dcim.device'] });
  const ids: Record<string, string> = {};
  for (const name of all) {
    // edge-06 starts flagged and is switched off below; the others start without the flag.
    const extra = name === 'edge-06' ? { custom_fields: { [FLAG]: true } } : {};
    ids[name] = String((await api('POST', '/api/devices/', { name, site: site.id, role: role.id, device_type: type.id, ...extra })).id);
  }
  for (const name of flagged) await api('PATCH', `/api/devices/${ids[name]}/`, { custom_fields: { [FLAG]: true } });
  await api('PATCH', `/api/devices/${ids['edge-06']}/`, { custom_fields: { [FLAG]: false } });

  writeFileSync(
    join(workDir, 'play.yml'),
    [
      '- hosts: all',
      '  connection: local',
      '  gather_facts: false',
      '  tasks:',
      `    - name: only where ${FLAG} is on`,
      '      ansible.builtin.debug:',
      '        msg: "FLAGGED {{ inventory_hostname }}"',
      `      when: "'cf_${FLAG}' in group_names"`,
      '',
    ].join('\n'),
  );
}, 240_000);

afterAll(() => {
  server?.kill('SIGTERM');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe.skipIf(unavailable !== null)('ansible-inventory against a running Cairn', () => {
  it('lists exactly the flagged hosts in cf_<name> (--list and --graph)', () => {
    const list = run('ansible-inventory', ['-i', SCRIPT, '--list'], ansibleEnv());
    expect(list.status, list.stderr).toBe(0);
    const doc = JSON.parse(list.stdout) as Record<string, { hosts?: string[]; children?: string[] }> & { _meta: { hostvars: Record<string, { cairn: { custom_fields: Record<string, unknown> } }> } };
    expect(doc[`cf_${FLAG}`]?.hosts?.sort()).toEqual(flagged);
    expect(Object.keys(doc._meta.hostvars).sort()).toEqual(all);
    expect(doc._meta.hostvars['edge-06']!.cairn.custom_fields[FLAG]).toBe(false);
    expect(doc.site_ams1?.hosts?.sort()).toEqual(all);

    const graph = run('ansible-inventory', ['-i', SCRIPT, '--graph'], ansibleEnv());
    expect(graph.status, graph.stderr).toBe(0);
    // `  |--@cf_ntp_managed:` followed by `  |  |--edge-01` lines, up to the next group.
    const lines = graph.stdout.split('\n');
    const start = lines.findIndex((l) => l.trim() === `|--@cf_${FLAG}:`);
    expect(start, graph.stdout).toBeGreaterThanOrEqual(0);
    const members: string[] = [];
    for (const line of lines.slice(start + 1)) {
      const m = /^\s*\|\s+\|--([^@].*)$/.exec(line);
      if (!m) break;
      members.push(m[1]!.trim());
    }
    expect(members.sort()).toEqual(flagged);
  });

  it('takes the branch for flagged hosts only in a check-mode playbook run', () => {
    const hasJson = run('ansible-doc', ['-t', 'callback', 'ansible.posix.json'], ansibleEnv()).status === 0;
    const res = run('ansible-playbook', ['-i', SCRIPT, '--check', 'play.yml'], ansibleEnv(hasJson ? { ANSIBLE_STDOUT_CALLBACK: 'ansible.posix.json' } : {}));
    expect(res.status, res.stdout + res.stderr).toBe(0);
    let ran: string[];
    let skipped: string[];
    if (hasJson) {
      const out = JSON.parse(res.stdout) as { plays: Array<{ tasks: Array<{ hosts: Record<string, { msg?: string; skipped?: boolean }> }> }> };
      const hosts = out.plays[0]!.tasks[0]!.hosts;
      ran = Object.keys(hosts).filter((h) => !hosts[h]!.skipped);
      skipped = Object.keys(hosts).filter((h) => hosts[h]!.skipped);
      for (const h of ran) expect(hosts[h]!.msg).toBe(`FLAGGED ${h}`);
    } else {
      // The default callback: `ok: [edge-01] => {"msg": "FLAGGED edge-01"}` and `skipping: [edge-02]`.
      ran = [...res.stdout.matchAll(/"msg": "FLAGGED ([^"]+)"/g)].map((m) => m[1]!);
      skipped = [...res.stdout.matchAll(/skipping: \[([^\]]+)\]/g)].map((m) => m[1]!);
    }
    expect(ran.sort()).toEqual(flagged);
    expect(skipped.sort()).toEqual(all.filter((h) => !flagged.includes(h)));
  });

  it('revalidates a cached inventory with If-None-Match and answers --host', () => {
    const cache = join(workDir, 'cache.json');
    const env = ansibleEnv({ CAIRN_CACHE: cache });
    const first = run('python3', [SCRIPT, '--list'], env);
    expect(first.status, first.stderr).toBe(0);
    expect(existsSync(cache)).toBe(true);
    const second = run('python3', [SCRIPT, '--list'], env);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    const host = run('python3', [SCRIPT, '--host', 'edge-01'], env);
    expect(host.status, host.stderr).toBe(0);
    expect(JSON.parse(host.stdout).cairn.custom_fields[FLAG]).toBe(true);
  });

  it('fails with one line and exit 1 when the server is unreachable or the token refused', async () => {
    const closed = await freePort();
    const down = run('python3', [SCRIPT, '--list'], ansibleEnv({ CAIRN_URL: `http://127.0.0.1:${closed}` }));
    expect(down.status).toBe(1);
    expect(down.stdout).toBe('');
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    expect(down.stderr).toContain('cannot reach Cairn');

    const refused = run('python3', [SCRIPT, '--list'], ansibleEnv({ CAIRN_TOKEN: 'cairn-not-a-token' }));
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain('token was refused');

    // And Ansible reports the source as failed rather than running with no hosts.
    const inv = run('ansible-inventory', ['-i', SCRIPT, '--list'], ansibleEnv({ CAIRN_TOKEN: 'cairn-not-a-token' }));
    expect(inv.status).not.toBe(0);
  });
});
