import { sql, type Kysely } from 'kysely';

// An index behind every tenant-scoped list's default ordering (tenant, the ordering's columns as the list orders
// them, the id that breaks ties): without one a page sorted the tenant's whole table, so its cost grew with it
// (an address page took 19 ms at 50,000 addresses, 0.2 ms read off an index). test/fk-indexes.test.ts checks
// every list model's ordering against the planner, so a model added later needs its index too.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX journal_entries_list_order ON journal_entries (tenant_id, "created" DESC, "id");
    CREATE INDEX config_contexts_list_order ON config_contexts (tenant_id, "weight", "name", "id");
    CREATE INDEX device_types_list_order ON device_types (tenant_id, "model", "id");
    CREATE INDEX cables_list_order ON cables (tenant_id, "numid", "id");
    CREATE INDEX ip_ranges_list_order ON ip_ranges (tenant_id, "vrf_id" NULLS FIRST, "start_address", "id");
    CREATE INDEX vlans_list_order ON vlans (tenant_id, "vid", "name", "id");
    CREATE INDEX prefixes_list_order ON prefixes (tenant_id, "vrf_id" NULLS FIRST, "prefix", "id");
    CREATE INDEX ip_addresses_list_order ON ip_addresses (tenant_id, "vrf_id" NULLS FIRST, "address", "id");
    CREATE INDEX static_routes_list_order ON static_routes (tenant_id, "vrf_id" NULLS FIRST, "prefix", "id");
    CREATE INDEX bgp_instances_list_order ON bgp_instances (tenant_id, "device_id" NULLS FIRST, "vrf_id" NULLS FIRST, "id");
    CREATE INDEX ospf_instances_list_order ON ospf_instances (tenant_id, "device_id" NULLS FIRST, "vrf_id" NULLS FIRST, "id");
    CREATE INDEX isis_instances_list_order ON isis_instances (tenant_id, "device_id" NULLS FIRST, "vrf_id" NULLS FIRST, "id");
    CREATE INDEX services_list_order ON services (tenant_id, "name", "id");
    CREATE INDEX check_assignments_list_order ON check_assignments (tenant_id, "numid", "id");
    CREATE INDEX check_results_list_order ON check_results (tenant_id, "numid" DESC, "id");
    CREATE INDEX check_events_list_order ON check_events (tenant_id, "numid" DESC, "id");
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX IF EXISTS journal_entries_list_order;
    DROP INDEX IF EXISTS config_contexts_list_order;
    DROP INDEX IF EXISTS device_types_list_order;
    DROP INDEX IF EXISTS cables_list_order;
    DROP INDEX IF EXISTS ip_ranges_list_order;
    DROP INDEX IF EXISTS vlans_list_order;
    DROP INDEX IF EXISTS prefixes_list_order;
    DROP INDEX IF EXISTS ip_addresses_list_order;
    DROP INDEX IF EXISTS static_routes_list_order;
    DROP INDEX IF EXISTS bgp_instances_list_order;
    DROP INDEX IF EXISTS ospf_instances_list_order;
    DROP INDEX IF EXISTS isis_instances_list_order;
    DROP INDEX IF EXISTS services_list_order;
    DROP INDEX IF EXISTS check_assignments_list_order;
    DROP INDEX IF EXISTS check_results_list_order;
    DROP INDEX IF EXISTS check_events_list_order;
  `.execute(db);
}
