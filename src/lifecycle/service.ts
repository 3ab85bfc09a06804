// End-of-life rules: the catalog mirror, filling mappings from it, refresh and import, suggestions, and the
// `eol` payload of platforms. Routes call these; nothing here knows about HTTP.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { scopeCondition } from '../core/access.ts';
import { ApiError, conflict, fieldError, notFound } from '../core/errors.ts';
import { createRowInTx, deleteObject, inTransaction, prepareCreate, prepareUpdate, updateRowInTx } from '../core/crud/write.ts';
import { updateRowsOfEveryTenant, type ServerChange } from '../core/crud/update-rows.ts';
import { readAllowlist } from '../core/ssrf.ts';
import { eolMappingModel } from './mapping-model.ts';
import { CatalogFormatError, decodeJson, getSource, hasSource, defaultSourceKey, type CatalogCycle, type CatalogProduct } from './sources.ts';
import { DEFAULT_SETTINGS, SETTINGS_KEY, readRefreshState, readSettings, writeRefreshState, type EolSettings, type RefreshState } from './settings.ts';
import { statusOf, type EolStatus } from './status.ts';
import { createJob, finishJob, markJobRunning, reportJobProgress } from '../jobs/record.ts';

export interface MappingRow {
  id: string;
  platform_id: string;
  source: string;
  product: string;
  cycle: string;
  release_date: string | null;
  support_until: string | null;
  eol_date: string | null;
  eol_reached: boolean | null;
  lts: boolean;
  latest_version: string;
  synced_at: Date | string | null;
  missing: boolean;
}

export interface EolPayload {
  status: EolStatus;
  source?: string;
  product?: string;
  cycle?: string;
  release_date?: string | null;
  support_until?: string | null;
  eol_date?: string | null;
  eol?: boolean | null;
  lts?: boolean;
  latest_version?: string;
  synced_at?: string | null;
  missing?: boolean;
}

// Dates come back as 'YYYY-MM-DD' text from every query here (cast in SQL) so both drivers agree.
const MAPPING_COLUMNS = sql`m.id, m.platform_id, m.source, m.product, m.cycle,
  to_char(m.release_date, 'YYYY-MM-DD') AS release_date, to_char(m.support_until, 'YYYY-MM-DD') AS support_until,
  to_char(m.eol_date, 'YYYY-MM-DD') AS eol_date, m.eol_reached, m.lts, m.latest_version, m.synced_at, m.missing`;

function isoTime(v: Date | string | null): string | null {
  if (v === null) return null;
  return v instanceof Date ? v.toISOString() : new Date(v).toISOString();
}

export function payloadOf(m: MappingRow | null, settings: EolSettings): EolPayload {
  const status = statusOf(m, settings.warning_days);
  if (!m) return { status };
  return {
    status,
    source: m.source,
    product: m.product,
    cycle: m.cycle,
    release_date: m.release_date,
    support_until: m.support_until,
    eol_date: m.eol_date,
    // Said by the source for cycles without a date; the status already accounts for it.
    eol: m.eol_reached,
    lts: m.lts,
    latest_version: m.latest_version,
    synced_at: isoTime(m.synced_at),
    missing: m.missing,
  };
}

/**
 * What `eol` of the platform `platformId` names is made of, inside another statement (see eolFromSql): the stored
 * settings and the platform's mapping, as JSON.
 */
export function eolOfPlatformSql(platformId: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`json_build_array((SELECT value FROM system_state WHERE key = ${SETTINGS_KEY}),
    (SELECT row_to_json(x) FROM (SELECT ${MAPPING_COLUMNS} FROM eol_mappings m WHERE m.platform_id = ${platformId} LIMIT 1) x))`;
}

/** `eol` from what eolOfPlatformSql read: as eolOfPlatforms builds it. */
export function eolFromSql(selected: unknown): EolPayload | null {
  const [stored, mapping] = (Array.isArray(selected) ? selected : []) as [Partial<EolSettings> | null, MappingRow | null];
  const settings = { ...DEFAULT_SETTINGS, ...stored };
  return settings.enabled ? payloadOf(mapping ?? null, settings) : null;
}

/** `eol` of many platforms in one query; null for each while the feature is off. */
export async function eolOfPlatforms(db: Kysely<DB>, platformIds: string[]): Promise<Map<string, EolPayload | null>> {
  const out = new Map<string, EolPayload | null>();
  if (platformIds.length === 0) return out;
  const settings = await readSettings(db);
  if (!settings.enabled) {
    for (const id of platformIds) out.set(id, null);
    return out;
  }
  const { rows } = await sql<MappingRow>`SELECT ${MAPPING_COLUMNS} FROM eol_mappings m WHERE m.platform_id = ANY(${platformIds}::uuid[])`.execute(db);
  const byPlatform = new Map(rows.map((r) => [r.platform_id, r]));
  for (const id of platformIds) out.set(id, payloadOf(byPlatform.get(id) ?? null, settings));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Catalog mirror

export interface StoreResult {
  products: number;
  added: number;
  removed: number;
  /** The names of the products the document removed (at most 50; `removed` counts them all). */
  removed_products: string[];
}

/** A document may remove at most this share of a source's catalog unless the caller says force. */
const MAX_REMOVED_SHARE = 0.5;

/**
 * Makes the catalog of `source` mirror `products`: new ones inserted, changed ones updated, unchanged ones not
 * touched (an identical re-import writes nothing), and products that left the document deleted.
 */
export async function storeCatalog(db: Kysely<DB>, source: string, products: CatalogProduct[], opts: { force?: boolean } = {}): Promise<StoreResult> {
  return db.transaction().execute(async (tx) => {
    const names = products.map((p) => p.name);
    // A truncated or wrong document must not empty the catalog unnoticed: past half, only on purpose.
    const { rows: leaving } = await sql<{ name: string; total: number }>`SELECT name, (SELECT count(*)::int FROM eol_products WHERE source = ${source}) AS total
      FROM eol_products WHERE source = ${source} AND NOT (name = ANY(${names}::text[])) ORDER BY name`.execute(tx);
    const total = leaving[0]?.total ?? 0;
    if (!opts.force && leaving.length > 0 && leaving.length > total * MAX_REMOVED_SHARE) {
      throw fieldError(
        'file',
        `This document would remove ${leaving.length} of the ${total} products in the catalog (${leaving.slice(0, 10).map((r) => r.name).join(', ')}${leaving.length > 10 ? ', …' : ''}). Send force=true to import it anyway.`,
      );
    }
    const { rows } = await sql<{ inserted: boolean }>`
      INSERT INTO eol_products (source, name, label, category, aliases, releases)
      SELECT ${source}, u.name, u.label, u.category, u.aliases::jsonb, u.releases::jsonb
      FROM unnest(${names}::text[], ${products.map((p) => p.label)}::text[], ${products.map((p) => p.category)}::text[],
        ${products.map((p) => JSON.stringify(p.aliases))}::text[], ${products.map((p) => JSON.stringify(p.releases))}::text[])
        AS u(name, label, category, aliases, releases)
      ON CONFLICT (source, name) DO UPDATE SET label = EXCLUDED.label, category = EXCLUDED.category, aliases = EXCLUDED.aliases,
        releases = EXCLUDED.releases, updated = now()
      WHERE (eol_products.label, eol_products.category, eol_products.aliases, eol_products.releases)
        IS DISTINCT FROM (EXCLUDED.label, EXCLUDED.category, EXCLUDED.aliases, EXCLUDED.releases)
      RETURNING (xmax = 0) AS inserted`.execute(tx);
    const removed = await sql`DELETE FROM eol_products WHERE source = ${source} AND NOT (name = ANY(${names}::text[]))`.execute(tx);
    return {
      products: products.length,
      added: rows.filter((r) => r.inserted).length,
      removed: Number(removed.numAffectedRows ?? 0n),
      removed_products: leaving.slice(0, 50).map((r) => r.name),
    };
  });
}

// ---------------------------------------------------------------------------------------------------------
// Filling mappings (refresh, import and PUT share this rule)

type Facts = Pick<MappingRow, 'release_date' | 'support_until' | 'eol_date' | 'eol_reached' | 'lts' | 'latest_version' | 'missing'>;

function factsOf(m: Facts): string {
  return JSON.stringify([m.release_date, m.support_until, m.eol_date, m.eol_reached, m.lts, m.latest_version, m.missing]);
}

/**
 * The mapping after taking its cycle's facts, and whether anything changed. A cycle that left the catalog keeps
 * the last known facts and is only marked missing (which does not re-date synced_at: the facts are as old as they
 * were).
 */
export function fillMapping(m: MappingRow, releases: CatalogCycle[] | null): { next: MappingRow; changed: boolean } {
  const cycle = releases?.find((r) => r.name === m.cycle) ?? null;
  const next: MappingRow = { ...m };
  if (!cycle) next.missing = true;
  else {
    next.missing = false;
    next.release_date = cycle.release_date;
    next.support_until = cycle.support_until;
    next.eol_date = cycle.eol_date;
    next.eol_reached = cycle.eol;
    next.lts = cycle.lts;
    next.latest_version = cycle.latest ?? '';
  }
  let changed = factsOf(next) !== factsOf(m);
  if (cycle && (changed || m.synced_at === null)) {
    next.synced_at = new Date();
    changed = true;
  }
  return { next, changed };
}

/** The facts of a filled mapping as the columns the server writes (read-only fields of eolMappingModel). */
function factColumns(m: MappingRow): Record<string, unknown> {
  return {
    release_date: m.release_date,
    support_until: m.support_until,
    eol_date: m.eol_date,
    eol_reached: m.eol_reached,
    lts: m.lts,
    latest_version: m.latest_version,
    synced_at: isoTime(m.synced_at),
    missing: m.missing,
  };
}

export interface ApplyResult {
  mappings: number;
  changed: number;
}

/**
 * Re-fills every mapping of `source` (all tenants) from the stored catalog; writes and logs only the changed ones,
 * through the write service (one statement per tenant for any number of mappings, each tenant's fenced to it).
 */
export async function applyMappings(db: Kysely<DB>, source: string): Promise<ApplyResult> {
  return db.transaction().execute(async (tx) => {
    // Background work over every tenant's mappings; the write service fences each tenant's writes.
    const { rows: mappings } = await sql<MappingRow>`SELECT ${MAPPING_COLUMNS} FROM eol_mappings m WHERE m.source = ${source} ORDER BY m.id FOR UPDATE`.execute(tx);
    if (mappings.length === 0) return { mappings: 0, changed: 0 };
    const productNames = [...new Set(mappings.map((m) => m.product))];
    const { rows: products } = await sql<{ name: string; releases: CatalogCycle[] }>`
      SELECT name, releases FROM eol_products WHERE source = ${source} AND name = ANY(${productNames}::text[])`.execute(tx);
    const releasesOf = new Map(products.map((p) => [p.name, p.releases]));
    const changes: ServerChange[] = [];
    for (const m of mappings) {
      const { next, changed: isChanged } = fillMapping(m, releasesOf.get(m.product) ?? null);
      if (isChanged) changes.push({ id: m.id, columns: factColumns(next) });
    }
    await updateRowsOfEveryTenant(tx, 'eol-refresh', eolMappingModel, changes);
    const changed = changes.length;
    return { mappings: mappings.length, changed };
  });
}

// ---------------------------------------------------------------------------------------------------------
// Refresh and import

export interface SourceResult extends StoreResult, ApplyResult {}

/** After catalog or mapping changes: lets compliance re-evaluate end-of-life rules (installed by src/compliance). */
let afterEolChange: ((db: Kysely<DB>, tenantId: string | null) => Promise<void>) | null = null;
export function onEolChange(fn: (db: Kysely<DB>, tenantId: string | null) => Promise<void>): void {
  afterEolChange = fn;
}

async function notifyChange(db: Kysely<DB>, tenantId: string | null): Promise<void> {
  if (afterEolChange) await afterEolChange(db, tenantId);
}

/** After a settings change that moves rule outcomes (the warning window, on/off): every tenant re-evaluates. */
export async function settingsChanged(db: Kysely<DB>): Promise<void> {
  await notifyChange(db, null);
}

/** Fills the catalog of `source` from a document and updates every mapping: the one path for refresh and import. */
export async function loadDocument(db: Kysely<DB>, source: string, products: CatalogProduct[], opts: { force?: boolean } = {}): Promise<SourceResult> {
  const stored = await storeCatalog(db, source, products, opts);
  const applied = await applyMappings(db, source);
  if (applied.changed > 0 || stored.added > 0 || stored.removed > 0) await notifyChange(db, null);
  return { ...stored, ...applied };
}

/**
 * Fetches every selected source through the SSRF guard and loads it. A failing source does not stop the
 * others; the status ends failed with every error named. Never throws: it runs as a background job.
 */
export async function runRefresh(db: Kysely<DB>, jobId?: string): Promise<{ skipped?: string; sources: Record<string, SourceResult>; errors: string[] }> {
  const settings = await readSettings(db);
  if (!settings.enabled) {
    if (jobId) await finishJob(db, jobId, { status: 'succeeded', result: 'Skipped: end-of-life data is off.' });
    return { skipped: 'off', sources: {}, errors: [] };
  }
  await writeRefreshState(db, { status: 'running', via: 'online' });
  if (jobId) await markJobRunning(db, jobId);
  const results: Record<string, SourceResult> = {};
  const errors: string[] = [];
  try {
    const allowlist = await readAllowlist(db);
    for (const key of settings.sources) {
      try {
        const source = getSource(key);
        const base = (settings.source_urls[key] || source.defaultUrl).replace(/\/+$/, '');
        const payload = await source.fetch(base, { allowlist });
        // A refresh mirrors the source as published; the half-catalog guard is for documents a person uploads.
        results[key] = await loadDocument(db, key, source.parse(payload), { force: true });
      } catch (err) {
        errors.push(`${key}: ${(err as Error).message}`);
      }
      if (jobId) await reportJobProgress(db, jobId, Object.keys(results).length + errors.length);
    }
  } catch (err) {
    errors.push((err as Error).message);
  }
  await writeRefreshState(db, { status: errors.length ? 'failed' : 'ok', error: errors.join('; ').slice(0, 2000), at: new Date().toISOString() });
  if (jobId) await finishJob(db, jobId, { status: errors.length ? 'failed' : 'succeeded', result: refreshSummary(results), error: errors.join('; ') });
  return { sources: results, errors };
}

// A refresh is a queued job record (kind EOL_REFRESH_KIND): the eol-refresh queue (src/lifecycle/schedule.ts,
// in `cairn serve`'s embedded worker or a `cairn worker` process) claims it on its pg-boss dispatch tick and runs
// runRefresh there, so a refresh survives the web process that queued it and several processes never run two.
export const EOL_REFRESH_KIND = 'eol.refresh';
export const REFRESH_SCHEDULE = process.env.CAIRN_EOL_REFRESH_CRON ?? '35 5 * * *';
export type JobRunner = (db: Kysely<DB>, jobId?: string) => void;
let jobRunner: JobRunner = () => {};
/** Tests only: what happens once a refresh is queued (default: nothing here; a worker claims it). */
export function setRefreshRunner(runner: JobRunner): void {
  jobRunner = runner;
}

/** Runs a claimed refresh job; a failure is recorded on the refresh state and the job, never thrown. */
export async function runClaimedRefresh(db: Kysely<DB>, jobId: string): Promise<void> {
  try {
    await runRefresh(db, jobId);
  } catch (err) {
    const message = (err as Error).message;
    await writeRefreshState(db, { status: 'failed', error: message.slice(0, 2000), at: new Date().toISOString() }).catch(() => undefined);
    await finishJob(db, jobId, { status: 'failed', error: message }).catch(() => undefined);
  }
}

/** A queued or running refresh older than this is taken for a dead worker and no longer blocks a new one. */
const STALE_MS = 2 * 600_000;

/** `startedBy` is what the job record shows: 'user:<name>' or 'schedule:eol-refresh'. */
export async function queueRefresh(db: Kysely<DB>, startedBy = 'system'): Promise<RefreshState> {
  const settings = await readSettings(db);
  if (!settings.enabled) throw conflict('End-of-life data is off.');
  if (settings.sources.length === 0) throw fieldError('sources', 'Pick a source first.');
  const state = await readRefreshState(db);
  const fresh = state.changed !== null && Date.now() - Date.parse(state.changed) < STALE_MS;
  if ((state.status === 'queued' || state.status === 'running') && fresh) throw conflict('A refresh is already running.');
  const next = await writeRefreshState(db, { status: 'queued', via: 'online', error: '' });
  const jobId = await createJob(db, { kind: EOL_REFRESH_KIND, tenantId: null, startedBy, total: settings.sources.length });
  jobRunner(db, jobId);
  return next;
}

/** The job record's one-line result: what each source loaded. */
function refreshSummary(results: Record<string, SourceResult>): string {
  return Object.entries(results).map(([key, r]) => `${key}: ${r.products} products (+${r.added}, -${r.removed}), ${r.changed} of ${r.mappings} mappings changed`).join('; ');
}

export const IMPORT_MAX_BYTES = 64 * 1024 * 1024;

/** An uploaded full-products document, loaded exactly as a refresh would load it; nothing is fetched. */
export async function importDocument(db: Kysely<DB>, bytes: Buffer, sourceKey?: string, force = false): Promise<SourceResult> {
  const settings = await readSettings(db);
  if (!settings.enabled) throw conflict('End-of-life data is off.');
  const key = sourceKey || defaultSourceKey();
  if (!hasSource(key)) throw fieldError('source', 'Unknown source.');
  let products: CatalogProduct[];
  try {
    products = getSource(key).parse(decodeJson(bytes));
  } catch (err) {
    if (err instanceof CatalogFormatError) throw fieldError('file', err.message);
    throw err;
  }
  const result = await loadDocument(db, key, products, { force });
  await writeRefreshState(db, { status: 'ok', via: 'import', error: '', at: new Date().toISOString() });
  return result;
}

// ---------------------------------------------------------------------------------------------------------
// Mappings of one platform

export async function requireEnabled(db: Kysely<DB>): Promise<EolSettings> {
  const settings = await readSettings(db);
  if (!settings.enabled) throw notFound('End-of-life data is off.');
  return settings;
}

/** The mapping of a platform, read in the caller's scope (none for another tenant's platform). */
async function mappingOf(db: Kysely<DB>, ctx: RequestContext, platformId: string, forUpdate = false): Promise<MappingRow | null> {
  const { rows } = await sql<MappingRow>`SELECT ${MAPPING_COLUMNS} FROM eol_mappings m
    WHERE m.platform_id = ${platformId} AND ${scopeCondition(ctx, eolMappingModel, 'm')} ${forUpdate ? sql`FOR UPDATE` : sql``}`.execute(db);
  return rows[0] ?? null;
}

export async function readMapping(db: Kysely<DB>, ctx: RequestContext, settings: EolSettings, platformId: string): Promise<EolPayload> {
  return payloadOf(await mappingOf(db, ctx, platformId), settings);
}

/**
 * `{source?, product, cycle}` → the mapping, its facts copied from the catalog now: created or updated through the
 * write service (the choice is the caller's input, the facts are the server's columns). An unchanged choice
 * whose facts are current writes nothing.
 */
export async function putMapping(db: Kysely<DB>, ctx: RequestContext, settings: EolSettings, platformId: string, body: unknown): Promise<EolPayload> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw fieldError('non_field_errors', 'Send {product, cycle} (and optionally source).');
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input)) if (!['source', 'product', 'cycle'].includes(key)) throw fieldError(key, 'Unknown field.');
  const source = input.source === undefined || input.source === '' ? defaultSourceKey() : input.source;
  if (typeof source !== 'string' || !hasSource(source)) throw fieldError('source', 'Unknown source.');
  if (typeof input.product !== 'string' || input.product.trim() === '') throw fieldError('product', 'Pick a product.');
  if (typeof input.cycle !== 'string' || input.cycle.trim() === '') throw fieldError('cycle', 'Pick a cycle.');
  const productName = input.product.trim();
  const cycleName = input.cycle.trim();
  const { rows } = await sql<{ label: string; releases: CatalogCycle[] }>`SELECT label, releases FROM eol_products WHERE source = ${source} AND name = ${productName}`.execute(db);
  const product = rows[0];
  if (!product) throw fieldError('product', 'Not in the catalog - refresh or import it.');
  if (!product.releases.some((r) => r.name === cycleName)) throw fieldError('cycle', `${product.label} has no cycle '${cycleName.slice(0, 64)}'.`);
  const choice = { source, product: productName, cycle: cycleName };

  return inTransaction(db, async (tx) => {
    const existing = await mappingOf(tx, ctx, platformId, true);
    const sameTarget = existing && existing.source === source && existing.product === productName && existing.cycle === cycleName;
    // A different product or cycle starts from nothing, so its facts are always stamped as new.
    const base: MappingRow = sameTarget
      ? existing
      : {
          id: existing?.id ?? '',
          platform_id: platformId,
          ...choice,
          release_date: null,
          support_until: null,
          eol_date: null,
          eol_reached: null,
          lts: false,
          latest_version: '',
          synced_at: null,
          missing: false,
        };
    const { next, changed } = fillMapping(base, product.releases);
    if (!existing) {
      await createRowInTx(tx, ctx, eolMappingModel, await prepareCreate(ctx, eolMappingModel, { platform: platformId, ...choice }), factColumns(next));
    } else if (!sameTarget || changed) {
      await updateRowInTx(tx, ctx, eolMappingModel, existing.id, await prepareUpdate(eolMappingModel, choice, 'patch'), 'patch', factColumns(next));
    }
    if (!existing || !sameTarget || changed) await notifyChange(tx, ctx.tenantId);
    return payloadOf(!existing || !sameTarget || changed ? next : existing, settings);
  });
}

/** Removes a platform's mapping through the write service; none (or one removed meanwhile) is not an error. */
export async function deleteMapping(db: Kysely<DB>, ctx: RequestContext, platformId: string): Promise<void> {
  const existing = await mappingOf(db, ctx, platformId);
  if (!existing) return;
  try {
    await deleteObject(db, ctx, eolMappingModel, existing.id);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return;
    throw err;
  }
  await notifyChange(db, ctx.tenantId);
}

// ---------------------------------------------------------------------------------------------------------
// Products and suggestions

export interface ProductSummary {
  source: string;
  name: string;
  label: string;
  category: string;
}

export async function listProducts(db: Kysely<DB>, opts: { q?: string; source?: string; limit: number }): Promise<ProductSummary[]> {
  const q = opts.q?.trim().toLowerCase() ?? '';
  const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const { rows } = await sql<ProductSummary>`SELECT source, name, label, category FROM eol_products
    WHERE (${opts.source ?? null}::text IS NULL OR source = ${opts.source ?? null})
      AND (${q} = '' OR name ILIKE ${like} OR label ILIKE ${like} OR aliases ? ${q})
    ORDER BY label, name LIMIT ${opts.limit}`.execute(db);
  return rows;
}

export async function productDetail(db: Kysely<DB>, source: string, name: string): Promise<ProductSummary & { aliases: string[]; releases: CatalogCycle[] }> {
  const { rows } = await sql<ProductSummary & { aliases: string[]; releases: CatalogCycle[] }>`
    SELECT source, name, label, category, aliases, releases FROM eol_products WHERE source = ${source} AND name = ${name}`.execute(db);
  if (!rows[0]) throw notFound('No such product in the catalog.');
  return rows[0];
}

export interface Suggestion extends ProductSummary {
  score: number;
  cycle: string;
}

function words(textValue: string): string[] {
  return textValue.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/** The cycle a platform name points at: its longest version number, then shorter dotted prefixes. */
export function cycleFromName(platformName: string, cycleNames: string[]): string {
  const names = new Set(cycleNames);
  const versions = (platformName.match(/\d+(\.\d+)*/g) ?? []).sort((a, b) => b.length - a.length);
  for (const v of versions) {
    const parts = v.split('.');
    for (let n = parts.length; n > 0; n--) {
      const candidate = parts.slice(0, n).join('.');
      if (names.has(candidate)) return candidate;
    }
  }
  return '';
}

/**
 * Products matching a platform's name, slug or manufacturer, best first; never applied automatically. The vendor
 * comes first: +20 when the product's name or label carries the platform's vendor (its manufacturer, else the
 * first word of its name), so "Cisco IOS XE" ranks cisco-ios-xe above Apple's ios. Then +10 when a product name
 * or alias is the platform's slug or name, +3 when one is a word of them, +2 for each shared word with the
 * product's label and name.
 */
export async function suggestProducts(db: Kysely<DB>, platform: { name: string; slug: string; manufacturer: string | null }): Promise<Suggestion[]> {
  const platformWords = new Set([...words(platform.name), ...words(platform.slug.replace(/-/g, ' ')), ...words(platform.manufacturer ?? '')]);
  const vendor = platform.manufacturer ? words(platform.manufacturer) : words(platform.name).slice(0, 1);
  const { rows } = await sql<ProductSummary & { aliases: string[] }>`SELECT source, name, label, category, aliases FROM eol_products`.execute(db);
  const scored: Suggestion[] = [];
  for (const p of rows) {
    const names = new Set([p.name, ...p.aliases].map((n) => n.toLowerCase()));
    let score = 0;
    if (names.has(platform.slug.toLowerCase()) || names.has(platform.name.toLowerCase())) score += 10;
    if ([...names].some((n) => platformWords.has(n))) score += 3;
    const productWords = new Set([...words(p.label), ...words(p.name.replace(/-/g, ' '))]);
    for (const w of platformWords) if (productWords.has(w)) score += 2;
    if (score > 0 && vendor.length > 0 && vendor.every((w) => productWords.has(w))) score += 20;
    if (score > 0) scored.push({ source: p.source, name: p.name, label: p.label, category: p.category, score, cycle: '' });
  }
  scored.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
  const top = scored.slice(0, 5);
  if (top.length) {
    const { rows: releases } = await sql<{ source: string; name: string; cycles: string[] }>`
      SELECT source, name, ARRAY(SELECT r->>'name' FROM jsonb_array_elements(releases) r) AS cycles
      FROM eol_products WHERE (source, name) IN (SELECT * FROM unnest(${top.map((t) => t.source)}::text[], ${top.map((t) => t.name)}::text[]))`.execute(db);
    for (const s of top) {
      const r = releases.find((x) => x.source === s.source && x.name === s.name);
      s.cycle = cycleFromName(platform.name, r?.cycles ?? []);
    }
  }
  return top;
}

export async function catalogCounts(db: Kysely<DB>): Promise<{ products: number; mappings: number }> {
  const { rows } = await sql<{ products: number; mappings: number }>`SELECT (SELECT count(*)::int FROM eol_products) AS products,
    (SELECT count(*)::int FROM eol_mappings) AS mappings`.execute(db);
  return rows[0]!;
}
