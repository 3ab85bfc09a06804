// /api/health/: shape, maintenance mode, the migration comparison (and its 60 s cache), database outages.
import { sql } from 'kysely';
import injectInto from 'light-my-request';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/app.ts';
import { shippedMigrations } from '../src/db/migrator.ts';
import { setMaintenance } from '../src/system/maintenance.ts';
import { VERSION } from '../src/version.ts';
import { startHarness, type Harness } from './helpers/harness.ts';
import { openTestDatabase } from './helpers/database.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});
afterEach(async () => {
  vi.useRealTimers();
  await setMaintenance(h.database.db, false);
});

interface Health {
  status: string;
  database: boolean;
  maintenance: boolean;
  version: string;
  code_behind_db: string[];
  db_behind_code: string[];
}

async function health(app = h.app): Promise<{ code: number; body: Health }> {
  const res = await app.inject({ method: 'GET', url: '/api/health/' });
  return { code: res.statusCode, body: res.json() as Health };
}

describe('health', () => {
  it('answers without credentials with the documented shape', async () => {
    const { code, body } = await health();
    expect(code).toBe(200);
    expect(body).toEqual({ status: 'ok', database: true, maintenance: false, version: VERSION, code_behind_db: [], db_behind_code: [] });
  });

  it('maintenance mode: every other request is 503 with Retry-After; health says so and stays 200', async () => {
    await setMaintenance(h.database.db, true, 10, 'upgrading');
    for (const res of [await h.as('alice').get('/api/tags/'), await h.as('anonymous').get('/api/tags/'), await h.as('admin').post('/api/tags/', { name: 'm', slug: 'm' }), await h.as('alice').get('/api/docs/')]) {
      expect(res.statusCode).toBe(503);
      const retry = Number(res.headers['retry-after']);
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(600);
      expect(res.json().detail).toContain('upgrading');
    }
    const { code, body } = await health();
    expect(code).toBe(200);
    expect(body).toMatchObject({ status: 'ok', maintenance: true });
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM tags WHERE slug = 'm'`.execute(h.database.db);
    expect(rows[0]!.n).toBe(0);

    await setMaintenance(h.database.db, false);
    expect((await h.as('alice').get('/api/tags/')).statusCode).toBe(200);
    expect((await health()).body.maintenance).toBe(false);
  });

  it('maintenance without an expiry holds until turned off; with one, it ends by itself', async () => {
    await setMaintenance(h.database.db, true, null);
    const held = await h.as('alice').get('/api/tags/');
    expect(held.statusCode).toBe(503);
    expect(Number(held.headers['retry-after'])).toBeGreaterThan(0);

    await setMaintenance(h.database.db, true, 1);
    expect((await h.as('alice').get('/api/tags/')).statusCode).toBe(503);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 2 * 60_000);
    expect((await h.as('alice').get('/api/tags/')).statusCode).toBe(200);
    expect((await health()).body.maintenance).toBe(false);
  });

  it('reports db_behind_code when a shipped migration is not applied, after the 60 s cache', async () => {
    const name = shippedMigrations()[0]!;
    expect((await health()).body.db_behind_code).toEqual([]); // fills the cache
    const { rows } = await sql<{ timestamp: string }>`SELECT timestamp FROM kysely_migration WHERE name = ${name}`.execute(h.database.db);
    await sql`DELETE FROM kysely_migration WHERE name = ${name}`.execute(h.database.db);
    try {
      // Still cached.
      expect((await health()).body.db_behind_code).toEqual([]);
      // A fresh app has no cache.
      const fresh = await buildApp({ database: h.database });
      try {
        const { code, body } = await health(fresh);
        expect(code).toBe(200);
        expect(body).toMatchObject({ status: 'degraded', db_behind_code: [name], code_behind_db: [] });
      } finally {
        await fresh.close();
      }
      // The running app notices once the cache has expired.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 61_000);
      expect((await health()).body).toMatchObject({ status: 'degraded', db_behind_code: [name] });
    } finally {
      vi.useRealTimers();
      await sql`INSERT INTO kysely_migration (name, timestamp) VALUES (${name}, ${rows[0]!.timestamp})`.execute(h.database.db);
    }
    const fresh = await buildApp({ database: h.database });
    expect((await health(fresh)).body).toMatchObject({ status: 'ok', db_behind_code: [] });
    await fresh.close();
  });

  it('reports code_behind_db when the database has a migration this code does not ship', async () => {
    await sql`INSERT INTO kysely_migration (name, timestamp) VALUES ('9999_from_the_future', ${new Date().toISOString()})`.execute(h.database.db);
    try {
      const fresh = await buildApp({ database: h.database });
      const { code, body } = await health(fresh);
      await fresh.close();
      expect(code).toBe(200);
      expect(body).toMatchObject({ status: 'degraded', code_behind_db: ['9999_from_the_future'], db_behind_code: [] });
    } finally {
      await sql`DELETE FROM kysely_migration WHERE name = '9999_from_the_future'`.execute(h.database.db);
    }
  });

  it('answers 503 when the database is unreachable', async () => {
    const database = await openTestDatabase();
    const app = await buildApp({ database });
    try {
      expect((await health(app)).code).toBe(200);
      await database.close();
      const { code, body } = await health(app);
      expect(code).toBe(503);
      expect(body).toMatchObject({ status: 'unavailable', database: false, version: VERSION });
      // Other requests fail cleanly, without a stack trace in the answer.
      const other = await app.inject({ method: 'GET', url: '/api/tags/', headers: { authorization: `Token ${h.tokens.alice}` } });
      expect(other.statusCode).toBeGreaterThanOrEqual(500);
      expect(other.body).not.toMatch(/\n\s+at /);
    } finally {
      await app.close();
    }
  });

  it('answers in its own shape while the process stops (an upgrade\'s poller saw a 500 there)', async () => {
    const app = await buildApp({ database: h.database });
    await app.close();
    // Requests still arriving on connections open when close() began reach the router: send them there directly
    // (inject refuses a closing instance).
    const routed = (url: string, headers: Record<string, string> = {}) => injectInto((req, res) => app.routing(req, res), { method: 'GET', url, headers });
    const res = await routed('/api/health/');
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toMatchObject({ status: 'unavailable', version: VERSION, detail: 'Cairn is restarting. Try again shortly.' });
    const other = await routed('/api/tags/', { authorization: `Token ${h.tokens.alice}` });
    expect(other.statusCode).toBe(503);
    expect(other.json()).toEqual({ detail: 'Cairn is restarting. Try again shortly.' });
  });
});
