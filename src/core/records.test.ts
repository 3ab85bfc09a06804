import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { clipText, NOW, recordTable } from './records.ts';

let database: TestDatabase;
const tenantA = '00000000-0000-7000-8000-00000000000a';
const tenantB = '00000000-0000-7000-8000-00000000000b';
// A table of its own, so the test says what appendRecords does without any domain's columns or rules.
const numbered = recordTable('zz_numbered_records', { numbered: true });
const keyed = recordTable('zz_keyed_records', { numbered: false });

beforeAll(async () => {
  database = await openTestDatabase();
  await sql`CREATE TABLE zz_numbered_records (id uuid PRIMARY KEY, numid bigint NOT NULL, tenant_id uuid NOT NULL, note text NOT NULL,
    at timestamptz, payload jsonb, tags text[])`.execute(database.db);
  await sql`CREATE TABLE zz_keyed_records (id uuid PRIMARY KEY, tenant_id uuid, object_id uuid NOT NULL, message text NOT NULL,
    since timestamptz NOT NULL DEFAULT now(), UNIQUE (object_id))`.execute(database.db);
});
afterAll(async () => database?.close());

describe('recordTable().append: the write path for records the server keeps', () => {
  it('sets ids, per-tenant numbers and the tenant; values keep their column types', async () => {
    const db = database.db;
    const when = new Date('2026-01-02T03:04:05.678Z');
    const a = await numbered.append(db, tenantA, [
      { note: 'a1', at: when, payload: { k: [1, 'x'] }, tags: ['red', 'blue'] },
      { note: 'a2', at: null, payload: null, tags: [] },
      { note: 'a3 ›', at: null, payload: [true], tags: null },
    ]);
    const b = await numbered.append(db, tenantB, [{ note: 'b1', at: null, payload: null, tags: null }]);
    const more = await numbered.append(db, tenantA, [{ note: 'a4', at: null, payload: null, tags: null }]);
    expect(a.map((r) => [r.tenant_id, r.note])).toEqual([[tenantA, 'a1'], [tenantA, 'a2'], [tenantA, 'a3 ›']]);
    expect(a.map((r) => Number(r.numid))).toEqual([1, 2, 3]);
    expect(b.map((r) => [Number(r.numid), r.tenant_id])).toEqual([[1, tenantB]]);
    expect(more.map((r) => Number(r.numid))).toEqual([4]);
    expect(new Set([...a, ...b, ...more].map((r) => r.id)).size).toBe(5);
    expect(new Date(a[0]!.at as Date | string).toISOString()).toBe(when.toISOString());
    expect(a[0]!.payload).toEqual({ k: [1, 'x'] });
    expect(a[0]!.tags).toEqual(['red', 'blue']);
    expect(a[2]!.payload).toEqual([true]);
  });

  it('a row may bring its own id; NOW is the database clock of the writing transaction', async () => {
    const id = '01900000-0000-7000-8000-000000000001';
    const { rows, stamped } = await database.db.transaction().execute(async (tx) => {
      const rows = await numbered.append(tx, tenantA, [{ id, note: 'timed', at: NOW, payload: null, tags: null }]);
      const stamped = (await sql<{ now: Date | string }>`SELECT now() AS now`.execute(tx)).rows[0]!.now;
      return { rows, stamped };
    });
    expect(rows[0]!.id).toBe(id);
    expect(new Date(rows[0]!.at as Date | string).getTime()).toBe(new Date(stamped).getTime());
  });

  it('a lone surrogate is stored as U+FFFD (as a query parameter stores it); a backslash and "u" as text stay text', async () => {
    const rows = await numbered.append(database.db, tenantA, [
      { note: 'a\ud800b', at: null, payload: { k: 'c\udc00' }, tags: null },
      { note: 'pair 😀, text \\ud800', at: null, payload: null, tags: null },
    ]);
    expect(rows.map((r) => r.note)).toEqual(['a\ufffdb', 'pair 😀, text \\ud800']);
    expect(rows[0]!.payload).toEqual({ k: 'c\ufffd' });
  });

  it('refuses what only it may set, numbered records without a tenant, and NOW in some rows only; nothing is written', async () => {
    const db = database.db;
    const count = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM zz_numbered_records`.execute(db)).rows[0]!.n);
    const before = await count();
    await expect(numbered.append(db, tenantA, [{ note: 'x', tenant_id: tenantB }])).rejects.toThrow(/tenant_id and numid are set by recordTable\(\)\.append/);
    await expect(numbered.append(db, tenantA, [{ note: 'x', numid: 99 }])).rejects.toThrow(/tenant_id and numid/);
    await expect(numbered.append(db, null, [{ note: 'x' }])).rejects.toThrow(/numbered records belong to a tenant/);
    await expect(numbered.append(db, tenantA, [{ note: 'x', at: NOW }, { note: 'y', at: null }])).rejects.toThrow(/NOW in some rows only/);
    expect(await numbered.append(db, tenantA, [])).toEqual([]);
    expect(await count()).toBe(before);
  });

  it('upsert: a repeated key updates the named columns only where they differ, and keeps the others', async () => {
    const db = database.db;
    const o1 = '01900000-0000-7000-8000-0000000000a1';
    const o2 = '01900000-0000-7000-8000-0000000000a2';
    const upsert = { on: ['object_id'], update: ['message'] };
    const first = await keyed.append(db, null, [{ object_id: o1, message: 'one' }, { object_id: o2, message: 'two' }], { upsert });
    expect(first.map((r) => r.tenant_id)).toEqual([null, null]);
    await sql`UPDATE zz_keyed_records SET since = '2020-01-01T00:00:00Z'`.execute(db);
    const second = await keyed.append(db, null, [{ object_id: o1, message: 'one' }, { object_id: o2, message: 'TWO' }], { upsert });
    // Only the row whose message changed was written; its id and `since` are the first append's.
    expect(second.map((r) => [r.id, r.message])).toEqual([[first[1]!.id, 'TWO']]);
    expect(new Date(second[0]!.since as Date | string).toISOString()).toBe('2020-01-01T00:00:00.000Z');
    expect(await keyed.append(db, null, [{ object_id: o1, message: 'uno' }], { upsert, returning: false })).toEqual([]);
    const { rows } = await sql<{ message: string }>`SELECT message FROM zz_keyed_records ORDER BY object_id`.execute(db);
    expect(rows.map((r) => r.message)).toEqual(['uno', 'TWO']);
  });
});

describe('clipText', () => {
  it('cuts at a whole character', () => {
    expect(clipText('abcdef', 3)).toBe('abc');
    expect(clipText('ab', 3)).toBe('ab');
    expect(clipText('a😀b', 2)).toBe('a'); // the emoji is two UTF-16 units: not cut in half
    expect(clipText('a😀b', 3)).toBe('a😀');
  });
});
