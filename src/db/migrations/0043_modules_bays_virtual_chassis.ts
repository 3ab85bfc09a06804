// Modular hardware and what sits in or around a device, as NetBox models it: module types and modules installed in
// module bays (their components made from the module type's templates), device bays holding child devices,
// inventory items (a tree per device) and their templates, and virtual chassis grouping member devices.
// The interface, front- and rear-port templates may now belong to a module type instead of a device type (exactly
// one of the two, a CHECK), and interfaces and ports made for a module carry it (deleted with it, as in NetBox).
import { sql, type Kysely } from 'kysely';

const audit = sql`created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now()`;
const base = sql`id uuid PRIMARY KEY, numid bigint NOT NULL, tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE`;
const natural = sql`name_natural text NOT NULL GENERATED ALWAYS AS (cairn_natural_key(name)) STORED`;
const cf = sql`custom_fields jsonb NOT NULL DEFAULT '{}'`;

async function index(db: Kysely<unknown>, name: string, table: string, columns: string, where = ''): Promise<void> {
  await sql`CREATE INDEX ${sql.raw(name)} ON ${sql.table(table)} (${sql.raw(columns)}) ${sql.raw(where ? `WHERE ${where}` : '')}`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE device_types ADD COLUMN subdevice_role varchar(50)`.execute(db);

  await sql`CREATE TABLE module_types (
      ${base},
      manufacturer_id uuid NOT NULL REFERENCES manufacturers(id) ON DELETE RESTRICT,
      model varchar(100) NOT NULL, part_number varchar(50) NOT NULL DEFAULT '', airflow varchar(50),
      description varchar(200) NOT NULL DEFAULT '', comments text NOT NULL DEFAULT '', ${cf}, ${audit},
      UNIQUE (manufacturer_id, model)
    )`.execute(db);
  await index(db, 'module_types_order_idx', 'module_types', 'tenant_id, model, id');

  // Component templates: on a device type or on a module type, never both, never neither.
  for (const table of ['interface_templates', 'front_port_templates', 'rear_port_templates']) {
    await sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN device_type_id DROP NOT NULL`.execute(db);
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN module_type_id uuid REFERENCES module_types(id) ON DELETE CASCADE`.execute(db);
    await sql`ALTER TABLE ${sql.table(table)} ADD CONSTRAINT ${sql.raw(`${table}_one_owner`)} CHECK ((device_type_id IS NULL) <> (module_type_id IS NULL))`.execute(db);
    await sql`ALTER TABLE ${sql.table(table)} ADD CONSTRAINT ${sql.raw(`${table}_module_type_name_key`)} UNIQUE (module_type_id, name)`.execute(db);
    // A nullable ordering column is ordered NULLS FIRST by the list query: the order index follows it.
    await sql`DROP INDEX ${sql.raw(`${table}_natural_order_idx`)}`.execute(db);
    await sql`CREATE INDEX ${sql.raw(`${table}_natural_order_idx`)} ON ${sql.table(table)} (tenant_id, device_type_id NULLS FIRST, name_natural, id)`.execute(db);
  }

  await sql`CREATE TABLE module_bay_templates (
      ${base},
      device_type_id uuid NOT NULL REFERENCES device_types(id) ON DELETE CASCADE,
      name varchar(64) NOT NULL, ${natural}, label varchar(64) NOT NULL DEFAULT '', position varchar(30) NOT NULL DEFAULT '',
      description varchar(200) NOT NULL DEFAULT '', ${audit},
      UNIQUE (device_type_id, name)
    )`.execute(db);
  await index(db, 'module_bay_templates_natural_order_idx', 'module_bay_templates', 'tenant_id, device_type_id, name_natural, id');

  await sql`CREATE TABLE module_bays (
      ${base},
      device_id uuid NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      name varchar(64) NOT NULL, ${natural}, label varchar(64) NOT NULL DEFAULT '', position varchar(30) NOT NULL DEFAULT '',
      description varchar(200) NOT NULL DEFAULT '', ${cf}, ${audit},
      UNIQUE (device_id, name)
    )`.execute(db);
  await index(db, 'module_bays_natural_order_idx', 'module_bays', 'tenant_id, device_id, name_natural, id');

  // One module per bay: the unique key on module_bay_id settles two concurrent installs.
  await sql`CREATE TABLE modules (
      ${base},
      device_id uuid NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      module_bay_id uuid NOT NULL UNIQUE REFERENCES module_bays(id) ON DELETE CASCADE,
      module_type_id uuid NOT NULL REFERENCES module_types(id) ON DELETE RESTRICT,
      status varchar(50) NOT NULL DEFAULT 'active', serial varchar(50) NOT NULL DEFAULT '', asset_tag varchar(50),
      description varchar(200) NOT NULL DEFAULT '', comments text NOT NULL DEFAULT '', ${cf}, ${audit},
      UNIQUE (tenant_id, asset_tag)
    )`.execute(db);
  await index(db, 'modules_order_idx', 'modules', 'tenant_id, module_bay_id, id');
  await index(db, 'modules_device_idx', 'modules', 'device_id');
  await index(db, 'modules_module_type_idx', 'modules', 'module_type_id');

  // A module bay may sit in a module (a bay of a line card).
  await sql`ALTER TABLE module_bays ADD COLUMN module_id uuid REFERENCES modules(id) ON DELETE CASCADE`.execute(db);
  await index(db, 'module_bays_module_idx', 'module_bays', 'module_id', 'module_id IS NOT NULL');

  for (const table of ['interfaces', 'front_ports', 'rear_ports']) {
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN module_id uuid REFERENCES modules(id) ON DELETE CASCADE`.execute(db);
    await index(db, `${table}_module_idx`, table, 'module_id', 'module_id IS NOT NULL');
  }
  for (const table of ['interface_templates', 'front_port_templates', 'rear_port_templates']) {
    await index(db, `${table}_module_type_idx`, table, 'module_type_id', 'module_type_id IS NOT NULL');
  }

  await sql`CREATE TABLE device_bay_templates (
      ${base},
      device_type_id uuid NOT NULL REFERENCES device_types(id) ON DELETE CASCADE,
      name varchar(64) NOT NULL, ${natural}, label varchar(64) NOT NULL DEFAULT '',
      description varchar(200) NOT NULL DEFAULT '', ${audit},
      UNIQUE (device_type_id, name)
    )`.execute(db);
  await index(db, 'device_bay_templates_natural_order_idx', 'device_bay_templates', 'tenant_id, device_type_id, name_natural, id');

  // A child device sits in one bay at most: the unique key on installed_device_id.
  await sql`CREATE TABLE device_bays (
      ${base},
      device_id uuid NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      name varchar(64) NOT NULL, ${natural}, label varchar(64) NOT NULL DEFAULT '',
      installed_device_id uuid UNIQUE REFERENCES devices(id) ON DELETE SET NULL,
      description varchar(200) NOT NULL DEFAULT '', ${cf}, ${audit},
      UNIQUE (device_id, name)
    )`.execute(db);
  await index(db, 'device_bays_natural_order_idx', 'device_bays', 'tenant_id, device_id, name_natural, id');

  await sql`CREATE TABLE inventory_item_roles (
      ${base},
      name varchar(100) NOT NULL, slug varchar(100) NOT NULL, color varchar(6) NOT NULL DEFAULT '9e9e9e',
      description varchar(200) NOT NULL DEFAULT '', ${cf}, ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    )`.execute(db);
  await index(db, 'inventory_item_roles_order_idx', 'inventory_item_roles', 'tenant_id, name, id');

  await sql`CREATE TABLE inventory_item_templates (
      ${base},
      device_type_id uuid NOT NULL REFERENCES device_types(id) ON DELETE CASCADE,
      parent_id uuid REFERENCES inventory_item_templates(id) ON DELETE CASCADE,
      name varchar(64) NOT NULL, ${natural}, label varchar(64) NOT NULL DEFAULT '',
      role_id uuid REFERENCES inventory_item_roles(id) ON DELETE RESTRICT,
      manufacturer_id uuid REFERENCES manufacturers(id) ON DELETE RESTRICT,
      part_id varchar(50) NOT NULL DEFAULT '', description varchar(200) NOT NULL DEFAULT '', ${audit}
    )`.execute(db);
  await index(db, 'inventory_item_templates_natural_order_idx', 'inventory_item_templates', 'tenant_id, device_type_id, name_natural, id');
  await index(db, 'inventory_item_templates_parent_idx', 'inventory_item_templates', 'parent_id', 'parent_id IS NOT NULL');
  await index(db, 'inventory_item_templates_role_idx', 'inventory_item_templates', 'role_id', 'role_id IS NOT NULL');
  await index(db, 'inventory_item_templates_manufacturer_idx', 'inventory_item_templates', 'manufacturer_id', 'manufacturer_id IS NOT NULL');

  await sql`CREATE TABLE inventory_items (
      ${base},
      device_id uuid NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      parent_id uuid REFERENCES inventory_items(id) ON DELETE CASCADE,
      name varchar(64) NOT NULL, ${natural}, label varchar(64) NOT NULL DEFAULT '',
      role_id uuid REFERENCES inventory_item_roles(id) ON DELETE RESTRICT,
      manufacturer_id uuid REFERENCES manufacturers(id) ON DELETE RESTRICT,
      part_id varchar(50) NOT NULL DEFAULT '', serial varchar(50) NOT NULL DEFAULT '', asset_tag varchar(50),
      discovered boolean NOT NULL DEFAULT false, description varchar(200) NOT NULL DEFAULT '', ${cf}, ${audit},
      UNIQUE (tenant_id, asset_tag)
    )`.execute(db);
  await index(db, 'inventory_items_natural_order_idx', 'inventory_items', 'tenant_id, device_id, name_natural, id');
  await index(db, 'inventory_items_parent_idx', 'inventory_items', 'parent_id', 'parent_id IS NOT NULL');
  await index(db, 'inventory_items_role_idx', 'inventory_items', 'role_id', 'role_id IS NOT NULL');
  await index(db, 'inventory_items_manufacturer_idx', 'inventory_items', 'manufacturer_id', 'manufacturer_id IS NOT NULL');
  // NetBox's unique (device, parent, name): a NULL parent is one more value here, as PostgreSQL 13 has no NULLS NOT DISTINCT.
  await sql`CREATE UNIQUE INDEX inventory_items_name_key ON inventory_items (device_id, coalesce(parent_id, '00000000-0000-0000-0000-000000000000'::uuid), name)`.execute(db);
  await sql`CREATE UNIQUE INDEX inventory_item_templates_name_key ON inventory_item_templates (device_type_id, coalesce(parent_id, '00000000-0000-0000-0000-000000000000'::uuid), name)`.execute(db);

  await sql`CREATE TABLE virtual_chassis (
      ${base},
      name varchar(64) NOT NULL, domain varchar(30) NOT NULL DEFAULT '',
      master_id uuid REFERENCES devices(id) ON DELETE SET NULL,
      description varchar(200) NOT NULL DEFAULT '', comments text NOT NULL DEFAULT '', ${cf}, ${audit}
    )`.execute(db);
  await index(db, 'virtual_chassis_order_idx', 'virtual_chassis', 'tenant_id, name, id');
  await index(db, 'virtual_chassis_master_idx', 'virtual_chassis', 'master_id', 'master_id IS NOT NULL');

  // A position is taken once per chassis: the unique key settles two members racing for it.
  await sql`ALTER TABLE devices ADD COLUMN virtual_chassis_id uuid REFERENCES virtual_chassis(id) ON DELETE SET NULL,
    ADD COLUMN vc_position integer CHECK (vc_position BETWEEN 0 AND 255),
    ADD COLUMN vc_priority integer CHECK (vc_priority BETWEEN 0 AND 255),
    ADD CONSTRAINT devices_vc_position_key UNIQUE (virtual_chassis_id, vc_position)`.execute(db);
  await index(db, 'devices_virtual_chassis_idx', 'devices', 'virtual_chassis_id', 'virtual_chassis_id IS NOT NULL');
}
