// Front and rear ports (patch panels) on devices and device types, and one table for both ends of every cable.
// A cable end may now be an interface, a front port or a rear port, so the two per-end join tables (which could
// only point at interfaces) become cable_terminations, keyed by the port itself: its primary key
// (termination_type, termination_id) is what keeps one port off two cables, across both ends and under
// concurrent writes, without any SELECT-then-INSERT race.
import { sql, type Kysely } from 'kysely';

const audit = sql`created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now()`;
const base = sql`id uuid PRIMARY KEY, numid bigint NOT NULL, tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE`;
const natural = sql`name_natural text NOT NULL GENERATED ALWAYS AS (cairn_natural_key(name)) STORED`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE rear_port_templates (
      ${base},
      device_type_id uuid NOT NULL REFERENCES device_types(id) ON DELETE CASCADE,
      name varchar(64) NOT NULL, ${natural}, type varchar(50) NOT NULL,
      positions integer NOT NULL DEFAULT 1 CHECK (positions BETWEEN 1 AND 1024),
      description varchar(200) NOT NULL DEFAULT '', ${audit},
      UNIQUE (device_type_id, name)
    )`.execute(db);
  await sql`CREATE TABLE front_port_templates (
      ${base},
      device_type_id uuid NOT NULL REFERENCES device_types(id) ON DELETE CASCADE,
      name varchar(64) NOT NULL, ${natural}, type varchar(50) NOT NULL,
      rear_port_id uuid NOT NULL REFERENCES rear_port_templates(id) ON DELETE CASCADE,
      rear_port_position integer NOT NULL DEFAULT 1 CHECK (rear_port_position BETWEEN 1 AND 1024),
      description varchar(200) NOT NULL DEFAULT '', ${audit},
      UNIQUE (device_type_id, name), UNIQUE (rear_port_id, rear_port_position)
    )`.execute(db);
  await sql`CREATE TABLE rear_ports (
      ${base},
      device_id uuid NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      name varchar(64) NOT NULL, ${natural}, type varchar(50) NOT NULL,
      positions integer NOT NULL DEFAULT 1 CHECK (positions BETWEEN 1 AND 1024),
      description varchar(200) NOT NULL DEFAULT '', custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (device_id, name)
    )`.execute(db);
  await sql`CREATE TABLE front_ports (
      ${base},
      device_id uuid NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      name varchar(64) NOT NULL, ${natural}, type varchar(50) NOT NULL,
      rear_port_id uuid NOT NULL REFERENCES rear_ports(id) ON DELETE CASCADE,
      rear_port_position integer NOT NULL DEFAULT 1 CHECK (rear_port_position BETWEEN 1 AND 1024),
      description varchar(200) NOT NULL DEFAULT '', custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (device_id, name), UNIQUE (rear_port_id, rear_port_position)
    )`.execute(db);
  for (const table of ['rear_port_templates', 'front_port_templates']) {
    await sql`CREATE INDEX ${sql.raw(`${table}_natural_order_idx`)} ON ${sql.table(table)} (tenant_id, device_type_id, name_natural, id)`.execute(db);
  }
  for (const table of ['rear_ports', 'front_ports']) {
    await sql`CREATE INDEX ${sql.raw(`${table}_natural_order_idx`)} ON ${sql.table(table)} (tenant_id, device_id, name_natural, id)`.execute(db);
  }
  await sql`CREATE INDEX front_port_templates_rear_port_idx ON front_port_templates (rear_port_id)`.execute(db);

  // No foreign key on termination_id (it points into one of three tables): deleting a port or a device removes
  // its rows in the dcim hooks (deleteCablesLosingAnEnd), which also delete the cables left without an end.
  await sql`CREATE TABLE cable_terminations (
      cable_id uuid NOT NULL REFERENCES cables(id) ON DELETE CASCADE,
      cable_end char(1) NOT NULL CHECK (cable_end IN ('A', 'B')),
      termination_type varchar(50) NOT NULL CHECK (termination_type IN ('dcim.interface', 'dcim.frontport', 'dcim.rearport')),
      termination_id uuid NOT NULL,
      PRIMARY KEY (termination_type, termination_id)
    )`.execute(db);
  await sql`CREATE INDEX cable_terminations_cable_idx ON cable_terminations (cable_id, cable_end)`.execute(db);
  // An interface on both old tables (possible before: only a hook looked across them) keeps its A end.
  await sql`INSERT INTO cable_terminations (cable_id, cable_end, termination_type, termination_id)
    SELECT cable_id, 'A', 'dcim.interface', interface_id FROM cable_a_terminations
    UNION ALL SELECT cable_id, 'B', 'dcim.interface', interface_id FROM cable_b_terminations
    ON CONFLICT DO NOTHING`.execute(db);
  await sql`DROP TABLE cable_a_terminations`.execute(db);
  await sql`DROP TABLE cable_b_terminations`.execute(db);
}
