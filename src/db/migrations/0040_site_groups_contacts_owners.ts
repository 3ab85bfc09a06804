// Site groups (NetBox's dcim.sitegroup, a tree) and a site's group; an owner (NetBox's tenant, migration 0039) on
// every existing model NetBox lets carry a tenant; contacts in groups (a tree), contact roles, and contact
// assignments naming any object by model name and id, as journal entries do. One contact holds one role once per
// object (NetBox's unique constraint).
import { sql, type Kysely } from 'kysely';

const audit = sql`created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now()`;
const base = sql`id uuid PRIMARY KEY, numid bigint NOT NULL, tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE`;

/** The existing tables of models NetBox gives a tenant (TenancyMixin and its kin). */
const OWNED_TABLES = [
  'sites', 'locations', 'racks', 'devices', 'cables', 'vrfs', 'route_targets', 'aggregates', 'prefixes', 'ip_ranges',
  'ip_addresses', 'vlans', 'vlan_groups', 'clusters', 'virtual_machines',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE site_groups (
      ${base},
      name varchar(100) NOT NULL, slug varchar(100) NOT NULL,
      parent_id uuid REFERENCES site_groups(id) ON DELETE RESTRICT,
      description varchar(200) NOT NULL DEFAULT '', custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    )`.execute(db);
  await sql`CREATE INDEX site_groups_order_idx ON site_groups (tenant_id, name, id)`.execute(db);
  await sql`CREATE INDEX site_groups_parent_idx ON site_groups (parent_id) WHERE parent_id IS NOT NULL`.execute(db);
  await sql`ALTER TABLE sites ADD COLUMN group_id uuid REFERENCES site_groups(id) ON DELETE SET NULL`.execute(db);
  await sql`CREATE INDEX sites_group_idx ON sites (group_id) WHERE group_id IS NOT NULL`.execute(db);

  for (const table of OWNED_TABLES) {
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN owner_id uuid REFERENCES owners(id) ON DELETE RESTRICT`.execute(db);
    await sql`CREATE INDEX ${sql.id(`${table}_owner_idx`)} ON ${sql.table(table)} (owner_id) WHERE owner_id IS NOT NULL`.execute(db);
  }

  await sql`CREATE TABLE contact_groups (
      ${base},
      name varchar(100) NOT NULL, slug varchar(100) NOT NULL,
      parent_id uuid REFERENCES contact_groups(id) ON DELETE RESTRICT,
      description varchar(200) NOT NULL DEFAULT '', custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    )`.execute(db);
  await sql`CREATE INDEX contact_groups_order_idx ON contact_groups (tenant_id, name, id)`.execute(db);
  await sql`CREATE INDEX contact_groups_parent_idx ON contact_groups (parent_id) WHERE parent_id IS NOT NULL`.execute(db);

  await sql`CREATE TABLE contact_roles (
      ${base},
      name varchar(100) NOT NULL, slug varchar(100) NOT NULL,
      description varchar(200) NOT NULL DEFAULT '', custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    )`.execute(db);
  await sql`CREATE INDEX contact_roles_order_idx ON contact_roles (tenant_id, name, id)`.execute(db);

  await sql`CREATE TABLE contacts (
      ${base},
      group_id uuid REFERENCES contact_groups(id) ON DELETE SET NULL,
      name varchar(100) NOT NULL,
      name_natural text NOT NULL GENERATED ALWAYS AS (cairn_natural_key(name)) STORED,
      title varchar(100) NOT NULL DEFAULT '', phone varchar(50) NOT NULL DEFAULT '', email varchar(254) NOT NULL DEFAULT '',
      address varchar(200) NOT NULL DEFAULT '', link varchar(200) NOT NULL DEFAULT '',
      description varchar(200) NOT NULL DEFAULT '', comments text NOT NULL DEFAULT '',
      custom_fields jsonb NOT NULL DEFAULT '{}', ${audit}
    )`.execute(db);
  await sql`CREATE INDEX contacts_order_idx ON contacts (tenant_id, name_natural, id)`.execute(db);
  await sql`CREATE INDEX contacts_group_idx ON contacts (group_id) WHERE group_id IS NOT NULL`.execute(db);

  await sql`CREATE TABLE contact_assignments (
      ${base},
      object_type varchar(100) NOT NULL, object_id uuid NOT NULL,
      contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE RESTRICT,
      role_id uuid NOT NULL REFERENCES contact_roles(id) ON DELETE RESTRICT,
      priority varchar(50),
      custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (tenant_id, object_type, object_id, contact_id, role_id)
    )`.execute(db);
  await sql`CREATE INDEX contact_assignments_order_idx ON contact_assignments (tenant_id, created, id)`.execute(db);
  await sql`CREATE INDEX contact_assignments_object_idx ON contact_assignments (object_type, object_id)`.execute(db);
  await sql`CREATE INDEX contact_assignments_contact_idx ON contact_assignments (contact_id)`.execute(db);
  await sql`CREATE INDEX contact_assignments_role_idx ON contact_assignments (role_id)`.execute(db);
}
