// Export templates: tenant-scoped template records rendered against live rows (src/templating/).
// Nothing references them yet; bindings and bundles add their own foreign keys later.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE export_templates (
      id uuid PRIMARY KEY, numid bigint NOT NULL,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name varchar(128) NOT NULL,
      object_type varchar(64) NOT NULL,
      description text NOT NULL DEFAULT '',
      template_code text NOT NULL,
      mime_type varchar(64) NOT NULL DEFAULT 'text/plain',
      file_extension varchar(16) NOT NULL DEFAULT 'txt',
      as_attachment boolean NOT NULL DEFAULT true,
      target_path varchar(500) NOT NULL DEFAULT '',
      created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, name)
    );
    CREATE INDEX export_templates_type ON export_templates (tenant_id, object_type);
  `.execute(db);
}
