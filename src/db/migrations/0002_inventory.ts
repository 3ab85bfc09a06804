// Inventory, part one: organisation (regions, sites), extras (statuses, custom fields, config contexts) and
// DCIM (manufacturers, device types and their templates, roles, platforms, devices, interfaces, cables).
// PostgreSQL 13 compatible. No foreign key points at IPAM tables: 0003 adds those columns itself.
import { sql, type Kysely } from 'kysely';
import { migrationAllocateNumids, migrationUuidv7 } from './frozen-helpers.ts';

const audit = sql`created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now()`;
const base = sql`id uuid PRIMARY KEY, numid bigint NOT NULL, tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE`;

const DEVICE = 'dcim.device';
const ADDRESS = 'ipam.ipaddress';
const PREFIX = 'ipam.prefix';
const VLAN = 'ipam.vlan';
const RANGE = 'ipam.iprange';
const CABLE = 'dcim.cable';
const SITE = 'organization.site';
/** The statuses every tenant had then (frozen copy of extras/statuses.ts's DEFAULT_STATUSES at the time). */
const STATUSES_0002 = [
  { name: 'Active', slug: 'active', color: '4caf50', available_to: [DEVICE, ADDRESS, PREFIX, VLAN, RANGE, SITE], default_for: [DEVICE, ADDRESS, PREFIX, VLAN, RANGE, SITE] },
  { name: 'Planned', slug: 'planned', color: '00bcd4', available_to: [DEVICE, CABLE, SITE], default_for: [] },
  { name: 'Offline', slug: 'offline', color: 'ff9800', available_to: [DEVICE], default_for: [] },
  { name: 'Decommissioning', slug: 'decommissioning', color: 'ffc107', available_to: [DEVICE, CABLE, SITE], default_for: [] },
  { name: 'Reserved', slug: 'reserved', color: '00bcd4', available_to: [ADDRESS, PREFIX, VLAN, RANGE], default_for: [] },
  { name: 'Deprecated', slug: 'deprecated', color: 'f44336', available_to: [ADDRESS, PREFIX, VLAN, RANGE], default_for: [] },
  { name: 'Container', slug: 'container', color: '9e9e9e', available_to: [PREFIX], default_for: [] },
  { name: 'Connected', slug: 'connected', color: '4caf50', available_to: [CABLE], default_for: [CABLE] },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE statuses (
      ${base},
      name varchar(100) NOT NULL, slug varchar(100) NOT NULL, color varchar(6) NOT NULL DEFAULT '9e9e9e',
      available_to text[] NOT NULL DEFAULT '{}', default_for text[] NOT NULL DEFAULT '{}',
      description varchar(200) NOT NULL DEFAULT '', ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    );
    CREATE TABLE regions (
      ${base},
      name varchar(100) NOT NULL, slug varchar(100) NOT NULL,
      parent_id uuid REFERENCES regions(id) ON DELETE RESTRICT,
      description varchar(200) NOT NULL DEFAULT '', ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    );
    CREATE INDEX regions_parent ON regions (parent_id);
    CREATE TABLE sites (
      ${base},
      name varchar(100) NOT NULL, slug varchar(100) NOT NULL,
      region_id uuid REFERENCES regions(id) ON DELETE SET NULL,
      status_id uuid REFERENCES statuses(id) ON DELETE RESTRICT,
      description varchar(200) NOT NULL DEFAULT '', custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    );
    CREATE INDEX sites_region ON sites (region_id);

    CREATE TABLE custom_fields (
      ${base},
      name varchar(50) NOT NULL, label varchar(100) NOT NULL DEFAULT '', type varchar(20) NOT NULL,
      object_types text[] NOT NULL DEFAULT '{}', required boolean NOT NULL DEFAULT false,
      "default" jsonb, choices text[] NOT NULL DEFAULT '{}', description varchar(200) NOT NULL DEFAULT '', ${audit},
      UNIQUE (tenant_id, name)
    );

    CREATE TABLE manufacturers (
      ${base},
      name varchar(100) NOT NULL, slug varchar(100) NOT NULL, description varchar(200) NOT NULL DEFAULT '', ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    );
    CREATE TABLE device_types (
      ${base},
      manufacturer_id uuid NOT NULL REFERENCES manufacturers(id) ON DELETE RESTRICT,
      model varchar(100) NOT NULL, slug varchar(100) NOT NULL, part_number varchar(50) NOT NULL DEFAULT '',
      u_height integer NOT NULL DEFAULT 1, end_of_sale date, end_of_support date,
      comments text NOT NULL DEFAULT '', custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (tenant_id, manufacturer_id, model), UNIQUE (tenant_id, slug)
    );
    CREATE TABLE interface_templates (
      ${base},
      device_type_id uuid NOT NULL REFERENCES device_types(id) ON DELETE CASCADE,
      name varchar(64) NOT NULL, type varchar(50) NOT NULL, enabled boolean NOT NULL DEFAULT true,
      mgmt_only boolean NOT NULL DEFAULT false, poe_mode varchar(10), poe_type varchar(50),
      description varchar(200) NOT NULL DEFAULT '', ${audit},
      UNIQUE (device_type_id, name)
    );
    CREATE TABLE device_type_services (
      ${base},
      device_type_id uuid NOT NULL REFERENCES device_types(id) ON DELETE CASCADE,
      name varchar(100) NOT NULL, protocol varchar(10) NOT NULL DEFAULT 'tcp', ports integer[] NOT NULL DEFAULT '{}',
      protocol_ports jsonb NOT NULL DEFAULT '{}', monitor boolean NOT NULL DEFAULT false,
      description varchar(200) NOT NULL DEFAULT '', ${audit},
      UNIQUE (device_type_id, name)
    );
    CREATE TABLE device_roles (
      ${base},
      name varchar(100) NOT NULL, slug varchar(100) NOT NULL, color varchar(6) NOT NULL DEFAULT '9e9e9e',
      config_template_id uuid, description varchar(200) NOT NULL DEFAULT '', ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    );
    CREATE TABLE platforms (
      ${base},
      name varchar(100) NOT NULL, slug varchar(100) NOT NULL,
      manufacturer_id uuid REFERENCES manufacturers(id) ON DELETE SET NULL,
      config_template_id uuid, end_of_sale date, end_of_support date,
      description varchar(200) NOT NULL DEFAULT '', ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    );
    CREATE TABLE devices (
      ${base},
      name varchar(64) NOT NULL,
      device_type_id uuid NOT NULL REFERENCES device_types(id) ON DELETE RESTRICT,
      role_id uuid NOT NULL REFERENCES device_roles(id) ON DELETE RESTRICT,
      platform_id uuid REFERENCES platforms(id) ON DELETE SET NULL,
      site_id uuid NOT NULL REFERENCES sites(id) ON DELETE RESTRICT,
      status_id uuid REFERENCES statuses(id) ON DELETE RESTRICT,
      serial varchar(50) NOT NULL DEFAULT '', asset_tag varchar(50),
      config_template_id uuid, comments text NOT NULL DEFAULT '', custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, asset_tag)
    );
    CREATE INDEX devices_site ON devices (site_id);
    CREATE INDEX devices_role ON devices (role_id);
    CREATE INDEX devices_platform ON devices (platform_id);
    CREATE INDEX devices_type ON devices (device_type_id);
    CREATE TABLE interfaces (
      ${base},
      device_id uuid NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      name varchar(64) NOT NULL, type varchar(50) NOT NULL, enabled boolean NOT NULL DEFAULT true,
      mgmt_only boolean NOT NULL DEFAULT false, mtu integer CHECK (mtu BETWEEN 1 AND 65536),
      mac_address varchar(17), description varchar(200) NOT NULL DEFAULT '', mode varchar(20),
      speed integer, duplex varchar(10), poe_mode varchar(10), poe_type varchar(50),
      custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (device_id, name)
    );
    CREATE TABLE cables (
      ${base},
      status_id uuid REFERENCES statuses(id) ON DELETE RESTRICT,
      type varchar(50), label varchar(100) NOT NULL DEFAULT '', length numeric(10, 2), length_unit varchar(10),
      description varchar(200) NOT NULL DEFAULT '', custom_fields jsonb NOT NULL DEFAULT '{}', ${audit}
    );
    -- One table per cable end: the registry's m2m writes (owner, target) pairs. An interface sits on at most one
    -- cable end (the unique indexes, plus a check across both tables in the cable's validate hook).
    CREATE TABLE cable_a_terminations (
      cable_id uuid NOT NULL REFERENCES cables(id) ON DELETE CASCADE,
      interface_id uuid NOT NULL REFERENCES interfaces(id) ON DELETE CASCADE,
      PRIMARY KEY (cable_id, interface_id), UNIQUE (interface_id)
    );
    CREATE TABLE cable_b_terminations (
      cable_id uuid NOT NULL REFERENCES cables(id) ON DELETE CASCADE,
      interface_id uuid NOT NULL REFERENCES interfaces(id) ON DELETE CASCADE,
      PRIMARY KEY (cable_id, interface_id), UNIQUE (interface_id)
    );

    CREATE TABLE config_contexts (
      ${base},
      name varchar(100) NOT NULL, weight integer NOT NULL DEFAULT 1000, is_active boolean NOT NULL DEFAULT true,
      description varchar(200) NOT NULL DEFAULT '', data jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (tenant_id, name)
    );
    CREATE TABLE config_context_regions (
      config_context_id uuid NOT NULL REFERENCES config_contexts(id) ON DELETE CASCADE,
      region_id uuid NOT NULL REFERENCES regions(id) ON DELETE CASCADE, PRIMARY KEY (config_context_id, region_id)
    );
    CREATE TABLE config_context_sites (
      config_context_id uuid NOT NULL REFERENCES config_contexts(id) ON DELETE CASCADE,
      site_id uuid NOT NULL REFERENCES sites(id) ON DELETE CASCADE, PRIMARY KEY (config_context_id, site_id)
    );
    CREATE TABLE config_context_roles (
      config_context_id uuid NOT NULL REFERENCES config_contexts(id) ON DELETE CASCADE,
      role_id uuid NOT NULL REFERENCES device_roles(id) ON DELETE CASCADE, PRIMARY KEY (config_context_id, role_id)
    );
    CREATE TABLE config_context_platforms (
      config_context_id uuid NOT NULL REFERENCES config_contexts(id) ON DELETE CASCADE,
      platform_id uuid NOT NULL REFERENCES platforms(id) ON DELETE CASCADE, PRIMARY KEY (config_context_id, platform_id)
    );
  `.execute(db);

  // Tenants that exist before this migration get the default statuses new tenants get on creation. Written here
  // with SQL of this migration's time, not through the write service: the models describe the latest schema.
  const { rows } = await sql<{ id: string }>`SELECT id FROM tenants`.execute(db);
  for (const t of rows) {
    const first = await migrationAllocateNumids(db, t.id, 'statuses', STATUSES_0002.length);
    const values = STATUSES_0002.map(
      (s, i) => sql`(${migrationUuidv7()}, ${first + i}, ${t.id}, ${s.name}, ${s.slug}, ${s.color}, ${s.available_to}::text[], ${s.default_for}::text[])`,
    );
    await sql`INSERT INTO statuses (id, numid, tenant_id, name, slug, color, available_to, default_for) VALUES ${sql.join(values)}
      ON CONFLICT DO NOTHING`.execute(db);
  }
}
