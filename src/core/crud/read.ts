// Scoped reads of registry models: the list page and one object. The tenant fence comes first, then the
// caller's filters.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../../db/types.ts';
import type { RequestContext } from '../context.ts';
import type { ModelDef } from '../registry.ts';
import { scopeCondition } from '../access.ts';
import { parseListQuery, type CustomFilter, type QueryValues, type QuickSearch } from './list-query.ts';
import { serializeRows, type ApiObject, type Row } from './serialize.ts';
import { loadScopedRow } from './write.ts';
import { pagedList, type ListEnvelope } from '../list-envelope.ts';
import { FOLD_AFTER, foldRowCounts, keptRowCount } from './row-counts.ts';

export type Page = ListEnvelope<ApiObject>;

const customFilters = new Map<string, Record<string, CustomFilter>>();

/** Filters a domain adds to a model's list beyond its fields. */
export function addListFilters(modelName: string, filters: Record<string, CustomFilter>): void {
  customFilters.set(modelName, { ...customFilters.get(modelName), ...filters });
}

export function listFiltersOf(modelName: string): Record<string, CustomFilter> {
  return customFilters.get(modelName) ?? {};
}

const quickSearches = new Map<string, QuickSearch>();

/** What `q` means to a model beyond its search fields' text (addresses and networks for IPAM models). */
export function setQuickSearch(modelName: string, search: QuickSearch): void {
  quickSearches.set(modelName, search);
}

/** The rows a list request selects, unpaged conditions included: shared by lists, renders and bulk calls. */
export function listConditions(ctx: RequestContext, model: ModelDef, query: QueryValues, alias = 't', extraReserved?: ReadonlySet<string>) {
  const parsed = parseListQuery(model, query, alias, listFiltersOf(model.name), extraReserved, quickSearches.get(model.name));
  const where = sql.join([scopeCondition(ctx, model, alias), ...parsed.where], sql` AND `);
  return { ...parsed, where, filtered: parsed.where.length > 0 };
}

/**
 * How many rows the list selects. A tenant's whole list (no filter) reads the count the table's triggers keep
 * (row-counts.ts), so its cost does not grow with the table; a filtered one counts what it selects.
 */
function countRows(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, where: RawBuilder<unknown>, filtered: boolean): Promise<number> {
  if (!filtered && model.tenantScoped && ctx.tenantId) return keptRowCount(db, model, ctx.tenantId);
  return sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(model.table)} t WHERE ${where}`.execute(db).then((r) => r.rows[0]!.n);
}

/** The page's own column carrying the list's count (see listPage); no field can be called so. */
const COUNT_COLUMN = '__cairn_count';

/**
 * The count as a scalar subquery of the page's statement: PostgreSQL runs it once, beside the page, so a list is
 * one round trip instead of two (under load, sending a query was a quarter of the server's time). The kept count
 * comes with its number of delta rows ("n/parts"), so a read can still fold them.
 */
function countColumn(ctx: RequestContext, model: ModelDef, query: QueryValues, filtered: boolean): RawBuilder<unknown> {
  if (!filtered && model.tenantScoped && ctx.tenantId) {
    return sql`(SELECT coalesce(sum(n), 0)::text || '/' || count(*) FROM row_counts WHERE table_name = ${model.table} AND tenant_id = ${ctx.tenantId})`;
  }
  const { where } = listConditions(ctx, model, query, 'c');
  return sql`(SELECT count(*)::text FROM ${sql.table(model.table)} c WHERE ${where})`;
}

export async function listPage(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, query: QueryValues, pageUrl: URL): Promise<Page> {
  const { where, orderBy, limit, offset, filtered } = listConditions(ctx, model, query);
  const { rows } = await sql<Row>`SELECT t.*, ${countColumn(ctx, model, query, filtered)} AS ${sql.ref(COUNT_COLUMN)}
    FROM ${sql.table(model.table)} t WHERE ${where} ORDER BY ${orderBy} LIMIT ${limit} OFFSET ${offset}`.execute(db);
  let count: number;
  if (rows.length === 0) {
    // A page past the end has no row to carry the count: it is read on its own.
    count = await countRows(db, ctx, model, where, filtered);
  } else {
    const [n, parts] = String(rows[0]![COUNT_COLUMN]).split('/');
    count = Number(n);
    if (parts !== undefined && Number(parts) > FOLD_AFTER) await foldRowCounts(db, model.table, ctx.tenantId!);
    for (const row of rows) delete row[COUNT_COLUMN];
  }
  const results = await serializeRows(db, ctx, model, rows, { origin: pageUrl.origin });
  return pagedList(pageUrl, { count, limit, offset }, results);
}

export async function readObject(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, id: string, origin: string): Promise<ApiObject> {
  const row = await loadScopedRow(db, ctx, model, id);
  return (await serializeRows(db, ctx, model, [row], { origin }))[0]!;
}

export async function serializeOne(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, row: Row, origin: string): Promise<ApiObject> {
  return (await serializeRows(db, ctx, model, [row], { origin }))[0]!;
}
