import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from './helpers/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function makeTags(who: 'alice' | 'bob', n: number, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await h.as(who).post('/api/tags/', { name: `${prefix}${i}`, slug: `${prefix}${i}` });
    expect(res.statusCode, res.body).toBe(201);
    ids.push(res.json().id);
  }
  return ids;
}

async function tagTableChecksum(): Promise<string> {
  const { rows } = await sql<{ c: string }>`SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, ',' ORDER BY id)), '') AS c FROM tags t`.execute(h.database.db);
  return rows[0]!.c;
}

describe('bulk calls', () => {
  it('bulk-update sets fields on the caller’s rows only, in one change-log write', async () => {
    const mine = await makeTags('alice', 3, 'bu');
    const theirs = await makeTags('bob', 1, 'bu-b');
    const res = await h.as('alice').post('/api/tags/bulk-update/', { ids: [...mine, ...theirs], fields: { description: 'bulk' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().updated).toBe(3);
    const bob = await h.as('bob').get(`/api/tags/${theirs[0]}/`);
    expect(bob.json().description).toBe('');
    const changes = await h.as('alice').get(`/api/changes/?object_id=${mine[0]}&action=update`);
    expect(changes.json().count).toBe(1);
    expect(changes.json().results[0].after.description).toBe('bulk');
  });

  it('bulk-update query count does not grow with ids', async () => {
    const few = await makeTags('alice', 2, 'qa');
    const many = await makeTags('alice', 12, 'qb');
    const count = async (ids: string[]) => {
      const before = h.database.queryCount();
      const res = await h.as('alice').post('/api/tags/bulk-update/', { ids, fields: { color: '123456' } });
      expect(res.statusCode, res.body).toBe(200);
      return h.database.queryCount() - before;
    };
    await count(few); // warm the token cache
    // The maintenance flag is re-read every 2 s, so one call in a pair may carry one extra query: compare the
    // smallest of two calls each.
    const fewest = Math.min(await count(few), await count(few));
    const most = Math.min(await count(many), await count(many));
    expect(most).toBe(fewest);
  });

  it('a uniqueness clash is a 409 naming the field, nothing changed', async () => {
    const ids = await makeTags('alice', 2, 'uq');
    const before = await tagTableChecksum();
    const res = await h.as('alice').post('/api/tags/bulk-update/', { ids, fields: { name: 'same' } });
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json()).toHaveProperty('name');
    expect(await tagTableChecksum()).toBe(before);
  });

  it('bulk-delete with dry_run reports without deleting, then deletes', async () => {
    const ids = await makeTags('alice', 2, 'bd');
    const dry = await h.as('alice').post('/api/tags/bulk-delete/', { ids, dry_run: true });
    expect(dry.statusCode, dry.body).toBe(200);
    expect(dry.json()).toMatchObject({ deleted: 0, dry_run: true, impact: [] });
    expect(dry.json().deleted_ids.sort()).toEqual([...ids].sort());
    expect((await h.as('alice').get(`/api/tags/${ids[0]}/`)).statusCode).toBe(200);
    const res = await h.as('alice').post('/api/tags/bulk-delete/', { ids });
    expect(res.json()).toMatchObject({ deleted: 2, skipped: [], dry_run: false });
    expect((await h.as('alice').get(`/api/tags/${ids[0]}/`)).statusCode).toBe(404);
  });

  const bad: Array<[string, unknown, Record<string, unknown>]> = [
    ['a JSON array body', [1, 2], { ids: ['Send a JSON object: {"ids": [...]}.'] }],
    ['a string body', 'x', { ids: ['Send a JSON object: {"ids": [...]}.'] }],
    ['ids a string', { ids: 'x' }, { ids: ['Provide a non-empty list of ids.'] }],
    ['ids empty', { ids: [] }, { ids: ['Provide a non-empty list of ids.'] }],
    ['ids a number', { ids: [1] }, { ids: ['1 is not an id.'] }],
    ['ids null', { ids: [null] }, { ids: ['null is not an id.'] }],
    ['1001 ids', { ids: Array.from({ length: 1001 }, () => '018f0000-0000-7000-8000-000000000000') }, { ids: ['At most 1000 ids per call.'] }],
  ];
  for (const [label, body, expected] of bad) {
    it(`refuses ${label} on both bulk endpoints, nothing changed`, async () => {
      const before = await tagTableChecksum();
      for (const path of ['/api/tags/bulk-delete/', '/api/tags/bulk-update/']) {
        const res = await h.app.inject({ method: 'POST', url: path, headers: { authorization: `Token ${h.tokens.alice}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
        expect(res.statusCode, `${path}: ${res.body}`).toBe(400);
        expect(res.json()).toEqual(expected);
      }
      expect(await tagTableChecksum()).toBe(before);
    });
  }

  it('refuses unknown fields, wrong types and null for a non-nullable field', async () => {
    const ids = await makeTags('alice', 1, 'bf');
    const before = await tagTableChecksum();
    const cases: Array<[unknown, string]> = [
      [{ nope: 1 }, 'nope'],
      [{ name: 5 }, 'name'],
      [{ name: null }, 'name'],
      [{ color: 'red' }, 'color'],
    ];
    for (const [fields, key] of cases) {
      const res = await h.as('alice').post('/api/tags/bulk-update/', { ids, fields });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toHaveProperty(key);
    }
    expect(await tagTableChecksum()).toBe(before);
  });

  it('read-only tokens and viewers are refused', async () => {
    const ids = await makeTags('alice', 1, 'ro');
    expect((await h.as('aliceRO').post('/api/tags/bulk-delete/', { ids })).statusCode).toBe(403);
    expect((await h.as('viewer').post('/api/tags/bulk-update/', { ids, fields: { description: 'x' } })).statusCode).toBe(403);
  });
});

describe('NetBox list forms', () => {
  it('PATCH <list> with [{id, ...}] updates each row with its own values, atomically', async () => {
    const ids = await makeTags('alice', 2, 'nb');
    const res = await h.as('alice').patch('/api/tags/', [
      { id: ids[0], description: 'first' },
      { id: ids[1], description: 'second' },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().map((t: { description: string }) => t.description)).toEqual(['first', 'second']);
    const before = await tagTableChecksum();
    const bad = await h.as('alice').patch('/api/tags/', [
      { id: ids[0], description: 'changed' },
      { id: ids[1], color: 'nope' },
    ]);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toHaveProperty(['[1].color']);
    const other = await h.as('bob').patch('/api/tags/', [{ id: ids[0], description: 'x' }]);
    expect(other.statusCode).toBe(404);
    expect(await tagTableChecksum()).toBe(before);
  });

  it('DELETE <list> with [{id}] deletes all or none', async () => {
    const ids = await makeTags('alice', 2, 'nd');
    const before = await tagTableChecksum();
    const missing = await h.as('alice').delete('/api/tags/', [{ id: ids[0] }, { id: '018f0000-0000-7000-8000-000000000000' }]);
    expect(missing.statusCode).toBe(404);
    expect(await tagTableChecksum()).toBe(before);
    expect((await h.as('alice').delete('/api/tags/', [{ id: 'nope' }])).statusCode).toBe(400);
    const ok = await h.as('alice').delete('/api/tags/', ids.map((id) => ({ id })));
    expect(ok.statusCode, ok.body).toBe(204);
    expect((await h.as('alice').get(`/api/tags/${ids[1]}/`)).statusCode).toBe(404);
  });
});
