import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';
import { exportLimits } from './export.ts';

let h: Harness;
let basics: Basics;
beforeAll(async () => {
  h = await startHarness();
  basics = await inventoryBasics(h.as('alice'), ['eth0', 'eth1']);
  await createDevice(h.as('alice'), basics, 'leaf1', { serial: 'S1', platform: basics.platform });
  await createDevice(h.as('alice'), basics, 'leaf2', { serial: 'S2' });
});
afterAll(async () => {
  await h?.close();
});

const csv = '{% for d in objects %}{{ d.name }},{{ d.site.name }},{{ d.platform.name if d.platform else "" }},{{ d.interfaces.count() }}\n{% endfor %}';

async function template(body: Record<string, unknown>, who: 'alice' | 'admin' = 'alice') {
  return created(h.as(who), '/api/export-templates/', { object_type: 'dcim.device', ...body });
}

describe('export template records', () => {
  it('creates, reads computed fields, updates and deletes with change log', async () => {
    const alice = h.as('alice');
    const t = await template({ name: 'devices-csv', template_code: 'a\nb\n{{ count }}', file_extension: 'csv', mime_type: 'text/csv' });
    expect(t).toMatchObject({ name: 'devices-csv', line_count: 3, bundle_path: 'devices-csv.csv', as_attachment: true, target_path: '' });
    const patched = (await alice.patch(`/api/export-templates/${t.id}/`, { target_path: '/etc/x.conf' })).json();
    expect(patched.bundle_path).toBe('/etc/x.conf');
    const changes = (await alice.get(`/api/changes/?object_type=extras.exporttemplate`)).json();
    expect(changes.count).toBe(2);
    expect((await alice.delete(`/api/export-templates/${t.id}/`)).statusCode).toBe(204);
  });

  it('renders a list', async () => {
    const t = await template({ name: 'smoke', template_code: csv, mime_type: 'text/html' });
    const res = await h.as('alice').get(`/api/export-templates/${t.id}/render/`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toBe('leaf1,Site 1,Platform 1,2\nleaf2,Site 1,,2\n');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  });
});
