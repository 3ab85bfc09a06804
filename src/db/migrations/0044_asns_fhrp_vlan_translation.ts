// NetBox's remaining IPAM models: AS numbers and ASN ranges (ipam.asn, ipam.asnrange), first-hop redundancy
// groups and their interface assignments (ipam.fhrpgroup, ipam.fhrpgroupassignment; an IP address may be a
// group's virtual address), application service templates (ipam.servicetemplate) and VLAN translation policies
// with their rules (ipam.vlantranslationpolicy, ipam.vlantranslationrule; interfaces and VM interfaces name one).
import { sql, type Kysely } from 'kysely';

const audit = sql`created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now()`;
const base = sql`id uuid PRIMARY KEY, numid bigint NOT NULL, tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE`;
const desc = sql`description varchar(200) NOT NULL DEFAULT ''`;
const comments = sql`comments text NOT NULL DEFAULT ''`;
const cf = sql`custom_fields jsonb NOT NULL DEFAULT '{}'`;

export async function up(db: Kysely<unknown>): Promise<void> {
  // An ASN is shown as NetBox writes it: AS65001, and a 4-byte one with its asdot form, AS4200000000 (64086.59904).
  // Stored (not computed per row) so a list's display is a column like any other.
  await sql`CREATE TABLE asns (
      ${base},
      asn bigint NOT NULL CHECK (asn BETWEEN 1 AND 4294967295),
      asn_display text NOT NULL GENERATED ALWAYS AS ('AS' || asn::text || CASE WHEN asn > 65535 THEN ' (' || (asn / 65536)::text || '.' || (asn % 65536)::text || ')' ELSE '' END) STORED,
      rir_id uuid NOT NULL REFERENCES rirs(id) ON DELETE RESTRICT,
      role_id uuid REFERENCES ipam_roles(id) ON DELETE SET NULL,
      owner_id uuid REFERENCES owners(id) ON DELETE RESTRICT,
      ${desc}, ${comments}, ${cf}, ${audit},
      UNIQUE (tenant_id, asn)
    )`.execute(db);
  await sql`CREATE INDEX asns_order_idx ON asns (tenant_id, asn, id)`.execute(db);
  await sql`CREATE INDEX asns_rir_idx ON asns (rir_id)`.execute(db);
  await sql`CREATE INDEX asns_role_idx ON asns (role_id) WHERE role_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX asns_owner_idx ON asns (owner_id) WHERE owner_id IS NOT NULL`.execute(db);
  await sql`CREATE TABLE asn_sites (
      asn_id uuid NOT NULL REFERENCES asns(id) ON DELETE CASCADE,
      site_id uuid NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
      PRIMARY KEY (asn_id, site_id)
    )`.execute(db);
  await sql`CREATE INDEX asn_sites_site_idx ON asn_sites (site_id)`.execute(db);

  await sql`CREATE TABLE asn_ranges (
      ${base},
      name varchar(100) NOT NULL, slug varchar(100) NOT NULL,
      name_natural text GENERATED ALWAYS AS (cairn_natural_key(name)) STORED,
      rir_id uuid NOT NULL REFERENCES rirs(id) ON DELETE RESTRICT,
      -- start_asn/end_asn (fields start and end): END is a reserved word in SQL.
      start_asn bigint NOT NULL CHECK (start_asn BETWEEN 1 AND 4294967295),
      end_asn bigint NOT NULL CHECK (end_asn BETWEEN 1 AND 4294967295),
      owner_id uuid REFERENCES owners(id) ON DELETE RESTRICT,
      ${desc}, ${cf}, ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    )`.execute(db);
  await sql`CREATE INDEX asn_ranges_order_idx ON asn_ranges (tenant_id, name_natural, id)`.execute(db);
  await sql`CREATE INDEX asn_ranges_rir_idx ON asn_ranges (rir_id)`.execute(db);
  await sql`CREATE INDEX asn_ranges_owner_idx ON asn_ranges (owner_id) WHERE owner_id IS NOT NULL`.execute(db);

  // NetBox's display of a group: "<name> VRRPv2: 10", the protocol's label spelt out here (an immutable CASE).
  await sql`CREATE TABLE fhrp_groups (
      ${base},
      protocol varchar(50) NOT NULL,
      group_id integer NOT NULL CHECK (group_id BETWEEN 0 AND 32767),
      name varchar(100) NOT NULL DEFAULT '',
      group_display text NOT NULL GENERATED ALWAYS AS (
        CASE WHEN name <> '' THEN name || ' ' ELSE '' END ||
        CASE protocol WHEN 'vrrp2' THEN 'VRRPv2' WHEN 'vrrp3' THEN 'VRRPv3' WHEN 'carp' THEN 'CARP' WHEN 'clusterxl' THEN 'ClusterXL'
          WHEN 'hsrp' THEN 'HSRP' WHEN 'glbp' THEN 'GLBP' WHEN 'other' THEN 'Other' ELSE protocol END || ': ' || group_id::text
      ) STORED,
      auth_type varchar(50),
      auth_key text,
      ${desc}, ${comments}, ${cf}, ${audit}
    )`.execute(db);
  await sql`CREATE INDEX fhrp_groups_order_idx ON fhrp_groups (tenant_id, protocol, group_id, id)`.execute(db);

  await sql`CREATE TABLE fhrp_group_assignments (
      ${base},
      group_id uuid NOT NULL REFERENCES fhrp_groups(id) ON DELETE CASCADE,
      interface_id uuid REFERENCES interfaces(id) ON DELETE CASCADE,
      vm_interface_id uuid REFERENCES vm_interfaces(id) ON DELETE CASCADE,
      priority integer NOT NULL CHECK (priority BETWEEN 0 AND 255),
      ${audit},
      CHECK ((interface_id IS NULL) <> (vm_interface_id IS NULL))
    )`.execute(db);
  // One assignment per group and interface (NetBox's unique_interface_group), for either interface kind.
  await sql`CREATE UNIQUE INDEX fhrp_group_assignments_interface_key ON fhrp_group_assignments (group_id, interface_id) WHERE interface_id IS NOT NULL`.execute(db);
  await sql`CREATE UNIQUE INDEX fhrp_group_assignments_vm_interface_key ON fhrp_group_assignments (group_id, vm_interface_id) WHERE vm_interface_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX fhrp_group_assignments_order_idx ON fhrp_group_assignments (tenant_id, priority DESC, id)`.execute(db);
  await sql`CREATE INDEX fhrp_group_assignments_group_idx ON fhrp_group_assignments (group_id)`.execute(db);
  await sql`CREATE INDEX fhrp_group_assignments_interface_idx ON fhrp_group_assignments (interface_id) WHERE interface_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX fhrp_group_assignments_vm_interface_idx ON fhrp_group_assignments (vm_interface_id) WHERE vm_interface_id IS NOT NULL`.execute(db);

  // An address may be a group's virtual address: a third assignment column beside the two interface ones.
  await sql`ALTER TABLE ip_addresses ADD COLUMN fhrp_group_id uuid REFERENCES fhrp_groups(id) ON DELETE SET NULL`.execute(db);
  await sql`CREATE INDEX ip_addresses_fhrp_group_idx ON ip_addresses (fhrp_group_id) WHERE fhrp_group_id IS NOT NULL`.execute(db);

  await sql`CREATE TABLE service_templates (
      ${base},
      name varchar(100) NOT NULL,
      protocol varchar(50) NOT NULL,
      ports integer[] NOT NULL,
      ${desc}, ${comments}, ${cf}, ${audit},
      UNIQUE (tenant_id, name)
    )`.execute(db);
  await sql`CREATE INDEX service_templates_order_idx ON service_templates (tenant_id, name, id)`.execute(db);

  await sql`CREATE TABLE vlan_translation_policies (
      ${base},
      name varchar(100) NOT NULL,
      ${desc}, ${comments}, ${cf}, ${audit},
      UNIQUE (tenant_id, name)
    )`.execute(db);
  await sql`CREATE INDEX vlan_translation_policies_order_idx ON vlan_translation_policies (tenant_id, name, id)`.execute(db);
  await sql`CREATE TABLE vlan_translation_rules (
      ${base},
      policy_id uuid NOT NULL REFERENCES vlan_translation_policies(id) ON DELETE CASCADE,
      local_vid integer NOT NULL CHECK (local_vid BETWEEN 1 AND 4094),
      remote_vid integer NOT NULL CHECK (remote_vid BETWEEN 1 AND 4094),
      ${desc}, ${cf}, ${audit},
      UNIQUE (policy_id, local_vid), UNIQUE (policy_id, remote_vid)
    )`.execute(db);
  await sql`CREATE INDEX vlan_translation_rules_order_idx ON vlan_translation_rules (tenant_id, policy_id, local_vid, id)`.execute(db);
  for (const table of ['interfaces', 'vm_interfaces']) {
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN vlan_translation_policy_id uuid REFERENCES vlan_translation_policies(id) ON DELETE RESTRICT`.execute(db);
    await sql`CREATE INDEX ${sql.raw(`${table}_vlan_translation_policy_idx`)} ON ${sql.table(table)} (vlan_translation_policy_id) WHERE vlan_translation_policy_id IS NOT NULL`.execute(db);
  }
}
