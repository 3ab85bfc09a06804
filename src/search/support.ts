// The database side of search: the two text extensions (pg_trgm for similarity, unaccent for accent-blind
// matching), the normaliser built on them and the trigram index (the triggers: triggers.ts). Health and
// `cairn status` report a missing extension with the statement a superuser must run.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { quoteIdent, quoteLiteral } from '../db/quote.ts';

export const SEARCH_EXTENSIONS = ['pg_trgm', 'unaccent'] as const;
export type SearchExtension = (typeof SEARCH_EXTENSIONS)[number];

export interface MissingExtension {
  name: SearchExtension;
  statement: string;
  effect: string;
}

const EFFECT: Record<SearchExtension, string> = {
  pg_trgm: 'search matches exact values and prefixes only (no similarity ranking, no matches inside words)',
  unaccent: 'search matches accented letters literally (Zürich is not found by "zurich")',
};

export interface ExtensionState {
  pg_trgm: boolean;
  unaccent: boolean;
  /** Schema of each installed extension (the normaliser and index name it explicitly). */
  schemas: Partial<Record<SearchExtension, string>>;
  missing: MissingExtension[];
}

export async function extensionState(db: Kysely<DB>): Promise<ExtensionState> {
  const { rows } = await sql<{ extname: SearchExtension; schema: string }>`
    SELECT extname, extnamespace::regnamespace::text AS schema FROM pg_extension WHERE extname IN ('pg_trgm', 'unaccent')`.execute(db);
  const schemas: Partial<Record<SearchExtension, string>> = {};
  for (const r of rows) schemas[r.extname] = r.schema;
  const missing = SEARCH_EXTENSIONS.filter((name) => !schemas[name]).map((name) => ({
    name,
    statement: `CREATE EXTENSION IF NOT EXISTS ${name};`,
    effect: EFFECT[name],
  }));
  return { pg_trgm: Boolean(schemas.pg_trgm), unaccent: Boolean(schemas.unaccent), schemas, missing };
}

// The device list's trigram index (migrations 0034 and 0035 made it where pg_trgm existed then): `q` on the device
// list is ILIKE '%…%' over these four columns, and each arm of the OR is answered by it. Written straight into the
// index (no GIN pending list): the planner priced every pending page into each arm and read every device instead.
const DEVICE_TRIGRAM_INDEX = 'devices_q_trgm';

function deviceTrigramIndexSql(trgmSchema: string): string {
  const ops = `${quoteIdent(trgmSchema)}.gin_trgm_ops`;
  return `CREATE INDEX IF NOT EXISTS ${DEVICE_TRIGRAM_INDEX} ON devices USING gin (name ${ops}, serial ${ops}, asset_tag ${ops}, comments ${ops})
    WITH (gin_pending_list_limit = 256)`;
}

async function settleDeviceTrigramIndex(db: Kysely<DB>): Promise<void> {
  const index = sql.lit(DEVICE_TRIGRAM_INDEX);
  await sql`DO $$ BEGIN
    IF to_regclass(${index}) IS NOT NULL THEN
      EXECUTE format('ALTER INDEX %I SET (fastupdate = off)', ${index}::text);
      -- Turning fast update off keeps what is pending; merge it now.
      PERFORM gin_clean_pending_list(to_regclass(${index}));
    END IF;
  END $$`.execute(db);
}

/**
 * Creates what search needs and may still be missing: the extensions when this role may (a superuser may have
 * made that possible since the migration), the normaliser matching what exists and the trigram index.
 * Idempotent; run before every rebuild.
 */
export async function ensureSearchSupport(db: Kysely<DB>): Promise<ExtensionState> {
  const before = await extensionState(db);
  const { rows: version } = await sql<{ v: number }>`SELECT current_setting('server_version_num')::int AS v`.execute(db);
  if (version[0]!.v >= 130000) {
    for (const m of before.missing) {
      // Refused without the right (or unavailable on this server): the health document says so.
      await sql`${sql.raw(m.statement)}`.execute(db).catch(() => undefined);
    }
  }
  const state = before.missing.length ? await extensionState(db) : before;
  const body = state.schemas.unaccent
    ? `SELECT lower(${quoteIdent(state.schemas.unaccent)}.unaccent(${quoteLiteral(`${state.schemas.unaccent}.unaccent`)}::regdictionary, coalesce($1, '')))`
    : `SELECT lower(coalesce($1, ''))`;
  await sql`${sql.raw(`CREATE OR REPLACE FUNCTION cairn_search_norm(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$ ${body} $fn$`)}`.execute(db);
  if (state.schemas.pg_trgm) {
    // Its pending-list cap is each session's (PENDING_LIST_KB in db/database.ts), not the index's.
    await sql`${sql.raw(`CREATE INDEX IF NOT EXISTS search_index_trgm_idx ON search_index USING gin (norm ${quoteIdent(state.schemas.pg_trgm)}.gin_trgm_ops)`)}`.execute(db);
    // And the one the device list's `q` reads (migration 0034), missing when pg_trgm came after the migration.
    await sql`${sql.raw(deviceTrigramIndexSql(state.schemas.pg_trgm))}`.execute(db);
    await settleDeviceTrigramIndex(db);
  }
  return state;
}
