// Config rendering (issue 7): template bindings become real foreign keys, config bundles, push records.
// - devices, device roles, platforms and VMs bind an export template through `config_template_id`. Dangling ids
//   written before the FK existed are cleared first, since the template they named is gone. ON DELETE SET NULL:
//   deleting a template unbinds it.
// - config_pushes is append-only history; the latest row per (device, path) gives drift. The hash is always
//   kept, the text only when small enough to diff against.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE devices d SET config_template_id = NULL WHERE config_template_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM export_templates t WHERE t.id = d.config_template_id);
    UPDATE device_roles d SET config_template_id = NULL WHERE config_template_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM export_templates t WHERE t.id = d.config_template_id);
    UPDATE platforms d SET config_template_id = NULL WHERE config_template_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM export_templates t WHERE t.id = d.config_template_id);
    UPDATE virtual_machines d SET config_template_id = NULL WHERE config_template_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM export_templates t WHERE t.id = d.config_template_id);
    ALTER TABLE devices ADD CONSTRAINT devices_config_template_id_fkey FOREIGN KEY (config_template_id) REFERENCES export_templates(id) ON DELETE SET NULL;
    ALTER TABLE device_roles ADD CONSTRAINT device_roles_config_template_id_fkey FOREIGN KEY (config_template_id) REFERENCES export_templates(id) ON DELETE SET NULL;
    ALTER TABLE platforms ADD CONSTRAINT platforms_config_template_id_fkey FOREIGN KEY (config_template_id) REFERENCES export_templates(id) ON DELETE SET NULL;
    ALTER TABLE virtual_machines ADD CONSTRAINT virtual_machines_config_template_id_fkey FOREIGN KEY (config_template_id) REFERENCES export_templates(id) ON DELETE SET NULL;
    CREATE INDEX devices_config_template_id_idx ON devices (config_template_id) WHERE config_template_id IS NOT NULL;
    CREATE INDEX device_roles_config_template_id_idx ON device_roles (config_template_id) WHERE config_template_id IS NOT NULL;
    CREATE INDEX platforms_config_template_id_idx ON platforms (config_template_id) WHERE config_template_id IS NOT NULL;
    CREATE INDEX virtual_machines_config_template_id_idx ON virtual_machines (config_template_id) WHERE config_template_id IS NOT NULL;

    CREATE TABLE config_bundles (
      id uuid PRIMARY KEY, numid bigint NOT NULL,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name varchar(128) NOT NULL,
      description text NOT NULL DEFAULT '',
      created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, name)
    );
    CREATE TABLE config_bundle_templates (
      bundle_id uuid NOT NULL REFERENCES config_bundles(id) ON DELETE CASCADE,
      template_id uuid NOT NULL REFERENCES export_templates(id) ON DELETE CASCADE,
      PRIMARY KEY (bundle_id, template_id)
    );
    CREATE INDEX config_bundle_templates_template_id_idx ON config_bundle_templates (template_id);
    CREATE TABLE config_bundle_roles (
      bundle_id uuid NOT NULL REFERENCES config_bundles(id) ON DELETE CASCADE,
      role_id uuid NOT NULL REFERENCES device_roles(id) ON DELETE CASCADE,
      PRIMARY KEY (bundle_id, role_id)
    );
    CREATE INDEX config_bundle_roles_role_id_idx ON config_bundle_roles (role_id);

    CREATE TABLE config_pushes (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      device_id uuid REFERENCES devices(id) ON DELETE CASCADE,
      virtual_machine_id uuid REFERENCES virtual_machines(id) ON DELETE CASCADE,
      path varchar(255) NOT NULL,
      template_id uuid REFERENCES export_templates(id) ON DELETE SET NULL,
      bundle varchar(128) NOT NULL DEFAULT '',
      sha256 char(64) NOT NULL,
      output text NOT NULL DEFAULT '',
      has_output boolean NOT NULL DEFAULT false,
      pushed_by_id uuid REFERENCES users(id) ON DELETE SET NULL,
      pushed_by varchar(150) NOT NULL DEFAULT '',
      source varchar(64) NOT NULL DEFAULT '',
      note varchar(255) NOT NULL DEFAULT '',
      pushed_at timestamptz NOT NULL,
      CHECK ((device_id IS NULL) <> (virtual_machine_id IS NULL))
    );
    CREATE INDEX config_pushes_tenant_id_idx ON config_pushes (tenant_id);
    CREATE INDEX config_pushes_device_path_idx ON config_pushes (device_id, path, pushed_at DESC) WHERE device_id IS NOT NULL;
    CREATE INDEX config_pushes_vm_path_idx ON config_pushes (virtual_machine_id, path, pushed_at DESC) WHERE virtual_machine_id IS NOT NULL;
    CREATE INDEX config_pushes_template_id_idx ON config_pushes (template_id) WHERE template_id IS NOT NULL;
    CREATE INDEX config_pushes_pushed_by_id_idx ON config_pushes (pushed_by_id) WHERE pushed_by_id IS NOT NULL;
  `.execute(db);
}
