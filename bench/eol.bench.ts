// Issue 10: end-of-life data at scale. (1) Import of a full-products document of 500 products / 6,000 cycles with
// 1,000 mapped platforms (time, first load and an unchanged re-import). (2) GET /api/devices/?eol=eol over the
// demo devices against the bare SQL filter returning the same page and count, in the same run (target <= 2x).
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { createToken, createUser } from '../src/core/accounts.ts';
import { systemContext } from '../src/core/context.ts';
import { uuidv7 } from '../src/core/ids.ts';
import { generateDemoData } from '../src/system/demo-data.ts';
import { saveSettings } from '../src/lifecycle/settings.ts';
import { importDocument } from '../src/lifecycle/service.ts';
import { addDays, today } from '../src/lifecycle/status.ts';
import { benchSize, fmt, medianMs, openBenchDatabase } from './helpers.ts';

const PRODUCTS = benchSize(null, 500, 5);
const CYCLES_PER_PRODUCT = 12;
const PLATFORMS = benchSize(null, 1000, 10);

function document(): Buffer {
  const base = today();
  const result = [];
  for (let p = 0; p < PRODUCTS; p++) {
    const releases = [];
    for (let c = 0; c < CYCLES_PER_PRODUCT; c++) {
      // Spread ends of life from years ago to years ahead so every status occurs.
      const eol = addDays(base, (c - 6) * 200 + p);
      releases.push({ name: `${c + 1}.0`, label: `${c + 1}.0`, releaseDate: addDays(eol, -1500), isLts: c % 4 === 0, eoasFrom: addDays(eol, -300), eolFrom: c === 11 ? null : eol, isEol: c === 11 ? false : eol <= base, latest: { name: `${c + 1}.0.${p % 9}` } });
    }
    result.push({ name: `product-${p}`, label: `Product ${p}`, category: 'os', aliases: [`prod${p}`], releases });
  }
  return Buffer.from(JSON.stringify({ schema_version: '1.2.0', total: PRODUCTS, result }));
}

export default async function run(): Promise<void> {
  const database = await openBenchDatabase();
  try {
    const db = database.db;
    const devices = benchSize('BENCH_DEVICES', 50_000, 5, { devices: true });
    const demo = await generateDemoData(db, { devices, seed: 10, tenantSlug: 'bench' });
    const tenantId = demo.tenantId;
    await saveSettings(db, systemContext(null), { enabled: true });

    // 1,000 platforms, each mapped to a cycle; devices spread over them.
    const ids = Array.from({ length: PLATFORMS }, () => uuidv7());
    await sql`INSERT INTO platforms (id, numid, tenant_id, name, slug)
      SELECT u.id, 100000 + u.n, ${tenantId}, 'Bench OS ' || u.n, 'bench-os-' || u.n FROM unnest(${ids}::uuid[]) WITH ORDINALITY AS u(id, n)`.execute(db);
    await sql`INSERT INTO eol_mappings (id, numid, tenant_id, platform_id, source, product, cycle)
      SELECT gen_random_uuid(), u.n, ${tenantId}, u.id, 'endoflife_date', 'product-' || (u.n % ${PRODUCTS}), ((u.n % ${CYCLES_PER_PRODUCT}) + 1) || '.0'
      FROM unnest(${ids}::uuid[]) WITH ORDINALITY AS u(id, n)`.execute(db);
    await sql`UPDATE devices d SET platform_id = (${ids}::uuid[])[1 + (d.numid % ${PLATFORMS})] WHERE d.tenant_id = ${tenantId}`.execute(db);
    await sql`ANALYZE`.execute(db);

    const bytes = document();
    let t = performance.now();
    const first = await importDocument(db, bytes);
    const firstMs = performance.now() - t;
    t = performance.now();
    const again = await importDocument(db, bytes);
    const againMs = performance.now() - t;
    console.log(`import ${PRODUCTS} products / ${PRODUCTS * CYCLES_PER_PRODUCT} cycles (${(bytes.length / 1024 / 1024).toFixed(1)} MB) with ${PLATFORMS} mapped platforms (${database.label}): ` +
      `first ${fmt(firstMs)} (${first.changed} mappings filled); unchanged re-import ${fmt(againMs)} (${again.changed} changed)`);

    await createUser(db, { username: 'bench', password: 'bench-password', isSuperuser: true, tenantIds: [tenantId] });
    const key = await createToken(db, { username: 'bench', tenantSlug: 'bench' });
    const app = await buildApp({ database });
    const headers = { authorization: `Token ${key}` };
    let apiCount = 0;
    const api = await medianMs(20, async () => {
      const res = await app.inject({ method: 'GET', url: '/api/devices/?eol=eol&limit=50', headers });
      if (res.statusCode !== 200) throw new Error(`list answered ${res.statusCode}`);
      apiCount = (res.json() as { count: number }).count;
    });
    // The bare filter: the same count and page of device rows, the status rule written by hand.
    const on = today();
    const filter = `d.tenant_id = $1 AND d.platform_id IN (SELECT m.platform_id FROM eol_mappings m
      WHERE m.synced_at IS NOT NULL AND ((m.eol_date IS NOT NULL AND m.eol_date <= $2::date) OR (m.eol_date IS NULL AND m.eol_reached IS TRUE)))`;
    let bareCount = 0;
    const bare = await medianMs(20, async () => {
      const [c] = await Promise.all([
        database.pool.query(`SELECT count(*)::int AS n FROM devices d WHERE ${filter}`, [tenantId, on]),
        database.pool.query(`SELECT d.* FROM devices d WHERE ${filter} ORDER BY d.name, d.id LIMIT 50`, [tenantId, on]),
      ]);
      bareCount = (c.rows[0] as { n: number }).n;
    });
    if (apiCount !== bareCount) console.log(`  note: API count ${apiCount} differs from bare count ${bareCount}`);
    console.log(`GET /api/devices/?eol=eol over ${devices.toLocaleString('en-US')} devices, ${apiCount.toLocaleString('en-US')} matching (${database.label}): ${fmt(api)}; ` +
      `bare SQL filter (count + page) ${fmt(bare)}; ratio ${(api / bare).toFixed(2)}x (target <= 2x)`);
    await app.close();
  } finally {
    await database.close();
  }
}
