// A VLAN is shown as NetBox shows it, `servers (10)` (ipam.vlan's displayQualifier). The search triggers are
// rebuilt from the registry after the migration run; the entries already written are brought to the new display
// text here, as the next write of each VLAN would.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE search_index si SET display = v.name || ' (' || v.vid::text || ')'
    FROM vlans v WHERE si.object_id = v.id AND si.object_type = 'ipam.vlan'`.execute(db);
}
