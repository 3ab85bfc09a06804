// NetBox's virtualization catalogs (cluster types and groups, virtual disks), wireless (LAN groups, wireless LANs,
// point-to-point wireless links, the radio fields of an interface), L2VPNs with their terminations, rack
// reservations and rack types. A cluster's free-text `type` becomes a cluster type: each tenant's distinct values
// turn into cluster types and the clusters point at them; a cluster without one keeps none (NetBox requires a
// type, Cairn's clusters predate the catalog).
import { sql, type Kysely } from 'kysely';

const audit = sql`created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now()`;
const base = sql`id uuid PRIMARY KEY, numid bigint NOT NULL, tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE`;
const desc = sql`description varchar(200) NOT NULL DEFAULT ''`;
const cf = sql`custom_fields jsonb NOT NULL DEFAULT '{}'`;
const owner = sql`owner_id uuid REFERENCES owners(id) ON DELETE RESTRICT`;

async function index(db: Kysely<unknown>, name: string, table: string, columns: string, partial = ''): Promise<void> {
  await sql`CREATE INDEX ${sql.raw(name)} ON ${sql.table(table)} (${sql.raw(columns)}) ${sql.raw(partial)}`.execute(db);
}

/** An index on a nullable foreign key column, for the deletes and joins that look it up. */
async function fkIndex(db: Kysely<unknown>, table: string, column: string): Promise<void> {
  await index(db, `${table}_${column}_idx`, table, column, `WHERE ${column} IS NOT NULL`);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  // Virtualization.
  for (const table of ['cluster_types', 'cluster_groups']) {
    await sql`CREATE TABLE ${sql.table(table)} (
        ${base}, name varchar(100) NOT NULL, slug varchar(100) NOT NULL, ${desc}, ${cf}, ${audit},
        UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
      )`.execute(db);
    await index(db, `${table}_order_idx`, table, 'tenant_id, name, id');
  }
  // Every tenant's distinct cluster type texts become cluster types (slugs made unique with a number).
  await sql`WITH kinds AS (
      SELECT DISTINCT tenant_id, left(btrim(type), 100) AS name FROM clusters WHERE btrim(type) <> ''
    ), ranked AS (
      SELECT tenant_id, name, row_number() OVER (PARTITION BY tenant_id ORDER BY name) AS rn, count(*) OVER (PARTITION BY tenant_id) AS cnt,
        coalesce(nullif(left(btrim(regexp_replace(lower(name), '[^a-z0-9_]+', '-', 'g'), '-'), 90), ''), 'type') AS slug
      FROM kinds
    ), slugged AS (
      SELECT *, CASE WHEN count(*) OVER (PARTITION BY tenant_id, slug) > 1 THEN slug || '-' || rn ELSE slug END AS unique_slug FROM ranked
    ), numbered AS (
      INSERT INTO numid_counters (scope, table_name, last) SELECT tenant_id::text, 'cluster_types', max(cnt) FROM slugged GROUP BY tenant_id
      ON CONFLICT (scope, table_name) DO UPDATE SET last = numid_counters.last + excluded.last RETURNING scope, last
    )
    INSERT INTO cluster_types (id, numid, tenant_id, name, slug)
    SELECT gen_random_uuid(), n.last - s.cnt + s.rn, s.tenant_id, s.name, s.unique_slug FROM slugged s JOIN numbered n ON n.scope = s.tenant_id::text`.execute(db);
  await sql`ALTER TABLE clusters
      ADD COLUMN type_id uuid REFERENCES cluster_types(id) ON DELETE RESTRICT,
      ADD COLUMN group_id uuid REFERENCES cluster_groups(id) ON DELETE RESTRICT,
      ADD COLUMN comments text NOT NULL DEFAULT '',
      ADD COLUMN ${cf}`.execute(db);
  await sql`UPDATE clusters c SET type_id = t.id FROM cluster_types t WHERE t.tenant_id = c.tenant_id AND t.name = left(btrim(c.type), 100)`.execute(db);
  await sql`ALTER TABLE clusters DROP COLUMN type`.execute(db);
  // (A cluster's owner_id came with migration 0040.)
  for (const column of ['type_id', 'group_id']) await fkIndex(db, 'clusters', column);
  await sql`CREATE TABLE virtual_disks (
      ${base},
      virtual_machine_id uuid NOT NULL REFERENCES virtual_machines(id) ON DELETE CASCADE,
      name varchar(64) NOT NULL, size integer NOT NULL CHECK (size >= 0), ${desc}, ${cf}, ${audit},
      UNIQUE (virtual_machine_id, name)
    )`.execute(db);
  await index(db, 'virtual_disks_order_idx', 'virtual_disks', 'tenant_id, virtual_machine_id, name, id');

  // Wireless.
  await sql`CREATE TABLE wireless_lan_groups (
      ${base}, name varchar(100) NOT NULL, slug varchar(100) NOT NULL,
      parent_id uuid REFERENCES wireless_lan_groups(id) ON DELETE RESTRICT, ${desc}, ${cf}, ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    )`.execute(db);
  await index(db, 'wireless_lan_groups_order_idx', 'wireless_lan_groups', 'tenant_id, name, id');
  await fkIndex(db, 'wireless_lan_groups', 'parent_id');
  const auth = sql`auth_type varchar(50), auth_cipher varchar(50), auth_psk text`;
  await sql`CREATE TABLE wireless_lans (
      ${base}, ssid varchar(32) NOT NULL,
      group_id uuid REFERENCES wireless_lan_groups(id) ON DELETE SET NULL,
      status varchar(50) NOT NULL DEFAULT 'active',
      vlan_id uuid REFERENCES vlans(id) ON DELETE RESTRICT, ${owner}, ${auth},
      ${desc}, comments text NOT NULL DEFAULT '', ${cf}, ${audit}
    )`.execute(db);
  await index(db, 'wireless_lans_order_idx', 'wireless_lans', 'tenant_id, ssid, id');
  for (const column of ['group_id', 'vlan_id', 'owner_id']) await fkIndex(db, 'wireless_lans', column);
  // An interface is an end of one wireless link at most, on either side (the B side is checked by the hook).
  await sql`CREATE TABLE wireless_links (
      ${base},
      interface_a_id uuid NOT NULL UNIQUE REFERENCES interfaces(id) ON DELETE CASCADE,
      interface_b_id uuid NOT NULL UNIQUE REFERENCES interfaces(id) ON DELETE CASCADE,
      ssid varchar(32) NOT NULL DEFAULT '', status varchar(50) NOT NULL DEFAULT 'connected', ${owner}, ${auth},
      distance numeric(8, 2), distance_unit varchar(50),
      ${desc}, comments text NOT NULL DEFAULT '', ${cf}, ${audit},
      CHECK (interface_a_id <> interface_b_id)
    )`.execute(db);
  await index(db, 'wireless_links_order_idx', 'wireless_links', 'tenant_id, numid, id');
  await fkIndex(db, 'wireless_links', 'owner_id');
  await sql`ALTER TABLE interfaces
      ADD COLUMN rf_role varchar(30), ADD COLUMN rf_channel varchar(50),
      ADD COLUMN rf_channel_frequency numeric(8, 3), ADD COLUMN rf_channel_width numeric(7, 3),
      ADD COLUMN tx_power smallint CHECK (tx_power BETWEEN -40 AND 127)`.execute(db);
  await sql`CREATE TABLE interface_wireless_lans (
      interface_id uuid NOT NULL REFERENCES interfaces(id) ON DELETE CASCADE,
      wireless_lan_id uuid NOT NULL REFERENCES wireless_lans(id) ON DELETE CASCADE,
      PRIMARY KEY (interface_id, wireless_lan_id)
    )`.execute(db);
  await index(db, 'interface_wireless_lans_lan_idx', 'interface_wireless_lans', 'wireless_lan_id');

  // L2VPN.
  await sql`CREATE TABLE l2vpns (
      ${base}, name varchar(100) NOT NULL, slug varchar(100) NOT NULL, type varchar(50) NOT NULL,
      status varchar(50) NOT NULL DEFAULT 'active', identifier bigint, ${owner},
      ${desc}, comments text NOT NULL DEFAULT '', ${cf}, ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    )`.execute(db);
  await index(db, 'l2vpns_order_idx', 'l2vpns', 'tenant_id, name, id');
  await fkIndex(db, 'l2vpns', 'owner_id');
  for (const side of ['import', 'export']) {
    const table = `l2vpn_${side}_targets`;
    await sql`CREATE TABLE ${sql.table(table)} (
        l2vpn_id uuid NOT NULL REFERENCES l2vpns(id) ON DELETE CASCADE,
        route_target_id uuid NOT NULL REFERENCES route_targets(id) ON DELETE CASCADE,
        PRIMARY KEY (l2vpn_id, route_target_id)
      )`.execute(db);
    await index(db, `${table}_rt_idx`, table, 'route_target_id');
  }
  // One terminated object per row, and each object in one L2VPN at most (NetBox's unique assigned object).
  await sql`CREATE TABLE l2vpn_terminations (
      ${base},
      l2vpn_id uuid NOT NULL REFERENCES l2vpns(id) ON DELETE CASCADE,
      vlan_id uuid UNIQUE REFERENCES vlans(id) ON DELETE CASCADE,
      interface_id uuid UNIQUE REFERENCES interfaces(id) ON DELETE CASCADE,
      vm_interface_id uuid UNIQUE REFERENCES vm_interfaces(id) ON DELETE CASCADE,
      ${cf}, ${audit},
      CHECK (num_nonnulls(vlan_id, interface_id, vm_interface_id) = 1)
    )`.execute(db);
  await index(db, 'l2vpn_terminations_order_idx', 'l2vpn_terminations', 'tenant_id, l2vpn_id, numid, id');
  await index(db, 'l2vpn_terminations_l2vpn_idx', 'l2vpn_terminations', 'l2vpn_id');

  // Racks: types and reservations.
  await sql`CREATE TABLE rack_types (
      ${base},
      manufacturer_id uuid NOT NULL REFERENCES manufacturers(id) ON DELETE RESTRICT,
      model varchar(100) NOT NULL, slug varchar(100) NOT NULL, form_factor varchar(50) NOT NULL,
      width varchar(10) NOT NULL DEFAULT '19', u_height integer NOT NULL DEFAULT 42 CHECK (u_height BETWEEN 1 AND 100),
      starting_unit integer NOT NULL DEFAULT 1 CHECK (starting_unit BETWEEN 1 AND 1000), desc_units boolean NOT NULL DEFAULT false,
      outer_width integer, outer_height integer, outer_depth integer, outer_unit varchar(50),
      weight numeric(8, 2), weight_unit varchar(50), max_weight integer, mounting_depth integer,
      ${desc}, comments text NOT NULL DEFAULT '', ${cf}, ${audit},
      UNIQUE (manufacturer_id, model), UNIQUE (manufacturer_id, slug)
    )`.execute(db);
  await index(db, 'rack_types_order_idx', 'rack_types', 'tenant_id, manufacturer_id, model, id');
  await sql`ALTER TABLE racks ADD COLUMN rack_type_id uuid REFERENCES rack_types(id) ON DELETE RESTRICT`.execute(db);
  await fkIndex(db, 'racks', 'rack_type_id');
  await sql`CREATE TABLE rack_reservations (
      ${base},
      rack_id uuid NOT NULL REFERENCES racks(id) ON DELETE CASCADE,
      units integer[] NOT NULL, status varchar(50) NOT NULL DEFAULT 'active',
      user_id uuid REFERENCES users(id) ON DELETE SET NULL, ${owner},
      ${desc}, comments text NOT NULL DEFAULT '', ${cf}, ${audit}
    )`.execute(db);
  await index(db, 'rack_reservations_order_idx', 'rack_reservations', 'tenant_id, created, id');
  await index(db, 'rack_reservations_rack_idx', 'rack_reservations', 'rack_id');
  for (const column of ['user_id', 'owner_id']) await fkIndex(db, 'rack_reservations', column);
}
