// Console and power: console and console server ports, power ports and outlets (on devices, and their templates on
// device types), power panels and the power feeds they deliver. A feed's available power is a stored generated
// column (NetBox caches it on save): volts × amps × max utilisation, × √3 for three-phase, so utilisation sums in SQL.
import { sql, type Kysely } from 'kysely';

const audit = sql`created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now()`;
const base = sql`id uuid PRIMARY KEY, numid bigint NOT NULL, tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE`;
const natural = sql`name_natural text NOT NULL GENERATED ALWAYS AS (cairn_natural_key(name)) STORED`;
const onType = sql`device_type_id uuid NOT NULL REFERENCES device_types(id) ON DELETE CASCADE`;
const onDevice = sql`device_id uuid NOT NULL REFERENCES devices(id) ON DELETE CASCADE`;
const named = sql`name varchar(64) NOT NULL, ${natural}, label varchar(64) NOT NULL DEFAULT '', type varchar(50)`;
const draws = sql`maximum_draw integer CHECK (maximum_draw >= 1), allocated_draw integer CHECK (allocated_draw >= 1)`;
const described = sql`description varchar(200) NOT NULL DEFAULT ''`;
const component = sql`mark_connected boolean NOT NULL DEFAULT false, ${described}, custom_fields jsonb NOT NULL DEFAULT '{}'`;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['console_port_templates', 'console_server_port_templates']) {
    await sql`CREATE TABLE ${sql.table(table)} (${base}, ${onType}, ${named}, ${described}, ${audit}, UNIQUE (device_type_id, name))`.execute(db);
  }
  for (const table of ['console_ports', 'console_server_ports']) {
    await sql`CREATE TABLE ${sql.table(table)} (${base}, ${onDevice}, ${named}, speed integer, ${component}, ${audit}, UNIQUE (device_id, name))`.execute(db);
  }
  await sql`CREATE TABLE power_port_templates (${base}, ${onType}, ${named}, ${draws}, ${described}, ${audit}, UNIQUE (device_type_id, name))`.execute(db);
  await sql`CREATE TABLE power_outlet_templates (${base}, ${onType}, ${named},
      power_port_id uuid REFERENCES power_port_templates(id) ON DELETE SET NULL, feed_leg varchar(50),
      ${described}, ${audit}, UNIQUE (device_type_id, name))`.execute(db);
  await sql`CREATE TABLE power_ports (${base}, ${onDevice}, ${named}, ${draws}, ${component}, ${audit}, UNIQUE (device_id, name))`.execute(db);
  await sql`CREATE TABLE power_outlets (${base}, ${onDevice}, ${named}, status varchar(50) NOT NULL DEFAULT 'enabled',
      power_port_id uuid REFERENCES power_ports(id) ON DELETE SET NULL, feed_leg varchar(50),
      ${component}, ${audit}, UNIQUE (device_id, name))`.execute(db);
  for (const table of ['console_port_templates', 'console_server_port_templates', 'power_port_templates', 'power_outlet_templates']) {
    await sql`CREATE INDEX ${sql.raw(`${table}_natural_order_idx`)} ON ${sql.table(table)} (tenant_id, device_type_id, name_natural, id)`.execute(db);
  }
  for (const table of ['console_ports', 'console_server_ports', 'power_ports', 'power_outlets']) {
    await sql`CREATE INDEX ${sql.raw(`${table}_natural_order_idx`)} ON ${sql.table(table)} (tenant_id, device_id, name_natural, id)`.execute(db);
  }
  await sql`CREATE INDEX power_outlet_templates_power_port_idx ON power_outlet_templates (power_port_id) WHERE power_port_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX power_outlets_power_port_idx ON power_outlets (power_port_id) WHERE power_port_id IS NOT NULL`.execute(db);

  await sql`CREATE TABLE power_panels (
      ${base},
      site_id uuid NOT NULL REFERENCES sites(id) ON DELETE RESTRICT,
      location_id uuid REFERENCES locations(id) ON DELETE RESTRICT,
      name varchar(100) NOT NULL, ${natural}, ${described}, comments text NOT NULL DEFAULT '',
      custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (site_id, name)
    )`.execute(db);
  await sql`CREATE INDEX power_panels_order_idx ON power_panels (tenant_id, site_id, name_natural, id)`.execute(db);
  await sql`CREATE INDEX power_panels_location_idx ON power_panels (location_id) WHERE location_id IS NOT NULL`.execute(db);

  await sql`CREATE TABLE power_feeds (
      ${base},
      power_panel_id uuid NOT NULL REFERENCES power_panels(id) ON DELETE RESTRICT,
      rack_id uuid REFERENCES racks(id) ON DELETE RESTRICT,
      name varchar(100) NOT NULL, ${natural},
      status varchar(50) NOT NULL DEFAULT 'active', type varchar(50) NOT NULL DEFAULT 'primary',
      supply varchar(50) NOT NULL DEFAULT 'ac', phase varchar(50) NOT NULL DEFAULT 'single-phase',
      voltage smallint NOT NULL DEFAULT 120 CHECK (voltage <> 0),
      amperage smallint NOT NULL DEFAULT 20 CHECK (amperage >= 1),
      max_utilization smallint NOT NULL DEFAULT 80 CHECK (max_utilization BETWEEN 1 AND 100),
      available_power integer NOT NULL GENERATED ALWAYS AS (round(abs(voltage::integer) * amperage::integer * max_utilization::integer / 100.0
        * CASE WHEN phase = 'three-phase' THEN 1.732 ELSE 1 END)::integer) STORED,
      mark_connected boolean NOT NULL DEFAULT false, ${described}, comments text NOT NULL DEFAULT '',
      owner_id uuid REFERENCES owners(id) ON DELETE RESTRICT,
      custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (power_panel_id, name)
    )`.execute(db);
  await sql`CREATE INDEX power_feeds_order_idx ON power_feeds (tenant_id, power_panel_id, name_natural, id)`.execute(db);
  await sql`CREATE INDEX power_feeds_rack_idx ON power_feeds (rack_id) WHERE rack_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX power_feeds_owner_idx ON power_feeds (owner_id) WHERE owner_id IS NOT NULL`.execute(db);
}
