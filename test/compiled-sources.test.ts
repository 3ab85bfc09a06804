// bin/compiled-sources.mjs on a checkout of its own: a tiny src/main.ts beside a copy of the real bin/, esbuild and
// tsx linked from ours. What matters: a changed source is never run stale, modules still find files relative to
// their own source, the cache stays bounded, and a source that does not compile falls back to tsx's report.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..');
let root: string;

function cairn(env: Record<string, string> = {}): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [join(root, 'bin', 'cairn.mjs')], { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: run.status, stdout: run.stdout.trim(), stderr: run.stderr };
}

const cacheDir = () => join(root, 'node_modules', '.cache', 'cairn');
const compiledFiles = () => readdirSync(cacheDir()).filter((f) => f.endsWith('.cjs')).sort();

beforeAll(() => {
  root = mkdtempSync(join(process.env.CAIRN_TEST_RUN_TMPDIR ?? tmpdir(), 'compiled-sources-'));
  mkdirSync(join(root, 'bin'));
  for (const f of ['cairn.mjs', 'compiled-sources.mjs', 'server-compile.mjs', 'run-compiled.mjs']) copyFileSync(join(REPO, 'bin', f), join(root, 'bin', f));
  mkdirSync(join(root, 'node_modules', '@esbuild'), { recursive: true });
  for (const pkg of ['esbuild', 'tsx']) symlinkSync(join(REPO, 'node_modules', pkg), join(root, 'node_modules', pkg));
  for (const pkg of readdirSync(join(REPO, 'node_modules', '@esbuild'))) symlinkSync(join(REPO, 'node_modules', '@esbuild', pkg), join(root, 'node_modules', '@esbuild', pkg));
  writeFileSync(join(root, 'package.json'), '{"type":"module"}\n');
  mkdirSync(join(root, 'src'));
  // Prints a value from another module and what its own location says is beside it.
  writeFileSync(
    join(root, 'src', 'main.ts'),
    "import { value } from './value.ts';\nimport { readFileSync } from 'node:fs';\nconst beside: string = readFileSync(new URL('./beside.txt', import.meta.url), 'utf8');\n" +
      "if (process.env.FAIL) throw new Error('failed on purpose');\nconsole.log(`${value} ${beside}`);\n",
  );
  writeFileSync(join(root, 'src', 'beside.txt'), 'found');
  writeFileSync(join(root, 'src', 'value.ts'), 'export const value: number = 1;\n');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

it('compiles once, runs the compile while no source changed, and compiles again when one did', () => {
  expect(cairn()).toMatchObject({ code: 0, stdout: '1 found' });
  const [first] = compiledFiles();
  expect(first).toMatch(/^main-[0-9a-f]{16}\.cjs$/);
  const written = statSync(join(cacheDir(), first!)).mtimeMs;

  expect(cairn()).toMatchObject({ code: 0, stdout: '1 found' });
  expect(compiledFiles()).toEqual([first]);
  expect(statSync(join(cacheDir(), first!)).mtimeMs).toBe(written);

  // A stack trace names the TypeScript source and its line, not the compiled file (Node's quote of the throwing
  // line above an uncaught error's trace is the compile's: it does not read a map for a script run through vm).
  const failed = cairn({ FAIL: '1' });
  expect(failed.code).not.toBe(0);
  expect(failed.stderr).toMatch(/failed on purpose\n\s+at .*src\/main\.ts:4:/);
  const frames = failed.stderr.split('\n').filter((line) => /^\s+at /.test(line));
  expect(frames.join('\n')).not.toContain('.cache');

  // The same size: only the modification time tells the change.
  writeFileSync(join(root, 'src', 'value.ts'), 'export const value: number = 2;\n');
  expect(cairn()).toMatchObject({ code: 0, stdout: '2 found' });
  expect(compiledFiles()).toHaveLength(2);
});

it('compiles again when npm installs (its record of node_modules appears or changes): packages are compiled in', () => {
  const lockfile = join(root, 'node_modules', '.package-lock.json');
  const before = compiledFiles();
  writeFileSync(lockfile, '{"lockfileVersion":3}\n');
  expect(cairn()).toMatchObject({ code: 0, stdout: '2 found' });
  const afterAppearing = compiledFiles();
  expect(afterAppearing).toHaveLength(before.length);
  // Compiled again to the same output (same name): the index, which recorded the lockfile as absent, now holds its stamp.
  const index = readdirSync(cacheDir()).find((f) => f.startsWith('index-'))!;
  const stampNow = () => JSON.parse(readFileSync(join(cacheDir(), index), 'utf8')).inputs['node_modules/.package-lock.json'];
  expect(stampNow()).toBe(`${statSync(lockfile).size}:${statSync(lockfile).mtimeMs}`);
  const written = statSync(join(cacheDir(), afterAppearing.at(-1)!)).mtimeMs;
  expect(cairn()).toMatchObject({ code: 0, stdout: '2 found' });
  expect(statSync(join(cacheDir(), afterAppearing.at(-1)!)).mtimeMs).toBe(written);
  writeFileSync(lockfile, '{"lockfileVersion":3, "packages":{}}\n');
  expect(cairn()).toMatchObject({ code: 0, stdout: '2 found' });
  expect(stampNow()).toBe(`${statSync(lockfile).size}:${statSync(lockfile).mtimeMs}`);
});

it('keeps the newest four compiles', () => {
  for (let v = 3; v <= 7; v++) {
    writeFileSync(join(root, 'src', 'value.ts'), `export const value: number = ${v};\n`);
    expect(cairn()).toMatchObject({ code: 0, stdout: `${v} found` });
  }
  expect(compiledFiles()).toHaveLength(4);
  expect(readdirSync(cacheDir()).filter((f) => f.endsWith('.map'))).toHaveLength(4);
  expect(readdirSync(cacheDir()).filter((f) => f.includes('.part'))).toEqual([]);
});

it('keeps V8\'s code cache of a compile, per command, takes it at the next start, and replaces one V8 refuses', () => {
  const codeCaches = () => readdirSync(cacheDir()).filter((f) => f.endsWith('.code-cache'));
  const index = readdirSync(cacheDir()).find((f) => f.startsWith('index-'))!;
  const current = (JSON.parse(readFileSync(join(cacheDir(), index), 'utf8')) as { file: string }).file.replace(/\.cjs$/, '');
  // Only the current compile's caches are kept; this command (no name: 'other') has one after its first run.
  expect(cairn()).toMatchObject({ code: 0, stdout: '7 found' });
  expect(codeCaches().every((f) => f.startsWith(`${current}.`))).toBe(true);
  const [cache] = codeCaches().filter((f) => f.endsWith('.other.code-cache'));
  expect(cache).toBeDefined();
  const file = join(cacheDir(), cache!);
  const written = statSync(file).mtimeMs;
  // Taken: a refused cache would be written again as the process exits.
  expect(cairn()).toMatchObject({ code: 0, stdout: '7 found' });
  expect(statSync(file).mtimeMs).toBe(written);
  writeFileSync(file, 'not a code cache');
  expect(cairn()).toMatchObject({ code: 0, stdout: '7 found' });
  expect(readFileSync(file).length).toBeGreaterThan(100);
});

it('runs through tsx when the sources do not compile, or when told to', () => {
  writeFileSync(join(root, 'src', 'value.ts'), 'export const value: number = ;\n');
  const broken = cairn();
  expect(broken.code).not.toBe(0);
  expect(broken.stderr).toContain('value.ts');

  writeFileSync(join(root, 'src', 'value.ts'), 'export const value: number = 8;\n');
  const index = readdirSync(cacheDir()).find((f) => f.startsWith('index-'))!;
  const before = readFileSync(join(cacheDir(), index), 'utf8');
  expect(cairn({ CAIRN_COMPILE_CACHE: '0' })).toMatchObject({ code: 0, stdout: '8 found' });
  expect(readFileSync(join(cacheDir(), index), 'utf8')).toBe(before);
});

it('compiles pg to take Node\'s sockets without asking for fetch (bin/server-compile.mjs)', async () => {
  const { build } = await import('esbuild');
  const { pgNodeStreams } = await import('../bin/server-compile.mjs');
  const entry = join(root, 'uses-pg.cjs');
  writeFileSync(entry, "require('pg'); console.log('loaded');\n");
  // pg's question for a Cloudflare Worker reads the global Response, which makes Node load undici.
  const trap = "Object.defineProperty(globalThis, 'Response', { get() { throw new Error('Response was read') } });";
  const run = async (plugins: import('esbuild').Plugin[]) => {
    const out = await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', write: false, logLevel: 'silent', nodePaths: [join(REPO, 'node_modules')], external: ['pg-native'], plugins });
    const file = join(root, `uses-pg-${plugins.length}.cjs`);
    writeFileSync(file, `${trap}\n${out.outputFiles[0]!.text}`);
    return spawnSync(process.execPath, [file], { encoding: 'utf8' });
  };
  const plain = await run([]);
  expect(plain.stderr).toContain('Response was read');
  const compiled = await run([pgNodeStreams]);
  expect(compiled.stderr).toBe('');
  expect(compiled.stdout.trim()).toBe('loaded');
});

it('escapes what is not ASCII in the compile\'s comments, so V8 holds it as a one-byte string; a raw template stops it', async () => {
  const esbuild = await import('esbuild');
  const { asciiComments } = await import('../bin/server-compile.mjs');
  // A comment esbuild keeps (one inside an object literal; it drops some others).
  writeFileSync(join(root, 'src', 'value.ts'), "const shown = {\n  // Shown as its bay (`ams1-core1 › Slot 2`)\n  label: 'a › b',\n};\nexport const value: string = shown.label;\n");
  expect(cairn()).toMatchObject({ code: 0, stdout: 'a › b found' });
  const newest = compiledFiles().sort((a, b) => statSync(join(cacheDir(), b)).mtimeMs - statSync(join(cacheDir(), a)).mtimeMs)[0]!;
  const text = readFileSync(join(cacheDir(), newest), 'utf8');
  expect(text).toContain('// Shown as its bay (`ams1-core1 \\u203a Slot 2`)');
  expect(text).not.toMatch(/[^\x00-\x7f]/);
  // String.raw's text is what the source says: escaping it would change the value, so nothing is escaped.
  const raw = '// a › b\nconst r = String.raw`›`;\n';
  expect(asciiComments(raw, esbuild)).toBe(raw);
});
