// Issue 4: `demo-data --devices 50000` write throughput, and the device list with nested site/role/platform/
// primary IP against the bare SQL join returning the same columns. Figures are ratios against references
// measured in this run: the server's own insert floor for interface-shaped rows, and the bare join.
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { createToken, createUser } from '../src/core/accounts.ts';
import { generateDemoData } from '../src/system/demo-data.ts';
import { benchSize, fmt, loadNote, openBenchDatabase, turnMediansMs } from './helpers.ts';

export default async function run(): Promise<void> {
  const database = await openBenchDatabase();
  try {
    const db = database.db;
    const devices = benchSize('BENCH_DEVICES', database.backend === 'postgres' ? 50_000 : 5_000, 5, { devices: true });
    const result = await generateDemoData(db, { devices, seed: 1, tenantSlug: 'bench', onProgress: (line) => console.log(`  ${line}`) });
    const rate = result.totalRows / (result.ms / 1000);

    // Reference: what the server itself sustains for the same number of interface-shaped rows with the same
    // indexes but no foreign keys, generated in SQL (no client, no parameters): the floor of any loader.
    const refRows = Math.min(result.totalRows, 500_000);
    await sql`CREATE TABLE bench_interfaces (LIKE interfaces INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING INDEXES)`.execute(db);
    const t0 = performance.now();
    await sql`INSERT INTO bench_interfaces (id, numid, tenant_id, device_id, name, type, mgmt_only, description)
      SELECT gen_random_uuid(), g, ${result.tenantId}, gen_random_uuid(), 'Ethernet' || g, '25gbase-x-sfp28', false, ''
      FROM generate_series(1, ${refRows}) AS g`.execute(db);
    const refRate = refRows / ((performance.now() - t0) / 1000);
    await sql`DROP TABLE bench_interfaces`.execute(db);
    console.log(`demo-data --devices ${devices} (${database.label}): ${result.totalRows.toLocaleString('en-US')} rows in ${(result.ms / 1000).toFixed(1)} s, ` +
      `${Math.round(rate).toLocaleString('en-US')} rows/s (target >= 20,000); server floor (INSERT … SELECT generate_series, no FKs) ` +
      `${Math.round(refRate).toLocaleString('en-US')} rows/s; ratio ${(refRate / rate).toFixed(2)}x`);

    await createUser(db, { username: 'bench', password: 'bench-password', isSuperuser: true, tenantIds: [result.tenantId] });
    const key = await createToken(db, { username: 'bench', tenantSlug: 'bench' });
    const app = await buildApp({ database });
    const headers = { authorization: `Token ${key}` };
    const list = async () => {
      const res = await app.inject({ method: 'GET', url: '/api/devices/?limit=1000', headers });
      if (res.statusCode !== 200) throw new Error(`list answered ${res.statusCode}`);
    };
    // The same columns the API nests: device, its type, role, platform, site, status and primary IPv4.
    const bareSql = `SELECT d.*, dt.id AS dt_id, dt.model AS dt_model, dt.slug AS dt_slug, r.id AS r_id, r.name AS r_name, r.slug AS r_slug,
        p.id AS p_id, p.name AS p_name, p.slug AS p_slug, s.id AS s_id, s.name AS s_name, s.slug AS s_slug,
        st.id AS st_id, st.name AS st_name, st.slug AS st_slug, a.id AS a_id, a.address AS a_address
      FROM devices d JOIN device_types dt ON dt.id = d.device_type_id JOIN device_roles r ON r.id = d.role_id
      LEFT JOIN platforms p ON p.id = d.platform_id JOIN sites s ON s.id = d.site_id LEFT JOIN statuses st ON st.id = d.status_id
      LEFT JOIN ip_addresses a ON a.id = d.primary_ip4_id
      WHERE d.tenant_id = $1 ORDER BY d.name, d.id LIMIT 1000`;
    // The same page in the NetBox dialect (src/netbox-api/): Cairn's read, then NetBox's shapes (issue 53).
    const netboxList = async () => {
      const res = await app.inject({ method: 'GET', url: '/api/dcim/devices/?limit=1000', headers });
      if (res.statusCode !== 200) throw new Error(`NetBox list answered ${res.statusCode}`);
    };
    const [api, bare, netbox] = await turnMediansMs(60, [list, () => database.pool.query(bareSql, [result.tenantId]), netboxList], 10);
    const before = database.queryCount();
    await list();
    const perCall = database.queryCount() - before;
    console.log(`GET /api/devices/?limit=1000 over ${devices.toLocaleString('en-US')} devices (${database.label}): ${fmt(api)}; bare SQL join ${fmt(bare)}; ` +
      `ratio ${(api / bare).toFixed(2)}x (target <= 2x); ${perCall} queries per call; ${loadNote()}`);
    const beforeNetbox = database.queryCount();
    await netboxList();
    console.log(`GET /api/dcim/devices/?limit=1000 (NetBox dialect): ${fmt(netbox)}; ratio to Cairn's own page ${(netbox / api).toFixed(2)}x (target <= 1.1x); ` +
      `${database.queryCount() - beforeNetbox} queries per call`);
    await app.close();
  } finally {
    await database.close();
  }
}
