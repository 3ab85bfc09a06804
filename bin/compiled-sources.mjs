// The `cairn` command's TypeScript sources compiled into one file, cached under node_modules/.cache/cairn/ and
// used again while none of the files that went into it changed.
//
// Why: run through tsx, every start resolved, read and transformed some 300 modules one at a time over tsx's
// loader thread. Loading `cairn serve`'s code took 1.3-1.7 s of CPU that way and takes 0.4-0.6 s compiled
// (`cairn status`, which opens the embedded database, 1.45 -> 1.2 s); every CLI call a script or a test makes
// gains as much (the test suite starts `cairn` hundreds of times: test/cli.test.ts 42 -> 28 s). Releases are
// compiled the same way by src/upgrade/bundle.ts, and this is the checkout's form of it, npm packages compiled in
// as there (with them left in node_modules a start still loaded some 1,200 package files: `cairn status` 1.5 ->
// 1.15 CPU-s, a `cairn serve` start to healthy 3.2 -> 2.0). No build step for a fresh clone: the first start
// compiles (about a second), later ones compare the recorded sizes and modification times of the files that
// were compiled, and of npm's own record of node_modules, rewritten by every install (about 10 ms).
//
// The compile is a CommonJS script, run by bin/run-compiled.mjs with V8's code cache (ESM has none in Node 20).
//
// Plain JavaScript: it runs before any TypeScript can be loaded.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { asciiComments, pgNodeStreams, refuseImportMeta, RUNTIME_FILE_PACKAGES } from './server-compile.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = join(ROOT, 'src', 'main.ts');
const CACHE = join(ROOT, 'node_modules', '.cache', 'cairn');
// One index per checkout: copies of a checkout may share its node_modules (a link), and a compile holds its
// sources' own locations (see ownLocation), so one checkout must never take another's.
const INDEX = join(CACHE, `index-${createHash('sha256').update(ROOT).digest('hex').slice(0, 16)}.json`);
/** Bumped when the compile options below change, so no earlier compile is taken for one of these. */
const FORMAT = 5;
/** Compiled files kept (the newest): a checkout moving between branches finds its last few ready. */
const KEEP = 4;
/** Files that change how the sources compile without being compiled themselves. */
const SETTINGS = ['tsconfig.json', 'package.json', 'node_modules/.package-lock.json', 'bin/server-compile.mjs'];
/** A compile's name: `main-<16 hex digits of its hash>.cjs`. */
const COMPILED = /^main-[0-9a-f]{16}\.cjs$/;

/** What is recorded of a file to tell it changed: `size:mtime`. */
const stamp = (s) => `${s.size}:${s.mtimeMs}`;

/** The stamp of a file, or null when it is gone. */
function stampOf(file) {
  try {
    return stamp(statSync(file));
  } catch {
    return null;
  }
}

/** The compiled file recorded in the index, when every file that went into it is as it was then. */
function cached() {
  let index;
  try {
    index = JSON.parse(readFileSync(INDEX, 'utf8'));
  } catch {
    return null;
  }
  if (index?.format !== FORMAT || index.node !== process.versions.node || typeof index.file !== 'string') return null;
  for (const [rel, stamp] of Object.entries(index.inputs ?? {})) if (stampOf(join(ROOT, rel)) !== stamp) return null;
  const file = join(CACHE, index.file);
  return stampOf(file) === null ? null : file;
}

/**
 * Modules find files relative to themselves (`new URL('../package.json', import.meta.url)`); in one compiled file
 * each would resolve from the cache folder. Each source module keeps its own file's URL instead.
 */
const ownLocation = {
  name: 'cairn-own-location',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (relative(ROOT, args.path).split(sep).includes('node_modules')) return undefined;
      const text = readFileSync(args.path, 'utf8');
      return { contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
    });
  },
};

async function compile() {
  const esbuild = await import('esbuild');
  const started = Date.now();
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [ENTRY],
    outfile: join(CACHE, 'main.cjs'),
    write: false,
    // One file, as releases are: esbuild's code splitting may change the order modules run in across its chunks
    // (it did: the registry's models were asked for before they were defined).
    bundle: true,
    platform: 'node',
    // CommonJS, so that it can run as a script with a code cache; import() of a package becomes require() (those
    // left in node_modules all ship a CommonJS build), and of a source, as before, the module compiled in.
    format: 'cjs',
    supported: { 'dynamic-import': false },
    target: `node${process.versions.node.split('.')[0]}`,
    // npm packages compiled in, as in a release: loaded as files, some 1,200 of them (TypeBox, Kysely, Ajv, YAML…),
    // their resolving, reading and compiling took half of a start's module loading. Those that read files of their
    // own at run time stay in node_modules.
    external: RUNTIME_FILE_PACKAGES,
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'silent',
    legalComments: 'none',
    plugins: [ownLocation, pgNodeStreams],
  });
  // A package reading import.meta would find nothing there in a CommonJS script: run through tsx instead.
  refuseImportMeta(result);
  const code = result.outputFiles.find((f) => f.path.endsWith('.cjs'));
  const map = result.outputFiles.find((f) => f.path.endsWith('.map'));
  const text = asciiComments(code.text, esbuild);
  const name = `main-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.cjs`;
  mkdirSync(CACHE, { recursive: true });
  const file = join(CACHE, name);
  // Written under a name of this process and renamed: a start never reads half a file, and processes compiling at
  // once write the same bytes.
  const part = `${file}.${process.pid}.part`;
  writeFileSync(part, map.contents);
  renameSync(part, `${file}.map`);
  writeFileSync(part, text.replace('//# sourceMappingURL=main.cjs.map', `//# sourceMappingURL=${name}.map`));
  renameSync(part, file);

  const inputs = {};
  let editedMeanwhile = false;
  // Packages change with the lockfile npm keeps in node_modules (SETTINGS), not file by file.
  const sources = Object.keys(result.metafile.inputs).filter((rel) => !rel.split('/').includes('node_modules'));
  for (const rel of [...sources, ...SETTINGS]) {
    const path = resolve(ROOT, rel);
    const s = statSync(path, { throwIfNoEntry: false });
    // A setting file that is absent is recorded so: its appearing (npm's first install) is a change too.
    if (!s) {
      if (SETTINGS.includes(rel)) inputs[rel] = null;
      continue;
    }
    // Changed while compiling: what was compiled may be the file before. Used this once, not recorded.
    if (s.mtimeMs >= started) editedMeanwhile = true;
    inputs[relative(ROOT, path).split(sep).join('/')] = stamp(s);
  }
  if (!editedMeanwhile) {
    writeFileSync(part, JSON.stringify({ format: FORMAT, node: process.versions.node, file: name, inputs }));
    renameSync(part, INDEX);
  }
  prune(name);
  return file;
}

/**
 * Removes all but the newest KEEP compiled files (and their maps), and the code caches of every compile but
 * `current`, finished or left half-written by a killed process (a compile taken again makes its own at once);
 * `current` always stays. A process running an older
 * one loaded it whole at its start. Earlier formats' files go too.
 */
function prune(current) {
  const files = readdirSync(CACHE);
  const compiled = files
    .filter((f) => COMPILED.test(f) && f !== current)
    .map((f) => ({ f, t: statSync(join(CACHE, f), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => b.t - a.t);
  for (const { f } of compiled.slice(KEEP - 1)) {
    rmSync(join(CACHE, f), { force: true });
    rmSync(join(CACHE, `${f}.map`), { force: true });
  }
  const currentBase = current.slice(0, -'.cjs'.length);
  for (const f of files) {
    const stale = (f.includes('.code-cache') && !f.startsWith(`${currentBase}.`)) || /^main-[0-9a-f]{16}\.mjs(\.map)?$/.test(f);
    if (stale) rmSync(join(CACHE, f), { force: true });
  }
}

/**
 * The compiled `src/main.ts` (its path, for bin/run-compiled.mjs), compiling it first when the sources changed;
 * null when it cannot be had (no esbuild, a read-only checkout, a source that does not compile): the caller then
 * runs the sources through tsx, which reports a broken source as it always did.
 */
export async function compiledMain() {
  try {
    return cached() ?? (await compile());
  } catch {
    return null;
  }
}
