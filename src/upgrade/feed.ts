// The release feed: a JSON document listing releases, fetched through the SSRF guard, validated strictly, and the
// choice of the newest release a channel applies. The last check's outcome is kept in system_state so every
// process answers the same "update available" and a bad feed is a recorded error, never a crash.
//
// Feed document: {"releases": [{"version": "1.4.0", "bundle_url": "https://…/cairn-1.4.0.tar.gz",
//   "sha256": "<64 hex>", "prerelease": false, "published": "2026-11-01T00:00:00Z", "notes_url": "https://…"}]}
// A bare array of releases is accepted too.
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { guardedGet, readAllowlist } from '../core/ssrf.ts';
import { compareVersions, isPrerelease, parseVersion } from '../install/version.ts';
import type { Channel, UpgradeSettings } from './settings.ts';
import { readState, writeState } from '../core/state.ts';

export interface Release {
  version: string;
  bundle_url: string;
  sha256: string;
  prerelease: boolean;
  published: string | null;
  notes_url: string | null;
}

export class FeedError extends Error {}

const FEED_MAX_BYTES = 2 * 1024 * 1024;
const FEED_TIMEOUT_MS = 30_000;
const MAX_RELEASES = 1000;
const RELEASE_KEYS = new Set(['version', 'bundle_url', 'sha256', 'prerelease', 'published', 'notes_url']);

function urlProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 2000) return 'expected a URL string';
  try {
    const u = new URL(value);
    return u.protocol === 'https:' || u.protocol === 'http:' ? null : 'expected an http(s) URL';
  } catch {
    return 'not a valid URL';
  }
}

/** Parses and validates a feed document; the first problem is thrown naming the release and the field. */
export function parseFeed(text: string): Release[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new FeedError(`The feed is not JSON: ${(err as Error).message}`);
  }
  const list = Array.isArray(doc) ? doc : typeof doc === 'object' && doc !== null ? (doc as { releases?: unknown }).releases : undefined;
  if (!Array.isArray(list)) throw new FeedError('The feed must be a list of releases or an object with a "releases" list.');
  if (list.length > MAX_RELEASES) throw new FeedError(`The feed lists ${list.length} releases; at most ${MAX_RELEASES} are read.`);
  const seen = new Set<string>();
  return list.map((raw, i) => {
    const where = `releases[${i}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new FeedError(`${where}: expected an object.`);
    const r = raw as Record<string, unknown>;
    const unknown = Object.keys(r).filter((k) => !RELEASE_KEYS.has(k));
    if (unknown.length) throw new FeedError(`${where}: unknown field ${unknown.join(', ')}.`);
    if (typeof r.version !== 'string' || !parseVersion(r.version) || r.version !== r.version.trim()) {
      throw new FeedError(`${where}.version: ${JSON.stringify(r.version)} is not a release version (X.Y.Z with an optional suffix such as -rc.1).`);
    }
    const at = `${where} (${r.version})`;
    if (seen.has(r.version)) throw new FeedError(`${at}: listed twice.`);
    seen.add(r.version);
    const bad = urlProblem(r.bundle_url);
    if (bad) throw new FeedError(`${at}.bundle_url: ${bad}.`);
    if (typeof r.sha256 !== 'string' || !/^[0-9a-f]{64}$/i.test(r.sha256)) throw new FeedError(`${at}.sha256: expected 64 hexadecimal characters.`);
    if (typeof r.prerelease !== 'boolean') throw new FeedError(`${at}.prerelease: expected true or false.`);
    // A release flagged final whose version carries a suffix (or the other way round) is one the feed got wrong:
    // the channel rule checks both, so a mislabelled pre-release never reaches a Stable install.
    if (!r.prerelease && isPrerelease(r.version)) throw new FeedError(`${at}.prerelease: false, but the version has a pre-release suffix.`);
    let published: string | null = null;
    if (r.published !== undefined && r.published !== null) {
      if (typeof r.published !== 'string' || Number.isNaN(Date.parse(r.published))) throw new FeedError(`${at}.published: expected an ISO 8601 date.`);
      published = new Date(r.published).toISOString();
    }
    let notes: string | null = null;
    if (r.notes_url !== undefined && r.notes_url !== null) {
      const badNotes = urlProblem(r.notes_url);
      if (badNotes) throw new FeedError(`${at}.notes_url: ${badNotes}.`);
      notes = r.notes_url as string;
    }
    return { version: r.version, bundle_url: r.bundle_url as string, sha256: (r.sha256 as string).toLowerCase(), prerelease: r.prerelease, published, notes_url: notes };
  });
}

/** Whether a channel takes a release: Stable finals only (by flag and by version), Any everything. */
export function channelTakes(channel: Channel, release: Release): boolean {
  return channel === 'any' || (!release.prerelease && !isPrerelease(release.version));
}

/** The newest release by version (never list order) the channel takes, or null when the feed has none. */
export function newestRelease(releases: readonly Release[], channel: Channel): Release | null {
  let best: Release | null = null;
  for (const r of releases) if (channelTakes(channel, r) && (!best || compareVersions(r.version, best.version) > 0)) best = r;
  return best;
}

/** The newest applicable release when it is newer than the running version, else null (never a downgrade). */
export function upgradeTarget(releases: readonly Release[], channel: Channel, running: string): Release | null {
  const newest = newestRelease(releases, channel);
  if (!newest || !parseVersion(running)) return newest;
  return compareVersions(newest.version, running) > 0 ? newest : null;
}

export async function fetchFeed(url: string, allowlist: readonly string[]): Promise<Release[]> {
  let res;
  try {
    res = await guardedGet(url, { allowlist, maxBytes: FEED_MAX_BYTES, timeoutMs: FEED_TIMEOUT_MS, allowPlainHttp: true, headers: { accept: 'application/json' } });
  } catch (err) {
    throw new FeedError(`The release feed could not be fetched: ${(err as Error).message}`);
  }
  if (res.status !== 200) throw new FeedError(`The release feed answered HTTP ${res.status}.`);
  return parseFeed(res.body.toString('utf8'));
}

// ------------------------------------------------------------------------------------------ last check

export interface FeedCheck {
  checked_at: string | null;
  error: string | null;
  feed_url: string;
  releases: Release[];
}

const CHECK_KEY = 'upgrade_feed_check';
const EMPTY_CHECK: FeedCheck = { checked_at: null, error: null, feed_url: '', releases: [] };

export async function readFeedCheck(db: Kysely<DB>): Promise<FeedCheck> {
  return { ...EMPTY_CHECK, ...(await readState<Partial<FeedCheck>>(db, CHECK_KEY)) };
}

function writeFeedCheck(db: Kysely<DB>, check: FeedCheck): Promise<void> {
  return writeState(db, CHECK_KEY, check);
}

/**
 * Fetches the feed now and records the outcome. A failed check keeps the releases of the last good one (so a
 * flaky mirror does not hide a known update) and records why it failed.
 */
export async function checkFeed(db: Kysely<DB>, settings: UpgradeSettings): Promise<FeedCheck> {
  const previous = await readFeedCheck(db);
  const now = new Date().toISOString();
  if (!settings.feed_url) {
    const check = { checked_at: now, error: 'No release feed is configured (feed_url).', feed_url: '', releases: [] };
    await writeFeedCheck(db, check);
    return check;
  }
  let check: FeedCheck;
  try {
    const releases = await fetchFeed(settings.feed_url, await readAllowlist(db));
    check = { checked_at: now, error: null, feed_url: settings.feed_url, releases };
  } catch (err) {
    if (!(err instanceof FeedError)) throw err;
    check = { checked_at: now, error: err.message, feed_url: settings.feed_url, releases: previous.feed_url === settings.feed_url ? previous.releases : [] };
  }
  await writeFeedCheck(db, check);
  return check;
}

export interface Availability {
  running_version: string;
  channel: Channel;
  airgapped: boolean;
  automatic_updates: boolean;
  feed_url: string;
  latest: Release | null;
  update_available: boolean;
  checked_at: string | null;
  error: string | null;
}

export function availability(check: FeedCheck, settings: UpgradeSettings, running: string): Availability {
  // Releases of another feed than the configured one (the URL changed since) say nothing about this one.
  const releases = check.feed_url === settings.feed_url ? check.releases : [];
  const latest = settings.airgapped ? null : newestRelease(releases, settings.channel);
  const target = settings.airgapped ? null : upgradeTarget(releases, settings.channel, running);
  return {
    running_version: running,
    channel: settings.channel,
    airgapped: settings.airgapped,
    automatic_updates: settings.automatic_updates && !settings.airgapped,
    feed_url: settings.feed_url,
    latest,
    update_available: target !== null,
    checked_at: check.checked_at,
    error: settings.airgapped ? null : check.error,
  };
}
