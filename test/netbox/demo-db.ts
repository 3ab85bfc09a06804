// NetBox's own demo databases (../shared/data/netbox/) on the test PostgreSQL server, for the tests that import
// them (src/netbox-import/netbox-import.test.ts, test/netbox-clients.test.ts). Each dump is loaded with psql once
// into a template database (about 20 s on a calm machine), under a server-wide advisory lock so two test files
// that want it at once load it once; each test then copies the template (CREATE DATABASE … TEMPLATE, well under a
// second) and may change its copy freely. A killed load leaves only a `_loading_` database, never a template.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { testTablespaceClause, withServer } from '../helpers/pg-test-databases.ts';

export type DemoVersion = '3.7' | '4.1';

export function demoDump(version: DemoVersion): string {
  return `/work/shared/data/netbox/netbox-demo-v${version}.sql.gz`;
}

export function demoAvailable(version: DemoVersion): boolean {
  return existsSync(demoDump(version));
}

function urlOf(serverUrl: string, name: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/** The template database of a demo dump, loaded if the server has none yet. */
export async function demoTemplate(serverUrl: string, version: DemoVersion): Promise<string> {
  const template = `cairn_netbox_demo_${version.replace('.', '')}_template`;
  await withServer(serverUrl, async (c) => {
    // The dump names NetBox's role as owner of its objects.
    await c.query('CREATE ROLE netbox').catch(() => undefined);
    await c.query('SELECT pg_advisory_lock(hashtext($1))', [template]);
    try {
      const { rows } = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      if (rows.length) return;
      const loading = `${template}_loading_${process.pid}`;
      await c.query(`DROP DATABASE IF EXISTS ${loading}`);
      await c.query(`CREATE DATABASE ${loading}`);
      execFileSync('sh', ['-c', `zcat "${demoDump(version)}" | psql -q -v ON_ERROR_STOP=1 "${urlOf(serverUrl, loading)}" >/dev/null`]);
      await c.query(`ALTER DATABASE ${loading} RENAME TO ${template}`);
    } finally {
      await c.query('SELECT pg_advisory_unlock(hashtext($1))', [template]);
    }
  });
  return template;
}

export interface DemoCopy {
  name: string;
  url: string;
  /** A connection to the copy, for the test to read NetBox's tables and change them before importing. */
  client: pg.Client;
  drop(): Promise<void>;
}

/** A fresh copy of a demo database of its own, connected. */
export async function demoCopy(serverUrl: string, version: DemoVersion, tag: string): Promise<DemoCopy> {
  const template = await demoTemplate(serverUrl, version);
  const name = `cairn_netbox_${tag}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await withServer(serverUrl, (c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}${testTablespaceClause()}`));
  const url = urlOf(serverUrl, name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    name,
    url,
    client,
    drop: async () => {
      await client.end().catch(() => undefined);
      await withServer(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * NetBox 4.2's blank choices: its migrations (dcim 0194, ipam 0073, circuits 0046, tenancy 0016, virtualization
 * 0041, wireless 0011, extras 0122 `charfield_null_choices`) made these columns nullable and turned '' into NULL.
 */
const NULL_CHOICES_42: ReadonlyArray<[string, string[]]> = [
  ['dcim_cable', ['length_unit', 'type']],
  ['dcim_consoleport', ['cable_end', 'type']],
  ['dcim_consoleporttemplate', ['type']],
  ['dcim_consoleserverport', ['cable_end', 'type']],
  ['dcim_consoleserverporttemplate', ['type']],
  ['dcim_device', ['airflow', 'face']],
  ['dcim_devicetype', ['airflow', 'subdevice_role', 'weight_unit']],
  ['dcim_frontport', ['cable_end']],
  ['dcim_interface', ['cable_end', 'mode', 'poe_mode', 'poe_type', 'rf_channel', 'rf_role']],
  ['dcim_interfacetemplate', ['poe_mode', 'poe_type', 'rf_role']],
  ['dcim_moduletype', ['airflow', 'weight_unit']],
  ['dcim_powerfeed', ['cable_end']],
  ['dcim_poweroutlet', ['cable_end', 'feed_leg', 'type']],
  ['dcim_poweroutlettemplate', ['feed_leg', 'type']],
  ['dcim_powerport', ['cable_end', 'type']],
  ['dcim_powerporttemplate', ['type']],
  ['dcim_rack', ['airflow', 'form_factor', 'outer_unit', 'weight_unit']],
  ['dcim_racktype', ['outer_unit', 'weight_unit']],
  ['dcim_rearport', ['cable_end']],
  ['dcim_site', ['time_zone']],
  ['ipam_fhrpgroup', ['auth_type']],
  ['ipam_ipaddress', ['role']],
  ['circuits_circuit', ['distance_unit']],
  ['circuits_circuittermination', ['cable_end']],
  ['tenancy_contactassignment', ['priority']],
  ['virtualization_vminterface', ['mode']],
  ['wireless_wirelesslan', ['auth_cipher', 'auth_type']],
  ['wireless_wirelesslink', ['auth_cipher', 'auth_type', 'distance_unit']],
];

/**
 * Turns a copy of the 4.1 demo into the shape NetBox 4.2's migrations leave (there is no 4.2 dump here): the last
 * dcim migration 0200, circuit terminations by termination_type/termination_id with their cached _site_id and
 * _provider_network_id (circuits 0047-0049), prefixes and clusters scoped by scope_type/scope_id with cached
 * _site_id… (ipam 0071-0072, virtualization 0044-0045), MAC addresses in dcim_macaddress with each interface's
 * primary_mac_address_id (dcim 0199-0200; the demo has no MAC, so `macs` are given to the first interfaces, and one
 * more MAC on the first interface that is not its primary), and blank choices as NULL.
 */
export async function reshapeAs42(nb: pg.Client, macs: string[]): Promise<void> {
  const q = (text: string, params: unknown[] = []) => nb.query(text, params);
  const ct = async (app: string, model: string) => {
    await q('INSERT INTO django_content_type (app_label, model) SELECT $1::varchar, $2::varchar WHERE NOT EXISTS (SELECT 1 FROM django_content_type WHERE app_label = $1::varchar AND model = $2::varchar)', [app, model]);
    return Number((await q('SELECT id FROM django_content_type WHERE app_label = $1 AND model = $2', [app, model])).rows[0].id);
  };
  const site = await ct('dcim', 'site');
  await q(`INSERT INTO django_migrations (app, name, applied) VALUES ('dcim', '0200_populate_mac_addresses', now())`);
  // Circuit terminations.
  await q(`ALTER TABLE circuits_circuittermination ADD COLUMN termination_type_id integer, ADD COLUMN termination_id bigint,
    ADD COLUMN _provider_network_id bigint, ADD COLUMN _site_id bigint, ADD COLUMN _location_id bigint, ADD COLUMN _region_id bigint, ADD COLUMN _sitegroup_id bigint`);
  await q(`UPDATE circuits_circuittermination t SET termination_type_id = CASE WHEN t.site_id IS NOT NULL THEN $1::int ELSE $2::int END,
    termination_id = COALESCE(t.site_id, t.provider_network_id), _site_id = t.site_id, _provider_network_id = t.provider_network_id,
    _region_id = s.region_id, _sitegroup_id = s.group_id FROM circuits_circuittermination x LEFT JOIN dcim_site s ON s.id = x.site_id WHERE x.id = t.id`, [site, await ct('circuits', 'providernetwork')]);
  await q('ALTER TABLE circuits_circuittermination DROP COLUMN site_id CASCADE, DROP COLUMN provider_network_id CASCADE');
  // Prefixes and clusters: a scope of any kind, and its cached site, region and site group.
  for (const table of ['ipam_prefix', 'virtualization_cluster']) {
    await q(`ALTER TABLE ${table} ADD COLUMN scope_type_id integer, ADD COLUMN scope_id bigint, ADD COLUMN _site_id bigint, ADD COLUMN _location_id bigint, ADD COLUMN _region_id bigint, ADD COLUMN _sitegroup_id bigint`);
    await q(`UPDATE ${table} t SET scope_type_id = $1::int, scope_id = t.site_id, _site_id = t.site_id, _region_id = s.region_id, _sitegroup_id = s.group_id
      FROM dcim_site s WHERE s.id = t.site_id`, [site]);
    await q(`ALTER TABLE ${table} DROP COLUMN site_id CASCADE`);
  }
  // MAC addresses.
  await q(`CREATE TABLE dcim_macaddress (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, created timestamptz, last_updated timestamptz,
    custom_field_data jsonb NOT NULL DEFAULT '{}', description varchar(200) NOT NULL DEFAULT '', comments text NOT NULL DEFAULT '', mac_address macaddr NOT NULL,
    assigned_object_type_id integer, assigned_object_id bigint)`);
  const iface = await ct('dcim', 'interface');
  await ct('dcim', 'macaddress');
  const { rows: ifs } = await q('SELECT id FROM dcim_interface ORDER BY id LIMIT $1', [macs.length]);
  for (const [i, mac] of macs.entries()) {
    await q(`INSERT INTO dcim_macaddress (created, last_updated, mac_address, assigned_object_type_id, assigned_object_id) VALUES (now(), now(), $1, $2, $3)`, [mac, iface, ifs[i].id]);
  }
  await q(`INSERT INTO dcim_macaddress (created, last_updated, mac_address, assigned_object_type_id, assigned_object_id) VALUES (now(), now(), '02:00:00:00:99:99', $1, $2)`, [iface, ifs[0].id]);
  for (const table of ['dcim_interface', 'virtualization_vminterface']) {
    await q(`ALTER TABLE ${table} ADD COLUMN primary_mac_address_id bigint REFERENCES dcim_macaddress (id)`);
    await q(`ALTER TABLE ${table} DROP COLUMN mac_address`);
  }
  await q(`UPDATE dcim_interface i SET primary_mac_address_id = (SELECT min(m.id) FROM dcim_macaddress m WHERE m.assigned_object_type_id = $1 AND m.assigned_object_id = i.id)`, [iface]);
  // Blank choices.
  const { rows: present } = await q(`SELECT table_name || '.' || column_name AS c FROM information_schema.columns WHERE table_schema = current_schema()`);
  const has = new Set(present.map((r) => String(r.c)));
  for (const [table, columns] of NULL_CHOICES_42) {
    // (circuits' distance_unit came with 4.2 itself: not in the 4.1 demo.)
    for (const column of columns.filter((c) => has.has(`${table}.${c}`))) {
      await q(`ALTER TABLE ${table} ALTER COLUMN ${column} DROP NOT NULL`);
      await q(`UPDATE ${table} SET ${column} = NULL WHERE ${column}::text = ''`);
    }
  }
}
