// Two things bulk loads and bulk deletes need.
//
// 1. A device's or VM's primary IP foreign keys become DEFERRABLE INITIALLY IMMEDIATE. Nothing changes for
//    ordinary writes (the check still runs at the end of each statement), but a bulk loader can
//    `SET CONSTRAINTS … DEFERRED` and insert devices with their primary IP already set before the addresses
//    exist: device → interface → address → device is a cycle, and without this the loader had to insert the
//    devices, then UPDATE every one of them (a second full write of the table and its indexes) once the
//    addresses existed. Deferred checks still run at commit, so nothing unchecked is ever committed.
// 2. The indexes 0007 left out on tenant_id of the check tables (every foreign-key column has a leading
//    index: see test/fk-indexes.test.ts).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE devices ALTER CONSTRAINT devices_primary_ip4_id_fkey DEFERRABLE INITIALLY IMMEDIATE;
    ALTER TABLE devices ALTER CONSTRAINT devices_primary_ip6_id_fkey DEFERRABLE INITIALLY IMMEDIATE;
    ALTER TABLE virtual_machines ALTER CONSTRAINT virtual_machines_primary_ip4_id_fkey DEFERRABLE INITIALLY IMMEDIATE;
    ALTER TABLE virtual_machines ALTER CONSTRAINT virtual_machines_primary_ip6_id_fkey DEFERRABLE INITIALLY IMMEDIATE;
    CREATE INDEX check_assignments_tenant_id_idx ON check_assignments (tenant_id);
    CREATE INDEX check_results_tenant_id_idx ON check_results (tenant_id);
    CREATE INDEX check_events_tenant_id_idx ON check_events (tenant_id);
  `.execute(db);
}
