// After-upgrade steps (issue 11): which shipped steps this deployment has acknowledged, and whether the
// database was created fresh. A fresh install starts with every step up to its own release done (it was set
// up by that release's instructions); an install upgraded into this migration sees them all. The baseline
// version is written by the first code that reads the steps (src/upgrade/step-notes.ts), because a
// migration must not depend on the release it ships in. PostgreSQL 13 compatible.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE upgrade_step_acks (
      id varchar(100) PRIMARY KEY,
      acknowledged_by varchar(200) NOT NULL,
      acknowledged_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE upgrade_step_baseline (
      id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
      fresh_install boolean NOT NULL,
      version varchar(50)
    );
    INSERT INTO upgrade_step_baseline (id, fresh_install, version)
      SELECT 1, NOT EXISTS (SELECT 1 FROM tenants), NULL`.execute(db);
}
