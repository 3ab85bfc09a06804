// Scoped reads of registry models: the list page and one object. The tenant fence comes first, then the
// caller's filters.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../../db/types.ts';
import type { RequestContext } from '../context.ts';
import { lookupTable, type ModelDef } from '../registry.ts';
import { scopeCondition } from '../access.ts';
import { parseListQuery, type CustomFilter, type QueryValues, type QuickSearch } from './list-query.ts';
import { inlineComputedSelect, serializeRows, type ApiObject, type Row } from './serialize.ts';
import { notFound } from '../errors.ts';
import { noteRegistration } from '../provenance.ts';
import { pagedList, type ListEnvelope } from '../list-envelope.ts';
import { keptCountOf, keptCountSql } from './row-counts.ts';

export type Page = ListEnvelope<ApiObject>;

const customFilters = new Map<string, Record<string, CustomFilter>>();

/** Filters a domain adds to a model's list beyond its fields. */
export function addListFilters(modelName: string, filters: Record<string, CustomFilter>): void {
  noteRegistration(modelName, 'list filters', Object.keys(filters));
  customFilters.set(modelName, lookupTable({ ...customFilters.get(modelName), ...filters }));
}

const NO_FILTERS: Record<string, CustomFilter> = lookupTable({});

/** Indexed by the query's parameter names: a table without a prototype (`?__proto__=` is no filter). */
export function listFiltersOf(modelName: string): Record<string, CustomFilter> {
  return customFilters.get(modelName) ?? NO_FILTERS;
}

const quickSearches = new Map<string, QuickSearch>();

/** What `q` means to a model beyond its search fields' text (addresses and networks for IPAM models). */
export function setQuickSearch(modelName: string, search: QuickSearch): void {
  noteRegistration(modelName, 'quick search (q)', []);
  quickSearches.set(modelName, search);
}

/** The rows a list request selects, unpaged conditions included: shared by lists, renders and bulk calls. */
export function listConditions(ctx: RequestContext, model: ModelDef, query: QueryValues, alias = 't', extraReserved?: ReadonlySet<string>) {
  const parsed = parseListQuery(model, query, alias, listFiltersOf(model.name), extraReserved, quickSearches.get(model.name), (other, a) => scopeCondition(ctx, other, a));
  const where = sql.join([scopeCondition(ctx, model, alias), ...parsed.where], sql` AND `);
  return { ...parsed, where, filtered: parsed.where.length > 0 };
}

/**
 * The tenant whose kept count (row-counts.ts) a list reads: a tenant's whole list (no filter), so its count does not
 * grow with the table. Null when the list counts what it selects.
 */
function keptCountTenant(ctx: RequestContext, model: ModelDef, filtered: boolean): string | null {
  return !filtered && model.tenantScoped && ctx.tenantId ? ctx.tenantId : null;
}

/** The page's own column carrying the list's count (see listPage); no field can be called so. */
const COUNT_COLUMN = '__cairn_count';

/**
 * LIMIT and OFFSET of a page. A tenant's whole list's first page has them written into the statement: PostgreSQL
 * plans a LIMIT it cannot see for a tenth of the rows, so a named statement's generic plan (db/statement-names.ts)
 * always looked costlier than a custom one, and every request planned the page again (0.4-2 ms of PostgreSQL's CPU
 * a list, more than running it). Its generic plan reads the ordering's index from the tenant's first row, right
 * for every tenant. A filtered page keeps parameters, and so a plan made for its values: a generic plan made for
 * an average value (a role most devices have) would scan the ordering's index for a rare one. Later pages keep
 * them too: each offset written out would be a statement of its own.
 */
function pageBounds(limit: number, offset: number, filtered: boolean): RawBuilder<unknown> {
  if (!filtered && offset === 0 && Number.isSafeInteger(limit) && limit > 0) return sql`LIMIT ${sql.lit(limit)}`;
  return sql`LIMIT ${limit} OFFSET ${offset}`;
}

export async function listPage(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, query: QueryValues, pageUrl: URL, briefNumids = false): Promise<Page> {
  const { where, orderBy, limit, offset, filtered } = listConditions(ctx, model, query);
  const kept = keptCountTenant(ctx, model, filtered);
  // The count rides on the page's statement as a scalar subquery, which PostgreSQL runs once: a list is one round
  // trip instead of two (under load, sending a query was a quarter of the server's time). The subquery's own `t`
  // hides the page's, so it counts with the same conditions.
  const table = sql.table(model.table);
  const counted = kept ? keptCountSql(model.table, kept) : sql<string>`(SELECT count(*)::text FROM ${table} t WHERE ${where})`;
  // Computed values read beside the rows are read outside the LIMIT: inside, PostgreSQL computed them for every row
  // an OFFSET skips too (a page at offset 20,000 of addresses took 24 ms instead of 5).
  // (The outer alias is one no inline read uses for its own tables.)
  const { rows } = await sql<Row>`SELECT page.*${inlineComputedSelect(ctx, model, 'page')} FROM (SELECT t.*, ${counted} AS ${sql.ref(COUNT_COLUMN)}
    FROM ${table} t WHERE ${where} ORDER BY ${orderBy} ${pageBounds(limit, offset, filtered)}) page`.execute(db);
  // A page past the end has no row to carry the count: it is read on its own.
  const text = rows.length ? String(rows[0]![COUNT_COLUMN]) : (await sql<{ n: string }>`SELECT ${counted} AS n`.execute(db)).rows[0]!.n;
  // The count column stays on the rows: serializeRows writes the model's fields only. Deleting it from each row made
  // V8 turn the rows into dictionaries, whose every later read is slower (6-12 % of a device, address or interface
  // page's CPU).
  const count = kept ? await keptCountOf(db, model.table, kept, text) : Number(text);
  const results = await serializeRows(db, ctx, model, rows, { origin: pageUrl.origin, briefNumids });
  return pagedList(pageUrl, { count, limit, offset }, results);
}

export async function readObject(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, id: string, origin: string, briefNumids = false): Promise<ApiObject> {
  const { rows } = await sql<Row>`SELECT t.*${inlineComputedSelect(ctx, model, 't')} FROM ${sql.table(model.table)} t
    WHERE t.id = ${id} AND ${scopeCondition(ctx, model, 't')}`.execute(db);
  const row = rows[0];
  if (!row) throw notFound();
  return (await serializeRows(db, ctx, model, [row], { origin, briefNumids }))[0]!;
}

export async function serializeOne(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, row: Row, origin: string): Promise<ApiObject> {
  return (await serializeRows(db, ctx, model, [row], { origin }))[0]!;
}
