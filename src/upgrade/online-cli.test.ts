// `cairn upgrade online` as a shell user runs it (the real CLI process), against a release feed stand-in: the
// newest-release choice per channel and the refusals, each one line on stderr with exit code 1, nothing started.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutFor } from '../install/layout.ts';

const dir = mkdtempSync(join(tmpdir(), 'cairn-online-cli-'));
const layout = layoutFor(join(dir, 'root'));
const CAIRN = resolve(import.meta.dirname, '../../bin/cairn.mjs');
let server: Server;
let feedUrl = '';

beforeAll(async () => {
  mkdirSync(join(layout.releases, '1.2.0'), { recursive: true });
  mkdirSync(layout.shared, { recursive: true });
  writeFileSync(join(layout.releases, '1.2.0', 'package.json'), JSON.stringify({ version: '1.2.0' }));
  symlinkSync('releases/1.2.0', layout.current);
  const rel = (version: string) => ({ version, bundle_url: `http://127.0.0.1:1/cairn-${version}.tar.gz`, sha256: 'c'.repeat(64), prerelease: version.includes('-') });
  server = createServer((req, res) => {
    res.writeHead(req.url === '/feed.json' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(req.url === '/feed.json' ? JSON.stringify({ releases: [rel('1.1.0'), rel('1.2.0'), rel('1.3.0-rc.1')] }) : '{}');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  feedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.json`;
});

afterAll(async () => {
  await new Promise<void>((ok) => server.close(() => ok()));
  rmSync(dir, { recursive: true, force: true });
});

function cairn(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((ok) => {
    const child = spawn(process.execPath, [CAIRN, ...args], { env: { ...process.env, CAIRN_ROOT: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => ok({ code, out }));
  });
}

describe('cairn upgrade online', () => {
  it('refuses what the API refuses, in the same words, and starts nothing', async () => {
    const base = ['upgrade', 'online', '--root', layout.root, '--feed', feedUrl];
    const allow = { CAIRN_SSRF_ALLOWLIST: '127.0.0.1' };
    const results = await Promise.all([
      cairn(base, allow),
      cairn([...base, '--release', '1.1.0'], allow),
      cairn([...base, '--release', '1.2.0'], allow),
      cairn([...base, '--release', '9.9.9'], allow),
      cairn(base, {}),
    ]);
    expect(results.map((r) => r.code)).toEqual([1, 1, 1, 1, 1]);
    expect(results[0]!.out).toContain(`cairn: Cairn 1.2.0 is the newest release the stable channel of ${feedUrl} offers.`);
    expect(results[1]!.out).toContain('cairn: Release 1.1.0 is older than the running 1.2.0: downgrades are refused.');
    expect(results[2]!.out).toContain('cairn: Release 1.2.0 is already running.');
    expect(results[3]!.out).toContain('cairn: The release feed does not list version 9.9.9.');
    // Plain http to a host that is not allow-listed never leaves the machine.
    expect(results[4]!.out).toMatch(/cairn: The release feed could not be fetched: .*plain http:\/\/ is only used for allow-listed hosts/);
    expect(existsSync(layout.journalFile)).toBe(false);
  }, 120_000);

  it('a pre-release the feed lists is taken with --release (any channel choice is the caller\'s), then fails its download', async () => {
    const r = await cairn(['upgrade', 'online', '--root', layout.root, '--feed', feedUrl, '--release', '1.3.0-rc.1'], { CAIRN_SSRF_ALLOWLIST: '127.0.0.1' });
    expect(r.code).toBe(1);
    expect(r.out).toContain('Downloading Cairn 1.3.0-rc.1 from http://127.0.0.1:1/cairn-1.3.0-rc.1.tar.gz');
    expect(r.out).toMatch(/cairn: The bundle of 1\.3\.0-rc\.1 could not be downloaded/);
    expect(existsSync(layout.journalFile)).toBe(false);
  }, 120_000);
});
