// Release bundles built from this checkout: the compiled server must really run from an unpacked bundle,
// and any change to an unpacked file must be caught and named.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, appendFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleError, buildBundle, MANIFEST_FILE, releaseEntry, sha256File, unpackBundle, verifyRelease, type BundleManifest } from './bundle.ts';
import { migrations } from '../db/migrations/index.ts';
import { bareEnv, freePort } from '../../test/helpers/cairn-process.ts';

const sourceDir = resolve(import.meta.dirname, '../..');
const hasWebBuild = existsSync(join(sourceDir, 'web/dist/index.html'));
const work = mkdtempSync(join(tmpdir(), 'cairn-bundle-test-'));
const release = join(work, 'release');
let built: { path: string; sha256: string; manifest: BundleManifest };

function cairn(args: string[], dataDir: string): string {
  // A clean environment: the release must not lean on tsx, the checkout or the test's variables.
  return execFileSync(process.execPath, [releaseEntry(release), '--data-dir', dataDir, ...args], {
    cwd: work,
    env: bareEnv({ HOME: work }),
    encoding: 'utf8',
  });
}

/** A small hand-made bundle: a manifest and the files it lists, plus whatever `extra` adds to the tree. */
function tinyBundle(name: string, extra: (dir: string) => void, files: Record<string, string> = { 'a.txt': 'A', 'lib/b.txt': 'B' }): string {
  const dir = join(work, `tiny-${name}`);
  mkdirSync(join(dir, 'lib'), { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  const sha256: Record<string, string> = {};
  for (const f of Object.keys(files)) sha256[f] = execFileSync('sha256sum', [join(dir, f)], { encoding: 'utf8' }).split(' ')[0]!;
  const manifest: BundleManifest = { name: 'cairn', version: '1.0.0', created: new Date().toISOString(), sha256, migrations: [] };
  writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(manifest));
  extra(dir);
  const file = join(work, `tiny-${name}.tar.gz`);
  execFileSync('tar', ['-czf', file, '-C', dir, '.']);
  return file;
}

beforeAll(async () => {
  // The built UI goes in when this checkout has one (building it here would take minutes).
  built = await buildBundle({ sourceDir, outDir: join(work, 'dist'), skipWeb: !hasWebBuild });
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('buildBundle', () => {
  it('names the bundle after package.json and reports its SHA-256', async () => {
    const pkg = JSON.parse(readFileSync(join(sourceDir, 'package.json'), 'utf8')) as { version: string };
    expect(built.path).toBe(join(work, 'dist', `cairn-${pkg.version}.tar.gz`));
    expect(built.manifest.version).toBe(pkg.version);
    expect(built.sha256).toBe(await sha256File(built.path));
  });

  it('lists the migrations compiled into the server, in order', () => {
    expect(built.manifest.migrations).toEqual(Object.keys(migrations));
  });

  it('ships the compiled server and the packages that read their own files only', () => {
    const files = Object.keys(built.manifest.sha256);
    expect(files).toContain('lib/cairn.cjs');
    expect(files).toContain('bin/run-compiled.mjs');
    expect(files).toContain('bin/cairn.mjs');
    expect(files).toContain('package-lock.json');
    // PGlite reads its WebAssembly next to its modules; Swagger UI serves its folder. The rest is compiled in.
    expect(files.some((f) => f.startsWith('node_modules/@electric-sql/pglite/'))).toBe(true);
    expect(files.some((f) => f.startsWith('node_modules/@fastify/swagger-ui/static/'))).toBe(true);
    for (const compiled of ['fastify', 'kysely', 'typebox', 'pg', 'pg-boss', 'commander', 'tsx', 'esbuild']) {
      expect(files.some((f) => f.startsWith(`node_modules/${compiled}/`)), compiled).toBe(false);
    }
    // Dev-only packages and TypeScript sources stay out.
    expect(files.some((f) => f.startsWith('node_modules/vitest/'))).toBe(false);
    expect(files.some((f) => f.startsWith('node_modules/typescript/'))).toBe(false);
    expect(files.some((f) => f.startsWith('src/'))).toBe(false);
    expect(files.some((f) => f.includes('/.bin/'))).toBe(false);
    // Redoc ships as its standalone bundle alone: none of the browser packages it was built from.
    expect(files.filter((f) => f.startsWith('node_modules/redoc/')).sort()).toEqual(['node_modules/redoc/LICENSE', 'node_modules/redoc/bundles/redoc.standalone.js', 'node_modules/redoc/package.json']);
    for (const browserOnly of ['core-js', 'styled-components', 'prismjs', 'mobx']) expect(files.some((f) => f.startsWith(`node_modules/${browserOnly}/`)), browserOnly).toBe(false);
    // Nothing reads a package's type declarations or source maps at run time; their licences stay.
    expect(files.filter((f) => f.startsWith('node_modules/') && /\.(?:d\.[cm]?ts|map)$/.test(f))).toEqual([]);
    expect(files).toContain('node_modules/@electric-sql/pglite/LICENSE');
  });
});

describe('unpackBundle and the compiled server', () => {
  let server: ChildProcess | null = null;
  afterAll(() => {
    server?.kill('SIGKILL');
  });

  it('unpacks and verifies every file', async () => {
    const manifest = await unpackBundle(built.path, release);
    expect(manifest).toEqual(built.manifest);
    // ASCII throughout, comments too (bin/server-compile.mjs asciiComments): V8 holds it as a one-byte string.
    expect(readFileSync(join(release, 'lib/cairn.cjs'), 'utf8')).not.toMatch(/[^\x00-\x7f]/);
  }, 120_000);

  it('runs migrate, status and serve from the unpacked release without tsx', async () => {
    expect(readFileSync(join(release, 'bin/cairn.mjs'), 'utf8')).not.toContain('tsx');
    const dataDir = join(work, 'data');
    expect(cairn(['migrate'], dataDir)).toContain(`Applied ${built.manifest.migrations.length} migration(s)`);
    expect(cairn(['status'], dataDir)).toContain('pending: none');

    const port = await freePort();
    server = spawn(process.execPath, [releaseEntry(release), '--data-dir', dataDir, 'serve', '--port', String(port)], {
      cwd: work,
      env: bareEnv({ HOME: work, CAIRN_ADMIN_PASSWORD: 'bundle-test-password' }),
      stdio: 'ignore',
    });
    let health: { status?: string; version?: string } = {};
    for (let i = 0; i < 300 && health.status !== 'ok'; i++) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/health/`);
        health = (await res.json()) as typeof health;
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    expect(health).toMatchObject({ status: 'ok', version: built.manifest.version });
    // The API reference page's script comes from the release's trimmed Redoc.
    const login = await fetch(`http://127.0.0.1:${port}/api/auth/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'bundle-test-password' }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const redoc = await fetch(`http://127.0.0.1:${port}/api/docs/redoc/redoc.standalone.js`, { headers: { cookie } });
    expect(redoc.status).toBe(200);
    expect((await redoc.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    if (hasWebBuild) {
      // Modules that find files relative to themselves (web/dist, package.json) still do once compiled.
      expect(built.manifest.sha256['web/dist/index.html']).toBeDefined();
      const page = await fetch(`http://127.0.0.1:${port}/devices/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toBe(readFileSync(join(release, 'web/dist/index.html'), 'utf8'));
    }
    server.kill('SIGTERM');
  }, 300_000); // three process starts on a fresh embedded database: seen past 120 s on a loaded 2-core machine

  it('names a file modified after unpacking', async () => {
    appendFileSync(join(release, 'lib/cairn.cjs'), '\n// changed after release\n');
    const err = await verifyRelease(release).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BundleError);
    expect((err as Error).message).toBe('bundle file lib/cairn.cjs does not match its SHA-256 in the manifest (modified or corrupt)');
  }, 120_000);
});

describe('unpackBundle refusals', () => {
  it('accepts an intact small bundle', async () => {
    const m = await unpackBundle(tinyBundle('ok', () => {}), join(work, 'out-ok'));
    expect(Object.keys(m.sha256).sort()).toEqual(['a.txt', 'lib/b.txt']);
  });

  it('names a modified file', async () => {
    const file = tinyBundle('modified', (dir) => appendFileSync(join(dir, 'lib/b.txt'), 'changed'));
    await expect(unpackBundle(file, join(work, 'out-modified'))).rejects.toThrow(
      'bundle file lib/b.txt does not match its SHA-256 in the manifest (modified or corrupt)',
    );
    // Nothing unverified is left behind to be started by mistake.
    expect(existsSync(join(work, 'out-modified'))).toBe(false);
  });

  it('names a file the manifest does not list', async () => {
    const file = tinyBundle('extra', (dir) => writeFileSync(join(dir, 'lib/smuggled.js'), 'x'));
    await expect(unpackBundle(file, join(work, 'out-extra'))).rejects.toThrow('bundle file lib/smuggled.js is not listed in the manifest');
  });

  it('names a listed file that is missing', async () => {
    const file = tinyBundle('missing', (dir) => unlinkSync(join(dir, 'lib/b.txt')));
    await expect(unpackBundle(file, join(work, 'out-missing'))).rejects.toThrow('bundle file lib/b.txt is listed in the manifest but missing');
  });

  it('refuses a symbolic link before extracting anything', async () => {
    const file = tinyBundle('link', (dir) => symlinkSync('/etc/passwd', join(dir, 'lib/link')));
    const dest = join(work, 'out-link');
    await expect(unpackBundle(file, dest)).rejects.toThrow('bundle entry lib/link -> /etc/passwd is not a regular file or directory (type l); refused');
    expect(existsSync(join(dest, 'a.txt'))).toBe(false);
  });

  it('refuses a bundle without a manifest, and a non-empty destination', async () => {
    const file = tinyBundle('nomanifest', (dir) => unlinkSync(join(dir, MANIFEST_FILE)));
    await expect(unpackBundle(file, join(work, 'out-nomanifest'))).rejects.toThrow(/manifest\.json is missing/);
    await expect(unpackBundle(tinyBundle('ok2', () => {}), join(work, 'out-ok'))).rejects.toThrow(/is not empty/);
  });

  it('refuses a file that is not a gzip-compressed archive, and a truncated one, extracting nothing', async () => {
    const plain = join(work, 'plain.tar.gz');
    writeFileSync(plain, 'not an archive\n');
    await expect(unpackBundle(plain, join(work, 'out-plain'))).rejects.toThrow(/plain\.tar\.gz is not a gzip-compressed tar archive: incorrect header check/);
    const whole = readFileSync(tinyBundle('truncated', () => {}));
    const truncated = join(work, 'truncated.tar.gz');
    writeFileSync(truncated, whole.subarray(0, whole.length - 40));
    await expect(unpackBundle(truncated, join(work, 'out-truncated'))).rejects.toThrow(/truncated\.tar\.gz is not a gzip-compressed tar archive: unexpected end of file/);
    expect(existsSync(join(work, 'out-plain'))).toBe(false);
    expect(existsSync(join(work, 'out-truncated'))).toBe(false);
  });

  it('refuses a bundle that uncompresses to more than the limit, before extracting anything', async () => {
    const file = tinyBundle('large', (dir) => writeFileSync(join(dir, 'lib/zeros.bin'), Buffer.alloc(256 * 1024)));
    await expect(unpackBundle(file, join(work, 'out-large'), { maxUnpackedBytes: 128 * 1024 })).rejects.toThrow(
      /large.* uncompresses to more than 131072 bytes \(a release is about 35 MB\); refused/,
    );
    expect(existsSync(join(work, 'out-large'))).toBe(false);
  });

  it('refuses a missing bundle file', async () => {
    await expect(unpackBundle(join(work, 'nope.tar.gz'), join(work, 'out-nope'))).rejects.toThrow(/does not exist/);
  });
});
