// `cairn upgrade online [--release X] [--feed URL]`: the same upgrade as POST /api/system/upgrade/ {version},
// run in this process (the CLI is already outside the services it stops). Settings come from the database;
// on the embedded database that works only while `cairn serve` is stopped, hence --feed to name the feed directly.
import type { Config } from '../config.ts';
import { openConfiguredDatabase } from '../db/open.ts';
import { readAllowlist } from '../core/ssrf.ts';
import type { Host } from './host/types.ts';
import type { Journal } from './engine/journal.ts';
import { currentRelease, type InstallLayout } from '../install/layout.ts';
import { runUpgrade } from './engine/run.ts';
import { fetchFeed, FeedError, upgradeTarget } from './feed.ts';
import { DEFAULT_UPGRADE_SETTINGS, readUpgradeSettings, type UpgradeSettings } from './settings.ts';
import { downloadRelease, pickRelease, refuseUnlessStartable } from './start.ts';

export interface OnlineOptions {
  version?: string;
  feedUrl?: string;
  config: Config;
  startedBy: string;
}

async function settingsAndAllowlist(opts: OnlineOptions): Promise<{ settings: UpgradeSettings; allowlist: string[] }> {
  if (opts.feedUrl) return { settings: { ...DEFAULT_UPGRADE_SETTINGS, feed_url: opts.feedUrl }, allowlist: [] };
  let database;
  try {
    database = await openConfiguredDatabase(opts.config);
  } catch (err) {
    throw new Error(`cannot read the upgrade settings from the database (${(err as Error).message}); with the embedded database while Cairn runs, pass --feed <url>`);
  }
  try {
    return { settings: await readUpgradeSettings(database.db), allowlist: await readAllowlist(database.db) };
  } finally {
    await database.close();
  }
}

export async function runOnlineUpgrade(layout: InstallLayout, host: Host, opts: OnlineOptions): Promise<Journal> {
  const running = currentRelease(layout)?.version;
  if (!running) throw new Error(`No release is installed at ${layout.current}.`);
  const { settings, allowlist } = await settingsAndAllowlist(opts);
  if (settings.airgapped) throw new Error('This install is airgapped: upgrade with `cairn upgrade bundle <file>`.');
  if (!settings.feed_url) throw new Error('No release feed is configured (feed_url in Settings → Updates, or --feed <url>).');
  let releases;
  try {
    releases = await fetchFeed(settings.feed_url, allowlist);
  } catch (err) {
    if (err instanceof FeedError) throw new Error(err.message);
    throw err;
  }
  const version = opts.version ?? upgradeTarget(releases, settings.channel, running)?.version;
  if (!version) throw new Error(`Cairn ${running} is the newest release the ${settings.channel} channel of ${settings.feed_url} offers.`);
  const release = pickRelease(releases, version, running);
  refuseUnlessStartable(layout);
  console.log(`Downloading Cairn ${release.version} from ${release.bundle_url} …`);
  const bundlePath = await downloadRelease(layout, release, allowlist);
  console.log(`SHA-256 matches the feed; upgrading ${running} → ${release.version}.`);
  return runUpgrade({ layout, host, bundlePath, trigger: 'online', startedBy: opts.startedBy });
}
