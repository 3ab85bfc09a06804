// Issue 8: the Ansible inventory of 10,000 devices with custom fields (the 4 of the demo data plus 3 added here,
// so 7 per device), against the bare SQL that reads the same columns, in the same run. Target <= 3x. Also the
// number of queries per call (constant whatever the host count) and the cost of a 304 revalidation.
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { createToken, createUser } from '../src/core/accounts.ts';
import { uuidv7 } from '../src/core/ids.ts';
import { generateDemoData } from '../src/system/demo-data.ts';
import { benchSize, fmt, medianMs, openBenchDatabase } from './helpers.ts';

export default async function run(): Promise<void> {
  const database = await openBenchDatabase();
  try {
    const db = database.db;
    const devices = benchSize('BENCH_DEVICES', 10_000, 5, { devices: true });
    const result = await generateDemoData(db, { devices, seed: 1, tenantSlug: 'bench' });
    const tenantId = result.tenantId;
    // Three more fields with a value on every device, written in SQL (a bulk load, as the demo data is).
    const extra = [
      { name: 'owner', type: 'text' },
      { name: 'rack_unit', type: 'integer' },
      { name: 'backup_enabled', type: 'boolean' },
    ];
    let numid = 1000;
    for (const f of extra) {
      await sql`INSERT INTO custom_fields (id, numid, tenant_id, name, type, object_types) VALUES (${uuidv7()}, ${numid++}, ${tenantId}, ${f.name}, ${f.type}, ARRAY['dcim.device'])`.execute(db);
    }
    await sql`UPDATE devices SET custom_fields = custom_fields || jsonb_build_object('owner', 'team-' || (numid % 7), 'rack_unit', numid % 42, 'backup_enabled', numid % 3 = 0)
      WHERE tenant_id = ${tenantId}`.execute(db);
    const { rows: counts } = await sql<{ devices: number; interfaces: number; fields: number }>`SELECT
        (SELECT count(*)::int FROM devices WHERE tenant_id = ${tenantId}) AS devices,
        (SELECT count(*)::int FROM interfaces WHERE tenant_id = ${tenantId}) AS interfaces,
        (SELECT min((SELECT count(*) FROM jsonb_object_keys(custom_fields)))::int FROM devices WHERE tenant_id = ${tenantId}) AS fields`.execute(db);
    const c = counts[0]!;

    await createUser(db, { username: 'bench', password: 'bench-password', isSuperuser: true, tenantIds: [tenantId] });
    const key = await createToken(db, { username: 'bench', tenantSlug: 'bench' });
    const app = await buildApp({ database });
    const headers = { authorization: `Token ${key}` };
    let etag = '';
    let bytes = 0;
    const inventory = async () => {
      const res = await app.inject({ method: 'GET', url: '/api/inventory/ansible/', headers });
      if (res.statusCode !== 200) throw new Error(`inventory answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
      etag = String(res.headers.etag);
      bytes = res.rawPayload.length;
    };
    const api = await medianMs(5, inventory, 1);

    // The same columns from the same tables, with no shaping: definitions, devices with their site, region,
    // role, platform, status, type, maker, primary addresses and tags, their interfaces with addresses, VMs,
    // and the config contexts.
    const bareQueries = [
      [`SELECT name, type, object_types FROM custom_fields WHERE tenant_id = $1`, [tenantId]],
      [`SELECT h.id, h.name, h.serial, h.asset_tag, h.custom_fields, h.site_id, h.role_id, h.platform_id, s.slug, rg.slug, r.slug, p.slug, st.slug,
          dt.slug, m.slug, host(a4.address), host(a6.address),
          ARRAY(SELECT tg.slug FROM tagged_items ti JOIN tags tg ON tg.id = ti.tag_id WHERE ti.object_type = 'dcim.device' AND ti.object_id = h.id) AS tags
        FROM devices h LEFT JOIN sites s ON s.id = h.site_id LEFT JOIN regions rg ON rg.id = s.region_id LEFT JOIN device_roles r ON r.id = h.role_id
        LEFT JOIN platforms p ON p.id = h.platform_id LEFT JOIN statuses st ON st.id = h.status_id LEFT JOIN device_types dt ON dt.id = h.device_type_id
        LEFT JOIN manufacturers m ON m.id = dt.manufacturer_id LEFT JOIN ip_addresses a4 ON a4.id = h.primary_ip4_id LEFT JOIN ip_addresses a6 ON a6.id = h.primary_ip6_id
        WHERE h.tenant_id = $1`, [tenantId]],
      [`SELECT i.device_id, i.id, i.name, i.type, i.enabled, i.mac_address, i.mtu, a.address::text FROM interfaces i
        LEFT JOIN ip_addresses a ON a.assigned_interface_id = i.id AND a.tenant_id = $1
        WHERE i.device_id IN (SELECT id FROM devices WHERE tenant_id = $1) AND i.tenant_id = $1 ORDER BY i.device_id, i.id, a.address`, [tenantId]],
      [`SELECT h.id, h.name, h.custom_fields FROM virtual_machines h WHERE h.tenant_id = $1`, [tenantId]],
      [`SELECT c.name, c.data FROM config_contexts c WHERE c.tenant_id = $1 AND c.is_active ORDER BY c.weight, c.name`, [tenantId]],
    ] as const;
    const bare = await medianMs(5, async () => {
      for (const [text, params] of bareQueries) await database.pool.query(text, [...params]);
    }, 1);

    const before = database.queryCount();
    await inventory();
    const perCall = database.queryCount() - before;
    const notModified = await medianMs(5, async () => {
      const res = await app.inject({ method: 'GET', url: '/api/inventory/ansible/', headers: { ...headers, 'if-none-match': etag } });
      if (res.statusCode !== 304) throw new Error(`revalidation answered ${res.statusCode}`);
    }, 1);
    console.log(`GET /api/inventory/ansible/ over ${c.devices.toLocaleString('en-US')} devices, ${c.interfaces.toLocaleString('en-US')} interfaces, ` +
      `>= ${c.fields} custom fields each (${database.label}): ${fmt(api)} for ${(bytes / 1e6).toFixed(1)} MB; bare SQL of the same columns ${fmt(bare)}; ` +
      `ratio ${(api / bare).toFixed(2)}x (target <= 3x); ${perCall} queries per call; If-None-Match revalidation (304) ${fmt(notModified)}`);
    await app.close();
  } finally {
    await database.close();
  }
}
