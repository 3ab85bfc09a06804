// Runs `src/main.ts` compiled into one CommonJS file (a checkout's compile, bin/compiled-sources.mjs, or a release's
// lib/cairn.cjs, src/upgrade/bundle.ts) as Node runs a CommonJS module, with V8's code cache: the functions V8
// compiled while the first run of that command ran, kept as it exited. A start then parses and compiles only what
// it runs that the cached run did not. Node 20 has no code cache for ES modules, hence CommonJS.
// Measured on a checkout, alternating: `cairn status` 0.76 -> 0.64 CPU-s, `cairn --version` 0.28 -> 0.18, `cairn
// serve` to healthy and twenty list pages 2.39 -> 2.14.
//
// Plain JavaScript, no packages: releases ship it as it is.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, SourceMap } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cachedDataVersionTag, setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';

/**
 * Runs `file`. `cacheDir`: where its code caches are kept (none when null or not writable). `sourceMap`: stack
 * frames in the file are shown at their place in the sources, from `<file>.map`.
 */
export function runCompiled(file, { cacheDir = null, sourceMap = false } = {}) {
  // V8 takes a cache only under the flags it was made with, and src/db/heap-settings.ts sets this one when the
  // database code loads (after the compile): set now, the flags a cache is made under are those it is read under.
  setFlagsFromString('--no-allocation-site-pretenuring');
  const tag = cachedDataVersionTag();
  // One cache per command (its first word; `--data-dir /x serve` is `serve`): what `serve` compiles is not what
  // `status` does.
  const command = process.argv.slice(2).find((a) => /^[a-z][a-z-]{0,40}$/.test(a)) ?? 'other';
  // V8 checks a cache against its source's length only: the file's identity is in the name, so a cache is never
  // taken for another file of that name (a release of one version unpacked again from another build).
  const { ino, size, mtimeMs } = statSync(file);
  const identity = [ino, size, Math.trunc(mtimeMs)].map((n) => n.toString(36)).join('-');
  const cacheFile = cacheDir && join(cacheDir, `${basename(file).replace(/\.cjs$/, '')}.${tag.toString(16)}.${identity}.${command}.code-cache`);
  let cachedData;
  try {
    cachedData = cacheFile ? readFileSync(cacheFile) : undefined;
  } catch {
    cachedData = undefined;
  }
  const source = readFileSync(file, 'utf8');
  // Node's own CommonJS wrapper, on the first line, so that line numbers stay the file's.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData });
  // A cache V8 refused (another Node, other flags, a damaged file) is replaced. Its folder is made now, not as the
  // process exits: a release removed meanwhile (a rolled-back upgrade removes the new one's) is not made again.
  if (cacheFile && (!cachedData || script.cachedDataRejected)) {
    try {
      mkdirSync(cacheDir, { recursive: true });
      process.once('exit', () => keepCodeCache(script, cacheFile, tag));
    } catch {
      // Not writable: runs without one.
    }
  }
  if (sourceMap) mapStacksOf(file);
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
}

function keepCodeCache(script, cacheFile, tag) {
  // A flag changed while the command ran: V8 would refuse this cache at the next start.
  if (cachedDataVersionTag() !== tag) return;
  const part = `${cacheFile}.${process.pid}.part`;
  try {
    writeFileSync(part, script.createCachedData());
    renameSync(part, cacheFile);
  } catch {
    rmSync(part, { force: true });
  }
}

/**
 * Stack frames in `file` name the TypeScript sources, from its source map, read when the first stack that passes
 * through the file is formatted (Node's own source maps do not reach a script run through vm, and read the map at
 * every start: 60 ms). Node's quote of the throwing line above an uncaught error stays the compiled one.
 */
function mapStacksOf(file) {
  let map;
  const lookup = () => {
    if (map === undefined) {
      try {
        map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
      } catch {
        map = null;
      }
    }
    return map;
  };
  const frameText = (frame) => {
    const text = String(frame);
    if (frame.getFileName() !== file) return text;
    const line = frame.getLineNumber();
    const column = frame.getColumnNumber();
    const entry = line && column ? lookup()?.findEntry(line - 1, column - 1) : undefined;
    if (!entry?.originalSource) return text;
    const source = entry.originalSource.startsWith('file:') ? fileURLToPath(entry.originalSource) : resolve(dirname(file), entry.originalSource);
    return text.replace(`${file}:${line}:${column}`, `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`);
  };
  Error.prepareStackTrace = (error, frames) => {
    let head;
    try {
      head = Error.prototype.toString.call(error);
    } catch {
      head = 'Error';
    }
    return head + frames.map((frame) => `\n    at ${frameText(frame)}`).join('');
  };
}
