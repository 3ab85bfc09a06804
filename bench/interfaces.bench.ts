// Issue 26: the interface list's default ordering (device, then name in natural order: eth2 before eth10) used to
// compute its natural-sort key with regexp_matches for every row of the table on every page, so a page grew with
// the table. The key is now a stored column indexed with the ordering. Printed: the first page (50) at 3,000 and
// at 60,000 interfaces (PostgreSQL: and 300,000), split into its ordered page query (the old per-row key beside
// it) and the envelope's count, which still reads every row of the tenant. Target: the ordered page costs the
// same at any size.
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { createTenant, createToken, createUser } from '../src/core/accounts.ts';
import { fmt, medianMs, openBenchDatabase, TINY } from './helpers.ts';

const DEVICES = 100;

export default async function run(): Promise<void> {
  const database = await openBenchDatabase();
  try {
    const db = database.db;
    const tenantId = (await createTenant(db, 'Bench', 'bench')).id;
    await createUser(db, { username: 'bench', password: 'bench-password', isSuperuser: true, tenantIds: [tenantId] });
    const key = await createToken(db, { username: 'bench', tenantSlug: 'bench' });
    const app = await buildApp({ database });
    const headers = { authorization: `Token ${key}` };
    const post = async (url: string, payload: object) => {
      const res = await app.inject({ method: 'POST', url, headers, payload });
      if (res.statusCode !== 201) throw new Error(`${url} answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
      return res.json() as { id: string };
    };
    const site = await post('/api/sites/', { name: 'Bench site', slug: 'bench-site' });
    const role = await post('/api/device-roles/', { name: 'Bench role', slug: 'bench-role' });
    const maker = await post('/api/manufacturers/', { name: 'Bench maker', slug: 'bench-maker' });
    const type = await post('/api/device-types/', { manufacturer: maker.id, model: 'Bench 9000', slug: 'bench-9000' });
    await sql`INSERT INTO devices (id, numid, tenant_id, name, device_type_id, role_id, site_id)
      SELECT gen_random_uuid(), g, ${tenantId}, 'bench-' || lpad(g::text, 4, '0'), ${type.id}, ${role.id}, ${site.id}
      FROM generate_series(1, ${DEVICES}) g`.execute(db);

    let loaded = 0;
    const growTo = async (total: number) => {
      const perDevice = total / DEVICES;
      await sql`INSERT INTO interfaces (id, numid, tenant_id, device_id, name, type)
        SELECT gen_random_uuid(), 1000000 + row_number() OVER (), ${tenantId}, d.id, 'Ethernet' || g, '10gbase-x-sfpp'
        FROM devices d CROSS JOIN generate_series(${loaded / DEVICES + 1}::int, ${perDevice}::int) g WHERE d.tenant_id = ${tenantId}`.execute(db);
      // numids are unique per tenant and table: shift the new block past the old one.
      await sql`UPDATE interfaces SET numid = numid - 1000000 + ${loaded} WHERE tenant_id = ${tenantId} AND numid > 1000000`.execute(db);
      loaded = total;
      await sql`ANALYZE interfaces`.execute(db);
    };
    const page = () => medianMs(15, async () => {
      const res = await app.inject({ method: 'GET', url: '/api/interfaces/?limit=50', headers });
      if (res.statusCode !== 200) throw new Error(`list answered ${res.statusCode}`);
    });
    // What ordering cost before migration 0024: the key computed per row of the table.
    const oldKey = () => medianMs(5, () => database.pool.query(`SELECT i.id FROM interfaces i WHERE i.tenant_id = $1 ORDER BY i.device_id,
      (SELECT string_agg(CASE WHEN x.m[1] ~ '^[0-9]' THEN lpad(x.m[1], 20, '0') ELSE x.m[1] END, '' ORDER BY x.n)
       FROM regexp_matches(i.name, '([0-9]+|[^0-9]+)', 'g') WITH ORDINALITY AS x(m, n)), i.id LIMIT 50`, [tenantId]), 1);

    // The two statements of a list page: the ordered page itself, and the envelope's count.
    const bare = () => medianMs(15, () => database.pool.query('SELECT * FROM interfaces WHERE tenant_id = $1 ORDER BY device_id, name_natural, id LIMIT 50', [tenantId]));
    const count = () => medianMs(15, () => database.pool.query('SELECT count(*) FROM interfaces WHERE tenant_id = $1', [tenantId]));

    const sizes = TINY ? [200, 400] : database.label.includes('PostgreSQL') ? [3_000, 60_000, 300_000] : [3_000, 60_000];
    let first = 0;
    for (const size of sizes) {
      await growTo(size);
      const ms = await page();
      first ||= ms;
      console.log(`GET /api/interfaces/?limit=50 at ${size.toLocaleString('en')} interfaces (${database.label}): ${fmt(ms)}, ${(ms / first).toFixed(2)}x the smallest table;`
        + ` its ordered page query ${fmt(await bare())} (the old per-row key: ${fmt(await oldKey())}), its count ${fmt(await count())}`);
    }
    await app.close();
  } finally {
    await database.close();
  }
}
