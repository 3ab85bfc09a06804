// Service monitoring (src/monitoring/): network services on devices and VMs, the per-IP checks they own, and
// the executor's state, history and state changes. PostgreSQL 13 compatible.
import { sql, type Kysely } from 'kysely';

const audit = sql`created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz NOT NULL DEFAULT now()`;
const base = sql`id uuid PRIMARY KEY, numid bigint NOT NULL, tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE services (
      ${base},
      device_id uuid REFERENCES devices(id) ON DELETE CASCADE,
      virtual_machine_id uuid REFERENCES virtual_machines(id) ON DELETE CASCADE,
      name varchar(128) NOT NULL,
      protocol varchar(10) NOT NULL DEFAULT 'tcp',
      ports integer[] NOT NULL DEFAULT '{}',
      protocol_ports jsonb NOT NULL DEFAULT '{}',
      ip_address_id uuid REFERENCES ip_addresses(id) ON DELETE SET NULL,
      monitored boolean NOT NULL DEFAULT false,
      description varchar(200) NOT NULL DEFAULT '',
      ${audit},
      CONSTRAINT services_one_parent CHECK ((device_id IS NULL) <> (virtual_machine_id IS NULL)),
      UNIQUE (device_id, name), UNIQUE (virtual_machine_id, name)
    );
    CREATE INDEX services_tenant ON services (tenant_id);
    CREATE INDEX services_ip ON services (ip_address_id) WHERE ip_address_id IS NOT NULL;
    CREATE TABLE check_templates (
      ${base},
      name varchar(100) NOT NULL,
      slug varchar(100) NOT NULL,
      kind varchar(10) NOT NULL,
      port integer NOT NULL CHECK (port BETWEEN 1 AND 65535),
      interval_seconds integer NOT NULL DEFAULT 60,
      timeout_ms integer NOT NULL DEFAULT 2000,
      rise integer NOT NULL DEFAULT 2,
      fall integer NOT NULL DEFAULT 2,
      enabled boolean NOT NULL DEFAULT true,
      description varchar(200) NOT NULL DEFAULT '',
      ${audit},
      UNIQUE (tenant_id, slug)
    );
    CREATE TABLE check_assignments (
      ${base},
      template_id uuid NOT NULL REFERENCES check_templates(id) ON DELETE CASCADE,
      ip_address_id uuid NOT NULL REFERENCES ip_addresses(id) ON DELETE CASCADE,
      service_id uuid REFERENCES services(id) ON DELETE CASCADE,
      enabled boolean NOT NULL DEFAULT true,
      state varchar(10) NOT NULL DEFAULT 'unknown',
      consecutive_ok integer NOT NULL DEFAULT 0,
      consecutive_fail integer NOT NULL DEFAULT 0,
      last_result varchar(10),
      last_latency_ms double precision,
      last_detail varchar(200) NOT NULL DEFAULT '',
      last_checked timestamptz,
      last_change timestamptz,
      next_run timestamptz,
      ${audit},
      UNIQUE (template_id, ip_address_id)
    );
    CREATE INDEX check_assignments_service ON check_assignments (service_id) WHERE service_id IS NOT NULL;
    CREATE INDEX check_assignments_ip ON check_assignments (ip_address_id);
    CREATE INDEX check_assignments_due ON check_assignments (next_run) WHERE enabled;
    CREATE TABLE check_results (
      ${base},
      assignment_id uuid NOT NULL REFERENCES check_assignments(id) ON DELETE CASCADE,
      status varchar(10) NOT NULL,
      latency_ms double precision,
      detail varchar(200) NOT NULL DEFAULT '',
      ${audit}
    );
    CREATE INDEX check_results_assignment ON check_results (assignment_id, created);
    CREATE INDEX check_results_created ON check_results (created);
    CREATE TABLE check_events (
      ${base},
      assignment_id uuid NOT NULL REFERENCES check_assignments(id) ON DELETE CASCADE,
      from_state varchar(10) NOT NULL,
      to_state varchar(10) NOT NULL,
      detail varchar(200) NOT NULL DEFAULT '',
      ${audit}
    );
    CREATE INDEX check_events_assignment ON check_events (assignment_id, created);
  `.execute(db);
}
