// Lists and objects written by PostgreSQL (object-json.ts) must be the bytes the server writes of the same rows
// (serializeRows, then jsonBytes): every model's list and one object of it, over demo data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openTestDatabase, type TestDatabase } from '../../../test/helpers/database.ts';
import '../../models.ts';
import { systemContext, type RequestContext } from '../context.ts';
import { allModels } from '../registry.ts';
import { jsonBytes } from '../json-bytes.ts';
import { generateDemoData } from '../../system/demo-data.ts';
import { listPage, listPageBytes, readObject, readObjectBytes } from './read.ts';
import { objectJsonUnsupported } from './object-json.ts';
import { requireModel } from '../registry.ts';
import { createObject } from './write.ts';

let database: TestDatabase;
let ctx: RequestContext;
const origin = 'http://cairn.example:8080';

beforeAll(async () => {
  database = await openTestDatabase();
  const demo = await generateDemoData(database.db, { devices: 2, tenantSlug: 'json' });
  ctx = systemContext(demo.tenantId, 'object-json-test');
});
afterAll(async () => {
  await database?.close();
});

describe('objects written by PostgreSQL', () => {
  it('are the bytes the server writes, for every model written so, list and object', async () => {
    const written: string[] = [];
    const mismatched: string[] = [];
    for (const model of allModels().filter((m) => m.operations.list)) {
      if (objectJsonUnsupported(model)) continue;
      const url = new URL(`${origin}${model.path}?limit=1000`);
      const page = await listPage(database.db, ctx, model, { limit: '1000' }, url);
      const text = (await listPageBytes(database.db, ctx, model, { limit: '1000' }, url)).toString();
      if (text !== jsonBytes(page).toString()) mismatched.push(`${model.name}\n  js: ${jsonBytes(page).toString().slice(0, 1500)}\n  pg: ${text.slice(0, 1500)}`);
      if (page.results.length) {
        written.push(model.name);
        const id = String(page.results[0]!.id);
        const one = (await readObjectBytes(database.db, ctx, model, id, origin)).toString();
        expect(one, model.name).toBe(jsonBytes(await readObject(database.db, ctx, model, id, origin)).toString());
      }
    }
    expect(mismatched).toEqual([]);
    console.log(`${written.length} models with rows written by PostgreSQL: ${written.join(' ')}`);
    console.log(`written by the server: ${allModels().filter((m) => m.operations.list && objectJsonUnsupported(m)).map((m) => `${m.name} (${objectJsonUnsupported(m)})`).join('; ')}`);
  });

  it('write times, numbers, JSON and link lists as the server does, and leave what they cannot write exactly to it', async () => {
    const db = database.db;
    let queries = 0;
    const same = async (name: string) => {
      const model = requireModel(name);
      const url = new URL(`${origin}${model.path}?limit=1000`);
      const before = database.queryCount();
      const text = (await listPageBytes(db, ctx, model, { limit: '1000' }, url)).toString();
      queries = database.queryCount() - before;
      expect(text, name).toBe(jsonBytes(await listPage(db, ctx, model, { limit: '1000' }, url)).toString());
      return text;
    };
    for (const [name, body] of [['extras.tag', { name: 'edge', slug: 'edge' }], ['dcim.racktype', { manufacturer: (await sql<{ id: string }>`SELECT id FROM manufacturers WHERE tenant_id = ${ctx.tenantId} LIMIT 1`.execute(db)).rows[0]!.id, model: 'Edge rack', slug: 'edge-rack', form_factor: '4-post-cabinet' }], ['extras.configcontext', { name: 'edge' }]] as const) {
      await createObject(db, ctx, requireModel(name), body);
    }
    // Milliseconds, what is below them dropped (not rounded up into the next second).
    await sql`UPDATE tags SET created = '2026-03-01 10:00:00.29+00', last_updated = '2026-03-01 10:00:59.999999+00' WHERE tenant_id = ${ctx.tenantId}`.execute(db);
    expect(await same('extras.tag')).toContain('"created":"2026-03-01T10:00:00.290Z","last_updated":"2026-03-01T10:00:59.999Z"');
    // Decimals without their trailing zeros; JSON without spaces, in jsonb's key order, numbers as JavaScript writes them.
    await sql`UPDATE rack_types SET weight = 12.50 WHERE tenant_id = ${ctx.tenantId}`.execute(db);
    expect(await same('dcim.racktype')).toContain('"weight":12.5,');
    const data = { b: [1.5, 2, { c: 'x\u0001"y', d: null }], a: 10, 'é': true, long_key: 0.000123, neg: -3.25 };
    await sql`UPDATE config_contexts SET data = ${JSON.stringify(data)}::jsonb WHERE tenant_id = ${ctx.tenantId}`.execute(db);
    expect(await same('extras.configcontext')).toContain('"data":{"a":10,"b":[1.5,2,{"c":"x\\u0001\\"y","d":null}]');
    const written = queries;
    // Values PostgreSQL would write otherwise: the page is the server's (a key like an array index goes first in
    // JavaScript; 1e-7 is written with an exponent; 20 digits are rounded).
    for (const odd of [{ b: 1, '2': 'index first' }, { tiny: 1e-7 }, { big: 12345678901234567890 }]) {
      await sql`UPDATE config_contexts SET data = ${JSON.stringify(odd)}::jsonb WHERE tenant_id = ${ctx.tenantId}`.execute(db);
      await same('extras.configcontext');
      expect(queries, JSON.stringify(odd)).toBeGreaterThan(written);
    }
    // Links in their ids' order, the same on both sides.
    const vrf = (await sql<{ id: string }>`SELECT id FROM vrfs WHERE tenant_id = ${ctx.tenantId} LIMIT 1`.execute(db)).rows[0]!.id;
    const targets = (await sql<{ id: string }>`SELECT id FROM route_targets WHERE tenant_id = ${ctx.tenantId}`.execute(db)).rows;
    expect(targets.length).toBeGreaterThan(1);
    await sql`DELETE FROM vrf_import_targets WHERE vrf_id = ${vrf}`.execute(db);
    for (const t of targets) await sql`INSERT INTO vrf_import_targets (vrf_id, route_target_id) VALUES (${vrf}, ${t.id})`.execute(db);
    await same('ipam.vrf');
  });
});

