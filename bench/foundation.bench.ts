// Issue 2: list latency against the bare SQL that fetches the same rows, and the cost of token auth.
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { createTenant, createToken, createUser } from '../src/core/accounts.ts';
import { fmt, medianMs, openBenchDatabase } from './helpers.ts';

const ROWS = 10_000;

export default async function run(): Promise<void> {
  const database = await openBenchDatabase();
  try {
    const db = database.db;
    const tenant = (await createTenant(db, 'Bench', 'bench')).id;
    await createUser(db, { username: 'bench', password: 'bench-password', isSuperuser: true, tenantIds: [tenant] });
    const key = await createToken(db, { username: 'bench', tenantSlug: 'bench' });
    await sql`INSERT INTO tags (id, numid, tenant_id, name, slug, color, description)
      SELECT gen_random_uuid(), g, ${tenant}, 'tag-' || lpad(g::text, 6, '0'), 'tag-' || g, '00aa00', 'bench tag ' || g
      FROM generate_series(1, ${ROWS}) AS g`.execute(db);
    const app = await buildApp({ database });
    const headers = { authorization: `Token ${key}` };

    const api = await medianMs(30, async () => {
      const res = await app.inject({ method: 'GET', url: '/api/tags/?limit=1000', headers });
      if (res.statusCode !== 200) throw new Error(`list answered ${res.statusCode}`);
    });
    const bare = await medianMs(30, () =>
      database.pool.query('SELECT * FROM tags WHERE tenant_id = $1 ORDER BY name, id LIMIT 1000', [tenant]),
    );
    console.log(`GET /api/tags/?limit=1000 over ${ROWS} rows (${database.label}): ${fmt(api)}; bare SQL ${fmt(bare)}; ratio ${(api / bare).toFixed(2)}x (target <= 1.5x, issue 26)`);

    // Auth cost: queries a token-authenticated request issues beyond the list's own.
    const before = database.queryCount();
    await app.inject({ method: 'GET', url: '/api/tags/?limit=1', headers });
    const cached = database.queryCount() - before;
    const { forgetCachedTokens } = await import('../src/core/auth/credentials.ts');
    forgetCachedTokens();
    const before2 = database.queryCount();
    await app.inject({ method: 'GET', url: '/api/tags/?limit=1', headers });
    const cold = database.queryCount() - before2;
    console.log(`token auth: ${cold - cached} indexed lookup(s) on a cold token, 0 once cached (queries per request: cold ${cold}, cached ${cached})`);
    await app.close();
  } finally {
    await database.close();
  }
}
