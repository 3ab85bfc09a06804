// Unfiltered lists read their count from row_counts (src/core/crud/row-counts.ts) instead of counting the table:
// the kept counts must equal the tables' rows after every kind of write (single and bulk creates and deletes,
// cascades, a demo-data load, a tenant's deletion), and a list must read them.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allModels, requireModel } from '../src/core/registry.ts';
import { foldAllRowCounts } from '../src/core/crud/row-counts.ts';
import { generateDemoData } from '../src/system/demo-data.ts';
import { startHarness, type Harness } from './helpers/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(async () => {
  await h?.close();
});

async function mismatches(): Promise<string[]> {
  const db = h.database.db;
  const tables = [...new Set(allModels().filter((m) => m.tenantScoped).map((m) => m.table))];
  const out: string[] = [];
  for (const table of tables) {
    const { rows } = await sql<{ tenant: string; kept: string | null; real: string | null }>`
      SELECT coalesce(r.tenant_id, k.tenant_id)::text AS tenant, k.n::text AS kept, r.n::text AS real
      FROM (SELECT tenant_id, count(*) AS n FROM ${sql.table(table)} WHERE tenant_id IS NOT NULL GROUP BY tenant_id) r
      FULL JOIN (SELECT tenant_id, sum(n) AS n FROM row_counts WHERE table_name = ${table} GROUP BY tenant_id) k ON k.tenant_id = r.tenant_id
      WHERE coalesce(k.n, 0) <> coalesce(r.n, 0)`.execute(db);
    for (const r of rows) out.push(`${table} ${r.tenant}: kept ${r.kept ?? 0}, rows ${r.real ?? 0}`);
  }
  return out;
}

describe('kept row counts', () => {
  it('equal the rows of every tenant-scoped table after creates, bulk calls, cascades, a load and a tenant deletion', async () => {
    const admin = h.as('admin');
    const result = await generateDemoData(h.database.db, { devices: 45, seed: 3, tenantSlug: 'alpha' });
    expect(result.rows.devices).toBeGreaterThan(45);
    expect(await mismatches()).toEqual([]);

    // Deleting a device takes its interfaces, addresses' assignments and cables' ends with it (cascades).
    const devices = (await admin.get('/api/devices/?limit=5&ordering=name')).json().results as Array<{ id: string }>;
    expect((await admin.delete(`/api/devices/${devices[0]!.id}/`)).statusCode).toBe(204);
    const bulk = await admin.post('/api/devices/bulk-delete/', { ids: devices.slice(1, 4).map((d) => d.id) });
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect((await admin.post('/api/tags/', { name: 'Counted', slug: 'counted' })).statusCode).toBe(201);
    expect((await h.as('adminB').post('/api/tags/', { name: 'Counted', slug: 'counted' })).statusCode).toBe(201);
    expect(await mismatches()).toEqual([]);

    const gone = (await admin.post('/api/tenants/', { name: 'Short Lived', slug: 'short-lived' })).json().id as string;
    await generateDemoData(h.database.db, { devices: 3, seed: 4, tenantSlug: 'short-lived' });
    expect(await mismatches()).toEqual([]);
    await sql`DELETE FROM tenants WHERE id = ${gone}`.execute(h.database.db);
    expect(await mismatches()).toEqual([]);
  }, 120_000);

  it('an unfiltered list reads the kept count; a filtered one counts what it selects', async () => {
    const db = h.database.db;
    const admin = h.as('admin');
    const real = (await admin.get('/api/devices/?limit=1')).json().count as number;
    const site = (await admin.get('/api/sites/?limit=1')).json().results[0].id as string;
    const inSite = (await admin.get(`/api/devices/?limit=1&site_id=${site}`)).json().count as number;
    expect(inSite).toBeLessThan(real);
    // Each tenant reads its own kept count: beta has no devices and its one tag.
    expect((await h.as('bob').get('/api/devices/?limit=1')).json().count).toBe(0);
    expect((await h.as('bob').get('/api/tags/?limit=1')).json().count).toBe(
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM tags WHERE tenant_id = ${h.tenants.b}`.execute(db)).rows[0]!.n,
    );
    // Moved by hand: the unfiltered count follows the kept one, so it is the one read.
    const table = requireModel('dcim.device').table;
    await sql`INSERT INTO row_counts (table_name, tenant_id, n) VALUES (${table}, ${h.tenants.a}, 1000)`.execute(db);
    try {
      expect((await admin.get('/api/devices/?limit=1')).json().count).toBe(real + 1000);
      expect((await admin.get(`/api/devices/?limit=1&site_id=${site}`)).json().count).toBe(inSite);
    } finally {
      await sql`INSERT INTO row_counts (table_name, tenant_id, n) VALUES (${table}, ${h.tenants.a}, -1000)`.execute(db);
    }
  });

  it('folds piled-up deltas into one row when a list reads them, keeping the count', async () => {
    const db = h.database.db;
    const admin = h.as('admin');
    for (let i = 0; i < 70; i++) expect((await admin.post('/api/tags/', { name: `Fold ${i}`, slug: `fold-${i}` })).statusCode).toBe(201);
    const parts = async () =>
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM row_counts WHERE table_name = 'tags' AND tenant_id = ${h.tenants.a}`.execute(db)).rows[0]!.n;
    expect(await parts()).toBeGreaterThan(64);
    const counted = (await admin.get('/api/tags/?limit=1')).json().count as number;
    expect(await parts()).toBe(1);
    expect((await admin.get('/api/tags/?limit=1')).json().count).toBe(counted);
    expect(await mismatches()).toEqual([]);
  });

  it('the scheduled fold leaves one row per table and tenant, for tables no list reads too, keeping every count', async () => {
    const db = h.database.db;
    for (let i = 0; i < 3; i++) expect((await h.as('admin').post('/api/tags/', { name: `Swept ${i}`, slug: `swept-${i}` })).statusCode).toBe(201);
    const piled = async () =>
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM (SELECT 1 FROM row_counts GROUP BY table_name, tenant_id HAVING count(*) > 1) p`.execute(db)).rows[0]!.n;
    // The change log is written by every write and never read as an unfiltered list here.
    expect(await piled()).toBeGreaterThan(0);
    const before = await sql<{ t: string; n: string }>`SELECT table_name || ' ' || tenant_id AS t, sum(n)::text AS n FROM row_counts GROUP BY 1 ORDER BY 1`.execute(db);
    expect(await foldAllRowCounts(db)).toBeGreaterThan(1);
    expect(await piled()).toBe(0);
    const after = await sql<{ t: string; n: string }>`SELECT table_name || ' ' || tenant_id AS t, sum(n)::text AS n FROM row_counts GROUP BY 1 ORDER BY 1`.execute(db);
    expect(after.rows).toEqual(before.rows);
    expect(await foldAllRowCounts(db)).toBe(0);
    expect(await mismatches()).toEqual([]);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)('two transactions writing two tables in opposite orders do not deadlock on the counts', async () => {
    const db = h.database.db;
    const gate = () => {
      let open!: () => void;
      return { wait: new Promise<void>((r) => (open = r)), open: () => open() };
    };
    const firstDone = [gate(), gate()];
    const insertTag = (tx: typeof db, slug: string) =>
      sql`INSERT INTO tags (id, numid, tenant_id, name, slug, color) VALUES (gen_random_uuid(), 900000 + (random() * 99999)::int, ${h.tenants.a}, ${slug}, ${slug}, '00aa00')`.execute(tx);
    const insertRegion = (tx: typeof db, slug: string) =>
      sql`INSERT INTO regions (id, numid, tenant_id, name, slug) VALUES (gen_random_uuid(), 900000 + (random() * 99999)::int, ${h.tenants.a}, ${slug}, ${slug})`.execute(tx);
    // Each takes its first table, waits until the other has taken its own, then writes the other's table.
    const one = db.transaction().execute(async (tx) => {
      await insertTag(tx, 'order-a-tag');
      firstDone[0]!.open();
      await firstDone[1]!.wait;
      await insertRegion(tx, 'order-a-region');
    });
    const two = db.transaction().execute(async (tx) => {
      await insertRegion(tx, 'order-b-region');
      firstDone[1]!.open();
      await firstDone[0]!.wait;
      await insertTag(tx, 'order-b-tag');
    });
    await expect(Promise.all([one, two])).resolves.toBeDefined();
    expect(await mismatches()).toEqual([]);
  });
});
