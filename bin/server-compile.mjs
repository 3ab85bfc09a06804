// What the two compiles of the server share: a checkout's (bin/compiled-sources.mjs) and a release's lib/cairn.cjs
// (src/upgrade/bundle.ts). Plain JavaScript: the checkout's compile runs before any TypeScript can be loaded.
import { readFile } from 'node:fs/promises';

/**
 * Packages the compiled server loads from node_modules rather than from its own file: PGlite reads its WebAssembly
 * and data files next to its modules, Swagger UI serves its static folder, Redoc's bundle is sent as a file, and
 * esbuild (only `cairn bundle` of a checkout needs it) is a native binary. pg-native is pg's optional native
 * driver, never installed.
 */
export const RUNTIME_FILE_PACKAGES = ['@electric-sql/pglite', '@fastify/swagger-ui', 'redoc', 'esbuild', 'pg-native'];

/** Throws when a compiled module reads import.meta, which a CommonJS file does not have. */
export function refuseImportMeta(result) {
  const meta = result.warnings.find((w) => w.text.includes('import.meta'));
  if (meta) throw new Error(`${meta.location?.file ?? 'a module'} reads import.meta, which a CommonJS file does not have`);
}

const CHOICE = 'const { getStream, getSecureStream } = getStreamFuncs()';
const NODE_ONLY = 'const { getStream, getSecureStream } = getNodejsStreamFuncs()';

/**
 * pg picks its socket functions when it loads by asking whether it runs in a Cloudflare Worker, and the question
 * (`typeof Response`) makes Node load its fetch implementation, undici, at every `cairn` process's start, for a
 * server that never runs in a Worker (`cairn status`: 0.92 CPU-s with it, 0.80 without, twelve runs of each
 * alternating on a slow machine). Compiled in, pg takes Node's functions directly. A pg whose stream.js no longer
 * reads as expected fails the compile, so the change is seen.
 * @type {import('esbuild').Plugin}
 */
export const pgNodeStreams = {
  name: 'cairn-pg-node-streams',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]stream\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes(CHOICE)) throw new Error(`${args.path} no longer picks its stream functions with "${CHOICE}": see bin/server-compile.mjs`);
      return { contents: text.replace(CHOICE, NODE_ONLY), loader: 'js' };
    });
  },
};

const NOT_ASCII = /[^\x00-\x7f]/;

/**
 * The compiled text with the characters of its comments that are not ASCII escaped (`›` as `\u203a`). esbuild escapes
 * them in strings but keeps comments as written, and one such character anywhere makes V8 hold the whole source as a
 * two-byte string: the 6 MB server as 11 MB of every `cairn` process's heap. Comments only: a tagged template's raw
 * text (`String.raw`), which esbuild keeps too, would change meaning, so when the text without its comments (esbuild
 * itself, dropping them) still has such a character, the text is returned as it is.
 * @param {string} text
 * @param {typeof import('esbuild')} esbuild
 * @returns {string}
 */
export function asciiComments(text, esbuild) {
  if (!NOT_ASCII.test(text)) return text;
  const code = esbuild.transformSync(text, { loader: 'js', minifyWhitespace: true, legalComments: 'none', logLevel: 'silent' }).code;
  if (NOT_ASCII.test(code)) return text;
  return text.replace(new RegExp(NOT_ASCII.source, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
