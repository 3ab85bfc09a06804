// The full rebuild of search_index behind `cairn rebuild`, the nightly schedule and demo-data. Writes keep the
// index current on their own (triggers.ts); deletes through a statement trigger (migration 0011), cascades
// included.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { searchableModels } from './fields.ts';
import { entriesSql, upsertEntriesSql } from './entries.ts';
import { ensureSearchSupport } from './support.ts';
import { syncSearchTriggers } from './triggers.ts';
import { inTenant } from '../core/access.ts';

export interface RebuildReport {
  models: number;
  entries: number;
  extensions: { pg_trgm: boolean; unaccent: boolean };
}

/**
 * Rebuilds the index of one tenant (or every tenant) from the tables: entries of objects that no longer exist
 * go, every searchable value is written again. Also re-checks the extensions, so a pg_trgm or unaccent created
 * by a superuser after the migration is used from here on, and the write triggers.
 */
export async function rebuildSearchIndex(
  db: Kysely<DB>,
  options: { tenantId?: string | null; onProgress?: (done: number, total: number, model: string) => void | Promise<void> } = {},
): Promise<RebuildReport> {
  const support = await ensureSearchSupport(db);
  await syncSearchTriggers(db);
  const models = searchableModels();
  const tenant = options.tenantId ?? null;
  // One tenant's entries, or every tenant's for a deployment-wide rebuild.
  const entriesOf = (alias?: string) => (tenant ? inTenant(tenant, alias) : sql`true`);
  // One transaction per model: searches keep answering from the rest meanwhile, and progress is reported
  // between transactions (on PGlite the single connection is busy during one).
  let done = 0;
  for (const s of models) {
    await db.transaction().execute(async (tx) => {
      await sql`DELETE FROM search_index WHERE object_type = ${s.model.name} AND ${entriesOf()}`.execute(tx);
      await upsertEntriesSql(entriesSql(s, sql.table(s.model.table), entriesOf('t'))).execute(tx);
    });
    done++;
    await options.onProgress?.(done, models.length, s.model.name);
  }
  // Entries of models no longer searchable (a release changed the registry).
  await sql`DELETE FROM search_index WHERE object_type <> ALL(${models.map((s) => s.model.name)}::text[]) AND ${entriesOf()}`.execute(db);
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM search_index WHERE ${entriesOf()}`.execute(db);
  return { models: models.length, entries: rows[0]!.n, extensions: { pg_trgm: support.pg_trgm, unaccent: support.unaccent } };
}
