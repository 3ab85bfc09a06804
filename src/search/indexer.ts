// Keeps search_index current: one set-based statement per model and write (whatever the number of rows), and
// the full rebuild behind `cairn rebuild`, the nightly schedule and demo-data. Deletes are not handled here:
// a statement trigger (migration 0011) removes the entries of deleted rows, cascades included.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import { columnOf, type ModelDef } from '../core/registry.ts';
import { INDEXED_TEXT_MAX, searchableModel, searchableModels, valuesSql, type SearchableModel } from './fields.ts';
import { ensureSearchSupport } from './support.ts';

/** Writes the entries of the rows of `s` matching `where` (over alias `t`); removes their stale entries. */
async function indexWhere(db: Kysely<DB>, s: SearchableModel, where: RawBuilder<unknown>, objectIds: RawBuilder<unknown> | null): Promise<void> {
  const display = sql`coalesce(${sql.ref(`t.${s.displayColumn}`)}::text, t.id::text)`;
  // One statement: fresh entries upserted, entries of the same rows no longer produced deleted. The two touch
  // disjoint keys, so they never conflict.
  await sql`
    WITH fresh AS (
      SELECT t.id AS object_id, v.field, t.tenant_id, ${s.model.name}::text AS object_type, ${display} AS display,
        left(v.value, ${INDEXED_TEXT_MAX}) AS value, cairn_search_norm(left(v.value, ${INDEXED_TEXT_MAX})) AS norm, v.address
      FROM ${sql.table(s.model.table)} t
      CROSS JOIN LATERAL (${valuesSql(s)}) AS v(field, value, address)
      WHERE ${where} AND v.value IS NOT NULL AND v.value <> ''
    ),
    stale AS (
      DELETE FROM search_index si WHERE ${objectIds ? sql`si.object_id IN (${objectIds})` : sql`false`}
        AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.object_id = si.object_id AND f.field = si.field)
    )
    INSERT INTO search_index (object_id, field, tenant_id, object_type, display, value, norm, address)
    SELECT object_id, field, tenant_id, object_type, display, value, norm, address FROM fresh
    ON CONFLICT (object_id, field) DO UPDATE SET display = excluded.display, value = excluded.value, norm = excluded.norm,
      address = excluded.address, tenant_id = excluded.tenant_id`.execute(db);
}

/** Re-indexes rows of a model by id (creates and updates). */
export async function reindexRows(db: Kysely<DB>, model: ModelDef, ids: string[]): Promise<void> {
  const s = searchableModel(model.name);
  if (!s || ids.length === 0) return;
  await indexWhere(db, s, sql`t.id = ANY(${ids}::uuid[])`, sql`SELECT unnest(${ids}::uuid[])`);
}

/**
 * Rows a domain creates together with a parent in the same transaction (a device's interfaces from its type)
 * are written by the domain's own SQL, past the generic hooks: index the searchable children of new parents.
 */
export async function indexChildrenOf(db: Kysely<DB>, parent: ModelDef, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  for (const s of searchableModels()) {
    for (const [key, field] of Object.entries(s.model.fields)) {
      if (field.kind !== 'fk' || field.target !== parent.name || field.onDelete !== 'cascade') continue;
      const col = sql.ref(`t.${columnOf(key, field)}`);
      await indexWhere(db, s, sql`${col} = ANY(${ids}::uuid[])`, null);
    }
  }
}

/** Parents whose creation may create searchable children (see indexChildrenOf). */
export function parentsWithChildren(): Set<string> {
  const out = new Set<string>();
  for (const s of searchableModels()) {
    for (const field of Object.values(s.model.fields)) if (field.kind === 'fk' && field.onDelete === 'cascade' && field.target) out.add(field.target);
  }
  return out;
}

export interface RebuildReport {
  models: number;
  entries: number;
  extensions: { pg_trgm: boolean; unaccent: boolean };
}

/**
 * Rebuilds the index of one tenant (or every tenant) from the tables: entries of objects that no longer exist
 * go, every searchable value is written again. Also re-checks the extensions, so a pg_trgm or unaccent created
 * by a superuser after the migration is used from here on.
 */
export async function rebuildSearchIndex(
  db: Kysely<DB>,
  options: { tenantId?: string | null; onProgress?: (done: number, total: number, model: string) => void | Promise<void> } = {},
): Promise<RebuildReport> {
  const support = await ensureSearchSupport(db);
  const models = searchableModels();
  const tenant = options.tenantId ?? null;
  const inTenant = tenant ? sql`tenant_id = ${tenant}` : sql`true`;
  // One transaction per model: searches keep answering from the rest meanwhile, and progress is reported
  // between transactions (on PGlite the single connection is busy during one).
  let done = 0;
  for (const s of models) {
    await db.transaction().execute(async (tx) => {
      await sql`DELETE FROM search_index WHERE object_type = ${s.model.name} AND ${inTenant}`.execute(tx);
      await indexWhere(tx, s, tenant ? sql`t.tenant_id = ${tenant}` : sql`true`, null);
    });
    done++;
    await options.onProgress?.(done, models.length, s.model.name);
  }
  // Entries of models no longer searchable (a release changed the registry).
  await sql`DELETE FROM search_index WHERE object_type <> ALL(${models.map((s) => s.model.name)}::text[]) AND ${inTenant}`.execute(db);
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM search_index WHERE ${tenant ? sql`tenant_id = ${tenant}` : sql`true`}`.execute(db);
  return { models: models.length, entries: rows[0]!.n, extensions: { pg_trgm: support.pg_trgm, unaccent: support.unaccent } };
}
