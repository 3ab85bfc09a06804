// Console and power port templates (migration 0042) belong to a device type or a module type, as interface and
// port templates have since 0043 (NetBox's ModularComponentTemplateModel), and the console and power ports made for
// a module carry it and go with it.
import { sql, type Kysely } from 'kysely';

const TEMPLATES = ['console_port_templates', 'console_server_port_templates', 'power_port_templates', 'power_outlet_templates'];
const COMPONENTS = ['console_ports', 'console_server_ports', 'power_ports', 'power_outlets'];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TEMPLATES) {
    await sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN device_type_id DROP NOT NULL`.execute(db);
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN module_type_id uuid REFERENCES module_types(id) ON DELETE CASCADE`.execute(db);
    await sql`ALTER TABLE ${sql.table(table)} ADD CONSTRAINT ${sql.raw(`${table}_one_owner`)} CHECK ((device_type_id IS NULL) <> (module_type_id IS NULL))`.execute(db);
    await sql`ALTER TABLE ${sql.table(table)} ADD CONSTRAINT ${sql.raw(`${table}_module_type_name_key`)} UNIQUE (module_type_id, name)`.execute(db);
    // A nullable ordering column is ordered NULLS FIRST by the list query: the order index follows it.
    await sql`DROP INDEX ${sql.raw(`${table}_natural_order_idx`)}`.execute(db);
    await sql`CREATE INDEX ${sql.raw(`${table}_natural_order_idx`)} ON ${sql.table(table)} (tenant_id, device_type_id NULLS FIRST, name_natural, id)`.execute(db);
    await sql`CREATE INDEX ${sql.raw(`${table}_module_type_idx`)} ON ${sql.table(table)} (module_type_id) WHERE module_type_id IS NOT NULL`.execute(db);
  }
  for (const table of COMPONENTS) {
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN module_id uuid REFERENCES modules(id) ON DELETE CASCADE`.execute(db);
    await sql`CREATE INDEX ${sql.raw(`${table}_module_idx`)} ON ${sql.table(table)} (module_id) WHERE module_id IS NOT NULL`.execute(db);
  }
}
