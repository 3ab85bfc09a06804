// Starting an upgrade from the API or the schedule: the checks that can be answered before anything runs (an
// upgrade alive or unrecovered, a container, airgapped, a version the feed does not list, an older or the same
// release, a bad download), the download of a feed release into shared/ with its SHA-256 checked, and the
// launch of the engine outside this process (launch.ts). The engine repeats every check under its lock.
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { guardedGet } from '../core/ssrf.ts';
import { readJournal, unfinished } from './engine/journal.ts';
import { BUSY_MESSAGE, lockOwnerAlive } from '../install/lock.ts';
import type { InstallLayout } from '../install/layout.ts';
import { peekBundleVersion, refuseOlder } from './engine/run.ts';
import { fetchFeed, FeedError, type Release } from './feed.ts';
import { launchUpgrade, LaunchRefused, type Launched, type LaunchTrigger } from './launch.ts';
import type { UpgradeSettings } from './settings.ts';
import { parseVersion } from '../install/version.ts';

/** A refusal with the HTTP status it maps to and the request field it is about (null: the request as a whole). */
export class StartRefusal extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 413 | 422 | 502,
    readonly field: string | null,
    message: string,
  ) {
    super(message);
  }
}

const MB = 1024 * 1024;
/** Largest bundle downloaded or uploaded (a bundle carries its node_modules): CAIRN_UPGRADE_BUNDLE_MAX_MB. */
export function bundleMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  const mb = Number(env.CAIRN_UPGRADE_BUNDLE_MAX_MB);
  return (Number.isInteger(mb) && mb > 0 ? mb : 1024) * MB;
}
const DOWNLOAD_TIMEOUT_MS = 30 * 60_000;

/** Refuses while another run lives or waits for recovery, and on container deployments. */
export function refuseUnlessStartable(layout: InstallLayout, env: NodeJS.ProcessEnv = process.env): void {
  if (lockOwnerAlive(layout.lockFile)) throw new StartRefusal(409, null, BUSY_MESSAGE);
  if (unfinished(readJournal(layout.journalFile))) throw new StartRefusal(409, null, `${BUSY_MESSAGE} An interrupted upgrade must be recovered first: cairn upgrade recover`);
  if (env.CAIRN_CONTAINER === '1') throw new StartRefusal(409, null, 'This is a container deployment: upgrade by pulling the new image, not in place.');
}

/** The engine's own wording for an older or the same release. */
export function refuseNotNewer(field: string, to: string, running: string): void {
  try {
    refuseOlder(to, running);
  } catch (err) {
    throw new StartRefusal(400, field, (err as Error).message);
  }
}

/** The release the feed lists under `version`, after the airgapped and version checks. */
export async function feedRelease(settings: UpgradeSettings, allowlist: readonly string[], version: string, running: string): Promise<Release> {
  if (settings.airgapped) throw new StartRefusal(400, 'version', 'This install is airgapped: upgrade by uploading a bundle (field `bundle`).');
  if (!parseVersion(version)) throw new StartRefusal(400, 'version', `"${version}" is not a release version (X.Y.Z with an optional suffix such as -rc.1).`);
  if (!settings.feed_url) throw new StartRefusal(400, 'version', 'No release feed is configured (feed_url in the upgrade settings): upload a bundle instead.');
  let releases: Release[];
  try {
    releases = await fetchFeed(settings.feed_url, allowlist);
  } catch (err) {
    if (err instanceof FeedError) throw new StartRefusal(502, null, err.message);
    throw err;
  }
  return pickRelease(releases, version, running);
}

export function pickRelease(releases: readonly Release[], version: string, running: string): Release {
  const release = releases.find((r) => r.version === version);
  if (!release) throw new StartRefusal(404, 'version', `The release feed does not list version ${version}.`);
  refuseNotNewer('version', version, running);
  return release;
}

/**
 * Downloads a release's bundle through the SSRF guard into shared/upgrade/downloads/ and checks it against the
 * feed's SHA-256 and its own manifest; returns the file. A mismatch leaves nothing behind.
 */
export async function downloadRelease(layout: InstallLayout, release: Release, allowlist: readonly string[]): Promise<string> {
  const dir = join(layout.upgradeDir, 'downloads');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `cairn-${release.version}.tar.gz`);
  const tmp = `${file}.${process.pid}.part`;
  // Streamed to disk and hashed on the way: the bundle is never held in memory whole.
  const hash = createHash('sha256');
  const fd = openSync(tmp, 'w', 0o600);
  let res;
  try {
    res = await guardedGet(release.bundle_url, {
      allowlist, maxBytes: bundleMaxBytes(), timeoutMs: DOWNLOAD_TIMEOUT_MS, allowPlainHttp: true,
      onChunk: (chunk) => {
        hash.update(chunk);
        writeSync(fd, chunk);
      },
    });
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new StartRefusal(502, 'version', `The bundle of ${release.version} could not be downloaded: ${(err as Error).message}`);
  } finally {
    closeSync(fd);
  }
  if (res.status !== 200) {
    rmSync(tmp, { force: true });
    throw new StartRefusal(502, 'version', `The bundle of ${release.version} could not be downloaded: ${release.bundle_url} answered HTTP ${res.status}.`);
  }
  const got = hash.digest('hex');
  if (got !== release.sha256) {
    rmSync(tmp, { force: true });
    throw new StartRefusal(422, 'version', `The download of ${release.version} does not match the feed's SHA-256 (expected ${release.sha256}, got ${got}): nothing was changed.`);
  }
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  const inside = await peekBundleVersion(file);
  if (inside !== release.version) {
    rmSync(file, { force: true });
    throw new StartRefusal(422, 'version', `The bundle at ${release.bundle_url} ${inside ? `holds release ${inside}` : 'has no readable manifest'}, not ${release.version}: nothing was changed.`);
  }
  return file;
}

/** Checks an uploaded bundle's manifest (a Cairn release, newer than the running one) before the run starts. */
export async function checkUploadedBundle(file: string, running: string): Promise<string> {
  const version = await peekBundleVersion(file);
  if (!version) throw new StartRefusal(400, 'bundle', 'This is not a Cairn release bundle: no readable manifest.json (expected cairn-X.Y.Z.tar.gz made by `npm run bundle`).');
  if (!parseVersion(version)) throw new StartRefusal(400, 'bundle', `The bundle's manifest names version "${version}", which is not a release version.`);
  refuseNotNewer('bundle', version, running);
  return version;
}

/** Downloads and uploads of earlier runs: no run is alive (checked before), so none of them is in use. */
function pruneOldBundles(layout: InstallLayout, keep: string): void {
  for (const dir of ['downloads', 'uploads']) {
    const full = join(layout.upgradeDir, dir);
    if (!existsSync(full)) continue;
    for (const name of readdirSync(full)) if (join(full, name) !== keep) rmSync(join(full, name), { force: true });
  }
}

/** Hands a checked bundle to the engine; the run's refusals come back as StartRefusal. */
export async function launchChecked(layout: InstallLayout, bundlePath: string, trigger: LaunchTrigger, startedBy: string, env?: Record<string, string>): Promise<Launched> {
  if (!existsSync(bundlePath)) throw new StartRefusal(400, 'bundle', `No bundle at ${bundlePath}.`);
  pruneOldBundles(layout, bundlePath);
  try {
    return await launchUpgrade({ layout, bundlePath, trigger, startedBy, env });
  } catch (err) {
    if (err instanceof LaunchRefused) throw new StartRefusal(err.busy ? 409 : 502, null, err.message);
    throw err;
  }
}
