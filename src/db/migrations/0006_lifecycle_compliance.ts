// End-of-life data (src/lifecycle/) and compliance rules (src/compliance/).
// The catalog is public data shared by every tenant; mappings belong to a platform and so to its tenant.
// Settings and the refresh status live in system_state (deployment-wide, read by every process).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE eol_products (
      source varchar(64) NOT NULL,
      name varchar(128) NOT NULL,
      label varchar(200) NOT NULL,
      category varchar(64) NOT NULL DEFAULT '',
      aliases jsonb NOT NULL DEFAULT '[]',
      releases jsonb NOT NULL DEFAULT '[]',
      updated timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (source, name)
    );
    CREATE TABLE eol_mappings (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      platform_id uuid NOT NULL UNIQUE REFERENCES platforms(id) ON DELETE CASCADE,
      source varchar(64) NOT NULL,
      product varchar(128) NOT NULL,
      cycle varchar(64) NOT NULL,
      release_date date,
      support_until date,
      eol_date date,
      eol_reached boolean,
      lts boolean NOT NULL DEFAULT false,
      latest_version varchar(64) NOT NULL DEFAULT '',
      synced_at timestamptz,
      missing boolean NOT NULL DEFAULT false,
      created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX eol_mappings_product ON eol_mappings (source, product);
    CREATE INDEX eol_mappings_tenant ON eol_mappings (tenant_id);

    CREATE TABLE compliance_rules (
      id uuid PRIMARY KEY, numid bigint NOT NULL,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name varchar(100) NOT NULL,
      object_type varchar(64) NOT NULL,
      enabled boolean NOT NULL DEFAULT true,
      check_kind varchar(32) NOT NULL,
      settings jsonb NOT NULL DEFAULT '{}',
      description varchar(200) NOT NULL DEFAULT '',
      created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, name)
    );
    CREATE TABLE compliance_violations (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      rule_id uuid NOT NULL REFERENCES compliance_rules(id) ON DELETE CASCADE,
      object_type varchar(64) NOT NULL,
      object_id uuid NOT NULL,
      message text NOT NULL,
      since timestamptz NOT NULL DEFAULT now(),
      UNIQUE (rule_id, object_id)
    );
    CREATE INDEX compliance_violations_object ON compliance_violations (object_id);
    CREATE INDEX compliance_violations_tenant ON compliance_violations (tenant_id, object_type);
  `.execute(db);
}
