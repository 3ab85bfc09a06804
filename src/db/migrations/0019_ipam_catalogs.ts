// IPAM as NetBox users know it: RIRs and aggregates (the space an organisation holds), roles for prefixes and
// VLANs, IP ranges, and VLAN groups (scoped to a site or a region, with the VIDs they may use; a VID once per
// group). Every foreign key has its index, and every default ordering one that serves it.
import { sql, type Kysely } from 'kysely';

const audit = sql`created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now()`;
const base = sql`id uuid PRIMARY KEY, numid bigint NOT NULL, tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE`;
const desc = sql`description varchar(200) NOT NULL DEFAULT ''`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE rirs (
      ${base}, name varchar(100) NOT NULL, slug varchar(100) NOT NULL, is_private boolean NOT NULL DEFAULT false, ${desc}, ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    );
    CREATE TABLE aggregates (
      ${base}, prefix cidr NOT NULL, rir_id uuid NOT NULL REFERENCES rirs(id) ON DELETE RESTRICT, date_added date, ${desc}, ${audit}
    );
    CREATE INDEX aggregates_rir_id_idx ON aggregates (rir_id);
    CREATE INDEX aggregates_tenant_prefix ON aggregates (tenant_id, prefix);
    CREATE INDEX aggregates_prefix ON aggregates USING gist (prefix inet_ops);

    CREATE TABLE ipam_roles (
      ${base}, name varchar(100) NOT NULL, slug varchar(100) NOT NULL, weight integer NOT NULL DEFAULT 1000 CHECK (weight >= 0), ${desc}, ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    );
    CREATE INDEX ipam_roles_tenant_weight ON ipam_roles (tenant_id, weight, name);
    ALTER TABLE prefixes ADD COLUMN role_id uuid REFERENCES ipam_roles(id) ON DELETE SET NULL;
    CREATE INDEX prefixes_role_id_idx ON prefixes (role_id) WHERE role_id IS NOT NULL;
    ALTER TABLE vlans ADD COLUMN role_id uuid REFERENCES ipam_roles(id) ON DELETE SET NULL;
    CREATE INDEX vlans_role_id_idx ON vlans (role_id) WHERE role_id IS NOT NULL;

    CREATE TABLE ip_ranges (
      ${base}, start_address inet NOT NULL, end_address inet NOT NULL,
      vrf_id uuid REFERENCES vrfs(id) ON DELETE RESTRICT,
      status_id uuid REFERENCES statuses(id) ON DELETE RESTRICT,
      role_id uuid REFERENCES ipam_roles(id) ON DELETE SET NULL,
      mark_utilized boolean NOT NULL DEFAULT false, ${desc}, ${audit},
      CHECK (family(start_address) = family(end_address) AND host(start_address)::inet <= host(end_address)::inet)
    );
    CREATE INDEX ip_ranges_vrf_id_idx ON ip_ranges (vrf_id) WHERE vrf_id IS NOT NULL;
    CREATE INDEX ip_ranges_status_id_idx ON ip_ranges (status_id) WHERE status_id IS NOT NULL;
    CREATE INDEX ip_ranges_role_id_idx ON ip_ranges (role_id) WHERE role_id IS NOT NULL;
    CREATE INDEX ip_ranges_tenant_vrf_start ON ip_ranges (tenant_id, vrf_id, start_address);

    CREATE TABLE vlan_groups (
      ${base}, name varchar(100) NOT NULL, slug varchar(100) NOT NULL,
      site_id uuid REFERENCES sites(id) ON DELETE CASCADE,
      region_id uuid REFERENCES regions(id) ON DELETE CASCADE,
      min_vid integer NOT NULL DEFAULT 1 CHECK (min_vid BETWEEN 1 AND 4094),
      max_vid integer NOT NULL DEFAULT 4094 CHECK (max_vid BETWEEN 1 AND 4094),
      ${desc}, ${audit},
      CHECK (min_vid <= max_vid), CHECK (site_id IS NULL OR region_id IS NULL),
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    );
    CREATE INDEX vlan_groups_site_id_idx ON vlan_groups (site_id) WHERE site_id IS NOT NULL;
    CREATE INDEX vlan_groups_region_id_idx ON vlan_groups (region_id) WHERE region_id IS NOT NULL;
    ALTER TABLE vlans ADD COLUMN group_id uuid REFERENCES vlan_groups(id) ON DELETE SET NULL;
    -- A VID once per group (NetBox's rule); VLANs outside a group are not constrained.
    CREATE UNIQUE INDEX vlans_group_vid ON vlans (group_id, vid) WHERE group_id IS NOT NULL;
    CREATE INDEX vlans_group_id_idx ON vlans (group_id) WHERE group_id IS NOT NULL;
  `.execute(db);
  // IP ranges take the statuses prefixes and VLANs share (0017), Active by default where it is the default there.
  await sql`UPDATE statuses SET available_to = ARRAY(SELECT DISTINCT unnest(available_to || ARRAY['ipam.iprange']::text[]) ORDER BY 1)
    WHERE slug IN ('active', 'reserved', 'deprecated')`.execute(db);
  await sql`UPDATE statuses SET default_for = ARRAY(SELECT DISTINCT unnest(default_for || ARRAY['ipam.iprange']::text[]) ORDER BY 1)
    WHERE 'ipam.prefix' = ANY(default_for)`.execute(db);
}
