// Deployment-wide end-of-life settings and the refresh status, kept in system_state so every process (web and
// workers) reads the same values. Setting changes go to the change log; refresh bookkeeping does not.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { ErrorCollector } from '../core/errors.ts';
import { recordChanges, type ChangeSubject } from '../core/changelog.ts';
import { allowlistEntryError, checkUrlAtSave, readAllowlist, writeAllowlist } from '../core/ssrf.ts';
import { allSources, defaultSourceKey, hasSource } from './sources.ts';
import { readState as readKey, writeState as writeKey } from '../core/state.ts';

export interface EolSettings {
  enabled: boolean;
  sources: string[];
  source_urls: Record<string, string>;
  warning_days: number;
}

export type RefreshStatus = '' | 'queued' | 'running' | 'ok' | 'failed';

export interface RefreshState {
  status: RefreshStatus;
  error: string;
  at: string | null;
  via: 'online' | 'import' | '';
  /** When the status last changed: a queued/running state older than STALE_MS no longer blocks a refresh. */
  changed: string | null;
}

export const SETTINGS_KEY = 'eol_settings';
const REFRESH_KEY = 'eol_refresh';
export const DEFAULT_SETTINGS: EolSettings = { enabled: false, sources: [], source_urls: {}, warning_days: 180 };
const EMPTY_REFRESH: RefreshState = { status: '', error: '', at: null, via: '', changed: null };

/** Settings are not a registry model (no generic routes), but the change log needs a type and a stable id. */
export const settingsChangeModel: ChangeSubject = { name: 'lifecycle.eolsettings', tenantScoped: false };
const SETTINGS_OBJECT_ID = '00000000-0000-7000-8000-00000000e01a';

export async function readSettings(db: Kysely<DB>): Promise<EolSettings> {
  return { ...DEFAULT_SETTINGS, ...(await readKey<Partial<EolSettings>>(db, SETTINGS_KEY)) };
}

export async function readRefreshState(db: Kysely<DB>): Promise<RefreshState> {
  return { ...EMPTY_REFRESH, ...(await readKey<Partial<RefreshState>>(db, REFRESH_KEY)) };
}

export async function writeRefreshState(db: Kysely<DB>, patch: Partial<RefreshState>): Promise<RefreshState> {
  const next = { ...(await readRefreshState(db)), ...patch };
  if (patch.status !== undefined) next.changed = new Date().toISOString();
  await writeKey(db, REFRESH_KEY, next);
  return next;
}

/**
 * SQL reading the feature switch and the window from system_state, for list filters, which are built
 * synchronously from the query string and cannot await the settings.
 */
export const enabledSql: RawBuilder<boolean> = sql<boolean>`COALESCE((SELECT (value->>'enabled')::boolean FROM system_state WHERE key = ${SETTINGS_KEY}), false)`;
export const warningDaysSql: RawBuilder<number> = sql<number>`COALESCE((SELECT (value->>'warning_days')::int FROM system_state WHERE key = ${SETTINGS_KEY}), ${DEFAULT_SETTINGS.warning_days})`;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Validates a partial settings body against the current values; every bad field is named, nothing is written. */
export async function validateSettingsInput(db: Kysely<DB>, body: unknown, current: EolSettings): Promise<{ settings: EolSettings; allowlist: string[] | null }> {
  const errors = new ErrorCollector();
  if (!isPlainObject(body)) {
    errors.add('non_field_errors', 'Send a JSON object of settings.');
    errors.throwIfAny();
  }
  const input = body as Record<string, unknown>;
  const known = new Set(['enabled', 'sources', 'source_urls', 'warning_days', 'ssrf_allowlist']);
  for (const key of Object.keys(input)) if (!known.has(key)) errors.add(key, 'Unknown field.');
  const next: EolSettings = { ...current, sources: [...current.sources], source_urls: { ...current.source_urls } };

  if ('enabled' in input) {
    if (typeof input.enabled !== 'boolean') errors.add('enabled', 'Expected true or false.');
    else next.enabled = input.enabled;
  }
  if ('warning_days' in input) {
    const v = input.warning_days;
    // Booleans and numeric strings are refused too: "x", true and 1.5 are not a number of days.
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 3650) errors.add('warning_days', 'Enter a whole number of days from 0 to 3650.');
    else next.warning_days = v;
  }
  let allowlist: string[] | null = null;
  if ('ssrf_allowlist' in input) {
    const v = input.ssrf_allowlist;
    if (!Array.isArray(v) || !v.every((e) => typeof e === 'string')) errors.add('ssrf_allowlist', 'Expected a list of addresses, CIDRs or host names.');
    else {
      allowlist = [...new Set(v.map((e) => e.trim()).filter(Boolean))];
      for (const e of allowlist) {
        const problem = allowlistEntryError(e);
        if (problem) errors.add('ssrf_allowlist', problem);
      }
    }
  }
  if ('sources' in input) {
    const v = input.sources;
    if (!Array.isArray(v) || !v.every((e) => typeof e === 'string')) errors.add('sources', 'Expected a list of source keys.');
    else {
      const unknown = v.filter((k) => !hasSource(k));
      if (unknown.length) errors.add('sources', `Unknown source: ${unknown.join(', ')}. Known: ${allSources().map((s) => s.key).join(', ')}.`);
      else next.sources = [...new Set(v)];
    }
  }
  if ('source_urls' in input) {
    const v = input.source_urls;
    if (!isPlainObject(v)) errors.add('source_urls', 'Expected an object of source key → https URL.');
    else {
      const effectiveAllowlist = allowlist ?? (await readAllowlist(db));
      const urls: Record<string, string> = {};
      for (const [key, raw] of Object.entries(v)) {
        if (!hasSource(key)) {
          errors.add('source_urls', `Unknown source '${key}'.`);
          continue;
        }
        if (typeof raw !== 'string') {
          errors.add('source_urls', `${key}: expected a URL or blank.`);
          continue;
        }
        const url = raw.trim().replace(/\/+$/, '');
        if (url === '') continue;
        if (url.length > 255) {
          errors.add('source_urls', `${key}: at most 255 characters.`);
          continue;
        }
        const problem = checkUrlAtSave(url, effectiveAllowlist);
        if (problem) errors.add('source_urls', `${key}: ${problem}`);
        else urls[key] = url;
      }
      next.source_urls = urls;
    }
  }
  errors.throwIfAny();
  // Turning the feature on without a source would make every refresh a no-op: pick the built-in one.
  if (next.enabled && next.sources.length === 0 && !('sources' in input)) next.sources = [defaultSourceKey()];
  return { settings: next, allowlist };
}

/** Saves what changed; answers whether end-of-life rule outcomes may have changed (warning window or on/off). */
export async function saveSettings(db: Kysely<DB>, ctx: RequestContext, body: unknown): Promise<{ rulesAffected: boolean }> {
  const current = await readSettings(db);
  const { settings, allowlist } = await validateSettingsInput(db, body, current);
  const before = { ...current, ssrf_allowlist: await readAllowlist(db) };
  const after = { ...settings, ssrf_allowlist: allowlist ?? before.ssrf_allowlist };
  if (JSON.stringify(before) === JSON.stringify(after)) return { rulesAffected: false };
  await db.transaction().execute(async (tx) => {
    await writeKey(tx, SETTINGS_KEY, settings);
    if (allowlist) await writeAllowlist(tx, allowlist);
    await recordChanges(tx, ctx, [{ model: settingsChangeModel, action: 'update', objectId: SETTINGS_OBJECT_ID, repr: 'End-of-life settings', before, after, tenantId: null }]);
  });
  return { rulesAffected: current.warning_days !== settings.warning_days || current.enabled !== settings.enabled };
}
