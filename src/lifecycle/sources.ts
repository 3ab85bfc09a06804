// Catalog sources: where end-of-life data comes from and how its document becomes products with cycles.
// The built-in source reads the endoflife.date API v1 full-products document; a plugin registers another
// source with registerSource() (its fetch must go through the SSRF guard).
import { guardedGet, type GuardOptions } from '../core/ssrf.ts';

/** One release cycle as the catalog stores it; dates are ISO `YYYY-MM-DD` or null. */
export interface CatalogCycle {
  name: string;
  label: string;
  release_date: string | null;
  /** End of active support (bug fixes). */
  support_until: string | null;
  /** End of life = end of security support. */
  eol_date: string | null;
  /** The source's own end-of-life flag, only when it is a real boolean; null = the source does not say. */
  eol: boolean | null;
  lts: boolean;
  latest: string;
}

export interface CatalogProduct {
  name: string;
  label: string;
  category: string;
  aliases: string[];
  releases: CatalogCycle[];
}

export interface EolSource {
  key: string;
  label: string;
  defaultUrl: string;
  homepage: string;
  /** Fetches the raw document from `baseUrl` (configured or default, no trailing slash) through the guard. */
  fetch(baseUrl: string, guard: GuardOptions): Promise<unknown>;
  /** Turns a document into products; throws CatalogFormatError with a message a user can act on. */
  parse(payload: unknown): CatalogProduct[];
}

export class CatalogFormatError extends Error {}

export const CATALOG_MAX_BYTES = 64 * 1024 * 1024;

const sources = new Map<string, EolSource>();

export function registerSource(source: EolSource): void {
  sources.set(source.key, source);
}

export function getSource(key: string): EolSource {
  const s = sources.get(key);
  if (!s) throw new Error(`Unknown end-of-life source '${key}'.`);
  return s;
}

export function hasSource(key: string): boolean {
  return sources.has(key);
}

/** Registered sources, the first (built-in) one being the default everywhere. */
export function allSources(): EolSource[] {
  return [...sources.values()];
}

export function defaultSourceKey(): string {
  return allSources()[0]!.key;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})/;

/** The first ten characters as a real calendar date, else null (the catalog has "TBD"-like values). */
export function isoDate(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = ISO_DATE.exec(value);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return value.slice(0, 10);
}

function text(value: unknown, max: number): string {
  return typeof value === 'string' ? value.trim().slice(0, max) : typeof value === 'number' ? String(value).slice(0, max) : '';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A date field of a cycle: absent or null is "no date"; anything else must be a calendar date, since a document
 * with "2025-13-45" or "soon" is corrupt and loading it would silently erase dates that mappings rely on.
 */
function cycleDate(raw: Record<string, unknown>, key: string, where: string): string | null {
  const value = raw[key];
  if (value === undefined || value === null) return null;
  const date = isoDate(value);
  if (date === null) throw new CatalogFormatError(`${where}: ${key} ${JSON.stringify(value).slice(0, 40)} is not a date (YYYY-MM-DD).`);
  return date;
}

function parseCycle(raw: unknown, productName: string): CatalogCycle | null {
  if (!isObject(raw)) return null;
  const name = text(raw.name, 64);
  if (!name) return null;
  const where = `${productName} ${name}`;
  const latest = isObject(raw.latest) ? text(raw.latest.name, 64) : text(raw.latest, 64);
  return {
    name,
    label: text(raw.label, 200) || name,
    release_date: cycleDate(raw, 'releaseDate', where),
    support_until: cycleDate(raw, 'eoasFrom', where),
    eol_date: cycleDate(raw, 'eolFrom', where),
    // isEol is computed when the catalog is built and goes stale; it is only kept to judge cycles without a date.
    eol: typeof raw.isEol === 'boolean' ? raw.isEol : null,
    lts: Boolean(raw.isLts),
    latest,
  };
}

function parseProduct(raw: unknown): CatalogProduct | null {
  if (!isObject(raw) || !Array.isArray(raw.releases)) return null;
  const name = text(raw.name, 128);
  if (!name) return null;
  const aliases = Array.isArray(raw.aliases) ? raw.aliases.filter((a): a is string => typeof a === 'string').map((a) => a.slice(0, 128)).slice(0, 50) : [];
  const releases: CatalogCycle[] = [];
  const seen = new Set<string>();
  for (const r of raw.releases) {
    const cycle = parseCycle(r, name);
    // A cycle name is the mapping key: the first occurrence wins if a document repeats one.
    if (cycle && !seen.has(cycle.name)) {
      seen.add(cycle.name);
      releases.push(cycle);
    }
  }
  return { name, label: text(raw.label, 200) || name, category: text(raw.category, 64), aliases, releases };
}

const SHAPE_MESSAGE = 'No products with releases found - expected the JSON of endoflife.date /api/v1/products/full.';

/** The endoflife.date v1 shapes: `{result: [...]}`, a bare list, or one product (`{result: {...}}` or bare). */
export function parseEndoflifeDocument(payload: unknown): CatalogProduct[] {
  let items: unknown[];
  if (Array.isArray(payload)) items = payload;
  else if (isObject(payload) && Array.isArray(payload.result)) items = payload.result;
  else if (isObject(payload) && isObject(payload.result)) items = [payload.result];
  else if (isObject(payload) && Array.isArray(payload.releases)) items = [payload];
  else throw new CatalogFormatError(SHAPE_MESSAGE);
  const products = new Map<string, CatalogProduct>();
  for (const item of items) {
    const p = parseProduct(item);
    if (p && !products.has(p.name)) products.set(p.name, p);
  }
  if (products.size === 0) throw new CatalogFormatError(SHAPE_MESSAGE);
  return [...products.values()];
}

/** Bytes of an uploaded or fetched document → JSON, UTF-8 with an optional BOM. */
export function decodeJson(bytes: Buffer): unknown {
  let textValue = bytes.toString('utf8');
  if (textValue.charCodeAt(0) === 0xfeff) textValue = textValue.slice(1);
  try {
    return JSON.parse(textValue);
  } catch (err) {
    throw new CatalogFormatError(`The file is not JSON: ${(err as Error).message}`);
  }
}

export const endoflifeDateSource: EolSource = {
  key: 'endoflife_date',
  label: 'endoflife.date',
  defaultUrl: 'https://endoflife.date',
  homepage: 'https://endoflife.date',
  async fetch(baseUrl, guard) {
    const url = `${baseUrl}/api/v1/products/full`;
    const res = await guardedGet(url, { maxBytes: CATALOG_MAX_BYTES, timeoutMs: 60_000, ...guard, headers: { accept: 'application/json' } });
    if (res.status !== 200) throw new Error(`${url} answered HTTP ${res.status}.`);
    return decodeJson(res.body);
  },
  parse: parseEndoflifeDocument,
};

registerSource(endoflifeDateSource);
