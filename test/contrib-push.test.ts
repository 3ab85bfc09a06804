// contrib/push end to end: the example tool renders a bundle, fills the keychain placeholder through the audited
// reveal call, writes the files into a temporary directory and records the push; the next render shows no drift.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { startHarness, type Harness } from './helpers/harness.ts';
import { created, createDevice, inventoryBasics } from './helpers/inventory.ts';

const run = promisify(execFile);
let h: Harness;
let dir: string;
beforeAll(async () => {
  h = await startHarness();
  dir = mkdtempSync(join(tmpdir(), 'cairn-push-'));
}, 120_000);
afterAll(async () => {
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('renders, substitutes keys, writes files and records the push', async () => {
  const admin = h.as('admin');
  const b = await inventoryBasics(admin, ['eth0']);
  const leaf = await createDevice(admin, b, 'leaf1');
  await created(admin, '/api/routing/keychains/', { name: 'FABRIC', algorithm: 'md5', key: 'psk-123' });
  const frr = await created(admin, '/api/export-templates/', {
    name: 'frr', object_type: 'dcim.device', target_path: '/etc/frr/frr.conf',
    template_code: 'hostname {{ device.name }}\n password {{ routing.keychain_by_name.FABRIC.placeholder }}\n',
  });
  const motd = await created(admin, '/api/export-templates/', { name: 'motd', object_type: 'dcim.device', template_code: 'Welcome to {{ device.name }}' });
  await created(admin, '/api/config-bundles/', { name: 'leaf-files', templates: [frr.id, motd.id], roles: [b.role] });
  const address = await h.app.listen({ host: '127.0.0.1', port: 0 });
  const tool = join(process.cwd(), 'contrib/push/cairn_push.py');
  const { stdout } = await run('python3', [tool, '--device', leaf.id, '--bundle', 'role', '--dest', dir, '--note', 'e2e'], {
    env: { ...process.env, CAIRN_URL: address, CAIRN_TOKEN: h.tokens.admin },
  });
  expect(stdout).toContain('recorded 2 file(s)');
  expect(readFileSync(join(dir, 'etc/frr/frr.conf'), 'utf8')).toBe('hostname leaf1\n password psk-123');
  expect(readFileSync(join(dir, 'motd.txt'), 'utf8')).toBe('Welcome to leaf1');
  expect(statSync(join(dir, 'etc/frr/frr.conf')).mode & 0o777).toBe(0o600);
  const render = (await admin.get(`/api/devices/${leaf.id}/render/?bundle=role`)).json();
  expect(render.files['/etc/frr/frr.conf']).toMatchObject({ drift: false, pushed: { note: 'e2e', source: 'contrib/push', has_output: true } });
  // The recorded text keeps the placeholder, never the key; the reveal was audited.
  const { rows } = await sql<{ output: string }>`SELECT output FROM config_pushes WHERE path = '/etc/frr/frr.conf'`.execute(h.database.db);
  expect(rows[0]!.output).toContain('<keychain:FABRIC>');
  const audit = await sql<{ n: number }>`SELECT count(*)::int AS n FROM object_changes WHERE action = 'reveal'`.execute(h.database.db);
  expect(audit.rows[0]!.n).toBe(1);
}, 120_000);
