// BGP neighbour settings that configs need beyond the first cut: timers, prefix limits and the common
// per-neighbour knobs. On peer groups and sessions alike, so a session inherits what it leaves unset.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['bgp_peer_groups', 'bgp_sessions']) {
    await sql`
      ALTER TABLE ${sql.table(table)}
        ADD COLUMN keepalive integer,
        ADD COLUMN hold_time integer,
        ADD COLUMN maximum_prefix bigint,
        ADD COLUMN allowas_in integer,
        ADD COLUMN ttl_security_hops integer,
        ADD COLUMN default_originate boolean NOT NULL DEFAULT false,
        ADD COLUMN default_originate_policy_id uuid REFERENCES route_policies(id) ON DELETE RESTRICT,
        ADD COLUMN as_override boolean NOT NULL DEFAULT false,
        ADD COLUMN remove_private_as boolean NOT NULL DEFAULT false,
        ADD COLUMN soft_reconfiguration boolean NOT NULL DEFAULT false,
        ADD COLUMN capability_extended_nexthop boolean NOT NULL DEFAULT false`.execute(db);
    await sql`CREATE INDEX ${sql.raw(`${table}_default_originate_policy`)} ON ${sql.table(table)} (default_originate_policy_id)`.execute(db);
  }
}
