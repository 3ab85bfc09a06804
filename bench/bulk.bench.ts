// Issue 5: bulk-update of 1,000 devices (one field) and bulk-delete of 1,000 interfaces through the API, against
// the bare SQL `UPDATE … WHERE id = ANY($1)` / `DELETE … WHERE id = ANY($1)` on other fresh rows in the same run.
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { createToken, createUser } from '../src/core/accounts.ts';
import { generateDemoData } from '../src/system/demo-data.ts';
import { benchSize, fmt, loadNote, medianMs, openBenchDatabase, TINY } from './helpers.ts';

const BATCH = benchSize(null, 1000, 20);
const RUNS = TINY ? 1 : 9;
const WARMUP = TINY ? 0 : 2;

export default async function run(): Promise<void> {
  const database = await openBenchDatabase();
  try {
    const db = database.db;
    const rounds = RUNS + WARMUP;
    const { tenantId } = await generateDemoData(db, { devices: 2 * BATCH, seed: 1, tenantSlug: 'bench' });
    await createUser(db, { username: 'bench', password: 'bench-password', isSuperuser: true, tenantIds: [tenantId] });
    const key = await createToken(db, { username: 'bench', tenantSlug: 'bench' });
    const app = await buildApp({ database });
    const headers = { authorization: `Token ${key}` };
    const post = async (url: string, body: unknown) => {
      const res = await app.inject({ method: 'POST', url, headers, payload: body as object });
      if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
    };

    // Updates: alternate two disjoint sets of 1,000 devices (API / bare SQL), a new value each run.
    const deviceIds = (await sql<{ id: string }>`SELECT id FROM devices WHERE tenant_id = ${tenantId} ORDER BY numid`.execute(db)).rows.map((r) => r.id);
    const apiDevices = deviceIds.slice(0, BATCH);
    const bareDevices = deviceIds.slice(BATCH, 2 * BATCH);
    let n = 0;
    const apiUpdate = await medianMs(RUNS, () => post('/api/devices/bulk-update/', { ids: apiDevices, fields: { serial: `API-${++n}` } }), WARMUP);
    const bareUpdate = await medianMs(RUNS, () => database.pool.query('UPDATE devices SET serial = $2 WHERE id = ANY($1)', [bareDevices, `SQL-${++n}`]), WARMUP);
    let before = database.queryCount();
    await post('/api/devices/bulk-update/', { ids: apiDevices, fields: { serial: 'COUNT' } });
    const updateQueries = database.queryCount() - before;
    console.log(`bulk-update of ${BATCH} devices (serial) (${database.label}): ${fmt(apiUpdate)}; bare UPDATE … WHERE id = ANY($1) ${fmt(bareUpdate)}; ` +
      `ratio ${(apiUpdate / bareUpdate).toFixed(2)}x (target <= 4x); ${updateQueries} queries per call; ${loadNote()}`);

    // Deletes: fresh interfaces each run (access ports: no cable, no address), API and bare SQL from disjoint pools.
    const ifaceIds = (await sql<{ id: string }>`SELECT id FROM interfaces WHERE tenant_id = ${tenantId} AND description = '' AND type <> 'loopback'
      ORDER BY numid LIMIT ${(2 * rounds + 1) * BATCH}`.execute(db)).rows.map((r) => r.id);
    if (ifaceIds.length < (2 * rounds + 1) * BATCH) throw new Error(`only ${ifaceIds.length} spare interfaces`);
    let next = 0;
    const take = () => ifaceIds.slice(next, (next += BATCH));
    const apiDelete = await medianMs(RUNS, () => post('/api/interfaces/bulk-delete/', { ids: take() }), WARMUP);
    const bareDelete = await medianMs(RUNS, () => database.pool.query('DELETE FROM interfaces WHERE id = ANY($1)', [take()]), WARMUP);
    before = database.queryCount();
    await post('/api/interfaces/bulk-delete/', { ids: take() });
    const deleteQueries = database.queryCount() - before;
    console.log(`bulk-delete of ${BATCH} interfaces (${database.label}): ${fmt(apiDelete)}; bare DELETE … WHERE id = ANY($1) ${fmt(bareDelete)}; ` +
      `ratio ${(apiDelete / bareDelete).toFixed(2)}x (target <= 4x); ${deleteQueries} queries per call; ${loadNote()}`);
    await app.close();
  } finally {
    await database.close();
  }
}
