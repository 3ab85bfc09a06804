// POST <list>import/: CSV, JSON and YAML rows created or updated (by id or number), related objects by slug, name
// or number; all rows or none, with each refused row's number, field and message; dry_run; permissions; tenants.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics, type Basics } from '../../../test/helpers/inventory.ts';
import { parseCsv } from './spreadsheet-import.ts';

let h: Harness;
let b: Basics;
let device: { id: string; numid: number };
beforeAll(async () => {
  h = await startHarness();
  const alice = h.as('alice');
  b = await inventoryBasics(alice);
  await created(alice, '/api/regions/', { name: 'Europe', slug: 'europe' });
  const d = await createDevice(alice, b, 'leaf-import-1');
  device = { id: d.id, numid: Number(d.numid) };
  // Bob's tenant has a region of the same slug: never Alice's to use.
  await created(h.as('bob'), '/api/regions/', { name: 'Asia', slug: 'asia' });
});
afterAll(async () => {
  await h?.close();
});

const count = async (path: string) => (await h.as('alice').get(`${path}?limit=1`)).json().count as number;

describe('spreadsheet import', () => {
  it('reads quoted CSV cells with commas, quotes and line breaks', () => {
    expect(parseCsv('name,description\r\n"a, b","say ""hi""\nthere"\n\n')).toEqual([{ name: 'a, b', description: 'say "hi"\nthere' }]);
  });

  it('creates 20 interfaces from CSV, the device by number, in one call', async () => {
    const lines = ['device,name,type,enabled,mtu', ...Array.from({ length: 20 }, (_v, i) => `${device.numid},eth${i + 1},1000base-t,${i % 2 ? 'true' : 'false'},${i === 0 ? '9000' : ''}`)];
    const res = await h.as('alice').post('/api/interfaces/import/', { format: 'csv', data: lines.join('\n') });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ created: 20, updated: 0, dry_run: false });
    const first = (await h.as('alice').get(`/api/interfaces/${res.json().ids[0]}/`)).json();
    expect(first).toMatchObject({ name: 'eth1', mtu: 9000, enabled: false });
  });

  it('refuses the whole sheet when rows are bad, naming each row and field, and writes nothing', async () => {
    const before = await count('/api/sites/');
    const data = 'name,slug,region\nOK site,ok-site,europe\nBad slug,not a slug,europe\n,no-name,asia\n';
    const res = await h.as('alice').post('/api/sites/import/', { format: 'csv', data });
    expect(res.statusCode).toBe(400);
    const errors = res.json().errors as Array<{ row: number; field: string; message: string }>;
    expect(errors.map((e) => [e.row, e.field])).toEqual(expect.arrayContaining([[2, 'slug'], [3, 'name']]));
    expect(await count('/api/sites/')).toBe(before);
    // Bob's region is not found from Alice's tenant (a row refused while writing: the first one stops the sheet).
    const other = await h.as('alice').post('/api/sites/import/', { format: 'csv', data: 'name,slug,region\nA,a-site,europe\nB,b-site,asia\n' });
    expect(other.statusCode).toBe(400);
    expect(other.json().errors).toEqual([expect.objectContaining({ row: 2, field: 'region' })]);
    expect(await count('/api/sites/')).toBe(before);
  });

  it('updates rows named by id or number, from JSON and YAML; dry_run writes nothing', async () => {
    const site = await created(h.as('alice'), '/api/sites/', { name: 'Import me', slug: 'import-me' });
    const dry = await h.as('alice').post('/api/sites/import/', { format: 'json', data: JSON.stringify([{ id: site.numid, description: 'dry' }]), dry_run: true });
    expect(dry.json()).toMatchObject({ updated: 1, dry_run: true });
    expect((await h.as('alice').get(`/api/sites/${site.id}/`)).json().description).toBe('');
    const yaml = `- id: ${site.id}\n  description: from yaml\n  region: europe\n`;
    const res = await h.as('alice').post('/api/sites/import/', { format: 'yaml', data: yaml });
    expect(res.json()).toMatchObject({ created: 0, updated: 1 });
    expect((await h.as('alice').get(`/api/sites/${site.id}/`)).json()).toMatchObject({ description: 'from yaml' });
    const missing = await h.as('alice').post('/api/sites/import/', { format: 'json', data: '[{"id": 999999, "description": "x"}]' });
    expect(missing.json().errors).toEqual([{ row: 1, field: 'id', message: 'No site 999999.' }]);
  });

  it('needs the add permission, and change for rows with an id', async () => {
    expect((await h.as('viewer').post('/api/sites/import/', { format: 'csv', data: 'name,slug\nV,v\n' })).statusCode).toBe(403);
    expect((await h.as('alice').post('/api/sites/import/', { format: 'xml', data: '' })).statusCode).toBe(400);
    expect((await h.as('alice').post('/api/sites/import/', { format: 'json', data: '{not json' })).json()).toHaveProperty('data');
  });
});
