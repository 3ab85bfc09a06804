// Locations (a tree inside a site), rack roles and racks; a device's place in a rack (rack, position, face) and
// whether its type fills the rack's depth (NetBox's is_full_depth, default true). Rack and location names are
// unique per site. Two devices sharing a unit is refused by the device's validate hook under an advisory lock
// on the rack (dcim/rack-rules.ts), not by a constraint: the units a device covers depend on its type's height.
import { sql, type Kysely } from 'kysely';

const audit = sql`created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now()`;
const base = sql`id uuid PRIMARY KEY, numid bigint NOT NULL, tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE locations (
      ${base},
      site_id uuid NOT NULL REFERENCES sites(id) ON DELETE RESTRICT,
      parent_id uuid REFERENCES locations(id) ON DELETE RESTRICT,
      name varchar(100) NOT NULL, slug varchar(100) NOT NULL, status varchar(30) NOT NULL DEFAULT 'active',
      description varchar(200) NOT NULL DEFAULT '', custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (site_id, name), UNIQUE (site_id, slug)
    )`.execute(db);
  await sql`CREATE INDEX locations_order_idx ON locations (tenant_id, site_id, name, id)`.execute(db);
  await sql`CREATE INDEX locations_parent_idx ON locations (parent_id) WHERE parent_id IS NOT NULL`.execute(db);

  await sql`CREATE TABLE rack_roles (
      ${base},
      name varchar(100) NOT NULL, slug varchar(100) NOT NULL, color varchar(6) NOT NULL DEFAULT '9e9e9e',
      description varchar(200) NOT NULL DEFAULT '', ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    )`.execute(db);

  await sql`CREATE TABLE racks (
      ${base},
      site_id uuid NOT NULL REFERENCES sites(id) ON DELETE RESTRICT,
      location_id uuid REFERENCES locations(id) ON DELETE RESTRICT,
      name varchar(100) NOT NULL,
      name_natural text NOT NULL GENERATED ALWAYS AS (cairn_natural_key(name)) STORED,
      facility_id varchar(50), status varchar(30) NOT NULL DEFAULT 'active',
      role_id uuid REFERENCES rack_roles(id) ON DELETE SET NULL,
      u_height integer NOT NULL DEFAULT 42 CHECK (u_height BETWEEN 1 AND 100),
      starting_unit integer NOT NULL DEFAULT 1 CHECK (starting_unit >= 1),
      desc_units boolean NOT NULL DEFAULT false, width varchar(5) NOT NULL DEFAULT '19',
      serial varchar(50) NOT NULL DEFAULT '', asset_tag varchar(50),
      description varchar(200) NOT NULL DEFAULT '', comments text NOT NULL DEFAULT '',
      custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (site_id, name), UNIQUE (tenant_id, asset_tag)
    )`.execute(db);
  await sql`CREATE INDEX racks_order_idx ON racks (tenant_id, site_id, name_natural, id)`.execute(db);
  await sql`CREATE INDEX racks_location_idx ON racks (location_id) WHERE location_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX racks_role_idx ON racks (role_id) WHERE role_id IS NOT NULL`.execute(db);

  await sql`ALTER TABLE device_types ADD COLUMN is_full_depth boolean NOT NULL DEFAULT true`.execute(db);
  await sql`ALTER TABLE devices
    ADD COLUMN rack_id uuid REFERENCES racks(id) ON DELETE RESTRICT,
    ADD COLUMN position integer CHECK (position >= 1),
    ADD COLUMN face varchar(5)`.execute(db);
  await sql`CREATE INDEX devices_rack_idx ON devices (rack_id, position) WHERE rack_id IS NOT NULL`.execute(db);
}
