// GET <list>csv/: every row the list's filters select (not one page), read in chunks, in the caller's tenant; the
// columns asked for (or all), cells as the list shows them; bad columns and filters are a 400 naming them.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../../test/helpers/harness.ts';
import { created } from '../../../test/helpers/inventory.ts';
import { parseCsv } from './spreadsheet-import.ts';
import { csvExportLimits } from './csv-export.ts';

let h: Harness;
const chunkRows = csvExportLimits.chunkRows;
beforeAll(async () => {
  h = await startHarness();
  const alice = h.as('alice');
  // 23 sites, 18 of them "edge" ones: with chunks of 5 rows the export crosses four chunk boundaries.
  const rows = Array.from({ length: 23 }, (_v, i) => ({ name: `Site ${String(i + 1).padStart(2, '0')}`, slug: `site-${i + 1}`, description: i % 4 === 3 ? 'core' : 'edge' }));
  const res = await alice.post('/api/sites/', rows);
  expect(res.statusCode, res.body).toBe(201);
  await created(alice, '/api/sites/', { name: 'Tricky', slug: 'tricky', description: '=HYPERLINK("x"), "quoted"\nnext line' });
  // Bob's tenant has an edge site too: never in Alice's file.
  await created(h.as('bob'), '/api/sites/', { name: 'Bob edge', slug: 'bob-edge', description: 'edge' });
  await created(alice, '/api/ip-addresses/', { address: '10.9.9.9' });
  await created(alice, '/api/ip-addresses/', { address: '10.9.9.10/24' });
});
afterEach(() => {
  csvExportLimits.chunkRows = chunkRows;
});
afterAll(async () => {
  await h?.close();
});

describe('CSV export of a list', () => {
  it('writes every row the filters select, across chunks, with the columns asked for', async () => {
    csvExportLimits.chunkRows = 5;
    const alice = h.as('alice');
    const res = await alice.get('/api/sites/csv/?description=edge&columns=name,description,status&limit=2');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="sites.csv"');
    const rows = parseCsv(res.body);
    const listed = (await alice.get('/api/sites/?description=edge&limit=1000')).json() as { count: number; results: Array<{ name: string }> };
    // limit is the list's page size, not the file's: every filtered row is in it, in the list's order.
    expect(rows).toHaveLength(listed.count);
    expect(listed.count).toBe(18);
    expect(rows.map((r) => r.Name)).toEqual(listed.results.map((r) => r.name));
    expect(Object.keys(rows[0]!)).toEqual(['Name', 'Description', 'Status']);
    expect(rows.map((r) => r.Name)).not.toContain('Bob edge');
  });

  it('takes every column without `columns`, and the selected rows alone with `id`', async () => {
    const alice = h.as('alice');
    const fields = (await alice.get('/api/list-fields/?path=/api/sites/')).json() as { fields: Array<{ label: string }> };
    const all = parseCsv((await alice.get('/api/sites/csv/?q=Site%200')).body);
    expect(Object.keys(all[0]!)).toEqual(fields.fields.map((f) => f.label));
    expect(all).toHaveLength(9);
    const two = (await alice.get('/api/sites/?ordering=name&limit=2')).json().results as Array<{ id: string; name: string }>;
    const picked = parseCsv((await alice.get(`/api/sites/csv/?columns=name&id=${two[0]!.id}&id=${two[1]!.id}`)).body);
    expect(picked.map((r) => r.Name)).toEqual(two.map((s) => s.name));
  });

  it('quotes commas, quotes and line breaks, and defuses formulas', async () => {
    const res = await h.as('alice').get('/api/sites/csv/?slug=tricky&columns=name,description');
    expect(res.body).toBe('Name,Description\r\nTricky,"\'=HYPERLINK(""x""), ""quoted""\nnext line"\r\n');
  });

  it('writes addresses with their mask, as the list and search show them', async () => {
    const rows = parseCsv((await h.as('alice').get('/api/ip-addresses/csv/?q=10.9.9&columns=address')).body);
    expect(rows.map((r) => r.Address).sort()).toEqual(['10.9.9.10/24', '10.9.9.9/32']);
  });

  it('answers a bad column or filter with a 400 naming it, and refuses a caller who may not view the list', async () => {
    const alice = h.as('alice');
    const column = await alice.get('/api/sites/csv/?columns=name,nope');
    expect(column.statusCode).toBe(400);
    expect(column.json().columns[0]).toContain('Unknown column "nope"');
    const filter = await alice.get('/api/sites/csv/?colour=red');
    expect(filter.statusCode).toBe(400);
    expect(filter.json()).toHaveProperty('colour');
    expect((await h.as('nobody').get('/api/sites/csv/')).statusCode).toBe(403);
    expect((await h.as('anonymous').get('/api/sites/csv/')).statusCode).toBe(401);
  });
});
