// NetBox's "tenant": the customer or department an object belongs to. Cairn's tenant is the isolation boundary,
// so NetBox's kind is called an owner here (tables owners and owner_groups; models tenancy.owner and
// tenancy.ownergroup). Owner groups form a tree; an owner sits in at most one group.
import { sql, type Kysely } from 'kysely';

const audit = sql`created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now()`;
const base = sql`id uuid PRIMARY KEY, numid bigint NOT NULL, tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE owner_groups (
      ${base},
      name varchar(100) NOT NULL, slug varchar(100) NOT NULL,
      parent_id uuid REFERENCES owner_groups(id) ON DELETE RESTRICT,
      description varchar(200) NOT NULL DEFAULT '', custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    )`.execute(db);
  await sql`CREATE INDEX owner_groups_order_idx ON owner_groups (tenant_id, name, id)`.execute(db);
  await sql`CREATE INDEX owner_groups_parent_idx ON owner_groups (parent_id) WHERE parent_id IS NOT NULL`.execute(db);
  await sql`CREATE TABLE owners (
      ${base},
      name varchar(100) NOT NULL, slug varchar(100) NOT NULL,
      group_id uuid REFERENCES owner_groups(id) ON DELETE SET NULL,
      description varchar(200) NOT NULL DEFAULT '', comments text NOT NULL DEFAULT '',
      custom_fields jsonb NOT NULL DEFAULT '{}', ${audit},
      UNIQUE (tenant_id, name), UNIQUE (tenant_id, slug)
    )`.execute(db);
  await sql`CREATE INDEX owners_order_idx ON owners (tenant_id, name, id)`.execute(db);
  await sql`CREATE INDEX owners_group_idx ON owners (group_id) WHERE group_id IS NOT NULL`.execute(db);
}
