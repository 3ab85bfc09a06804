// Issue 24: IPAM at size. Three figures, each against a reference measured in the same run:
// - `GET /api/prefixes/?limit=50` with depth, children and utilisation over 20,000 prefixes and 100,000 addresses,
//   against the bare SQL page of the same rows (goal: at most 2x);
// - `GET /api/prefixes/<id>/available-ips/?limit=50` on a /16 holding 50,000 addresses (goal: under 50 ms),
//   against the bare SQL read of the prefix's used addresses;
// - allocation requests/s on one prefix under 20 concurrent callers (POST available-ips), against 20 concurrent
//   plain address creates through the same write path.
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { createTenant, createToken, createUser } from '../src/core/accounts.ts';
import { refreshTenantHierarchy } from '../src/ipam/hierarchy.ts';
import { refreshTenantUtilization } from '../src/ipam/utilization.ts';
import { benchSize, fmt, loadNote, medianMs, openBenchDatabase, TINY } from './helpers.ts';

const PREFIXES = benchSize(null, 20_000, 50);
const ADDRESSES = benchSize(null, 100_000, 300);
const DENSE = benchSize(null, 50_000, 300);
const RUNS = 15;
const CALLERS = TINY ? 2 : 20;
const SECONDS = TINY ? 0.2 : 5;

export default async function run(): Promise<void> {
  const database = await openBenchDatabase();
  try {
    const db = database.db;
    const tenantId = (await createTenant(db, 'Bench', 'bench')).id;
    await createUser(db, { username: 'bench', password: 'bench-password', isSuperuser: true, tenantIds: [tenantId] });
    const key = await createToken(db, { username: 'bench', tenantSlug: 'bench' });
    const app = await buildApp({ database });
    const headers = { authorization: `Token ${key}` };
    const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
      const res = await app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
      if (res.statusCode >= 300) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
      return res;
    };

    // Set-based loads (what demo data does), then the hierarchy filled in one statement as demo data does.
    let t = performance.now();
    await sql`INSERT INTO prefixes (id, numid, tenant_id, prefix, description)
      SELECT gen_random_uuid(), g, ${tenantId}, ('10.' || (g / 256) || '.' || (g % 256) || '.0/24')::cidr, 'segment ' || g
      FROM generate_series(0, ${PREFIXES - 1}) g`.execute(db);
    await sql`INSERT INTO ip_addresses (id, numid, tenant_id, address)
      SELECT gen_random_uuid(), g, ${tenantId}, ('10.' || (g / 65536) || '.' || ((g / 256) % 256) || '.' || (g % 256) || '/24')::inet
      FROM generate_series(1, ${ADDRESSES}) g WHERE g % 256 <> 0`.execute(db);
    // The dense /16: 50,000 used addresses from its start.
    await sql`INSERT INTO prefixes (id, numid, tenant_id, prefix) VALUES (gen_random_uuid(), ${PREFIXES + 1}, ${tenantId}, '10.200.0.0/16')`.execute(db);
    await sql`INSERT INTO ip_addresses (id, numid, tenant_id, address)
      SELECT gen_random_uuid(), ${ADDRESSES} + g, ${tenantId}, ('10.200.' || (g / 256) || '.' || (g % 256) || '/16')::inet
      FROM generate_series(1, ${DENSE}) g`.execute(db);
    await refreshTenantHierarchy(db, tenantId);
    await refreshTenantUtilization(db, tenantId);
    await sql`ANALYZE`.execute(db);
    console.log(`ipam data (${database.label}): ${PREFIXES + 1} prefixes, ${ADDRESSES + DENSE} addresses loaded in ${fmt(performance.now() - t)}; ${loadNote()}`);

    // 1. The prefix list with utilisation against the bare page.
    const list = await medianMs(RUNS, () => call('GET', '/api/prefixes/?limit=50'));
    const barePage = await medianMs(RUNS, () =>
      sql`SELECT * FROM prefixes t WHERE t.tenant_id = ${tenantId} ORDER BY t.vrf_id NULLS FIRST, t.prefix, t.id LIMIT 50`.execute(db));
    console.log(`prefix list, 50 of ${PREFIXES + 1} with utilisation: ${fmt(list)} vs bare SQL page ${fmt(barePage)} = ${(list / barePage).toFixed(2)}x (goal ≤ 2x)`);

    // 2. available-ips on the dense /16.
    const dense = (await call('GET', '/api/prefixes/?prefix=10.200.0.0/16')).json().results[0].id as string;
    const first = (await call('GET', `/api/prefixes/${dense}/available-ips/?limit=50`)).json() as Array<{ address: string }>;
    // The first free address follows the DENSE used ones (10.200.195.81 at 50,000).
    const firstFree = `10.200.${(DENSE + 1) >> 8}.${(DENSE + 1) & 255}/16`;
    if (first[0]?.address !== firstFree) throw new Error(`available-ips on the dense /16 began at ${first[0]?.address}`);
    const available = await medianMs(RUNS, () => call('GET', `/api/prefixes/${dense}/available-ips/?limit=50`));
    const bareUsed = await medianMs(RUNS, () =>
      sql`SELECT host(a.address) FROM ip_addresses a WHERE a.tenant_id = ${tenantId} AND a.address && '10.200.0.0/16'::cidr ORDER BY host(a.address)::inet LIMIT 50`.execute(db));
    console.log(`available-ips, first 50 of a /16 with ${DENSE} used: ${fmt(available)} (goal < 50 ms); bare read of 50 used addresses ${fmt(bareUsed)}`);

    // 3. Allocation throughput under concurrent callers, against plain creates.
    const target = (await call('POST', '/api/prefixes/', { prefix: '10.250.0.0/16' })).json().id as string;
    const throughput = async (work: (i: number) => Promise<unknown>) => {
      let done = 0;
      const until = performance.now() + SECONDS * 1000;
      await Promise.all(
        Array.from({ length: CALLERS }, async () => {
          while (performance.now() < until) await work(done++);
        }),
      );
      return done / SECONDS;
    };
    const allocate = await throughput(() => call('POST', `/api/prefixes/${target}/available-ips/`, {}));
    const plain = await throughput((i) => call('POST', '/api/ip-addresses/', { address: `10.251.${Math.floor(i / 250) % 256}.${(i % 250) + 1}/16` }));
    const distinct = (await sql<{ n: number; d: number }>`SELECT count(*)::int AS n, count(DISTINCT host(address))::int AS d FROM ip_addresses
      WHERE tenant_id = ${tenantId} AND address && '10.250.0.0/16'::cidr`.execute(db)).rows[0]!;
    if (distinct.n !== distinct.d) throw new Error(`allocation gave ${distinct.n} addresses, ${distinct.d} distinct`);
    console.log(`allocation on one prefix, ${CALLERS} callers: ${allocate.toFixed(0)} requests/s (${distinct.n} addresses, all distinct) vs plain creates ${plain.toFixed(0)}/s = ${(allocate / plain).toFixed(2)}x`);
    await app.close();
  } finally {
    await database.close();
  }
}
