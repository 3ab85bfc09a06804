// A NetBox-shaped PostgreSQL database of N devices, for `npm run bench -- netbox-import`: NetBox 4.1's own demo
// database (its schema, content types, migrations and reference data: manufacturers, device types, roles,
// platforms, tenants, regions, tags…) with N more devices and what goes with them, written by set-based SQL
// (generate_series) in seconds. Each new row is a copy of a demo row of its table (so every NOT NULL column NetBox
// has gets NetBox's own value) with the columns that make it a new object replaced.
//
// Proportions, from the 4.1 demo (72 devices): 22 interfaces a device (1,586), 1.5 cables a device (108, each with
// its two terminations), 2.5 addresses a device (180: here 2, one of them the device's primary IPv4), 1.25
// prefixes a device (90), 0.9 VLANs a device (63). Sites and racks are where the demo is too small to say: 50
// devices a site and 10 a rack, as a mid-sized network has. Device types, roles and platforms are the demo's
// (network devices only: no patch panels, PDUs or chassis). About 32 rows a device in all.
import { withServer } from '../test/helpers/pg-test-databases.ts';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** The demo database, loaded once per server (the import test loads the same one under the same name). */
export const NETBOX_DEMO_TEMPLATE = 'cairn_netbox_demo_41_template';

const DUMP_NAME = 'netbox-demo-v4.1.sql.gz';

/** The 4.1 demo dump: shared/ beside the repository (CI), or the workplace's. */
export function netboxDemoDump(): string | null {
  const candidates = [resolve(import.meta.dirname, '../../shared/data/netbox', DUMP_NAME), `/work/shared/data/netbox/${DUMP_NAME}`];
  return candidates.find((p) => existsSync(p)) ?? null;
}

export function databaseUrl(serverUrl: string, name: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}


/** Loads the demo dump into the template database unless it is there; loaded under another name and renamed when complete. */
export async function ensureNetBoxDemoTemplate(serverUrl: string, dump: string): Promise<void> {
  await withServer(serverUrl, async (c) => {
    await c.query('CREATE ROLE netbox').catch(() => undefined);
    const { rows } = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [NETBOX_DEMO_TEMPLATE]);
    if (rows.length) return;
    const loading = `${NETBOX_DEMO_TEMPLATE}_loading_${process.pid}`;
    await c.query(`CREATE DATABASE ${loading}`);
    execFileSync('sh', ['-c', `zcat "${dump}" | psql -q -v ON_ERROR_STOP=1 "${databaseUrl(serverUrl, loading)}" >/dev/null`]);
    try {
      await c.query(`ALTER DATABASE ${loading} RENAME TO ${NETBOX_DEMO_TEMPLATE}`);
    } catch (err) {
      // Another process finished its load first: keep its copy.
      await c.query(`DROP DATABASE IF EXISTS ${loading}`);
      if (!/already exists/.test((err as Error).message)) throw err;
    }
  });
}

export interface GeneratedNetBox {
  url: string;
  /** Rows added, by NetBox table. */
  added: Record<string, number>;
  ms: number;
}

/** Per device (see the file's head). */
const INTERFACES = 22;
const UPLINKS = 3; // cables between each pair of devices: 1.5 a device
const DEVICES_PER_SITE = 50;
const DEVICES_PER_RACK = 10;
// The demo's network device types and roles (ids in its 4.1 dump), and its platforms.
const DEVICE_TYPES = [1, 2, 3, 4, 5, 6, 7, 12, 13];
const ROLES = [1, 2, 3, 4, 7, 8, 9];

/**
 * A copy of the demo as database `name` with `devices` more devices and their sites, racks, interfaces, cables,
 * addresses, prefixes and VLANs. Dropped by dropNetBoxDatabase.
 */
export async function generateNetBox(serverUrl: string, name: string, devices: number): Promise<GeneratedNetBox> {
  const started = Date.now();
  await withServer(serverUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name} TEMPLATE ${NETBOX_DEMO_TEMPLATE}`);
  });
  const url = databaseUrl(serverUrl, name);
  const added: Record<string, number> = {};
  await withServer(url, async (c) => {
    const N = devices;
    const S = Math.max(1, Math.ceil(N / DEVICES_PER_SITE));
    const R = Math.max(1, Math.ceil(N / DEVICES_PER_RACK));
    const C = Math.floor(N / 2) * UPLINKS;
    const P = Math.ceil(N * 1.25);
    const V = Math.ceil(N * 0.9);
    const base: Record<string, number> = {};
    for (const t of ['dcim_site', 'dcim_rack', 'dcim_device', 'dcim_interface', 'dcim_cable', 'dcim_cabletermination', 'ipam_ipaddress', 'ipam_prefix', 'ipam_vlan']) {
      base[t] = Number((await c.query(`SELECT coalesce(max(id), 0) AS n FROM ${t}`)).rows[0].n);
    }
    const ifaceCt = Number((await c.query(`SELECT id FROM django_content_type WHERE app_label = 'dcim' AND model = 'interface'`)).rows[0].id);

    /** INSERT … SELECT over generate_series(1, count): every column from the table's first row unless `set` gives it. */
    const copyRows = async (table: string, count: number, set: Record<string, string>) => {
      if (count === 0) return;
      const { rows } = await c.query<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`, [table]);
      const cols = rows.map((r) => r.column_name);
      for (const k of Object.keys(set)) if (!cols.includes(k)) throw new Error(`${table} has no column ${k}`);
      const exprs = cols.map((col) => set[col] ?? (col === 'created' || col === 'last_updated' ? 'now()' : `t."${col}"`));
      await c.query(`INSERT INTO ${table} (${cols.map((x) => `"${x}"`).join(', ')})
        SELECT ${exprs.join(', ')} FROM (SELECT * FROM ${table} ORDER BY id LIMIT 1) t CROSS JOIN generate_series(1, ${count}) g`);
      added[table] = (added[table] ?? 0) + count;
    };
    const siteOf = (rackIndex: string) => `${base.dcim_site} + 1 + (${rackIndex}) % ${S}`;

    await c.query('BEGIN');
    await copyRows('dcim_site', S, {
      id: `${base.dcim_site} + g`, name: `'Bench site ' || g`, _name: `'Bench site ' || lpad(g::text, 8, '0')`, slug: `'bench-site-' || g`,
      status: `'active'`, facility: `''`, description: `''`, group_id: 'NULL',
    });
    await copyRows('dcim_rack', R, {
      id: `${base.dcim_rack} + g`, name: `'R' || g`, _name: `'R' || lpad(g::text, 8, '0')`, site_id: siteOf('g - 1'), location_id: 'NULL',
      facility_id: 'NULL', asset_tag: 'NULL', serial: `''`, rack_type_id: 'NULL', status: `'active'`,
    });
    // Device g (from 1) sits in rack (g - 1) % R, at that rack's site.
    await copyRows('dcim_device', N, {
      id: `${base.dcim_device} + g`, name: `'bench-' || lpad(g::text, 6, '0')`, _name: `'bench-' || lpad(g::text, 8, '0')`,
      rack_id: `${base.dcim_rack} + 1 + (g - 1) % ${R}`, site_id: siteOf(`(g - 1) % ${R}`), location_id: 'NULL', position: 'NULL', face: `''`,
      device_type_id: `(ARRAY[${DEVICE_TYPES.join(', ')}])[1 + g % ${DEVICE_TYPES.length}]`, role_id: `(ARRAY[${ROLES.join(', ')}])[1 + g % ${ROLES.length}]`,
      platform_id: `CASE WHEN g % 4 = 0 THEN NULL ELSE 1 + g % 3 END`, status: `(ARRAY['active', 'active', 'active', 'planned', 'offline'])[1 + g % 5]`,
      serial: `upper(substr(md5(g::text), 1, 12))`, asset_tag: 'NULL', cluster_id: 'NULL', virtual_chassis_id: 'NULL', vc_position: 'NULL', vc_priority: 'NULL',
      primary_ip4_id: 'NULL', primary_ip6_id: 'NULL', oob_ip_id: 'NULL', config_template_id: 'NULL', local_context_data: 'NULL', description: `''`,
      interface_count: String(INTERFACES), console_port_count: '0', console_server_port_count: '0', power_port_count: '0', power_outlet_count: '0',
      front_port_count: '0', rear_port_count: '0', device_bay_count: '0', module_bay_count: '0', inventory_item_count: '0',
    });
    // Interface g: device (g - 1) / I, port k = (g - 1) % I + 1; port 1 is the management port.
    const k = `((g - 1) % ${INTERFACES} + 1)`;
    await copyRows('dcim_interface', N * INTERFACES, {
      id: `${base.dcim_interface} + g`, device_id: `${base.dcim_device} + 1 + (g - 1) / ${INTERFACES}`,
      name: `CASE WHEN ${k} = 1 THEN 'mgmt0' ELSE 'et-0/0/' || (${k} - 2) END`, _name: `CASE WHEN ${k} = 1 THEN 'mgmt0' ELSE 'et-0/0/' || lpad((${k} - 2)::text, 4, '0') END`,
      type: `CASE WHEN ${k} = 1 THEN '1000base-t' ELSE '10gbase-x-sfpp' END`, mgmt_only: `${k} = 1`, enabled: 'true', label: `''`, description: `''`,
      mark_connected: 'false', mac_address: 'NULL', mtu: 'NULL', mode: `''`, cable_id: 'NULL', cable_end: `''`, _path_id: 'NULL', lag_id: 'NULL', parent_id: 'NULL',
      bridge_id: 'NULL', untagged_vlan_id: 'NULL', wwn: 'NULL', module_id: 'NULL', vrf_id: 'NULL', wireless_link_id: 'NULL',
      rf_role: `''`, rf_channel: `''`, rf_channel_frequency: 'NULL', rf_channel_width: 'NULL', tx_power: 'NULL', duplex: 'NULL', speed: 'NULL', poe_mode: `''`, poe_type: `''`,
    });
    // Cable g joins port k (2 to 1 + UPLINKS) of devices 2p and 2p + 1 (p = (g - 1) / UPLINKS, from 0).
    await copyRows('dcim_cable', C, { id: `${base.dcim_cable} + g`, type: `'dac-passive'`, status: `'connected'`, label: `''`, color: `''`, length: 'NULL', length_unit: `''`, _abs_length: 'NULL', tenant_id: 'NULL', description: `''` });
    if (C > 0) {
      // Both ends: A on the even device of the pair, B on the odd one.
      await c.query(`INSERT INTO dcim_cabletermination (id, cable_end, termination_id, cable_id, termination_type_id, _device_id, _rack_id, _location_id, _site_id, created, last_updated)
        SELECT ${base.dcim_cabletermination} + 2 * (g - 1) + e.n, e.side, ${base.dcim_interface} + d.dev * ${INTERFACES} + (g - 1) % ${UPLINKS} + 2,
          ${base.dcim_cable} + g, ${ifaceCt}, ${base.dcim_device} + 1 + d.dev, ${base.dcim_rack} + 1 + d.dev % ${R}, NULL, ${siteOf(`d.dev % ${R}`)}, now(), now()
        FROM generate_series(1, ${C}) g CROSS JOIN (VALUES (1, 'A'), (2, 'B')) e(n, side)
          CROSS JOIN LATERAL (SELECT 2 * ((g - 1) / ${UPLINKS}) + e.n - 1 AS dev) d`);
      added.dcim_cabletermination = 2 * C;
      await c.query(`UPDATE dcim_interface i SET cable_id = t.cable_id, cable_end = t.cable_end FROM dcim_cabletermination t
        WHERE t.id > ${base.dcim_cabletermination} AND t.termination_id = i.id`);
    }
    // Address g: device (g - 1) / 2 on its port 1 (management, the primary IPv4) or 2, in 100.64.0.0/10 from .1.
    await copyRows('ipam_ipaddress', 2 * N, {
      id: `${base.ipam_ipaddress} + g`, address: `set_masklen('100.64.0.0'::inet + g, 27)`, status: `'active'`, role: `''`, dns_name: `''`, description: `''`,
      assigned_object_type_id: String(ifaceCt), assigned_object_id: `${base.dcim_interface} + ((g - 1) / 2) * ${INTERFACES} + (g - 1) % 2 + 1`,
      nat_inside_id: 'NULL', tenant_id: 'NULL', vrf_id: 'NULL',
    });
    await c.query(`UPDATE dcim_device d SET primary_ip4_id = ${base.ipam_ipaddress} + 2 * (d.id - ${base.dcim_device}) - 1 WHERE d.id > ${base.dcim_device}`);
    // VLAN g at site (g - 1) % S, numbered from 1 within its site.
    await copyRows('ipam_vlan', V, {
      id: `${base.ipam_vlan} + g`, vid: `1 + ((g - 1) / ${S}) % 4000`, name: `'vlan' || (1 + ((g - 1) / ${S}) % 4000)`, site_id: siteOf('g - 1'),
      group_id: 'NULL', role_id: 'NULL', tenant_id: 'NULL', status: `'active'`, description: `''`,
    });
    // Prefix g: the g-th /27 of 100.64.0.0/10 (each holds 16 devices' addresses), at a site, the first V with a VLAN;
    // and the /10 above them all.
    await copyRows('ipam_prefix', P, {
      id: `${base.ipam_prefix} + g`, prefix: `set_masklen('100.64.0.0'::inet + (g - 1) * 32, 27)::cidr`, site_id: siteOf('g - 1'),
      vlan_id: `CASE WHEN g <= ${V} THEN ${base.ipam_vlan} + g END`, status: `'active'`, is_pool: 'false', mark_utilized: 'false', description: `''`,
      role_id: 'NULL', vrf_id: 'NULL', tenant_id: 'NULL', _children: '0', _depth: '1',
    });
    await copyRows('ipam_prefix', 1, { id: `${base.ipam_prefix} + ${P} + 1`, prefix: `'100.64.0.0/10'::cidr`, site_id: 'NULL', vlan_id: 'NULL', status: `'container'`, is_pool: 'false', mark_utilized: 'false', description: `'bench space'`, role_id: 'NULL', vrf_id: 'NULL', tenant_id: 'NULL', _children: String(P), _depth: '0' });
    // Identity sequences past the rows written with explicit ids.
    for (const t of Object.keys(added)) await c.query(`SELECT setval(pg_get_serial_sequence('${t}', 'id'), (SELECT max(id) FROM ${t}))`);
    await c.query('COMMIT');
    await c.query('ANALYZE');
  });
  return { url, added, ms: Date.now() - started };
}

export async function dropNetBoxDatabase(serverUrl: string, name: string): Promise<void> {
  await withServer(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}
