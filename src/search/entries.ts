// What goes into search_index for the rows of a searchable model: the one SELECT shared by the write triggers
// (triggers.ts, every insert and update) and the full rebuild (indexer.ts).
import { sql, type RawBuilder } from 'kysely';
import { tenantAs, tenantColumn } from '../core/access.ts';
import { INDEXED_TEXT_MAX, valuesSql, type SearchableModel } from './fields.ts';

/**
 * The entries of the rows of `source` (aliased `t`) matching `where`, as the columns of search_index. Only
 * literals are inlined, no parameters, so the text can live in a trigger function's body.
 */
export function entriesSql(s: SearchableModel, source: RawBuilder<unknown>, where: RawBuilder<unknown>): RawBuilder<unknown> {
  const base = sql`coalesce(${sql.ref(`t.${s.displayColumn}`)}::text, t.id::text)`;
  // As displayOf writes it: `servers (10)`, the name alone where the qualifier is null.
  const display = s.qualifierColumn ? sql`${base} || coalesce(' (' || ${sql.ref(`t.${s.qualifierColumn}`)}::text || ')', '')` : base;
  const max = sql.lit(INDEXED_TEXT_MAX);
  return sql`SELECT t.id AS object_id, v.field, ${tenantAs('t')}, ${sql.lit(s.model.name)}::text AS object_type, ${display} AS display,
      left(v.value, ${max}) AS value, cairn_search_norm(left(v.value, ${max})) AS norm, v.address
    FROM ${source} t
    CROSS JOIN LATERAL (${valuesSql(s)}) AS v(field, value, address)
    WHERE ${where} AND v.value IS NOT NULL AND v.value <> ''`;
}

/**
 * Writes entries (a SELECT with search_index's columns): new ones inserted, changed ones updated, unchanged ones
 * left alone (an edit of a device's serial rewrites one entry, not all of the device's).
 */
export function upsertEntriesSql(entries: RawBuilder<unknown>): RawBuilder<unknown> {
  const tenant = tenantColumn();
  return sql`INSERT INTO search_index (object_id, field, ${tenant}, object_type, display, value, norm, address)
    SELECT object_id, field, tenant, object_type, display, value, norm, address FROM (${entries}) AS e
    ON CONFLICT (object_id, field) DO UPDATE SET display = excluded.display, value = excluded.value, norm = excluded.norm,
      address = excluded.address, ${tenant} = ${tenantColumn('excluded')}
    WHERE (search_index.display, search_index.value, search_index.address, ${tenantColumn('search_index')})
      IS DISTINCT FROM (excluded.display, excluded.value, excluded.address, ${tenantColumn('excluded')})`;
}
