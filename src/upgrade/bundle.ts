// Release bundles: `cairn-X.Y.Z.tar.gz`, everything an airgapped host needs to run a release.
//
// Layout of a bundle (and of the release directory it unpacks into):
//   bin/cairn.mjs        runs the compiled server (no tsx, no TypeScript at run time) through bin/run-compiled.mjs,
//                        with V8's code cache kept in <root>/shared/cache/<version>/ of an install
//   lib/cairn.cjs        src/main.ts compiled by esbuild into one CommonJS file, npm packages compiled in but
//                        those that read their own files; migrations and after-upgrade steps are compiled into it
//   package.json, package-lock.json
//   node_modules/        the production dependencies of the lockfile (no dev packages, no .bin links)
//   web/dist/            the built web UI, when the source has one
//   deploy/              units, installer and step-notes.json, when the source has them
//   manifest.json        name, version, creation time, SHA-256 of every other file, migrations
//
// Symlinks are never shipped and never accepted on unpack: a link could point outside the release.
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createReadStream, existsSync } from 'node:fs';
import { chmod, cp, lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { parseVersion } from '../install/version.ts';
import { asciiComments, pgNodeStreams, refuseImportMeta, RUNTIME_FILE_PACKAGES } from '../../bin/server-compile.mjs';

export interface BundleManifest {
  name: 'cairn';
  version: string;
  created: string;
  /** Relative path (with '/') → SHA-256 hex of every file in the release except the manifest itself. */
  sha256: Record<string, string>;
  /** Migration names compiled into the server, in order. */
  migrations: string[];
}

export class BundleError extends Error {}

export const MANIFEST_FILE = 'manifest.json';
const COMPILED_SERVER = 'lib/cairn.cjs';

// ---------------------------------------------------------------------------------------------- helpers

/** Runs a command (`input`: what it reads on stdin); rejects with its stderr tail so a failed tar or npm says why. */
function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: readonly Buffer[] } = {}): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: [opts.input ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (b: Buffer) => out.push(b));
    child.stderr!.on('data', (b: Buffer) => err.push(b));
    if (opts.input) {
      // A command that stops reading early (tar refusing an archive) closes the pipe: its exit says why, not EPIPE.
      child.stdin!.on('error', () => {});
      for (const chunk of opts.input) child.stdin!.write(chunk);
      child.stdin!.end();
    }
    child.on('error', (e) => reject(new BundleError(`${cmd} could not be started: ${e.message}`)));
    child.on('close', (code) => {
      if (code === 0) resolvePromise(Buffer.concat(out).toString('utf8'));
      else reject(new BundleError(`${cmd} ${args.slice(0, 2).join(' ')} failed (exit ${code}): ${Buffer.concat(err).toString('utf8').trim().slice(-2000)}`));
    });
  });
}

export function sha256File(file: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolvePromise(hash.digest('hex')));
  });
}

/** Every regular file under dir, as '/'-separated paths relative to dir. Throws on anything else (links, devices). */
async function listFiles(dir: string, onOther: (rel: string) => Error): Promise<string[]> {
  const files: string[] = [];
  async function walk(current: string): Promise<void> {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const full = join(current, entry.name);
      const rel = relative(dir, full).split(sep).join('/');
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) files.push(rel);
      else throw onOther(rel);
    }
  }
  await walk(dir);
  return files.sort();
}

async function hashTree(dir: string, prefix = ''): Promise<Record<string, string>> {
  const files = await listFiles(dir, (rel) => new BundleError(`${prefix}${rel} is not a regular file; bundles carry no links or special files`));
  const out: Record<string, string> = {};
  // A few files at a time: enough to keep the disk busy without opening thousands of streams.
  for (let i = 0; i < files.length; i += 32) {
    const chunk = files.slice(i, i + 32);
    const hashes = await Promise.all(chunk.map((f) => sha256File(join(dir, f))));
    chunk.forEach((f, j) => (out[prefix + f] = hashes[j]));
  }
  return out;
}

async function readPackageVersion(sourceDir: string): Promise<string> {
  let pkg: { version?: unknown };
  try {
    pkg = JSON.parse(await readFile(join(sourceDir, 'package.json'), 'utf8')) as { version?: unknown };
  } catch (err) {
    throw new BundleError(`cannot read ${join(sourceDir, 'package.json')}: ${(err as Error).message}`);
  }
  if (typeof pkg.version !== 'string' || !parseVersion(pkg.version)) {
    throw new BundleError(`package.json version ${JSON.stringify(pkg.version)} is not a release version (X.Y.Z or X.Y.Z-rc.N)`);
  }
  return pkg.version;
}

// ---------------------------------------------------------------------------------------------- compile

/**
 * Modules find files relative to themselves (`new URL('../package.json', import.meta.url)` in src/version.ts,
 * `'../..'` in src/system/web-ui.ts). Compiled into one file those would all resolve from lib/, each wrongly
 * for its own depth. So every source module gets the URL its file would have inside the release
 * (<release>/src/...), computed from the compiled file's real location: the relative paths then land where
 * they did in the checkout (package.json, web/dist, node_modules for createRequire).
 */
function sourceLocationPlugin(sourceDir: string): import('esbuild').Plugin {
  return {
    name: 'cairn-source-location',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        const rel = relative(sourceDir, args.path).split(sep).join('/');
        if (rel.startsWith('../') || rel.includes('node_modules/')) return undefined;
        const text = await readFile(args.path, 'utf8');
        const url = `new URL(${JSON.stringify(`../${rel}`)}, ${FILE_URL}).href`;
        return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
      });
    },
  };
}

/**
 * The compiled file's own URL, set once at its top (a module's `require` may be its own by then: src/core/docs.ts
 * makes one from its location).
 */
const FILE_URL = '__cairnFileUrl';
const FILE_URL_BANNER = `const ${FILE_URL} = require('node:url').pathToFileURL(__filename).href;`;

/** Compiles src/main.ts into one CommonJS file; returns the migrations that went into it. */
async function compileServer(sourceDir: string, outfile: string): Promise<string[]> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    absWorkingDir: sourceDir,
    entryPoints: [join(sourceDir, 'src/main.ts')],
    outfile,
    // Written below, once its comments are ASCII (asciiComments).
    write: false,
    bundle: true,
    platform: 'node',
    // CommonJS, which V8 can keep a code cache of (bin/run-compiled.mjs); import() of a package becomes require()
    // (those left in node_modules all ship a CommonJS build).
    format: 'cjs',
    supported: { 'dynamic-import': false },
    target: 'node20',
    // npm packages are compiled in: a release that loaded them as thousands of files spent most of every
    // process start (a CLI call, a web start, each upgrade step) resolving and reading modules. Those that read
    // files of their own at run time stay in node_modules.
    external: RUNTIME_FILE_PACKAGES,
    banner: { js: FILE_URL_BANNER },
    metafile: true,
    logLevel: 'silent',
    legalComments: 'none',
    plugins: [sourceLocationPlugin(sourceDir), pgNodeStreams],
  });
  refuseImportMeta(result);
  await mkdir(dirname(outfile), { recursive: true });
  await writeFile(outfile, asciiComments(result.outputFiles[0]!.text, esbuild));
  // The metafile lists the migration files actually compiled in: the truth the manifest should state.
  return Object.keys(result.metafile.inputs)
    .map((p) => /(?:^|\/)src\/db\/migrations\/(\d{4}_[^/]+)\.ts$/.exec(p)?.[1])
    .filter((m): m is string => m !== undefined)
    .sort();
}

// ---------------------------------------------------------------------------------------------- node_modules

interface LockPackage {
  version?: string;
  dev?: boolean;
  link?: boolean;
  optional?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/**
 * Packages the server uses only as prebuilt files it serves: these of their files are shipped and none of their
 * dependencies (Redoc's standalone bundle carries its own; its React, core-js and friends were 7,000 of the
 * release's 15,000 files, each unpacked and hashed on every upgrade).
 */
const ASSET_ONLY_PACKAGES: Record<string, string[]> = { redoc: ['package.json', 'LICENSE', 'bundles/redoc.standalone.js'] };

/**
 * Files of a shipped package that nothing reads at run time: type declarations, and source maps (Node passes over
 * a map it cannot find). They were 459 of a release's 1,210 files, and every upgrade unpacks and checks each one
 * before anything stops.
 */
const NOT_SHIPPED = /\.(?:d\.[cm]?ts|map)$/;

/** Where node resolves `name` from the package at lockfile path `from` (its own node_modules, then upwards). */
function resolveInLock(packages: Record<string, LockPackage>, from: string, name: string): string | null {
  let base = from;
  for (;;) {
    const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return null;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/** The lockfile paths the server can load: the packages left out of the compiled file and their dependencies, asset-only packages not followed. */
function runtimePackages(packages: Record<string, LockPackage>): Set<string> {
  const root = packages[''] ?? {};
  const shipped = (deps: Record<string, string> | undefined) => Object.fromEntries(Object.entries(deps ?? {}).filter(([name]) => RUNTIME_FILE_PACKAGES.includes(name)));
  const needed = new Set<string>();
  const visit = (from: string, deps: Record<string, string> | undefined, optional: boolean) => {
    for (const name of Object.keys(deps ?? {})) {
      const path = resolveInLock(packages, from, name);
      if (!path) {
        if (optional) continue;
        throw new BundleError(`${name} (needed by ${from || 'package.json'}) is not in package-lock.json; run npm install`);
      }
      if (needed.has(path)) continue;
      needed.add(path);
      if (ASSET_ONLY_PACKAGES[name]) continue;
      const info = packages[path]!;
      visit(path, info.dependencies, false);
      visit(path, info.optionalDependencies, true);
      visit(path, info.peerDependencies, true);
    }
  };
  visit('', shipped(root.dependencies), false);
  visit('', shipped(root.optionalDependencies), true);
  return needed;
}

/**
 * The production node_modules of the lockfile, copied once per lockfile into os.tmpdir() and reused:
 * building two bundles in a test must not copy 180 MB twice. Copying (rather than `npm ci --omit=dev`)
 * needs no registry, and the versions are checked against the lockfile so a stale tree is refused.
 */
async function productionModules(sourceDir: string): Promise<{ dir: string; hashes: Record<string, string> }> {
  const lockText = await readFile(join(sourceDir, 'package-lock.json'), 'utf8').catch(() => {
    throw new BundleError(`${join(sourceDir, 'package-lock.json')} is missing: a release ships exactly the locked dependencies`);
  });
  const key = createHash('sha256').update(lockText).update(`${process.platform}-${process.arch}`).update(JSON.stringify([ASSET_ONLY_PACKAGES, RUNTIME_FILE_PACKAGES, NOT_SHIPPED.source])).digest('hex').slice(0, 20);
  const cacheRoot = join(tmpdir(), 'cairn-bundle-modules');
  const entry = join(cacheRoot, key);
  const hashesFile = join(entry, 'hashes.json');
  if (existsSync(hashesFile)) {
    return { dir: entry, hashes: JSON.parse(await readFile(hashesFile, 'utf8')) as Record<string, string> };
  }

  const lock = JSON.parse(lockText) as { packages?: Record<string, LockPackage> };
  const runtime = runtimePackages(lock.packages ?? {});
  const staging = await mkdtemp(join(tmpdir(), 'cairn-modules-'));
  try {
    for (const [path, info] of Object.entries(lock.packages ?? {})) {
      if (!path.startsWith('node_modules/') || info.dev || info.link || !runtime.has(path)) continue;
      const from = join(sourceDir, path);
      if (!existsSync(from)) {
        // Platform-specific optional packages (esbuild for other systems) are absent by design.
        if (info.optional) continue;
        throw new BundleError(`${path} is in package-lock.json but not installed; run npm ci first`);
      }
      const installed = JSON.parse(await readFile(join(from, 'package.json'), 'utf8')) as { version?: string };
      if (info.version && installed.version !== info.version) {
        throw new BundleError(`${path} is ${installed.version} but package-lock.json says ${info.version}; run npm ci first`);
      }
      const assetFiles = ASSET_ONLY_PACKAGES[path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)];
      if (assetFiles) {
        for (const file of assetFiles) {
          if (!existsSync(join(from, file))) continue;
          await mkdir(dirname(join(staging, path, file)), { recursive: true });
          await cp(join(from, file), join(staging, path, file));
        }
        continue;
      }
      await cp(from, join(staging, path), {
        recursive: true,
        // Nested node_modules come in through their own lockfile entries; links (.bin) are not shipped.
        filter: async (src) => {
          const rel = relative(from, src);
          if (rel === 'node_modules' || rel.startsWith(`node_modules${sep}`)) return false;
          const stat = await lstat(src);
          if (stat.isFile() && NOT_SHIPPED.test(src)) return false;
          return !stat.isSymbolicLink();
        },
      });
    }
    await mkdir(join(staging, 'node_modules'), { recursive: true });
    const hashes = await hashTree(join(staging, 'node_modules'), 'node_modules/');
    await writeFile(join(staging, 'hashes.json'), JSON.stringify(hashes));
    await mkdir(cacheRoot, { recursive: true });
    try {
      await rename(staging, entry);
    } catch {
      // Another build filled the cache first; use theirs.
      await rm(staging, { recursive: true, force: true });
    }
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    throw err;
  }
  return { dir: entry, hashes: JSON.parse(await readFile(hashesFile, 'utf8')) as Record<string, string> };
}

// ---------------------------------------------------------------------------------------------- web

async function webDist(sourceDir: string, skipWeb: boolean): Promise<string | null> {
  const web = join(sourceDir, 'web');
  if (skipWeb || !existsSync(web)) return null;
  const dist = join(web, 'dist');
  if (!existsSync(join(dist, 'index.html'))) {
    const rootPkg = JSON.parse(await readFile(join(sourceDir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    const cwd = rootPkg.scripts?.build ? sourceDir : web;
    await run('npm', ['run', 'build'], { cwd });
    if (!existsSync(join(dist, 'index.html'))) throw new BundleError(`npm run build finished but ${dist}/index.html is missing`);
  }
  return dist;
}

// ---------------------------------------------------------------------------------------------- build

const RUN_COMPILED = 'bin/run-compiled.mjs';

// Started as <root>/current/bin/cairn.mjs, whose link Node resolves: this file's own URL is in releases/<version>/.
const BIN_SCRIPT = `#!/usr/bin/env node
// The \`cairn\` command of an installed release: runs the compiled server with V8's code cache, kept beside the
// install's other files (<root>/shared/cache/<version>/; a release elsewhere runs without one).
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCompiled } from './run-compiled.mjs';

const release = fileURLToPath(new URL('..', ${['import', 'meta', 'url'].join('.')}));
const installed = basename(dirname(release)) === 'releases';
runCompiled(join(release, '${COMPILED_SERVER}'), { cacheDir: installed ? join(dirname(dirname(release)), 'shared', 'cache', basename(release)) : null });
`;

export async function buildBundle(opts: { sourceDir: string; outDir: string; skipWeb?: boolean }): Promise<{ path: string; sha256: string; manifest: BundleManifest }> {
  const sourceDir = resolve(opts.sourceDir);
  const outDir = resolve(opts.outDir);
  const version = await readPackageVersion(sourceDir);
  const dist = await webDist(sourceDir, opts.skipWeb ?? false);
  const modules = await productionModules(sourceDir);

  const staging = await mkdtemp(join(tmpdir(), 'cairn-bundle-'));
  try {
    let migrations: string[];
    try {
      migrations = await compileServer(sourceDir, join(staging, COMPILED_SERVER));
    } catch (err) {
      throw new BundleError(`compiling the server failed: ${(err as Error).message}`);
    }
    await mkdir(join(staging, 'bin'), { recursive: true });
    await writeFile(join(staging, 'bin/cairn.mjs'), BIN_SCRIPT);
    await chmod(join(staging, 'bin/cairn.mjs'), 0o755);
    await cp(join(sourceDir, RUN_COMPILED), join(staging, RUN_COMPILED));
    for (const f of ['package.json', 'package-lock.json']) await cp(join(sourceDir, f), join(staging, f));
    if (existsSync(join(sourceDir, 'deploy'))) await cp(join(sourceDir, 'deploy'), join(staging, 'deploy'), { recursive: true });
    if (dist) await cp(dist, join(staging, 'web/dist'), { recursive: true });

    const manifest: BundleManifest = {
      name: 'cairn',
      version,
      created: new Date().toISOString(),
      sha256: Object.fromEntries(Object.entries({ ...(await hashTree(staging)), ...modules.hashes }).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      migrations,
    };
    await writeFile(join(staging, MANIFEST_FILE), JSON.stringify(manifest, null, 1));

    await mkdir(outDir, { recursive: true });
    const path = join(outDir, `cairn-${version}.tar.gz`);
    const partial = `${path}.partial`;
    // gzip -1: the bundle is mostly compiled code and wasm; higher levels cost seconds for a few percent.
    const entries = (await readdir(staging)).sort();
    await run('tar', ['--use-compress-program=gzip -1', '-cf', partial, '--owner=0', '--group=0', '--numeric-owner', '-C', staging, ...entries, '-C', modules.dir, 'node_modules']);
    await rename(partial, path);
    return { path, sha256: await sha256File(path), manifest };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------- unpack

/** Refuses absolute names, '..' and anything but files and directories before a byte is extracted. */
async function checkArchiveEntries(archive: readonly Buffer[]): Promise<void> {
  const listing = await run('tar', ['-tv', '-f', '-', '--quoting-style=escape'], { input: archive });
  for (const line of listing.split('\n')) {
    if (!line) continue;
    const type = line[0];
    // GNU tar's verbose listing: "drwxr-xr-x 0/0 0 2026-01-01 00:00 name"; the name is the 6th field on.
    const shown = line.split(/\s+/).slice(5).join(' ').replace(/^\.\//, '');
    // Links print as "name -> target" (symbolic) or "name link to target" (hard).
    const name = shown.split(type === 'l' ? ' -> ' : type === 'h' ? ' link to ' : '\0')[0];
    if (type !== '-' && type !== 'd') throw new BundleError(`bundle entry ${shown} is not a regular file or directory (type ${type}); refused`);
    if (name.startsWith('/') || name.split('/').includes('..')) throw new BundleError(`bundle entry ${name} points outside the release; refused`);
  }
}

export async function readManifest(releaseDir: string): Promise<BundleManifest> {
  let manifest: BundleManifest;
  try {
    manifest = JSON.parse(await readFile(join(releaseDir, MANIFEST_FILE), 'utf8')) as BundleManifest;
  } catch (err) {
    throw new BundleError(`${MANIFEST_FILE} is missing or unreadable in the bundle: ${(err as Error).message}`);
  }
  if (manifest.name !== 'cairn' || typeof manifest.version !== 'string' || !parseVersion(manifest.version)) {
    throw new BundleError(`${MANIFEST_FILE} is not a Cairn release manifest (name ${JSON.stringify(manifest.name)}, version ${JSON.stringify(manifest.version)})`);
  }
  if (typeof manifest.sha256 !== 'object' || manifest.sha256 === null || !Array.isArray(manifest.migrations)) {
    throw new BundleError(`${MANIFEST_FILE} lacks its sha256 table or migration list`);
  }
  return manifest;
}

/** Checks every file of an unpacked release against its manifest; names the first bad file. */
export async function verifyRelease(releaseDir: string): Promise<BundleManifest> {
  const manifest = await readManifest(releaseDir);
  const files = (await listFiles(releaseDir, (rel) => new BundleError(`${rel} is not a regular file; refused`))).filter((f) => f !== MANIFEST_FILE);
  const listed = new Set(Object.keys(manifest.sha256));
  for (const f of files) if (!listed.has(f)) throw new BundleError(`bundle file ${f} is not listed in the manifest`);
  const present = new Set(files);
  for (const f of listed) if (!present.has(f)) throw new BundleError(`bundle file ${f} is listed in the manifest but missing`);
  for (let i = 0; i < files.length; i += 32) {
    const chunk = files.slice(i, i + 32);
    const hashes = await Promise.all(chunk.map((f) => sha256File(join(releaseDir, f))));
    chunk.forEach((f, j) => {
      if (hashes[j] !== manifest.sha256[f]) throw new BundleError(`bundle file ${f} does not match its SHA-256 in the manifest (modified or corrupt)`);
    });
  }
  return manifest;
}

/**
 * What a bundle may uncompress to: a release is about 35 MB, and the archive is held in memory while it is checked
 * and extracted, so a damaged or hostile one (a few kilobytes that expand to gigabytes) is refused instead.
 */
export const MAX_UNPACKED_BYTES = 1024 ** 3;

export async function unpackBundle(bundlePath: string, destDir: string, opts: { maxUnpackedBytes?: number } = {}): Promise<BundleManifest> {
  if (!existsSync(bundlePath) || !(await stat(bundlePath)).isFile()) throw new BundleError(`bundle ${bundlePath} does not exist`);
  if (existsSync(destDir) && (await readdir(destDir)).length > 0) throw new BundleError(`${destDir} is not empty; a release is unpacked into a new directory`);
  // Decompressed once, here, for both tar runs (the listing checked, then the extraction): a release bundle is 12 MB
  // compressed, 34 uncompressed, and each decompression about 0.2 CPU-s. Kept as the chunks it comes in (a copy into
  // one buffer would touch as much memory again).
  const limit = opts.maxUnpackedBytes ?? MAX_UNPACKED_BYTES;
  const archive: Buffer[] = [];
  let size = 0;
  try {
    await pipeline(createReadStream(bundlePath), createGunzip({ chunkSize: 1024 * 1024 }), async (chunks: AsyncIterable<Buffer>) => {
      for await (const chunk of chunks) {
        size += chunk.length;
        if (size > limit) throw new Error('too large');
        archive.push(chunk);
      }
    });
  } catch (err) {
    // (The pipeline reports its own abort, not the error that stopped it: the size says which.)
    if (size > limit) throw new BundleError(`bundle ${bundlePath} uncompresses to more than ${limit} bytes (a release is about 35 MB); refused`);
    throw new BundleError(`bundle ${bundlePath} is not a gzip-compressed tar archive: ${(err as Error).message}`);
  }
  await checkArchiveEntries(archive);
  const created = !existsSync(destDir);
  await mkdir(destDir, { recursive: true });
  try {
    await run('tar', ['-x', '-f', '-', '-C', destDir, '--no-same-owner', '--delay-directory-restore'], { input: archive });
    return await verifyRelease(destDir);
  } catch (err) {
    // A release that failed verification must not be left where someone could start it.
    if (created) await rm(destDir, { recursive: true, force: true });
    else for (const name of await readdir(destDir)) await rm(join(destDir, name), { recursive: true, force: true });
    throw err;
  }
}

/** Where a release's runnable entry lives (for the engine and tests). */
export function releaseEntry(releaseDir: string): string {
  return join(releaseDir, 'bin/cairn.mjs');
}
