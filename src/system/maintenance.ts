// Maintenance mode: a flag with an expiry kept in the database (so every process sees it), read through a
// two-second cache so it costs no query on most requests.
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { readState, writeState } from '../core/state.ts';

export interface MaintenanceState {
  enabled: boolean;
  until: string | null;
  reason: string;
  /** Reads (GET, HEAD, OPTIONS) are answered while it holds: an upgrade's hold while the site is kept readable. */
  reads?: boolean;
}

// How long one process trusts its last read of the flag. Other processes see a change within this time; tests
// raise it (CAIRN_MAINTENANCE_CACHE_MS) so a refresh never lands inside a query-count measurement.
const MAINTENANCE_KEY = 'maintenance';
const CACHE_MS = Number(process.env.CAIRN_MAINTENANCE_CACHE_MS ?? 2000);
// Per database handle: a process (a test worker running file after file) may hold several databases over its life.
const cache = new WeakMap<Kysely<DB>, { state: MaintenanceState; at: number }>();

function active(state: MaintenanceState): boolean {
  return state.enabled && (state.until === null || Date.parse(state.until) > Date.now());
}

export async function readMaintenance(db: Kysely<DB>, fresh = false): Promise<MaintenanceState & { active: boolean }> {
  const cached = cache.get(db);
  const age = cached ? Date.now() - cached.at : Infinity;
  // age < 0: the clock stepped back; re-read rather than trust a cache from the "future".
  if (!fresh && cached && age >= 0 && age < CACHE_MS) return { ...cached.state, active: active(cached.state) };
  const state = (await readState<MaintenanceState>(db, MAINTENANCE_KEY)) ?? { enabled: false, until: null, reason: '' };
  cache.set(db, { state, at: Date.now() });
  return { ...state, active: active(state) };
}

/** Turns maintenance on for `minutes` (null = until turned off) or off; `reads`: reads are answered meanwhile. */
export async function setMaintenance(db: Kysely<DB>, enabled: boolean, minutes: number | null = null, reason = '', reads = false): Promise<MaintenanceState> {
  const state: MaintenanceState = {
    enabled,
    until: enabled && minutes !== null ? new Date(Date.now() + minutes * 60_000).toISOString() : null,
    reason: enabled ? reason : '',
    ...(enabled && reads ? { reads: true } : {}),
  };
  await writeState(db, MAINTENANCE_KEY, state);
  cache.delete(db);
  return state;
}

/** Seconds a client should wait before retrying while maintenance holds the site. */
export function retryAfterSeconds(state: MaintenanceState): number {
  if (!state.until) return 60;
  return Math.max(1, Math.min(3600, Math.ceil((Date.parse(state.until) - Date.now()) / 1000)));
}
