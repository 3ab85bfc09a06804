// Deploy runs through automation targets, and outbound webhooks (issue 12).
// - automation_targets gain kind-specific settings, the roles and platforms they apply to, and `enabled`.
// - deploy_runs: one row per Deploy press that reached the automation system; polled until it ends.
// - webhook_outbox: written in the writer's transaction (so a rolled-back write leaves nothing), read by the
//   worker after commit; one row per (webhook, change) until delivered or out of tries.
// - webhook_deliveries: one row per attempt, the history /api/webhook-deliveries/ shows.
// - config_pushes may name the deploy run that produced them.
// - webhook events are named created/updated/deleted (the payload's `event`), not create/update/delete.
// Job ids point into the jobs table without a foreign key: that table belongs to a later migration.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE automation_targets
      ADD COLUMN enabled boolean NOT NULL DEFAULT true,
      ADD COLUMN job_template_id integer,
      ADD COLUMN project_id varchar(200) NOT NULL DEFAULT '',
      ADD COLUMN ref varchar(200) NOT NULL DEFAULT '',
      ADD COLUMN extra_vars jsonb;
    CREATE TABLE automation_target_roles (
      target_id uuid NOT NULL REFERENCES automation_targets(id) ON DELETE CASCADE,
      role_id uuid NOT NULL REFERENCES device_roles(id) ON DELETE CASCADE,
      PRIMARY KEY (target_id, role_id)
    );
    CREATE INDEX automation_target_roles_role_id_idx ON automation_target_roles (role_id);
    CREATE TABLE automation_target_platforms (
      target_id uuid NOT NULL REFERENCES automation_targets(id) ON DELETE CASCADE,
      platform_id uuid NOT NULL REFERENCES platforms(id) ON DELETE CASCADE,
      PRIMARY KEY (target_id, platform_id)
    );
    CREATE INDEX automation_target_platforms_platform_id_idx ON automation_target_platforms (platform_id);

    CREATE TABLE deploy_runs (
      id uuid PRIMARY KEY, numid bigint NOT NULL,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      device_id uuid NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      target_id uuid REFERENCES automation_targets(id) ON DELETE SET NULL,
      target_name varchar(100) NOT NULL,
      target_kind varchar(20) NOT NULL,
      bundle varchar(128) NOT NULL DEFAULT '',
      files jsonb NOT NULL DEFAULT '{}',
      note varchar(255) NOT NULL DEFAULT '',
      requested_by_id uuid REFERENCES users(id) ON DELETE SET NULL,
      requested_by varchar(150) NOT NULL DEFAULT '',
      status varchar(20) NOT NULL,
      status_detail varchar(500) NOT NULL DEFAULT '',
      external_id varchar(100) NOT NULL DEFAULT '',
      external_url varchar(1000) NOT NULL DEFAULT '',
      job_id uuid,
      polls integer NOT NULL DEFAULT 0,
      next_poll_at timestamptz,
      finished timestamptz,
      created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX deploy_runs_tenant_id_idx ON deploy_runs (tenant_id, created DESC);
    CREATE INDEX deploy_runs_device_id_idx ON deploy_runs (device_id);
    CREATE INDEX deploy_runs_target_id_idx ON deploy_runs (target_id) WHERE target_id IS NOT NULL;
    CREATE INDEX deploy_runs_requested_by_id_idx ON deploy_runs (requested_by_id) WHERE requested_by_id IS NOT NULL;
    CREATE INDEX deploy_runs_due_idx ON deploy_runs (next_poll_at) WHERE next_poll_at IS NOT NULL;

    ALTER TABLE config_pushes ADD COLUMN deploy_run_id uuid REFERENCES deploy_runs(id) ON DELETE SET NULL;
    CREATE INDEX config_pushes_deploy_run_id_idx ON config_pushes (deploy_run_id) WHERE deploy_run_id IS NOT NULL;

    UPDATE webhooks SET events = ARRAY(SELECT e || 'd' FROM unnest(events) AS e WHERE e IN ('create', 'update', 'delete'));
    ALTER TABLE webhooks ALTER COLUMN events SET DEFAULT '{created,updated,deleted}';

    CREATE TABLE webhook_outbox (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      webhook_id uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
      change_id uuid NOT NULL REFERENCES object_changes(id) ON DELETE CASCADE,
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      claimed_until timestamptz,
      job_id uuid,
      UNIQUE (webhook_id, change_id)
    );
    CREATE INDEX webhook_outbox_tenant_id_idx ON webhook_outbox (tenant_id);
    CREATE INDEX webhook_outbox_change_id_idx ON webhook_outbox (change_id);
    CREATE INDEX webhook_outbox_due_idx ON webhook_outbox (next_attempt_at);

    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY, numid bigint NOT NULL,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      webhook_id uuid REFERENCES webhooks(id) ON DELETE SET NULL,
      webhook_name varchar(100) NOT NULL,
      change_id uuid,
      event varchar(20) NOT NULL,
      object_type varchar(100) NOT NULL,
      object_id uuid NOT NULL,
      attempt integer NOT NULL,
      status_code integer,
      duration_ms integer NOT NULL DEFAULT 0,
      succeeded boolean NOT NULL DEFAULT false,
      error varchar(1000) NOT NULL DEFAULT '',
      next_retry timestamptz,
      job_id uuid,
      created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_deliveries_tenant_id_idx ON webhook_deliveries (tenant_id, created DESC);
    CREATE INDEX webhook_deliveries_webhook_id_idx ON webhook_deliveries (webhook_id) WHERE webhook_id IS NOT NULL;
  `.execute(db);
}
