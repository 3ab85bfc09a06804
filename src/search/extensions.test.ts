// Search without pg_trgm: health names the missing extension and the statement to run, search keeps exact and
// prefix matching, and the rebuild creates the extension again where the role may.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, inventoryBasics } from '../../test/helpers/inventory.ts';
import { rebuildSearchIndex } from './indexer.ts';
import { extensionState } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  // Before anything searched: the app reads the extension state on first use.
  await sql`DROP EXTENSION pg_trgm CASCADE`.execute(h.database.db);
}, 60_000);
afterAll(async () => {
  await h?.close();
});

it('reports the missing extension in health with the exact statement, keeping the other fields', async () => {
  const res = await h.as('anonymous').get('/api/health/');
  expect(res.statusCode).toBe(200);
  const body = res.json();
  expect(body).toMatchObject({ status: 'ok', database: true, code_behind_db: [], db_behind_code: [] });
  expect(body.missing_extensions).toEqual([{ name: 'pg_trgm', statement: 'CREATE EXTENSION IF NOT EXISTS pg_trgm;', effect: expect.stringContaining('prefix') }]);
});

it('still finds exact values and prefixes, not matches inside words', async () => {
  const b = await inventoryBasics(h.as('alice'));
  const dev = await createDevice(h.as('alice'), b, 'notrgm-core-7');
  const get = async (q: string) => (await h.as('alice').get(`/api/search/?q=${q}&types=dcim.device`)).json().results.map((r: { id: string }) => r.id);
  expect(await get('notrgm-core-7')).toEqual([dev.id]);
  expect(await get('notrgm')).toEqual([dev.id]);
  expect(await get('core-7')).toEqual([]);
});

it('creates the extension again on rebuild where permitted', async () => {
  const report = await rebuildSearchIndex(h.database.db);
  expect(report.extensions.pg_trgm).toBe(true);
  expect((await extensionState(h.database.db)).missing).toEqual([]);
  // Dropping the extension took the device list's trigram index with it: the rebuild makes it again.
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_class WHERE relname = 'devices_q_trgm'`.execute(h.database.db);
  expect(rows[0]!.n).toBe(1);
});

it('keeps the trigram index\'s pending list small (the session\'s 256 kB cap), also when the rebuild creates the index again', async () => {
  // Every search reads GIN's pending list in full; uncapped (4 MB) it made fragment searches ten times slower. The
  // cap is each connection's (migration 0052), so the index the rebuild made again must not set one of its own.
  const { rows } = await sql<{ options: string[] | null; cap: string }>`SELECT reloptions AS options, current_setting('gin_pending_list_limit') AS cap
    FROM pg_class WHERE relname = 'search_index_trgm_idx'`.execute(h.database.db);
  expect(rows).toEqual([{ options: null, cap: '256kB' }]);
});
