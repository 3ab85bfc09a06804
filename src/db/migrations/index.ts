// The shipped migrations, in order. Forward-only: never edit one that has shipped; add the next file.
import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation.ts';
import * as m0002 from './0002_inventory.ts';
import * as m0003 from './0003_ipam_routing.ts';
import * as m0004 from './0004_export_templates.ts';
import * as m0005 from './0005_foreign_key_indexes.ts';
import * as m0006 from './0006_lifecycle_compliance.ts';
import * as m0007 from './0007_monitoring.ts';
import * as m0008 from './0008_bulk_load_constraints.ts';
import * as m0009 from './0009_config_rendering.ts';
import * as m0010 from './0010_deploy_webhooks.ts';
import * as m0011 from './0011_jobs_search.ts';
import * as m0012 from './0012_upgrades.ts';
import * as m0013 from './0013_user_preferences.ts';
import * as m0014 from './0014_bgp_session_settings.ts';
import * as m0015 from './0015_automation_target_timeout.ts';
import * as m0016 from './0016_automation_extra_vars_template.ts';
import * as m0017 from './0017_prefix_hierarchy.ts';
import * as m0018 from './0018_vrf_enforce_unique.ts';
import * as m0019 from './0019_ipam_catalogs.ts';
import * as m0020 from './0020_ipam_custom_fields.ts';
import * as m0021 from './0021_nat_inside.ts';
import * as m0022 from './0022_prefix_utilization.ts';
import * as m0023 from './0023_address_host_index.ts';
import * as m0024 from './0024_natural_name_keys.ts';
import * as m0025 from './0025_interface_lag_parent.ts';
import * as m0026 from './0026_locations_racks.ts';
import * as m0027 from './0027_front_rear_ports.ts';
import * as m0028 from './0028_template_paths.ts';
import * as m0029 from './0029_data_versions.ts';
import * as m0030 from './0030_schedule_claims.ts';
import * as m0031 from './0031_row_counts.ts';
import * as m0032 from './0032_search_pending_list.ts';
import * as m0033 from './0033_list_order_indexes.ts';
import * as m0034 from './0034_device_search_trigrams.ts';
import * as m0035 from './0035_device_search_no_pending_list.ts';
import * as m0036 from './0036_eol_mapping_objects.ts';
import * as m0037 from './0037_cable_site_statuses.ts';
import * as m0038 from './0038_vlan_display_vid.ts';
import * as m0039 from './0039_owners.ts';
import * as m0040 from './0040_site_groups_contacts_owners.ts';
import * as m0041 from './0041_cable_end_kinds.ts';
import * as m0042 from './0042_console_power.ts';
import * as m0043 from './0043_modules_bays_virtual_chassis.ts';
import * as m0044 from './0044_asns_fhrp_vlan_translation.ts';
import * as m0045 from './0045_virtualization_wireless_vpn_racks.ts';
import * as m0046 from './0046_circuits.ts';
import * as m0047 from './0047_sign_in_throttle.ts';
import * as m0049 from './0049_module_console_power.ts';
import * as m0050 from './0050_provider_asns.ts';
import * as m0051 from './0051_natural_key_split.ts';
import * as m0052 from './0052_search_pending_list_by_session.ts';
import * as m0053 from './0053_write_marks.ts';
import * as m0054 from './0054_order_ties.ts';

export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_inventory': m0002,
  '0003_ipam_routing': m0003,
  '0004_export_templates': m0004,
  '0005_foreign_key_indexes': m0005,
  '0006_lifecycle_compliance': m0006,
  '0007_monitoring': m0007,
  '0008_bulk_load_constraints': m0008,
  '0009_config_rendering': m0009,
  '0010_deploy_webhooks': m0010,
  '0011_jobs_search': m0011,
  '0012_upgrades': m0012,
  '0013_user_preferences': m0013,
  '0014_bgp_session_settings': m0014,
  '0015_automation_target_timeout': m0015,
  '0016_automation_extra_vars_template': m0016,
  '0017_prefix_hierarchy': m0017,
  '0018_vrf_enforce_unique': m0018,
  '0019_ipam_catalogs': m0019,
  '0020_ipam_custom_fields': m0020,
  '0021_nat_inside': m0021,
  '0022_prefix_utilization': m0022,
  '0023_address_host_index': m0023,
  '0024_natural_name_keys': m0024,
  '0025_interface_lag_parent': m0025,
  '0026_locations_racks': m0026,
  '0027_front_rear_ports': m0027,
  '0028_template_paths': m0028,
  '0029_data_versions': m0029,
  '0030_schedule_claims': m0030,
  '0031_row_counts': m0031,
  '0032_search_pending_list': m0032,
  '0033_list_order_indexes': m0033,
  '0034_device_search_trigrams': m0034,
  '0035_device_search_no_pending_list': m0035,
  '0036_eol_mapping_objects': m0036,
  '0037_cable_site_statuses': m0037,
  '0038_vlan_display_vid': m0038,
  '0039_owners': m0039,
  '0040_site_groups_contacts_owners': m0040,
  '0041_cable_end_kinds': m0041,
  '0042_console_power': m0042,
  '0043_modules_bays_virtual_chassis': m0043,
  '0044_asns_fhrp_vlan_translation': m0044,
  '0045_virtualization_wireless_vpn_racks': m0045,
  '0046_circuits': m0046,
  '0047_sign_in_throttle': m0047,
  '0049_module_console_power': m0049,
  '0050_provider_asns': m0050,
  '0051_natural_key_split': m0051,
  '0052_search_pending_list_by_session': m0052,
  '0053_write_marks': m0053,
  '0054_order_ties': m0054,
};
