// Indexes on every foreign-key column that had none. Without them, deleting or re-keying a referenced row
// (an interface, a device, a VRF, a tenant) makes PostgreSQL scan the whole referencing table once per row
// for the ON DELETE action or the RESTRICT check: a 1,000-interface delete scanned bgp_sessions,
// static_routes, ospf/isis interfaces and vteps 1,000 times each. Listed from pg_catalog on a migrated
// database (the query is in test/fk-indexes.test.ts, which keeps the list complete for later migrations).
//
// Nullable columns get a partial index (WHERE col IS NOT NULL): the planner proves `col = $1` implies it, so
// the referential-action queries still use it, while rows that leave the column empty (most interfaces have
// no VRF or untagged VLAN) cost no index entry on insert.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- users
    CREATE INDEX users_home_tenant_id_idx ON users (home_tenant_id) WHERE home_tenant_id IS NOT NULL;
    -- tenant_memberships
    CREATE INDEX tenant_memberships_tenant_id_idx ON tenant_memberships (tenant_id);
    -- user_groups
    CREATE INDEX user_groups_group_id_idx ON user_groups (group_id);
    -- tokens
    CREATE INDEX tokens_tenant_id_idx ON tokens (tenant_id);
    -- sessions
    CREATE INDEX sessions_tenant_id_idx ON sessions (tenant_id) WHERE tenant_id IS NOT NULL;
    CREATE INDEX sessions_user_id_idx ON sessions (user_id);
    -- tagged_items
    CREATE INDEX tagged_items_tenant_id_idx ON tagged_items (tenant_id);
    -- object_changes
    CREATE INDEX object_changes_user_id_idx ON object_changes (user_id) WHERE user_id IS NOT NULL;
    -- journal_entries
    CREATE INDEX journal_entries_author_id_idx ON journal_entries (author_id) WHERE author_id IS NOT NULL;
    -- sites
    CREATE INDEX sites_status_id_idx ON sites (status_id) WHERE status_id IS NOT NULL;
    -- device_types
    CREATE INDEX device_types_manufacturer_id_idx ON device_types (manufacturer_id);
    -- interface_templates
    CREATE INDEX interface_templates_tenant_id_idx ON interface_templates (tenant_id);
    -- device_type_services
    CREATE INDEX device_type_services_tenant_id_idx ON device_type_services (tenant_id);
    -- platforms
    CREATE INDEX platforms_manufacturer_id_idx ON platforms (manufacturer_id) WHERE manufacturer_id IS NOT NULL;
    -- devices
    CREATE INDEX devices_primary_ip4_id_idx ON devices (primary_ip4_id) WHERE primary_ip4_id IS NOT NULL;
    CREATE INDEX devices_primary_ip6_id_idx ON devices (primary_ip6_id) WHERE primary_ip6_id IS NOT NULL;
    CREATE INDEX devices_status_id_idx ON devices (status_id) WHERE status_id IS NOT NULL;
    -- interfaces
    CREATE INDEX interfaces_tenant_id_idx ON interfaces (tenant_id);
    CREATE INDEX interfaces_untagged_vlan_id_idx ON interfaces (untagged_vlan_id) WHERE untagged_vlan_id IS NOT NULL;
    CREATE INDEX interfaces_vrf_id_idx ON interfaces (vrf_id) WHERE vrf_id IS NOT NULL;
    -- cables
    CREATE INDEX cables_status_id_idx ON cables (status_id) WHERE status_id IS NOT NULL;
    CREATE INDEX cables_tenant_id_idx ON cables (tenant_id);
    -- config_context_regions
    CREATE INDEX config_context_regions_region_id_idx ON config_context_regions (region_id);
    -- config_context_sites
    CREATE INDEX config_context_sites_site_id_idx ON config_context_sites (site_id);
    -- config_context_roles
    CREATE INDEX config_context_roles_role_id_idx ON config_context_roles (role_id);
    -- config_context_platforms
    CREATE INDEX config_context_platforms_platform_id_idx ON config_context_platforms (platform_id);
    -- vrf_import_targets
    CREATE INDEX vrf_import_targets_route_target_id_idx ON vrf_import_targets (route_target_id);
    -- vrf_export_targets
    CREATE INDEX vrf_export_targets_route_target_id_idx ON vrf_export_targets (route_target_id);
    -- vlans
    CREATE INDEX vlans_status_id_idx ON vlans (status_id) WHERE status_id IS NOT NULL;
    CREATE INDEX vlans_tenant_id_idx ON vlans (tenant_id);
    -- prefixes
    CREATE INDEX prefixes_site_id_idx ON prefixes (site_id) WHERE site_id IS NOT NULL;
    CREATE INDEX prefixes_status_id_idx ON prefixes (status_id) WHERE status_id IS NOT NULL;
    CREATE INDEX prefixes_vlan_id_idx ON prefixes (vlan_id) WHERE vlan_id IS NOT NULL;
    CREATE INDEX prefixes_vrf_id_idx ON prefixes (vrf_id) WHERE vrf_id IS NOT NULL;
    -- clusters
    CREATE INDEX clusters_site_id_idx ON clusters (site_id) WHERE site_id IS NOT NULL;
    -- virtual_machines
    CREATE INDEX virtual_machines_platform_id_idx ON virtual_machines (platform_id) WHERE platform_id IS NOT NULL;
    CREATE INDEX virtual_machines_primary_ip4_id_idx ON virtual_machines (primary_ip4_id) WHERE primary_ip4_id IS NOT NULL;
    CREATE INDEX virtual_machines_primary_ip6_id_idx ON virtual_machines (primary_ip6_id) WHERE primary_ip6_id IS NOT NULL;
    CREATE INDEX virtual_machines_role_id_idx ON virtual_machines (role_id) WHERE role_id IS NOT NULL;
    CREATE INDEX virtual_machines_site_id_idx ON virtual_machines (site_id) WHERE site_id IS NOT NULL;
    CREATE INDEX virtual_machines_status_id_idx ON virtual_machines (status_id) WHERE status_id IS NOT NULL;
    -- vm_interfaces
    CREATE INDEX vm_interfaces_tenant_id_idx ON vm_interfaces (tenant_id);
    CREATE INDEX vm_interfaces_untagged_vlan_id_idx ON vm_interfaces (untagged_vlan_id) WHERE untagged_vlan_id IS NOT NULL;
    CREATE INDEX vm_interfaces_vrf_id_idx ON vm_interfaces (vrf_id) WHERE vrf_id IS NOT NULL;
    -- vm_interface_tagged_vlans
    CREATE INDEX vm_interface_tagged_vlans_vlan_id_idx ON vm_interface_tagged_vlans (vlan_id);
    -- ip_addresses
    CREATE INDEX ip_addresses_status_id_idx ON ip_addresses (status_id) WHERE status_id IS NOT NULL;
    CREATE INDEX ip_addresses_tenant_id_idx ON ip_addresses (tenant_id);
    CREATE INDEX ip_addresses_vrf_id_idx ON ip_addresses (vrf_id) WHERE vrf_id IS NOT NULL;
    -- interface_tagged_vlans
    CREATE INDEX interface_tagged_vlans_vlan_id_idx ON interface_tagged_vlans (vlan_id);
    -- community_list_entries
    CREATE INDEX community_list_entries_tenant_id_idx ON community_list_entries (tenant_id);
    -- as_path_list_entries
    CREATE INDEX as_path_list_entries_tenant_id_idx ON as_path_list_entries (tenant_id);
    -- prefix_list_entries
    CREATE INDEX prefix_list_entries_tenant_id_idx ON prefix_list_entries (tenant_id);
    -- route_policy_rules
    CREATE INDEX route_policy_rules_tenant_id_idx ON route_policy_rules (tenant_id);
    -- static_routes
    CREATE INDEX static_routes_interface_id_idx ON static_routes (interface_id) WHERE interface_id IS NOT NULL;
    CREATE INDEX static_routes_next_hop_vrf_id_idx ON static_routes (next_hop_vrf_id) WHERE next_hop_vrf_id IS NOT NULL;
    CREATE INDEX static_routes_tenant_id_idx ON static_routes (tenant_id);
    CREATE INDEX static_routes_vm_interface_id_idx ON static_routes (vm_interface_id) WHERE vm_interface_id IS NOT NULL;
    CREATE INDEX static_routes_vrf_id_idx ON static_routes (vrf_id) WHERE vrf_id IS NOT NULL;
    -- bgp_instances
    CREATE INDEX bgp_instances_bfd_profile_id_idx ON bgp_instances (bfd_profile_id) WHERE bfd_profile_id IS NOT NULL;
    CREATE INDEX bgp_instances_tenant_id_idx ON bgp_instances (tenant_id);
    CREATE INDEX bgp_instances_vrf_id_idx ON bgp_instances (vrf_id) WHERE vrf_id IS NOT NULL;
    -- bgp_peer_groups
    CREATE INDEX bgp_peer_groups_bfd_profile_id_idx ON bgp_peer_groups (bfd_profile_id) WHERE bfd_profile_id IS NOT NULL;
    CREATE INDEX bgp_peer_groups_export_policy_id_idx ON bgp_peer_groups (export_policy_id) WHERE export_policy_id IS NOT NULL;
    CREATE INDEX bgp_peer_groups_import_policy_id_idx ON bgp_peer_groups (import_policy_id) WHERE import_policy_id IS NOT NULL;
    CREATE INDEX bgp_peer_groups_keychain_id_idx ON bgp_peer_groups (keychain_id) WHERE keychain_id IS NOT NULL;
    -- bgp_sessions
    CREATE INDEX bgp_sessions_bfd_profile_id_idx ON bgp_sessions (bfd_profile_id) WHERE bfd_profile_id IS NOT NULL;
    CREATE INDEX bgp_sessions_export_policy_id_idx ON bgp_sessions (export_policy_id) WHERE export_policy_id IS NOT NULL;
    CREATE INDEX bgp_sessions_import_policy_id_idx ON bgp_sessions (import_policy_id) WHERE import_policy_id IS NOT NULL;
    CREATE INDEX bgp_sessions_interface_id_idx ON bgp_sessions (interface_id) WHERE interface_id IS NOT NULL;
    CREATE INDEX bgp_sessions_keychain_id_idx ON bgp_sessions (keychain_id) WHERE keychain_id IS NOT NULL;
    CREATE INDEX bgp_sessions_peer_group_id_idx ON bgp_sessions (peer_group_id) WHERE peer_group_id IS NOT NULL;
    CREATE INDEX bgp_sessions_prefix_list_in_id_idx ON bgp_sessions (prefix_list_in_id) WHERE prefix_list_in_id IS NOT NULL;
    CREATE INDEX bgp_sessions_prefix_list_out_id_idx ON bgp_sessions (prefix_list_out_id) WHERE prefix_list_out_id IS NOT NULL;
    CREATE INDEX bgp_sessions_tenant_id_idx ON bgp_sessions (tenant_id);
    -- ospf_instances
    CREATE INDEX ospf_instances_bfd_profile_id_idx ON ospf_instances (bfd_profile_id) WHERE bfd_profile_id IS NOT NULL;
    CREATE INDEX ospf_instances_device_id_idx ON ospf_instances (device_id) WHERE device_id IS NOT NULL;
    CREATE INDEX ospf_instances_tenant_id_idx ON ospf_instances (tenant_id);
    CREATE INDEX ospf_instances_virtual_machine_id_idx ON ospf_instances (virtual_machine_id) WHERE virtual_machine_id IS NOT NULL;
    CREATE INDEX ospf_instances_vrf_id_idx ON ospf_instances (vrf_id) WHERE vrf_id IS NOT NULL;
    -- ospf_areas
    CREATE INDEX ospf_areas_tenant_id_idx ON ospf_areas (tenant_id);
    -- ospf_interfaces
    CREATE INDEX ospf_interfaces_area_id_idx ON ospf_interfaces (area_id);
    CREATE INDEX ospf_interfaces_interface_id_idx ON ospf_interfaces (interface_id) WHERE interface_id IS NOT NULL;
    CREATE INDEX ospf_interfaces_keychain_id_idx ON ospf_interfaces (keychain_id) WHERE keychain_id IS NOT NULL;
    CREATE INDEX ospf_interfaces_tenant_id_idx ON ospf_interfaces (tenant_id);
    CREATE INDEX ospf_interfaces_vm_interface_id_idx ON ospf_interfaces (vm_interface_id) WHERE vm_interface_id IS NOT NULL;
    -- isis_instances
    CREATE INDEX isis_instances_bfd_profile_id_idx ON isis_instances (bfd_profile_id) WHERE bfd_profile_id IS NOT NULL;
    CREATE INDEX isis_instances_device_id_idx ON isis_instances (device_id) WHERE device_id IS NOT NULL;
    CREATE INDEX isis_instances_keychain_id_idx ON isis_instances (keychain_id) WHERE keychain_id IS NOT NULL;
    CREATE INDEX isis_instances_tenant_id_idx ON isis_instances (tenant_id);
    CREATE INDEX isis_instances_virtual_machine_id_idx ON isis_instances (virtual_machine_id) WHERE virtual_machine_id IS NOT NULL;
    CREATE INDEX isis_instances_vrf_id_idx ON isis_instances (vrf_id) WHERE vrf_id IS NOT NULL;
    -- isis_interfaces
    CREATE INDEX isis_interfaces_interface_id_idx ON isis_interfaces (interface_id) WHERE interface_id IS NOT NULL;
    CREATE INDEX isis_interfaces_keychain_id_idx ON isis_interfaces (keychain_id) WHERE keychain_id IS NOT NULL;
    CREATE INDEX isis_interfaces_tenant_id_idx ON isis_interfaces (tenant_id);
    CREATE INDEX isis_interfaces_vm_interface_id_idx ON isis_interfaces (vm_interface_id) WHERE vm_interface_id IS NOT NULL;
    -- vteps
    CREATE INDEX vteps_device_id_idx ON vteps (device_id);
    CREATE INDEX vteps_source_interface_id_idx ON vteps (source_interface_id) WHERE source_interface_id IS NOT NULL;
    -- vnis
    CREATE INDEX vnis_tenant_id_idx ON vnis (tenant_id);
    CREATE INDEX vnis_vlan_id_idx ON vnis (vlan_id) WHERE vlan_id IS NOT NULL;
    CREATE INDEX vnis_vrf_id_idx ON vnis (vrf_id) WHERE vrf_id IS NOT NULL;
    -- device_credentials
    CREATE INDEX device_credentials_tenant_id_idx ON device_credentials (tenant_id);
  `.execute(db);
}
