// Global search: parse the request, then one SQL statement over search_index, fenced to the active tenant and
// to the models the caller may view, that counts the hits per type and answers one page of the filtered types.
// Exact matches (the field is the query) come first, apart; then by score: prefix (0.8–0.9) > inside a word or
// similar (below 0.8, by trigram similarity). An address query also finds the networks containing it (0.9–0.99, the
// most specific first): for 10.1.2.3, its prefixes matter more than 10.1.2.30 sharing its first characters; a
// network (10.0.0.0/26) also finds the prefixes and addresses inside it (0.8–0.89).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import ipaddr from 'ipaddr.js';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { modelAllows, scopeCondition } from '../core/access.ts';
import { columnOf, fieldLabel, getModel, requireModel, type ModelDef } from '../core/registry.ts';
import { ErrorCollector } from '../core/errors.ts';
import { displaysOf, objectUrl, type Row } from '../core/crud/serialize.ts';
import { searchableModel, searchableModels, type SearchableModel } from './fields.ts';
import { extensionState } from './support.ts';

export const Q_MAX = 200;
export const LIMIT_DEFAULT = 20;
export const LIMIT_MAX = 100;
export const OFFSET_MAX = 10_000;
const TYPES_MAX = 100;
const KNOWN_PARAMS = new Set(['q', 'types', 'limit', 'offset']);
/** A matched value is shown beside its hit; a long description is cut around nothing, at its start. */
const MATCHED_VALUE_MAX = 200;
/** Shorter queries match as prefix or substring only. */
const FUZZY_MIN_LENGTH = 4;

export interface SearchRequest {
  q: string;
  /** The types whose hits are answered (the filter); hits are counted for every type the caller may view. */
  types: SearchableModel[];
  /** Every searchable type the caller may view: what the per-type counts are over. */
  viewable: SearchableModel[];
  limit: number;
  offset: number;
  /** The query as an address or network, when it is one. */
  address: string | null;
}

export interface SearchResult {
  object_type: string;
  id: string;
  display: string;
  url: string;
  matched_field: string;
  /** The matched field as a person reads it: its label (DNS name), or the custom field's name. */
  matched_label: string;
  /** The text of the matched field (its start, for long text): what the query matched in it. */
  matched_value: string;
  /** The matched field equals the query (the same text, or the same address): NetBox's "exact match". */
  exact: boolean;
  score: number;
  /** What the hit is in, where its model names it (ModelDef.searchContext): a VLAN's group or site. */
  context?: string;
}

/** The label of a matched field of `type`: the model field's label; `cf.<name>` is the custom field <name>. */
export function matchedLabel(type: string, field: string): string {
  if (field.startsWith('cf.')) return `Custom field ${field.slice(3)}`;
  return fieldLabel(field, getModel(type)?.fields[field]);
}

function single(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  return Array.isArray(raw) ? String(raw[0]) : String(raw);
}

function asAddress(q: string): string | null {
  // A zoned IPv6 address (fe80::1%eth0) is valid for ipaddr.js but not for PostgreSQL's inet: search it as text.
  if (q.includes('%')) return null;
  // ipaddr.js also reads "3071" or "0x10" as an IPv4 number; people typing digits mean a VLAN id or an ASN.
  if (!/^[0-9a-fA-F.:/]+$/.test(q) || !/[.:]/.test(q)) return null;
  if (ipaddr.isValid(q)) return ipaddr.parse(q).toString();
  try {
    const [addr, len] = ipaddr.parseCIDR(q);
    return `${addr.toString()}/${len}`;
  } catch {
    return null;
  }
}

/** Checks every parameter at once; every failure names its parameter. Nothing reaches the database before. */
export function parseSearchRequest(ctx: RequestContext, query: Record<string, unknown>): SearchRequest {
  const errors = new ErrorCollector();
  for (const key of Object.keys(query)) if (!KNOWN_PARAMS.has(key)) errors.add(key, 'Unknown parameter: search takes q, types, limit and offset.');
  const raw = single(query.q);
  const q = (raw ?? '').trim();
  if (raw === undefined || q === '') errors.add('q', 'Type something to search for.');
  else if (q.length > Q_MAX) errors.add('q', `Ensure the search text has no more than ${Q_MAX} characters (it has ${q.length}).`);
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused (NUL cannot reach PostgreSQL)
  else if (/[\u0000-\u001f\u007f]/.test(q)) errors.add('q', 'The search text contains control characters.');

  const viewable = searchableModels().filter((s) => modelAllows(ctx, s.model, 'view'));
  let types = viewable;
  const typesRaw = single(query.types);
  if (typesRaw !== undefined) {
    const names = [...new Set(typesRaw.split(',').map((t) => t.trim()).filter((t) => t !== ''))];
    if (names.length === 0) errors.add('types', 'Name at least one type (app.model, e.g. dcim.device), or leave types out to search everything.');
    else if (names.length > TYPES_MAX) errors.add('types', `Name at most ${TYPES_MAX} types.`);
    else {
      types = [];
      for (const name of names) {
        const s = searchableModel(name);
        const shown = name.slice(0, 60);
        if (!s) errors.add('types', getModel(name) ? `"${shown}" is not searchable.` : `"${shown}" is not a model (use app.model, e.g. dcim.device).`);
        else if (!modelAllows(ctx, s.model, 'view')) errors.add('types', `You do not have permission to view ${s.model.labelPlural} ("${shown}").`);
        else types.push(s);
      }
    }
  }

  let limit = LIMIT_DEFAULT;
  const limitRaw = single(query.limit);
  if (limitRaw !== undefined) {
    if (!/^\d{1,7}$/.test(limitRaw) || Number(limitRaw) < 1 || Number(limitRaw) > LIMIT_MAX) errors.add('limit', `Expected a whole number from 1 to ${LIMIT_MAX}.`);
    else limit = Number(limitRaw);
  }
  let offset = 0;
  const offsetRaw = single(query.offset);
  if (offsetRaw !== undefined) {
    if (!/^\d{1,7}$/.test(offsetRaw) || Number(offsetRaw) > OFFSET_MAX) errors.add('offset', `Expected a whole number from 0 to ${OFFSET_MAX}.`);
    else offset = Number(offsetRaw);
  }
  errors.throwIfAny();
  return { q, types, viewable, limit, offset, address: asAddress(q) };
}

// Whether pg_trgm exists changes only when an administrator creates it; re-read once a minute, not per search.
const EXTENSION_CACHE_MS = 60_000;
const trigramCache = new WeakMap<Kysely<DB>, { value: boolean; at: number }>();
async function trigramsAvailable(db: Kysely<DB>): Promise<boolean> {
  const cached = trigramCache.get(db);
  const age = cached ? Date.now() - cached.at : Infinity;
  if (cached && age >= 0 && age < EXTENSION_CACHE_MS) return cached.value;
  const value = (await extensionState(db)).pg_trgm;
  trigramCache.set(db, { value, at: Date.now() });
  return value;
}

/** Models people look up by name first: their name (or address) outranks the same text anywhere else. */
const PRINCIPAL_MODELS = ['dcim.device', 'virtualization.virtualmachine', 'organization.site', 'ipam.prefix', 'ipam.ipaddress', 'ipam.vlan', 'ipam.vrf'];
/** Fields that name or identify an object (below its display field, above free text): names, tags, numbers. */
const IDENTITY_FIELDS = ['name', 'slug', 'serial', 'asset_tag', 'dns_name', 'label', 'model', 'part_number', 'vid', 'asn', 'vni'];

/**
 * The weight of a hit's field, as NetBox's search indexers weigh theirs: the display field of a principal model
 * 1, another model's display field 0.99, identity fields 0.98, free text 0.96, custom fields 0.95. The spread is
 * narrower than the gap between an exact match (1) and a prefix match (at most 0.9), so it orders equal matches
 * only: searching a device's exact name lists the device before a BGP session that names it.
 */
let displayKeys: { principal: string[]; others: string[] } | null = null;
function fieldWeight(): RawBuilder<unknown> {
  // The registry is fixed once the models are loaded: the `model:field` lists are built on the first search.
  if (!displayKeys) {
    const key = (s: SearchableModel) => `${s.model.name}:${s.model.displayField}`;
    const all = searchableModels();
    displayKeys = { principal: all.filter((s) => PRINCIPAL_MODELS.includes(s.model.name)).map(key), others: all.filter((s) => !PRINCIPAL_MODELS.includes(s.model.name)).map(key) };
  }
  const { principal, others } = displayKeys;
  return sql`(CASE WHEN (u.object_type || ':' || u.field) = ANY(${principal}::text[]) THEN 1.0
    WHEN (u.object_type || ':' || u.field) = ANY(${others}::text[]) THEN 0.99
    WHEN u.field = ANY(${IDENTITY_FIELDS}::text[]) THEN 0.98
    WHEN u.field LIKE 'cf.%' THEN 0.95 ELSE 0.96 END)::float8`;
}

/** Hits of one type among everything the query matched: all of them, and those matching exactly. */
export interface TypeCount {
  object_type: string;
  /** The type as people read it (Device, IP address). */
  label: string;
  count: number;
  exact: number;
}

export interface SearchAnswer {
  /** Hits of the requested types (the filter), over all pages. */
  count: number;
  /** Of those, the hits that match exactly: they come first, so the first `exact_count` hits are the exact ones. */
  exact_count: number;
  /** Hits per type over every type the caller may view, whatever the filter: what a client offers to filter by. */
  counts: TypeCount[];
  results: SearchResult[];
}

export async function search(db: Kysely<DB>, ctx: RequestContext, req: SearchRequest, origin: string): Promise<SearchAnswer> {
  if (req.viewable.length === 0) return { count: 0, exact_count: 0, counts: [], results: [] };
  const trgm = await trigramsAvailable(db);
  // An address is matched as an address: similar-looking numbers (10.2.0.0/16 for 10.1.2.3) are noise.
  const fuzzy = trgm && !req.address;
  // Similarity (`%`) catches typos in longer words; for a few letters it only adds every word sharing a letter
  // pair. It is also the costly part (a trigram recheck of every candidate), and a fragment people type usually
  // occurs as it is: so substrings first, and typos only when those (of every type, so the counts do not change
  // with the filter or the page) do not fill a page.
  let found = await matches(db, ctx, req, fuzzy, false);
  const everything = (f: Found) => f.counts.reduce((n, c) => n + c.count, 0);
  if (fuzzy && req.q.length >= FUZZY_MIN_LENGTH && everything(found) < req.limit) found = await matches(db, ctx, req, true, true);
  const rows = found.rows;
  const shown = await parentQualified(db, ctx, rows);
  const contexts = await searchContexts(db, ctx, rows);
  const wanted = new Set(req.types.map((s) => s.model.name));
  const inFilter = found.counts.filter((c) => wanted.has(c.object_type));
  // Most hits first; the type's label breaks ties so the list does not move between two searches.
  const counts = found.counts
    .map((c) => ({ object_type: c.object_type, label: capitalised(getModel(c.object_type)!.labelPlural), count: c.count, exact: c.exact }))
    .sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
  return {
    count: inFilter.reduce((n, c) => n + c.count, 0),
    exact_count: inFilter.reduce((n, c) => n + c.exact, 0),
    counts,
    results: rows.map((r) => {
      const context = contexts.get(r.object_id);
      return {
        object_type: r.object_type,
        id: r.object_id,
        display: shown.get(r.object_id) ?? r.display,
        url: objectUrl(getModel(r.object_type)!, r.object_id, origin),
        matched_field: r.field,
        matched_label: matchedLabel(r.object_type, r.field),
        matched_value: r.value,
        exact: r.exact,
        score: Math.round(r.score * 1000) / 1000,
        ...(context ? { context } : {}),
      };
    }),
  };
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

interface Match {
  object_id: string;
  object_type: string;
  display: string;
  field: string;
  value: string;
  exact: boolean;
  score: number;
}

interface Found {
  rows: Match[];
  counts: Array<{ object_type: string; count: number; exact: number }>;
}

/**
 * One SQL statement: every object matching, by its best field (an exact match first, then the highest score),
 * counted per type over every viewable type, and the requested page of the filtered types: exact matches
 * first, then the most relevant.
 */
async function matches(db: Kysely<DB>, ctx: RequestContext, req: SearchRequest, fuzzy: boolean, typos: boolean): Promise<Found> {
  // Every searchable model is tenant-scoped, so one model's fence is every model's fence.
  const fence = scopeCondition(ctx, req.viewable[0]!.model, 'si');
  const typeNames = req.viewable.map((s) => s.model.name);
  const wanted = req.types.map((s) => s.model.name);
  const norm = sql`cairn_search_norm(${req.q})`;
  const escaped = sql`replace(replace(replace(${norm}, '\\', '\\\\'), '%', '\\%'), '_', '\\_')`;
  const prefix = sql`(${escaped} || '%')`;
  // A prefix is also a substring, so one LIKE finds both on the trigram index.
  const textMatch: RawBuilder<unknown> = fuzzy
    ? sql`(si.norm LIKE ('%' || ${escaped} || '%')${typos ? sql` OR si.norm % ${norm}` : sql``})`
    : sql`si.norm LIKE ${prefix}`;
  const textScore: RawBuilder<unknown> = fuzzy
    ? sql`CASE WHEN si.norm = ${norm} THEN 1.0
        WHEN si.norm LIKE ${prefix} THEN 0.8 + 0.1 * similarity(si.norm, ${norm})
        ELSE 0.7 * similarity(si.norm, ${norm}) + CASE WHEN strpos(si.norm, ${norm}) > 0 THEN 0.09 ELSE 0 END END`
    : sql`CASE WHEN si.norm = ${norm} THEN 1.0 ELSE 0.8 END`;
  const branches: RawBuilder<unknown>[] = [
    sql`SELECT si.object_id, si.object_type, si.display, si.field, si.value, si.norm = ${norm} AS exact, ${textScore}::float8 AS score
      FROM search_index si WHERE ${fence} AND si.object_type = ANY(${typeNames}::text[]) AND ${textMatch}`,
  ];
  if (req.address) {
    // Containing networks (and the address itself); more specific networks rank higher, all below exact text.
    const itself = sql`(masklen(si.address) = CASE WHEN family(si.address) = 4 THEN 32 ELSE 128 END AND host(si.address) = host(${req.address}::inet))`;
    // The network asked for is exact too (10.1.2.0/24 is the prefix 10.1.2.0/24).
    const exact = req.address.includes('/') ? sql`(${itself} OR si.address = ${req.address}::inet)` : itself;
    branches.push(sql`SELECT si.object_id, si.object_type, si.display, si.field, si.value, ${exact} AS exact,
        (CASE WHEN ${itself} THEN 1.0
          ELSE 0.9 + 0.09 * masklen(si.address)::float8 / CASE WHEN family(si.address) = 4 THEN 32 ELSE 128 END END)::float8 AS score
      FROM search_index si WHERE ${fence} AND si.object_type = ANY(${typeNames}::text[]) AND si.address IS NOT NULL AND si.address >>= ${req.address}::inet`);
    if (req.address.includes('/')) {
      // A network also finds what lies inside it (prefixes, ranges, addresses by their host), the more specific
      // first, below the network itself and those holding it.
      branches.push(sql`SELECT si.object_id, si.object_type, si.display, si.field, si.value, false AS exact,
          (0.8 + 0.09 * masklen(si.address)::float8 / CASE WHEN family(si.address) = 4 THEN 32 ELSE 128 END)::float8 AS score
        FROM search_index si WHERE ${fence} AND si.object_type = ANY(${typeNames}::text[]) AND si.address IS NOT NULL
          AND si.address && network(${req.address}::inet) AND host(si.address)::inet <<= network(${req.address}::inet)
          AND NOT si.address >>= ${req.address}::inet`);
    }
  }
  const { rows } = await sql<Match & { counts: Found['counts'] }>`
    WITH best AS MATERIALIZED (
      SELECT DISTINCT ON (u.object_id) u.object_id, u.object_type, u.display, u.field, left(u.value, ${MATCHED_VALUE_MAX}) AS value, u.exact,
        u.score * ${fieldWeight()} AS score
      FROM (${sql.join(branches, sql` UNION ALL `)}) u
      ORDER BY u.object_id, u.exact DESC, 7 DESC, u.field
    ),
    counted AS (
      SELECT coalesce(json_agg(json_build_object('object_type', c.object_type, 'count', c.n, 'exact', c.e)), '[]'::json) AS counts
      FROM (SELECT object_type, count(*)::int AS n, (count(*) FILTER (WHERE exact))::int AS e FROM best GROUP BY object_type) c
    )
    SELECT counted.counts, page.* FROM counted LEFT JOIN LATERAL (
      SELECT b.object_id, b.object_type, b.display, b.field, b.value, b.exact, b.score FROM best b
      WHERE b.object_type = ANY(${wanted}::text[])
      ORDER BY b.exact DESC, b.score DESC, length(b.display), b.display, b.object_id
      LIMIT ${req.limit} OFFSET ${req.offset}
    ) page ON true`.execute(db);
  const counts = rows[0]?.counts ?? [];
  return { counts, rows: rows.filter((r) => r.object_id !== null).map(({ counts: _, ...r }) => r) };
}

/**
 * What each hit of a model with a search context is in (a VLAN's group, else its site): one query per such model
 * hit for the relation ids, one per related model for their displays, within the caller's scope.
 */
async function searchContexts(db: Kysely<DB>, ctx: RequestContext, hits: Array<{ object_id: string; object_type: string }>): Promise<Map<string, string>> {
  const byType = hitIdsByType(hits, (m) => Boolean(m.searchContext?.length));
  // Each hit's context: the first relation set, as (related model, id).
  const contextOf = new Map<string, { target: ModelDef; id: string }>();
  for (const [type, ids] of byType) {
    const model = getModel(type)!;
    // Relations only (defineModel checks it).
    const keys = model.searchContext!;
    const { rows } = await sql<Row>`SELECT r.id, ${sql.join(keys.map((k) => sql.ref(`r.${columnOf(k, model.fields[k]!)}`)))}
      FROM ${sql.table(model.table)} r WHERE r.id = ANY(${ids}::uuid[]) AND ${scopeCondition(ctx, model, 'r')}`.execute(db);
    for (const row of rows) {
      const key = keys.find((k) => row[columnOf(k, model.fields[k]!)] !== null);
      if (key) contextOf.set(String(row.id), { target: requireModel(model.fields[key]!.target!), id: String(row[columnOf(key, model.fields[key]!)]) });
    }
  }
  const wanted = new Map<ModelDef, Set<string>>();
  for (const { target, id } of contextOf.values()) wanted.set(target, (wanted.get(target) ?? new Set()).add(id));
  const displays = new Map<string, string>();
  for (const [target, ids] of wanted) for (const [id, display] of await scopedDisplays(db, ctx, target, [...ids])) displays.set(id, display);
  const out = new Map<string, string>();
  for (const [hit, { id }] of contextOf) {
    const display = displays.get(id);
    if (display) out.set(hit, display);
  }
  return out;
}

/**
 * The display of hits whose model shows its parent (`ams1-leaf1 › Ethernet1`, see ModelDef.displayParent): the
 * index keeps the object's own text, so twenty Ethernet1s are told apart here, one query per model hit.
 */
async function parentQualified(db: Kysely<DB>, ctx: RequestContext, hits: Array<{ object_id: string; object_type: string }>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const byType = hitIdsByType(hits, (m) => Boolean(m.displayParent));
  for (const [type, ids] of byType) for (const [id, display] of await scopedDisplays(db, ctx, getModel(type)!, ids)) out.set(id, display);
  return out;
}

/** The ids of the hits whose model `wanted` picks, by model name. */
function hitIdsByType(hits: Array<{ object_id: string; object_type: string }>, wanted: (model: ModelDef) => boolean): Map<string, string[]> {
  const byType = new Map<string, string[]>();
  for (const h of hits) {
    const model = getModel(h.object_type);
    if (!model || !wanted(model)) continue;
    const ids = byType.get(h.object_type);
    if (ids) ids.push(h.object_id);
    else byType.set(h.object_type, [h.object_id]);
  }
  return byType;
}

/** The displays (with display parents) of `model`'s rows by id, within the caller's scope. */
async function scopedDisplays(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, ids: string[]): Promise<Map<string, string>> {
  const { rows } = await sql<Row>`SELECT * FROM ${sql.table(model.table)} r WHERE r.id = ANY(${ids}::uuid[]) AND ${scopeCondition(ctx, model, 'r')}`.execute(db);
  return displaysOf(db, ctx, model, rows);
}
