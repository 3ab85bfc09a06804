// Jobs and search (issue 13). PostgreSQL 13 compatible.
// - jobs: the user-visible record of background work (src/jobs/record.ts writes it; pg-boss only executes).
//   tenant_id NULL marks deployment-wide work (upgrades, end-of-life refreshes), shown to users.manage only.
// - search_index: one row per searchable value of a tenant's object (src/search/ keeps it current). `norm` is
//   the value as matched (lower case, accents removed when unaccent exists); `address` holds inet/cidr values
//   for containment (a host address as /32 or /128, so it never "contains" its neighbours).
// - pg_trgm and unaccent are created when the server allows it (both are trusted extensions from PostgreSQL 13,
//   so a database owner may create them). Otherwise search still works by exact and prefix match, and health
//   names the missing extension; `cairn rebuild` picks the extensions up once a superuser created them.
//   Deletes reach the index through a statement trigger, so ON DELETE CASCADE from a parent removes entries too.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE jobs (
      id uuid PRIMARY KEY,
      tenant_id uuid REFERENCES tenants(id) ON DELETE CASCADE,
      kind varchar(64) NOT NULL,
      status varchar(10) NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
      started_by varchar(200) NOT NULL,
      subject_type varchar(100),
      subject_id varchar(100),
      done bigint NOT NULL DEFAULT 0,
      total bigint,
      cancellable boolean NOT NULL DEFAULT false,
      cancel_requested boolean NOT NULL DEFAULT false,
      result text NOT NULL DEFAULT '',
      error text NOT NULL DEFAULT '',
      created timestamptz NOT NULL DEFAULT now(),
      started timestamptz,
      finished timestamptz
    );
    CREATE INDEX jobs_tenant_id_idx ON jobs (tenant_id, id DESC) WHERE tenant_id IS NOT NULL;
    CREATE INDEX jobs_deployment_idx ON jobs (id DESC) WHERE tenant_id IS NULL;
    CREATE INDEX jobs_open_idx ON jobs (kind, status) WHERE status IN ('queued', 'running');

    CREATE TABLE search_index (
      object_id uuid NOT NULL,
      field varchar(150) NOT NULL,
      tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      object_type varchar(100) NOT NULL,
      display text NOT NULL,
      value text NOT NULL,
      norm text NOT NULL,
      address inet,
      PRIMARY KEY (object_id, field)
    );
    CREATE INDEX search_index_norm_idx ON search_index (tenant_id, norm text_pattern_ops);
    CREATE INDEX search_index_address_idx ON search_index USING gist (address inet_ops) WHERE address IS NOT NULL;

    CREATE FUNCTION cairn_search_forget() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      DELETE FROM search_index s USING gone g WHERE s.object_id = g.id;
      RETURN NULL;
    END $fn$;

    DO $do$
    DECLARE t record;
    BEGIN
      -- Every tenant table with uuid ids forgets its deleted rows (history tables excepted: they are never
      -- searched and are pruned in bulk); later tables get the trigger from cairn rebuild.
      FOR t IN SELECT c.table_name FROM information_schema.columns c
               JOIN information_schema.columns k ON k.table_schema = c.table_schema AND k.table_name = c.table_name AND k.column_name = 'id' AND k.data_type = 'uuid'
               JOIN information_schema.tables x ON x.table_schema = c.table_schema AND x.table_name = c.table_name AND x.table_type = 'BASE TABLE'
               WHERE c.table_schema = current_schema() AND c.column_name = 'tenant_id' AND c.table_name NOT IN ('jobs', 'search_index', 'tokens', 'sessions',
                 'object_changes', 'journal_entries', 'config_pushes', 'check_results', 'check_events', 'compliance_violations')
      LOOP
        EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION cairn_search_forget()',
          t.table_name || '_search_forget', t.table_name);
      END LOOP;

      IF current_setting('server_version_num')::int >= 130000 THEN
        BEGIN
          CREATE EXTENSION IF NOT EXISTS pg_trgm;
        EXCEPTION WHEN OTHERS THEN
          RAISE NOTICE 'pg_trgm not created (%): search falls back to exact and prefix matching', SQLERRM;
        END;
        BEGIN
          CREATE EXTENSION IF NOT EXISTS unaccent;
        EXCEPTION WHEN OTHERS THEN
          RAISE NOTICE 'unaccent not created (%): search matches accents literally', SQLERRM;
        END;
      END IF;
    END $do$;
  `.execute(db);
  // Which extensions exist decides the normaliser and the trigram index; cairn rebuild runs the same choice.
  const { rows } = await sql<{ extname: string; schema: string }>`
    SELECT extname, extnamespace::regnamespace::text AS schema FROM pg_extension WHERE extname IN ('pg_trgm', 'unaccent')`.execute(db);
  const unaccent = rows.find((r) => r.extname === 'unaccent');
  await sql`${sql.raw(normaliserSql(unaccent?.schema ?? null))}`.execute(db);
  if (rows.some((r) => r.extname === 'pg_trgm')) {
    const trgm = rows.find((r) => r.extname === 'pg_trgm')!;
    await sql`${sql.raw(`CREATE INDEX IF NOT EXISTS search_index_trgm_idx ON search_index USING gin (norm ${quoteIdent(trgm.schema)}.gin_trgm_ops)`)}`.execute(db);
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * The one normaliser for indexed values and queries. Declared IMMUTABLE although unaccent is only STABLE (its
 * dictionary could change): the index is rebuilt by `cairn rebuild` if that ever happens.
 */
function normaliserSql(unaccentSchema: string | null): string {
  const body = unaccentSchema
    ? `SELECT lower(${quoteIdent(unaccentSchema)}.unaccent('${unaccentSchema.replace(/'/g, "''")}.unaccent'::regdictionary, coalesce($1, '')))`
    : `SELECT lower(coalesce($1, ''))`;
  return `CREATE OR REPLACE FUNCTION cairn_search_norm(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$ ${body} $fn$`;
}
