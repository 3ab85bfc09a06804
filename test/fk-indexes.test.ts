// Every foreign-key column has an index that leads with it (migration 0005 added the missing ones). Without
// one, each delete of a referenced row scans the referencing table for its ON DELETE action or RESTRICT check,
// so bulk deletes grow with table size. This keeps later migrations honest: a new FK needs its index.
// Partial indexes count only when their predicate is `col IS NOT NULL` (the planner proves `col = $1` implies
// it, so the referential-action queries use them).
//
// And a field the registry declares non-nullable is NOT NULL in the database. List ordering relies on it: such a
// column is ordered without a NULLS clause (the same rows either way), so an index on it can serve the ordering;
// a column left nullable by a migration would put its NULLs on the other end of the list than the API promises.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import '../src/models.ts';
import { allModels, columnOf, isColumnField, type ModelDef } from '../src/core/registry.ts';
import { openTestDatabase, type TestDatabase } from './helpers/database.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
}, 60_000);
afterAll(async () => {
  await database?.close();
});

it('every foreign key has an index leading with its columns', async () => {
  const { rows } = await sql<{ tbl: string; cols: string }>`
    SELECT c.conrelid::regclass::text AS tbl, string_agg(a.attname, ',' ORDER BY k.ord) AS cols
    FROM pg_constraint c
    CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
    WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
      AND NOT EXISTS (
        SELECT 1 FROM pg_index i
        WHERE i.indrelid = c.conrelid
          AND (i.indkey::int2[])[0:array_length(c.conkey, 1) - 1] @> c.conkey
          AND (i.indkey::int2[])[0:array_length(c.conkey, 1) - 1] <@ c.conkey
          AND (i.indpred IS NULL
            OR (array_length(c.conkey, 1) = 1 AND pg_get_expr(i.indpred, i.indrelid) = format('(%s IS NOT NULL)', a.attname))))
    GROUP BY c.conrelid, c.conname
    ORDER BY 1, 2`.execute(database.db);
  // A failure names table(columns): add `CREATE INDEX … ON table (col)` (partial `WHERE col IS NOT NULL` when the
  // column is nullable) to the migration that adds the foreign key.
  expect(rows.map((r) => `${r.tbl}(${r.cols})`)).toEqual([]);
});

it('primary-IP foreign keys are deferrable for bulk loads but checked per statement by default', async () => {
  const { rows } = await sql<{ conname: string; condeferrable: boolean; condeferred: boolean }>`
    SELECT conname, condeferrable, condeferred FROM pg_constraint
    WHERE contype = 'f' AND conname IN ('devices_primary_ip4_id_fkey', 'devices_primary_ip6_id_fkey',
      'virtual_machines_primary_ip4_id_fkey', 'virtual_machines_primary_ip6_id_fkey')
    ORDER BY conname`.execute(database.db);
  expect(rows).toHaveLength(4);
  for (const r of rows) expect({ name: r.conname, deferrable: r.condeferrable, deferred: r.condeferred }).toEqual({ name: r.conname, deferrable: true, deferred: false });
});

it('every column the registry calls non-nullable is NOT NULL in the database', async () => {
  const { rows } = await sql<{ t: string; c: string; nullable: boolean }>`
    SELECT c.relname AS t, a.attname AS c, NOT a.attnotnull AS nullable
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped`.execute(database.db);
  const nullable = new Map(rows.map((r) => [`${r.t}.${r.c}`, r.nullable]));
  const checked: string[] = [];
  const wrong: string[] = [];
  for (const model of allModels()) {
    for (const [key, field] of Object.entries(model.fields)) {
      if (!isColumnField(field) || field.nullable) continue;
      const column = `${model.table}.${columnOf(key, field)}`;
      checked.push(column);
      // A failure names table.column: add NOT NULL in a migration, or mark the field nullable in the registry.
      if (nullable.get(column) !== false) wrong.push(column);
    }
    // The audit columns a list may be ordered by.
    for (const column of ['id', 'numid', ...(model.timestamps ? ['created', 'last_updated'] : [])]) {
      if (!nullable.has(`${model.table}.${column}`)) continue;
      checked.push(`${model.table}.${column}`);
      if (nullable.get(`${model.table}.${column}`) !== false) wrong.push(`${model.table}.${column}`);
    }
  }
  expect(wrong).toEqual([]);
  expect(checked.length).toBeGreaterThan(100);
});

it('every natural-order field is ordered by its stored key, indexed behind the tenant with the default ordering', async () => {
  const { rows } = await sql<{ tbl: string; cols: string }>`
    SELECT i.indrelid::regclass::text AS tbl, string_agg(a.attname, ',' ORDER BY k.ord) AS cols
    FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
    WHERE i.indpred IS NULL
    GROUP BY i.indexrelid, i.indrelid`.execute(database.db);
  const natural = allModels().flatMap((m) => Object.entries(m.fields).filter(([, f]) => f.naturalOrder).map(([key]) => ({ m, key })));
  expect(natural.map((n) => n.m.name).sort()).toEqual([
    'circuits.circuit', 'dcim.consoleport', 'dcim.consoleporttemplate', 'dcim.consoleserverport',
    'dcim.consoleserverporttemplate', 'dcim.devicebay', 'dcim.devicebaytemplate', 'dcim.frontport',
    'dcim.frontporttemplate', 'dcim.interface', 'dcim.interfacetemplate', 'dcim.inventoryitem',
    'dcim.inventoryitemtemplate', 'dcim.modulebay', 'dcim.modulebaytemplate', 'dcim.powerfeed', 'dcim.poweroutlet',
    'dcim.poweroutlettemplate', 'dcim.powerpanel', 'dcim.powerport', 'dcim.powerporttemplate', 'dcim.rack',
    'dcim.rearport', 'dcim.rearporttemplate', 'ipam.asnrange', 'tenancy.contact',
  ]);
  for (const { m } of natural) {
    // The default ordering's columns, natural keys in place of their text, then the id that breaks ties.
    const ordering = m.defaultOrdering.map((key) => {
      const f = m.fields[key]!;
      return f.naturalOrder ? `${columnOf(key, f)}_natural` : columnOf(key, f);
    });
    const wanted = [...(m.tenantScoped ? ['tenant_id'] : []), ...ordering, 'id'].join(',');
    expect(rows.filter((r) => r.tbl === m.table).map((r) => r.cols), m.name).toContain(wanted);
  }
});

/**
 * The plan of each tenant-scoped list's default page (50 rows, past the first 100), with sorting disabled: then
 * PostgreSQL takes any index that yields the order, however small the table, and a Sort left in the plan means none
 * can.
 */
async function defaultPagePlans(): Promise<{ m: ModelDef; plan: string }[]> {
  const { listConditions } = await import('../src/core/crud/read.ts');
  const tenantId = '00000000-0000-7000-8000-000000000001';
  const ctx = { user: null, tenantId, tenantIds: [tenantId], permissions: new Set<string>(), readOnly: false, requestId: 'order', via: 'token' } as const;
  return database.db.connection().execute(async (conn) => {
    const plans: { m: ModelDef; plan: string }[] = [];
    await sql`SET enable_sort = off`.execute(conn);
    for (const m of allModels().filter((x) => x.tenantScoped && x.operations.list)) {
      const { where, orderBy } = listConditions(ctx, m, {});
      const { rows } = await sql<Record<string, string>>`EXPLAIN SELECT t.* FROM ${sql.table(m.table)} t WHERE ${where} ORDER BY ${orderBy} LIMIT 50 OFFSET 100`.execute(conn);
      plans.push({ m, plan: rows.map((r) => Object.values(r)[0]!).join('\n') });
    }
    await sql`RESET enable_sort`.execute(conn);
    return plans;
  });
}

it("every tenant-scoped list's default ordering is read off an index (no list's page cost grows with its table)", async () => {
  // A Sort would read and sort the tenant's whole table. An incremental sort is checked below: it orders rows
  // already read in index order within their equal keys.
  const sorted = (await defaultPagePlans()).filter(({ plan }) => /^\s*(->\s+)?Sort\s+\(/m.test(plan)).map(({ m }) => `${m.name} (${m.defaultOrdering.join(', ') || 'id'})`);
  expect(sorted).toEqual([]);
});

/** Lists whose incremental sort's groups are one parent's rows, however large the table grows. */
const BOUNDED_TIES: Record<string, string> = {
  'ipam.aggregate': 'the aggregates of one prefix (a prefix entered twice)',
  'routing.bgpsession': 'the sessions of one BGP instance',
  'routing.ospfinterface': 'the interfaces of one OSPF instance',
  'routing.isisinterface': 'the interfaces of one IS-IS instance',
};

it('a list ordered by an index with its ties sorted after (incremental sort) has no large ties', async () => {
  // Behind a unique name a group of equal keys is one row; behind a time that a whole statement's rows share (the
  // change log), one group was 50,000 rows, and PostgreSQL read and sorted the tenant's whole table instead (0.65 s
  // a page at 2.8 million changes).
  const unique = await sql<{ tbl: string; cols: string[] }>`
    SELECT i.indrelid::regclass::text AS tbl, array_agg(a.attname::text) AS cols
    FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
    WHERE i.indisunique AND i.indpred IS NULL AND i.indrelid::regclass::text NOT LIKE 'pg_%'
    GROUP BY i.indexrelid, i.indrelid`.execute(database.db);
  const tied = (await defaultPagePlans()).flatMap(({ m, plan }) => {
    const presorted = /Presorted Key: (.+)/.exec(plan)?.[1];
    if (!presorted || BOUNDED_TIES[m.name]) return [];
    const keys = new Set(['tenant_id', ...presorted.split(', ').map((k) => k.replace(/^t\./, '').replace(/"/g, ''))]);
    const unbroken = unique.rows.some((u) => u.tbl === m.table && u.cols.every((c) => keys.has(c)));
    return unbroken ? [] : [`${m.name} (${m.defaultOrdering.join(', ')}: presorted by ${presorted})`];
  });
  expect(tied).toEqual([]);
});

it("the device list's q is read off the trigram index, not the tenant's every device", async () => {
  // The condition q adds, without the tenant fence: on a table this small the tenant's own index would win.
  const { parseListQuery } = await import('../src/core/crud/list-query.ts');
  const { requireModel } = await import('../src/core/registry.ts');
  const where = sql.join(parseListQuery(requireModel('dcim.device'), { q: 'ams1' }, 't').where, sql` AND `);
  const plan = await database.db.connection().execute(async (conn) => {
    await sql`SET enable_seqscan = off`.execute(conn);
    const { rows } = await sql<Record<string, string>>`EXPLAIN SELECT count(*) FROM devices t WHERE ${where}`.execute(conn);
    await sql`RESET enable_seqscan`.execute(conn);
    return rows.map((r) => Object.values(r)[0]).join('\n');
  });
  // Each arm of the OR (name, serial, asset tag, comments) on the index.
  expect(plan.match(/Bitmap Index Scan on devices_q_trgm/g)?.length, plan).toBe(4);
});

it("after a demo load nothing waits in a trigram index's pending list, which the planner prices into every search", async () => {
  const { generateDemoData } = await import('../src/system/demo-data.ts');
  await generateDemoData(database.db, { devices: 12, seed: 3, tenantSlug: 'pending-list' });
  // gin_clean_pending_list answers how many pending pages it merged. The device index takes rows straight in
  // (0035); the search index's list is merged at the end of the load.
  const merged = async (index: string) => (await sql<{ n: number }>`SELECT gin_clean_pending_list(${index}::regclass)::int AS n`.execute(database.db)).rows[0]!.n;
  expect(await merged('devices_q_trgm')).toBe(0);
  expect(await merged('search_index_trgm_idx')).toBe(0);
  // Writes after the load: the device index still has nothing pending.
  await sql`UPDATE devices SET comments = 'pending-list check' WHERE tenant_id = (SELECT id FROM tenants WHERE slug = 'pending-list')`.execute(database.db);
  expect(await merged('devices_q_trgm')).toBe(0);
});
