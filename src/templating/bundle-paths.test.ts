// Issue 27: bundle target paths are paths. Stored in one form, refused when they name no file, compared as paths
// in bundles (naming both templates), and put in that form by migration 0028 where stored before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { created, createDevice, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';
import { up as normalizeStoredPaths } from '../db/migrations/0028_template_paths.ts';
import { normalizeTargetPath } from './target-path.ts';

let h: Harness;
let b: Basics;

beforeAll(async () => {
  h = await startHarness();
  b = await inventoryBasics(h.as('admin'), ['eth0']);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const count = async (table: string) => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(h.database.db)).rows[0]!.n;

function template(name: string, targetPath: string) {
  return h.as('admin').post('/api/export-templates/', { name, object_type: 'dcim.device', template_code: name, target_path: targetPath });
}

describe('target paths', () => {
  it('normalises the forms of one path', () => {
    for (const p of ['/etc/x.conf', 'etc/x.conf', '/etc//x.conf', '//etc/./x.conf', './etc/x.conf']) expect(normalizeTargetPath(p)).toBe('/etc/x.conf');
    for (const p of ['/etc/../x', '..', 'etc/', '/', '//', 'etc/.', '.']) expect(normalizeTargetPath(p)).toBeNull();
  });

  it('stores one form and refuses a path naming no file with 400 on target_path, writing nothing', async () => {
    const res = await template('p-collapse', 'etc//frr/./frr.conf');
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ target_path: '/etc/frr/frr.conf', bundle_path: '/etc/frr/frr.conf' });
    const before = await count('export_templates');
    for (const [path, why] of [['/etc/../shadow', /"\.\."/], ['etc/', /end with "\/"/], ['/', /names none/]] as const) {
      const bad = await template(`p-bad-${path.length}`, path);
      expect(bad.statusCode, path).toBe(400);
      expect(bad.json().target_path[0]).toMatch(why);
    }
    const patch = await h.as('admin').patch(`/api/export-templates/${res.json().id}/`, { target_path: 'etc/x/' });
    expect(patch.statusCode).toBe(400);
    expect(patch.json()).toHaveProperty('target_path');
    expect(await count('export_templates')).toBe(before);
    expect((await h.as('admin').get(`/api/export-templates/${res.json().id}/`)).json().target_path).toBe('/etc/frr/frr.conf');
  });

  it('refuses a bundle whose templates land at one path however it is written, naming both', async () => {
    const a = (await template('p-a', '/etc/x.conf')).json();
    const c = (await template('p-c', 'etc/y.conf')).json();
    const d = (await h.as('admin').post('/api/export-templates/', { name: 'y', file_extension: 'conf', object_type: 'dcim.device', template_code: 'y' })).json();
    const bundles = await count('config_bundles');
    // Written three ways: the same file.
    const b1 = (await template('p-b1', 'etc//x.conf')).json();
    const clash = await h.as('admin').post('/api/config-bundles/', { name: 'clash', templates: [a.id, b1.id] });
    expect(clash.statusCode).toBe(400);
    expect(clash.json().templates[0]).toBe('p-a and p-b1 both land at /etc/x.conf; give one a target path.');
    // A default <name>.<ext> and a target path of the same file clash too (one tarball entry).
    const root = (await template('p-root', '/y.conf')).json();
    const clash2 = await h.as('admin').post('/api/config-bundles/', { name: 'clash2', templates: [d.id, root.id] });
    expect(clash2.statusCode).toBe(400);
    expect(clash2.json().templates[0]).toMatch(/p-root and y both land at \/y\.conf/);
    expect(await count('config_bundles')).toBe(bundles);
    // Editing a template into another's path inside a bundle is refused the same way.
    const ok = await created(h.as('admin'), '/api/config-bundles/', { name: 'fine', templates: [a.id, c.id] });
    expect(ok.id).toBeTruthy();
    const moved = await h.as('admin').patch(`/api/export-templates/${c.id}/`, { target_path: '//etc/./x.conf' });
    expect(moved.statusCode).toBe(400);
    expect(moved.json().target_path[0]).toMatch(/p-a and p-c both land at \/etc\/x\.conf/);
  });

  it('records a pushed path in the form renders key files by', async () => {
    const device = await createDevice(h.as('admin'), b, 'paths1');
    const res = await h.as('admin').post(`/api/devices/${device.id}/config-pushed/`, { path: 'etc//x.conf', sha256: 'a'.repeat(64) });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().recorded[0].path).toBe('/etc/x.conf');
  });

  it('puts stored paths in that form (migration 0028)', async () => {
    const t = (await template('p-old', '/old/a.conf')).json();
    const t2 = (await template('p-old2', '/old/b.conf')).json();
    await sql`UPDATE export_templates SET target_path = 'old//a.conf' WHERE id = ${t.id}`.execute(h.database.db);
    await sql`UPDATE export_templates SET target_path = '/' WHERE id = ${t2.id}`.execute(h.database.db);
    await sql`UPDATE config_pushes SET path = 'etc//x.conf' WHERE path = '/etc/x.conf'`.execute(h.database.db);
    await normalizeStoredPaths(h.database.db as never);
    const { rows } = await sql<{ name: string; target_path: string }>`SELECT name, target_path FROM export_templates WHERE name IN ('p-old', 'p-old2') ORDER BY name`.execute(h.database.db);
    expect(rows).toEqual([{ name: 'p-old', target_path: '/old/a.conf' }, { name: 'p-old2', target_path: '' }]);
    const pushes = await sql<{ path: string }>`SELECT path FROM config_pushes`.execute(h.database.db);
    expect(pushes.rows.map((r) => r.path)).toEqual(['/etc/x.conf']);
  });
});
