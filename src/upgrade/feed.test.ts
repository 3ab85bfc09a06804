import { describe, expect, it } from 'vitest';
import { availability, channelTakes, FeedError, newestRelease, parseFeed, upgradeTarget, type FeedCheck, type Release } from './feed.ts';
import { DEFAULT_UPGRADE_SETTINGS } from './settings.ts';

const sha = 'ab'.repeat(32);
function rel(version: string, prerelease = /-/.test(version)): Record<string, unknown> {
  return { version, bundle_url: `https://releases.example.com/cairn-${version}.tar.gz`, sha256: sha, prerelease };
}
const parsed = (versions: string[]): Release[] => parseFeed(JSON.stringify({ releases: versions.map((v) => rel(v)) }));

describe('parseFeed', () => {
  it('reads an object with releases or a bare list, with optional published and notes_url', () => {
    const doc = { releases: [{ ...rel('1.2.0'), published: '2026-11-01T10:00:00Z', notes_url: 'https://example.com/notes/1.2.0' }, rel('1.3.0-rc.1')] };
    const releases = parseFeed(JSON.stringify(doc));
    expect(releases).toEqual([
      { version: '1.2.0', bundle_url: 'https://releases.example.com/cairn-1.2.0.tar.gz', sha256: sha, prerelease: false, published: '2026-11-01T10:00:00.000Z', notes_url: 'https://example.com/notes/1.2.0' },
      { version: '1.3.0-rc.1', bundle_url: 'https://releases.example.com/cairn-1.3.0-rc.1.tar.gz', sha256: sha, prerelease: true, published: null, notes_url: null },
    ]);
    expect(parseFeed(JSON.stringify([rel('1.2.0')]))).toHaveLength(1);
    expect(parseFeed(JSON.stringify({ releases: [{ ...rel('1.2.0'), sha256: sha.toUpperCase() }] }))[0]!.sha256).toBe(sha);
  });

  it.each([
    ['not json', 'not JSON'],
    ['{"items": []}', '"releases" list'],
    ['[1]', 'releases[0]: expected an object'],
    [JSON.stringify([{ ...rel('1.2.0'), extra: 1 }]), 'unknown field extra'],
    [JSON.stringify([{ ...rel('1.2.0'), version: '1.2' }]), 'releases[0].version'],
    [JSON.stringify([{ ...rel('1.2.0'), version: 'v1.2.0' }]), 'releases[0].version'],
    [JSON.stringify([rel('1.2.0'), rel('1.2.0')]), 'listed twice'],
    [JSON.stringify([{ ...rel('1.2.0'), bundle_url: 'ftp://x/y' }]), 'bundle_url'],
    [JSON.stringify([{ ...rel('1.2.0'), bundle_url: 'not a url' }]), 'bundle_url'],
    [JSON.stringify([{ ...rel('1.2.0'), sha256: 'abc' }]), 'sha256'],
    [JSON.stringify([{ ...rel('1.2.0'), prerelease: 'no' }]), 'prerelease: expected'],
    [JSON.stringify([{ ...rel('1.3.0-rc.1'), prerelease: false }]), 'pre-release suffix'],
    [JSON.stringify([{ ...rel('1.2.0'), published: 'yesterday' }]), 'published'],
    [JSON.stringify([{ ...rel('1.2.0'), notes_url: 42 }]), 'notes_url'],
  ])('refuses %s with a message naming the problem', (text, message) => {
    expect(() => parseFeed(text)).toThrow(FeedError);
    expect(() => parseFeed(text)).toThrow(message);
  });
});

describe('channel and version selection', () => {
  const releases = parsed(['1.2.0', '1.10.0-dev1', '1.3.0', '1.10.0-rc.2', '1.9.9', '1.4.0-rc.1']);

  it('stable takes finals only, by flag and by version; any takes pre-releases too', () => {
    expect(channelTakes('stable', releases[0]!)).toBe(true);
    expect(channelTakes('stable', releases[1]!)).toBe(false);
    expect(channelTakes('any', releases[1]!)).toBe(true);
    // Flagged pre-release although the version looks final: still not for stable.
    const flagged = parseFeed(JSON.stringify([{ ...rel('2.0.0'), prerelease: true }]))[0]!;
    expect(channelTakes('stable', flagged)).toBe(false);
  });

  it('picks the newest by version order, not list order (1.10 > 1.9, rc.2 > dev1)', () => {
    expect(newestRelease(releases, 'stable')!.version).toBe('1.9.9');
    expect(newestRelease(releases, 'any')!.version).toBe('1.10.0-rc.2');
    expect(newestRelease([], 'any')).toBeNull();
  });

  it.each([
    ['stable', '1.2.0', '1.9.9'],
    ['stable', '1.9.9', null],
    ['stable', '2.0.0', null], // never a downgrade
    ['any', '1.9.9', '1.10.0-rc.2'],
    ['any', '1.10.0-rc.2', null],
    ['any', '1.10.0-dev1', '1.10.0-rc.2'],
    ['stable', '1.10.0-dev1', null], // a pre-release install on stable waits for the final
    ['any', '1.10.0', null], // the final is newer than its own release candidate
  ] as const)('channel %s running %s → %s', (channel, running, target) => {
    expect(upgradeTarget(releases, channel, running)?.version ?? null).toBe(target);
  });

  it('availability: update flag, error, and nothing while airgapped or for another feed URL', () => {
    const check: FeedCheck = { checked_at: '2026-11-21T00:00:00.000Z', error: null, feed_url: 'https://f.example.com/feed.json', releases };
    const settings = { ...DEFAULT_UPGRADE_SETTINGS, feed_url: check.feed_url };
    expect(availability(check, settings, '1.2.0')).toMatchObject({ update_available: true, latest: { version: '1.9.9' }, checked_at: check.checked_at, error: null });
    expect(availability(check, settings, '1.9.9')).toMatchObject({ update_available: false, latest: { version: '1.9.9' } });
    expect(availability({ ...check, error: 'The release feed answered HTTP 500.' }, settings, '1.2.0').error).toBe('The release feed answered HTTP 500.');
    expect(availability(check, { ...settings, airgapped: true, automatic_updates: true }, '1.2.0')).toMatchObject({ update_available: false, latest: null, automatic_updates: false });
    expect(availability(check, { ...settings, feed_url: 'https://other.example.com/' }, '1.2.0')).toMatchObject({ update_available: false, latest: null });
  });
});
