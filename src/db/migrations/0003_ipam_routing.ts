// Inventory, part two: IPAM (route targets, VRFs, VLANs, prefixes, IP addresses), virtualisation (clusters,
// virtual machines, VM interfaces), routing (static routes, BGP, OSPF, IS-IS, VTEPs/VNIs, policies and lists,
// keychains, BFD profiles) and the credential-bearing types (webhooks, automation targets, device credentials).
// Also adds the IPAM columns of devices and interfaces (0002 leaves them out so it needs no IPAM table).
// PostgreSQL 13 compatible. Secret columns hold AES-256-GCM ciphertext (src/core/secrets.ts), never plain text.
import { sql, type Kysely } from 'kysely';

const audit = sql`created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now()`;
const base = sql`id uuid PRIMARY KEY, numid bigint NOT NULL, tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE`;
const desc = sql`description varchar(200) NOT NULL DEFAULT ''`;
// Routing objects belong to a device or to a virtual machine, never both, never neither.
const owner = sql`device_id uuid REFERENCES devices(id) ON DELETE CASCADE,
  virtual_machine_id uuid REFERENCES virtual_machines(id) ON DELETE CASCADE,
  CHECK ((device_id IS NULL) <> (virtual_machine_id IS NULL))`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE route_targets (
      ${base}, name varchar(21) NOT NULL, ${desc}, ${audit},
      UNIQUE (tenant_id, name)
    );
    CREATE TABLE vrfs (
      ${base}, name varchar(100) NOT NULL, rd varchar(21),
      l3vni integer CHECK (l3vni BETWEEN 1 AND 16777214), ${desc}, ${audit},
      UNIQUE (tenant_id, name)
    );
    CREATE TABLE vrf_import_targets (
      vrf_id uuid NOT NULL REFERENCES vrfs(id) ON DELETE CASCADE,
      route_target_id uuid NOT NULL REFERENCES route_targets(id) ON DELETE CASCADE,
      PRIMARY KEY (vrf_id, route_target_id)
    );
    CREATE TABLE vrf_export_targets (
      vrf_id uuid NOT NULL REFERENCES vrfs(id) ON DELETE CASCADE,
      route_target_id uuid NOT NULL REFERENCES route_targets(id) ON DELETE CASCADE,
      PRIMARY KEY (vrf_id, route_target_id)
    );
    CREATE TABLE vlans (
      ${base}, vid integer NOT NULL CHECK (vid BETWEEN 1 AND 4094), name varchar(64) NOT NULL,
      site_id uuid REFERENCES sites(id) ON DELETE SET NULL,
      status_id uuid REFERENCES statuses(id) ON DELETE RESTRICT, ${desc}, ${audit}
    );
    CREATE INDEX vlans_site ON vlans (site_id, vid);
    CREATE TABLE prefixes (
      ${base}, prefix cidr NOT NULL,
      vrf_id uuid REFERENCES vrfs(id) ON DELETE RESTRICT,
      site_id uuid REFERENCES sites(id) ON DELETE SET NULL,
      vlan_id uuid REFERENCES vlans(id) ON DELETE SET NULL,
      status_id uuid REFERENCES statuses(id) ON DELETE RESTRICT,
      is_pool boolean NOT NULL DEFAULT false, ${desc}, ${audit}
    );
    -- Containment (>>=, <<) and overlap (&&) searches use these.
    CREATE INDEX prefixes_prefix ON prefixes USING gist (prefix inet_ops);
    CREATE INDEX prefixes_tenant_vrf ON prefixes (tenant_id, vrf_id);

    CREATE TABLE clusters (
      ${base}, name varchar(100) NOT NULL, type varchar(100) NOT NULL DEFAULT '',
      site_id uuid REFERENCES sites(id) ON DELETE SET NULL, ${desc}, ${audit},
      UNIQUE (tenant_id, name)
    );
    CREATE TABLE virtual_machines (
      ${base}, name varchar(64) NOT NULL,
      cluster_id uuid REFERENCES clusters(id) ON DELETE RESTRICT,
      site_id uuid REFERENCES sites(id) ON DELETE SET NULL,
      role_id uuid REFERENCES device_roles(id) ON DELETE RESTRICT,
      platform_id uuid REFERENCES platforms(id) ON DELETE SET NULL,
      status_id uuid REFERENCES statuses(id) ON DELETE RESTRICT,
      config_template_id uuid, comments text NOT NULL DEFAULT '', custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (tenant_id, name)
    );
    CREATE INDEX virtual_machines_cluster ON virtual_machines (cluster_id);
    CREATE TABLE vm_interfaces (
      ${base},
      virtual_machine_id uuid NOT NULL REFERENCES virtual_machines(id) ON DELETE CASCADE,
      name varchar(64) NOT NULL, enabled boolean NOT NULL DEFAULT true,
      mtu integer CHECK (mtu BETWEEN 1 AND 65536), mac_address varchar(17), ${desc}, mode varchar(20),
      untagged_vlan_id uuid REFERENCES vlans(id) ON DELETE SET NULL,
      vrf_id uuid REFERENCES vrfs(id) ON DELETE SET NULL, ${audit},
      UNIQUE (virtual_machine_id, name)
    );
    CREATE TABLE vm_interface_tagged_vlans (
      vm_interface_id uuid NOT NULL REFERENCES vm_interfaces(id) ON DELETE CASCADE,
      vlan_id uuid NOT NULL REFERENCES vlans(id) ON DELETE CASCADE,
      PRIMARY KEY (vm_interface_id, vlan_id)
    );

    CREATE TABLE ip_addresses (
      ${base}, address inet NOT NULL,
      vrf_id uuid REFERENCES vrfs(id) ON DELETE RESTRICT,
      status_id uuid REFERENCES statuses(id) ON DELETE RESTRICT,
      role varchar(20), dns_name varchar(255) NOT NULL DEFAULT '', ${desc},
      assigned_interface_id uuid REFERENCES interfaces(id) ON DELETE SET NULL,
      assigned_vm_interface_id uuid REFERENCES vm_interfaces(id) ON DELETE SET NULL, ${audit},
      CONSTRAINT ip_addresses_one_assignment CHECK (assigned_interface_id IS NULL OR assigned_vm_interface_id IS NULL)
    );
    CREATE INDEX ip_addresses_address ON ip_addresses USING gist (address inet_ops);
    CREATE INDEX ip_addresses_interface ON ip_addresses (assigned_interface_id);
    CREATE INDEX ip_addresses_vm_interface ON ip_addresses (assigned_vm_interface_id);

    ALTER TABLE virtual_machines
      ADD COLUMN primary_ip4_id uuid REFERENCES ip_addresses(id) ON DELETE SET NULL,
      ADD COLUMN primary_ip6_id uuid REFERENCES ip_addresses(id) ON DELETE SET NULL;
    ALTER TABLE devices
      ADD COLUMN primary_ip4_id uuid REFERENCES ip_addresses(id) ON DELETE SET NULL,
      ADD COLUMN primary_ip6_id uuid REFERENCES ip_addresses(id) ON DELETE SET NULL;
    ALTER TABLE interfaces
      ADD COLUMN untagged_vlan_id uuid REFERENCES vlans(id) ON DELETE SET NULL,
      ADD COLUMN vrf_id uuid REFERENCES vrfs(id) ON DELETE SET NULL;
    CREATE TABLE interface_tagged_vlans (
      interface_id uuid NOT NULL REFERENCES interfaces(id) ON DELETE CASCADE,
      vlan_id uuid NOT NULL REFERENCES vlans(id) ON DELETE CASCADE,
      PRIMARY KEY (interface_id, vlan_id)
    );

    -- Routing catalogs (tenant-wide, referenced by name in renders).
    CREATE TABLE bfd_profiles (
      ${base}, name varchar(100) NOT NULL,
      min_tx integer NOT NULL DEFAULT 300, min_rx integer NOT NULL DEFAULT 300, multiplier integer NOT NULL DEFAULT 3,
      echo boolean NOT NULL DEFAULT false, ${desc}, ${audit},
      UNIQUE (tenant_id, name)
    );
    CREATE TABLE keychains (
      ${base}, name varchar(100) NOT NULL, algorithm varchar(20) NOT NULL DEFAULT 'md5',
      key_secret text, ${desc}, ${audit},
      UNIQUE (tenant_id, name)
    );
    CREATE TABLE communities (
      ${base}, value varchar(64) NOT NULL, kind varchar(10) NOT NULL DEFAULT 'standard', name varchar(100) NOT NULL DEFAULT '',
      ${desc}, ${audit},
      UNIQUE (tenant_id, value)
    );
    CREATE TABLE community_lists (
      ${base}, name varchar(100) NOT NULL, kind varchar(10) NOT NULL DEFAULT 'standard', ${desc}, ${audit},
      UNIQUE (tenant_id, name)
    );
    CREATE TABLE community_list_entries (
      ${base}, community_list_id uuid NOT NULL REFERENCES community_lists(id) ON DELETE CASCADE,
      sequence integer NOT NULL, action varchar(6) NOT NULL, communities text[] NOT NULL DEFAULT '{}', regex varchar(200),
      ${desc}, ${audit},
      UNIQUE (community_list_id, sequence)
    );
    CREATE TABLE as_path_lists (
      ${base}, name varchar(100) NOT NULL, ${desc}, ${audit},
      UNIQUE (tenant_id, name)
    );
    CREATE TABLE as_path_list_entries (
      ${base}, as_path_list_id uuid NOT NULL REFERENCES as_path_lists(id) ON DELETE CASCADE,
      sequence integer NOT NULL, action varchar(6) NOT NULL, regex varchar(200) NOT NULL, ${desc}, ${audit},
      UNIQUE (as_path_list_id, sequence)
    );
    CREATE TABLE prefix_lists (
      ${base}, name varchar(100) NOT NULL, family varchar(4) NOT NULL, ${desc}, ${audit},
      UNIQUE (tenant_id, name)
    );
    CREATE TABLE prefix_list_entries (
      ${base}, prefix_list_id uuid NOT NULL REFERENCES prefix_lists(id) ON DELETE CASCADE,
      sequence integer NOT NULL, action varchar(6) NOT NULL, prefix cidr NOT NULL, ge integer, le integer, ${desc}, ${audit},
      UNIQUE (prefix_list_id, sequence)
    );
    CREATE TABLE route_policies (
      ${base}, name varchar(100) NOT NULL, ${desc}, ${audit},
      UNIQUE (tenant_id, name)
    );
    CREATE TABLE route_policy_rules (
      ${base}, route_policy_id uuid NOT NULL REFERENCES route_policies(id) ON DELETE CASCADE,
      sequence integer NOT NULL, action varchar(6) NOT NULL, "match" jsonb NOT NULL DEFAULT '{}', "set" jsonb NOT NULL DEFAULT '{}',
      continue_to integer, ${desc}, ${audit},
      UNIQUE (route_policy_id, sequence)
    );

    CREATE TABLE static_routes (
      ${base}, ${owner},
      vrf_id uuid REFERENCES vrfs(id) ON DELETE CASCADE,
      prefix cidr NOT NULL, kind varchar(10) NOT NULL DEFAULT 'unicast', next_hop inet,
      interface_id uuid REFERENCES interfaces(id) ON DELETE SET NULL,
      vm_interface_id uuid REFERENCES vm_interfaces(id) ON DELETE SET NULL,
      next_hop_vrf_id uuid REFERENCES vrfs(id) ON DELETE SET NULL,
      distance integer NOT NULL DEFAULT 1, metric integer, tag bigint, bfd boolean NOT NULL DEFAULT false, ${desc}, ${audit}
    );
    CREATE INDEX static_routes_device ON static_routes (device_id);
    CREATE INDEX static_routes_vm ON static_routes (virtual_machine_id);

    CREATE TABLE bgp_instances (
      ${base}, ${owner},
      vrf_id uuid REFERENCES vrfs(id) ON DELETE CASCADE,
      asn bigint NOT NULL, router_id inet, graceful_restart boolean NOT NULL DEFAULT false,
      maximum_paths integer, address_families text[] NOT NULL DEFAULT '{}',
      bfd_profile_id uuid REFERENCES bfd_profiles(id) ON DELETE SET NULL, ${desc}, ${audit}
    );
    CREATE INDEX bgp_instances_device ON bgp_instances (device_id);
    CREATE INDEX bgp_instances_vm ON bgp_instances (virtual_machine_id);
    CREATE TABLE bgp_peer_groups (
      ${base}, name varchar(100) NOT NULL,
      remote_asn bigint, remote_asn_mode varchar(10) NOT NULL DEFAULT 'asn', update_source varchar(64),
      address_families text[] NOT NULL DEFAULT '{}',
      import_policy_id uuid REFERENCES route_policies(id) ON DELETE RESTRICT,
      export_policy_id uuid REFERENCES route_policies(id) ON DELETE RESTRICT,
      bfd_profile_id uuid REFERENCES bfd_profiles(id) ON DELETE SET NULL,
      keychain_id uuid REFERENCES keychains(id) ON DELETE RESTRICT,
      next_hop_self boolean NOT NULL DEFAULT false, route_reflector_client boolean NOT NULL DEFAULT false,
      send_community varchar(10), ebgp_multihop integer, ${desc}, ${audit},
      UNIQUE (tenant_id, name)
    );
    CREATE TABLE bgp_sessions (
      ${base}, instance_id uuid NOT NULL REFERENCES bgp_instances(id) ON DELETE CASCADE,
      peer_group_id uuid REFERENCES bgp_peer_groups(id) ON DELETE RESTRICT,
      name varchar(100), local_address inet, remote_address inet,
      interface_id uuid REFERENCES interfaces(id) ON DELETE CASCADE,
      remote_asn bigint, remote_asn_mode varchar(10) NOT NULL DEFAULT 'asn',
      enabled boolean NOT NULL DEFAULT true, address_families text[] NOT NULL DEFAULT '{}',
      keychain_id uuid REFERENCES keychains(id) ON DELETE RESTRICT,
      bfd boolean NOT NULL DEFAULT false, bfd_profile_id uuid REFERENCES bfd_profiles(id) ON DELETE SET NULL,
      import_policy_id uuid REFERENCES route_policies(id) ON DELETE RESTRICT,
      export_policy_id uuid REFERENCES route_policies(id) ON DELETE RESTRICT,
      prefix_list_in_id uuid REFERENCES prefix_lists(id) ON DELETE RESTRICT,
      prefix_list_out_id uuid REFERENCES prefix_lists(id) ON DELETE RESTRICT,
      next_hop_self boolean NOT NULL DEFAULT false, route_reflector_client boolean NOT NULL DEFAULT false,
      ebgp_multihop integer, ${desc}, ${audit}
    );
    CREATE INDEX bgp_sessions_instance ON bgp_sessions (instance_id);

    CREATE TABLE ospf_instances (
      ${base}, ${owner},
      vrf_id uuid REFERENCES vrfs(id) ON DELETE CASCADE,
      process_id integer, version integer NOT NULL DEFAULT 2, router_id inet,
      reference_bandwidth integer, passive_by_default boolean NOT NULL DEFAULT false,
      default_originate boolean NOT NULL DEFAULT false,
      bfd_profile_id uuid REFERENCES bfd_profiles(id) ON DELETE SET NULL, ${desc}, ${audit}
    );
    CREATE TABLE ospf_areas (
      ${base}, instance_id uuid NOT NULL REFERENCES ospf_instances(id) ON DELETE CASCADE,
      area_id varchar(15) NOT NULL, name varchar(100) NOT NULL DEFAULT '', kind varchar(20) NOT NULL DEFAULT 'normal', ${desc}, ${audit},
      UNIQUE (instance_id, area_id)
    );
    CREATE TABLE ospf_interfaces (
      ${base}, instance_id uuid NOT NULL REFERENCES ospf_instances(id) ON DELETE CASCADE,
      area_id uuid NOT NULL REFERENCES ospf_areas(id) ON DELETE CASCADE,
      interface_id uuid REFERENCES interfaces(id) ON DELETE CASCADE,
      vm_interface_id uuid REFERENCES vm_interfaces(id) ON DELETE CASCADE,
      cost integer, network_type varchar(20), passive boolean, priority integer, hello integer, dead integer,
      bfd boolean NOT NULL DEFAULT false, mtu_ignore boolean NOT NULL DEFAULT false,
      authentication varchar(20), keychain_id uuid REFERENCES keychains(id) ON DELETE RESTRICT, ${desc}, ${audit},
      CHECK ((interface_id IS NULL) <> (vm_interface_id IS NULL))
    );
    CREATE INDEX ospf_interfaces_instance ON ospf_interfaces (instance_id);

    CREATE TABLE isis_instances (
      ${base}, ${owner},
      vrf_id uuid REFERENCES vrfs(id) ON DELETE CASCADE,
      process varchar(64), net varchar(64) NOT NULL, level varchar(10) NOT NULL DEFAULT 'level-2',
      metric_style varchar(10) NOT NULL DEFAULT 'wide', authentication varchar(20),
      keychain_id uuid REFERENCES keychains(id) ON DELETE RESTRICT,
      bfd_profile_id uuid REFERENCES bfd_profiles(id) ON DELETE SET NULL, ${desc}, ${audit}
    );
    CREATE TABLE isis_interfaces (
      ${base}, instance_id uuid NOT NULL REFERENCES isis_instances(id) ON DELETE CASCADE,
      interface_id uuid REFERENCES interfaces(id) ON DELETE CASCADE,
      vm_interface_id uuid REFERENCES vm_interfaces(id) ON DELETE CASCADE,
      families text[] NOT NULL DEFAULT '{ipv4}', level varchar(10), metric integer, network_type varchar(20),
      passive boolean NOT NULL DEFAULT false, hello_interval integer, hello_multiplier integer,
      bfd boolean NOT NULL DEFAULT false, keychain_id uuid REFERENCES keychains(id) ON DELETE RESTRICT, ${desc}, ${audit},
      CHECK ((interface_id IS NULL) <> (vm_interface_id IS NULL))
    );
    CREATE INDEX isis_interfaces_instance ON isis_interfaces (instance_id);

    CREATE TABLE vteps (
      ${base}, device_id uuid NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      source_interface_id uuid REFERENCES interfaces(id) ON DELETE SET NULL,
      source_ip inet, anycast_ip inet, anycast_gateway_mac varchar(17), arp_suppression boolean NOT NULL DEFAULT false,
      ${desc}, ${audit},
      UNIQUE (tenant_id, device_id)
    );
    CREATE TABLE vnis (
      ${base}, vtep_id uuid NOT NULL REFERENCES vteps(id) ON DELETE CASCADE,
      vni integer NOT NULL CHECK (vni BETWEEN 1 AND 16777214), name varchar(100) NOT NULL DEFAULT '', kind varchar(2) NOT NULL,
      vlan_id uuid REFERENCES vlans(id) ON DELETE RESTRICT, vrf_id uuid REFERENCES vrfs(id) ON DELETE RESTRICT,
      mcast_group inet, ingress_replication boolean NOT NULL DEFAULT false, ${desc}, ${audit},
      UNIQUE (vtep_id, vni)
    );

    -- Credential-bearing types. Secret columns are ciphertext.
    CREATE TABLE webhooks (
      ${base}, name varchar(100) NOT NULL, url varchar(500) NOT NULL, secret text, additional_headers jsonb,
      object_types text[] NOT NULL DEFAULT '{}', events text[] NOT NULL DEFAULT '{}', enabled boolean NOT NULL DEFAULT true,
      ${desc}, ${audit},
      UNIQUE (tenant_id, name)
    );
    CREATE TABLE automation_targets (
      ${base}, name varchar(100) NOT NULL, kind varchar(20) NOT NULL, url varchar(500) NOT NULL, token text,
      ${desc}, ${audit},
      UNIQUE (tenant_id, name)
    );
    CREATE TABLE device_credentials (
      ${base}, device_id uuid NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      username varchar(100) NOT NULL, password text, ${desc}, ${audit},
      UNIQUE (device_id, username)
    );
  `.execute(db);
}
