// An interface may name its LAG (an interface of type lag on the same device) and its parent (a sub-interface's
// physical port); either left dangling by a delete is cleared, not cascaded. MAC addresses already stored are put
// in the one form the API now stores (upper case, colons), so filters in any notation find them.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE interfaces
    ADD COLUMN lag_id uuid REFERENCES interfaces(id) ON DELETE SET NULL,
    ADD COLUMN parent_id uuid REFERENCES interfaces(id) ON DELETE SET NULL`.execute(db);
  await sql`CREATE INDEX interfaces_lag_id_idx ON interfaces (lag_id) WHERE lag_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX interfaces_parent_id_idx ON interfaces (parent_id) WHERE parent_id IS NOT NULL`.execute(db);
  for (const table of ['interfaces', 'vm_interfaces']) {
    await sql`UPDATE ${sql.table(table)} SET mac_address = upper(translate(mac_address, '-', ':'))
      WHERE mac_address ~ '^[0-9A-Fa-f]{2}([:-][0-9A-Fa-f]{2}){5}$' AND mac_address <> upper(translate(mac_address, '-', ':'))`.execute(db);
  }
}
