// A NetBox list page is written first without walking it for related objects to look up, and again after the walk
// when a brief needs a lookup (serializer.ts shapePage): every list of the dialect, over demo data, must come out
// the same as the walked page, as text (page-bytes.ts) and as objects (brief, fields, omit).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import '../models.ts';
import { systemContext, type RequestContext } from '../core/context.ts';
import { listPage } from '../core/crud/read.ts';
import { generateDemoData } from '../system/demo-data.ts';
import { dialectModels } from './dialect.ts';
import { installBriefDescriptions, netboxObjects, netboxShaper, shapePage } from './serializer.ts';
import { netboxPageBytes } from './page-bytes.ts';

let database: TestDatabase;
let ctx: RequestContext;

beforeAll(async () => {
  installBriefDescriptions();
  database = await openTestDatabase();
  const demo = await generateDemoData(database.db, { devices: 2, tenantSlug: 'shapes' });
  ctx = systemContext(demo.tenantId, 'shape-page-test');
});
afterAll(async () => {
  await database?.close();
});

describe('NetBox list pages without the walk', () => {
  it('give the walked page, byte for byte, for every list of the dialect', async () => {
    const origin = 'http://localhost';
    let withRows = 0;
    const fellBack: string[] = [];
    for (const entry of dialectModels().filter((e) => e.model.operations.list && e.model.tenantScoped)) {
      const page = await listPage(database.db, ctx, entry.model, { limit: '1000' }, new URL(`${origin}${entry.path}`), true);
      if (page.results.length) withRows++;
      for (const shape of [{ origin }, { origin, brief: true }]) {
        let tried = 0;
        const optimistic = await shapePage(database.db, ctx, entry, page.results, shape, (s) => {
          tried++;
          return { text: netboxPageBytes(page, page.results, s.write, s.shared).toString(), objects: netboxObjects(s, page.results, shape) };
        });
        if (tried > 1 && !shape.brief) fellBack.push(entry.name);
        const walked = await netboxShaper(database.db, ctx, entry, page.results, shape, { walk: true });
        expect(optimistic.text, entry.name).toBe(netboxPageBytes(page, page.results, walked.write, walked.shared).toString());
        expect(optimistic.objects, entry.name).toEqual(netboxObjects(walked, page.results, shape));
      }
    }
    // The comparison means something: most lists have rows, and both ways were taken (the device list needs no
    // lookup; an address's assigned object and a console port's link peer do).
    expect(withRows).toBeGreaterThan(40);
    expect(fellBack).toEqual(expect.arrayContaining(['ipam.ipaddress', 'dcim.consoleport']));
    expect(fellBack).not.toContain('dcim.device');
  });
});
