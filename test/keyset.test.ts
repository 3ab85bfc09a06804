// Keyset reads (src/core/crud/keyset.ts): walking a list chunk by chunk, each chunk read after the last row of the
// one before, gives the rows of the list's ORDER BY exactly, in every kind of ordering a list accepts: ascending
// and descending, on nullable columns (nulls first ascending, last descending), ties broken by the id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type RawBuilder } from 'kysely';
import { startHarness, type Harness } from './helpers/harness.ts';
import { generateDemoData } from '../src/system/demo-data.ts';
import { systemContext } from '../src/core/context.ts';
import { requireModel } from '../src/core/registry.ts';
import { listConditions } from '../src/core/crud/read.ts';
import { keysetAfter, keysetColumns } from '../src/core/crud/keyset.ts';
import type { Row } from '../src/core/crud/serialize.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await generateDemoData(h.database.db, { devices: 30, seed: 3, tenantSlug: 'alpha' });
  // Nulls and ties: a third of the devices without platform, rack and position, and serials shared.
  await sql`UPDATE devices SET platform_id = NULL, rack_id = NULL, position = NULL, face = NULL WHERE numid % 3 = 0`.execute(h.database.db);
  await sql`UPDATE devices SET serial = 'DUP' WHERE numid % 3 = 1`.execute(h.database.db);
  await sql`UPDATE devices SET serial = '' WHERE numid % 3 = 2`.execute(h.database.db);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe('keyset reads', () => {
  const orderings = [undefined, 'serial', '-serial', 'platform,-name', '-platform,serial', 'rack,-position,serial', '-position,-serial', '-name'];
  // Each also with the text columns carried by the rows themselves rather than read again as order columns.
  for (const [ordering, carried] of orderings.flatMap((o) => [[o, false], [o, true]] as const)) {
    it(`walk the list in chunks as its ORDER BY reads it (${ordering ?? 'default ordering'}${carried ? ', text columns carried' : ''})`, async () => {
      const model = requireModel('dcim.device');
      const ctx = systemContext(h.tenants.a);
      const { where, orderBy, orderKeys } = listConditions(ctx, model, ordering === undefined ? {} : { ordering });
      const keys = orderKeys!;
      expect(keys.at(-1)).toEqual({ column: 'id', desc: false, nullable: false });
      const { rows: all } = await sql<{ id: string }>`SELECT t.id FROM devices t WHERE ${where} ORDER BY ${orderBy}`.execute(h.database.db);
      expect(all.length).toBeGreaterThan(20);
      const walked: string[] = [];
      let last: Row | null = null;
      for (let guard = 0; guard < all.length + 2; guard++) {
        const after: RawBuilder<unknown> = last ? sql`AND ${keysetAfter(keys, last, 't')}` : sql``;
        const select = carried ? sql`t.id, t.name, t.serial${keysetColumns(keys, 't', (c) => c === 'name' || c === 'serial')}` : sql`t.id${keysetColumns(keys, 't')}`;
        const { rows }: { rows: Row[] } = await sql<Row>`SELECT ${select} FROM devices t WHERE ${where} ${after} ORDER BY ${orderBy} LIMIT 4`.execute(h.database.db);
        walked.push(...rows.map((r) => String(r.id)));
        if (rows.length < 4) break;
        last = rows[rows.length - 1]!;
      }
      expect(walked).toEqual(all.map((r) => r.id));
    });
  }
});
