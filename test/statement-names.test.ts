// Repeated statements are prepared once per connection (src/db/statement-names.ts), on PostgreSQL and on the
// embedded database: the server then stops parsing and planning them per request. They must stay correct when DDL
// changes what a prepared statement returns, and pattern matches must stay unnamed (their best plan depends on the
// pattern). The embedded database's clients are connections to one session: a new client finds none prepared.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatementNames } from '../src/db/statement-names.ts';
import { isDatabaseUnavailable } from '../src/core/crud/db-errors.ts';
import { openTestDatabase, type TestDatabase } from './helpers/database.ts';
import '../src/models.ts';
import { systemContext } from '../src/core/context.ts';
import { requireModel } from '../src/core/registry.ts';
import { listPage } from '../src/core/crud/read.ts';
import { generateDemoData } from '../src/system/demo-data.ts';

describe('statement names', () => {
  it('names a text from its third sending on, the same name each time, and never a pattern match', () => {
    const names = new StatementNames();
    const text = 'SELECT * FROM sites r WHERE r.id = ANY($1::uuid[])';
    expect(names.nameOf(text)).toBeUndefined();
    expect(names.nameOf(text)).toBeUndefined();
    const name = names.nameOf(text);
    expect(name).toMatch(/^c0_/);
    expect(names.nameOf(text)).toBe(name);
    for (let i = 0; i < 5; i++) expect(names.nameOf('SELECT 1 FROM devices t WHERE t.name ILIKE $1')).toBeUndefined();
    for (let i = 0; i < 5; i++) expect(names.nameOf('SELECT 1 FROM search_index si WHERE si.norm % $1')).toBeUndefined();
    // Given up (after DDL), texts are named anew under other names: no connection reuses a stale one.
    names.forgetAll();
    for (let i = 0; i < 2; i++) expect(names.nameOf(text)).toBeUndefined();
    expect(names.nameOf(text)).toMatch(/^c1_/);
  });

  it('stops naming past its cap', () => {
    const names = new StatementNames();
    const named = new Set<string>();
    for (let k = 0; k < 500; k++) for (let i = 0; i < 3; i++) {
      const n = names.nameOf(`SELECT ${k}`);
      if (n) named.add(n);
    }
    expect(named.size).toBe(400);
  });
});

describe('named statements', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)('run without JIT compilation (a misjudged row estimate once cost 119 ms of compiling for a 0.2 ms query)', async () => {
    const { rows } = await sql<{ jit: string }>`SHOW jit`.execute(database.db);
    expect(rows[0]!.jit).toBe('off');
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)('price random reads as on SSD (a device search over 2,000 devices took its trigram index only then: 7 ms to 0.24 ms)', async () => {
    const { rows } = await sql<{ random_page_cost: string }>`SHOW random_page_cost`.execute(database.db);
    expect(Number(rows[0]!.random_page_cost)).toBe(1.1);
  });

  it('are prepared on the connection, and a statement DDL made stale is answered after the change', async () => {
    const db = database.db;
    await sql`CREATE TABLE zz_named (id int PRIMARY KEY, a text)`.execute(db);
    await sql`INSERT INTO zz_named VALUES (1, 'one')`.execute(db);
    // One connection for all of it: the prepared statement lives on it.
    await db.connection().execute(async (conn) => {
      const read = () => sql<Record<string, unknown>>`SELECT * FROM zz_named WHERE id = ${1}`.execute(conn);
      for (let i = 0; i < 4; i++) expect((await read()).rows).toEqual([{ id: 1, a: 'one' }]);
      const { rows: prepared } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE '%zz_named WHERE id%'`.execute(conn);
      expect(prepared[0]!.n).toBe(1);

      // The columns `*` stands for change: the prepared statement can no longer run, the query still answers.
      await sql`ALTER TABLE zz_named ADD COLUMN b text DEFAULT 'new'`.execute(conn);
      expect((await read()).rows).toEqual([{ id: 1, a: 'one', b: 'new' }]);
      for (let i = 0; i < 4; i++) expect((await read()).rows).toEqual([{ id: 1, a: 'one', b: 'new' }]);

      // Inside a transaction the first run after the change fails (the transaction is lost): as a 503 to retry.
      await sql`ALTER TABLE zz_named ADD COLUMN c int DEFAULT 3`.execute(conn);
      await sql`BEGIN`.execute(conn);
      const failed = await read().then(() => null, (err: unknown) => err);
      await sql`ROLLBACK`.execute(conn);
      expect(failed).not.toBeNull();
      expect(isDatabaseUnavailable(failed)).toBe(true);
      expect((await read()).rows).toEqual([{ id: 1, a: 'one', b: 'new', c: 3 }]);
    });
  });

  it.skipIf(Boolean(process.env.TEST_DATABASE_URL))('on the embedded database, a new client finds none of an earlier one\'s statements prepared', async () => {
    const db = database.db;
    await sql`CREATE TABLE zz_session (id int PRIMARY KEY)`.execute(db);
    const read = () => sql`SELECT id FROM zz_session WHERE id = ${1}`.execute(db);
    const prepared = async () =>
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE '%FROM zz_session WHERE%'`.execute(db)).rows[0]!.n;
    for (let i = 0; i < 4; i++) await read();
    expect(await prepared()).toBe(1);
    // The pool drops its client (as after an error or its idle timeout) and connects a new one to the same session.
    const client = await database.pool.connect();
    client.release(true);
    for (let i = 0; i < 4; i++) await read();
    expect(await prepared()).toBe(1);
  });

  it('plan a list\'s first page once per connection, not on every request', async () => {
    const db = database.db;
    const { tenantId } = await generateDemoData(db, { devices: 20, seed: 9, tenantSlug: 'plans' });
    await sql`ANALYZE`.execute(db);
    const ctx = systemContext(tenantId);
    await db.connection().execute(async (conn) => {
      for (const name of ['dcim.device', 'dcim.interface', 'ipam.ipaddress']) {
        const model = requireModel(name);
        const url = new URL(`http://cairn.test/api/x/?limit=50`);
        for (let i = 0; i < 12; i++) expect((await listPage(conn, ctx, model, { limit: '50' }, url)).results.length).toBeGreaterThan(0);
        // PostgreSQL tries five custom plans, then keeps the generic one unless it looks costlier: with the LIMIT a
        // parameter, it always did (planned for a tenth of the table), and each request planned the page anew.
        const { rows } = await sql<{ generic: number; custom: number }>`SELECT generic_plans::int AS generic, custom_plans::int AS custom
          FROM pg_prepared_statements WHERE statement LIKE ${`%__cairn_count%FROM "${model.table}" t WHERE%`}`.execute(conn);
        expect(rows, name).toHaveLength(1);
        expect(rows[0]!.generic, name).toBeGreaterThan(0);
        expect(rows[0]!.custom, name).toBeLessThanOrEqual(5);
      }
      // A filtered page keeps its LIMIT a parameter: planned for its own values, not for an average one.
      const devices = requireModel('dcim.device');
      const role = (await sql<{ id: string }>`SELECT id FROM device_roles WHERE tenant_id = ${tenantId} LIMIT 1`.execute(conn)).rows[0]!.id;
      for (let i = 0; i < 4; i++) await listPage(conn, ctx, devices, { limit: '50', role_id: role }, new URL('http://cairn.test/api/devices/?limit=50'));
      const { rows: filtered } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements
        WHERE statement LIKE '%__cairn_count%FROM "devices" t WHERE%role_id%'`.execute(conn);
      expect(filtered).toHaveLength(1);
      expect(filtered[0]!.statement).toMatch(/LIMIT \$\d+ OFFSET \$\d+\) page/);
    });
  });
});
