// A version number per tenant (and one for deployment-wide data: users, groups, permissions), raised once by
// every transaction that records a change, at its commit: a cheap "has anything changed?" for documents built
// from many tables (the Ansible inventory answers If-None-Match from it without rebuilding).
//
// Raised by a deferred constraint trigger on the change log, so the row lock on a tenant's counter is held only
// while that transaction commits, not while it works; a transaction-local setting remembers which counters it
// has raised, so a bulk change of 1,000 rows raises each once.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE data_versions (
    scope uuid PRIMARY KEY,
    version bigint NOT NULL
  )`.execute(db);
  await sql`CREATE FUNCTION cairn_raise_data_version() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      target uuid := coalesce(NEW.tenant_id, '00000000-0000-0000-0000-000000000000'::uuid);
      raised text := coalesce(current_setting('cairn.data_versions_raised', true), '');
    BEGIN
      IF strpos(raised, target::text) > 0 THEN
        RETURN NULL;
      END IF;
      INSERT INTO data_versions AS v (scope, version) VALUES (target, 1)
        ON CONFLICT (scope) DO UPDATE SET version = v.version + 1;
      PERFORM set_config('cairn.data_versions_raised', raised || target::text || ',', true);
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE CONSTRAINT TRIGGER object_changes_raise_data_version AFTER INSERT ON object_changes
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_raise_data_version()`.execute(db);
}
