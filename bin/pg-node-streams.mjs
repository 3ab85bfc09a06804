// An esbuild plugin for the compiled server (bin/compiled-sources.mjs, a release's lib/cairn.cjs): pg picks its
// socket functions when it loads by asking whether it runs in a Cloudflare Worker, and the question
// (`typeof Response`) makes Node load its fetch implementation, undici, at every `cairn` process's start, for a
// server that never runs in a Worker (`cairn status`: 0.92 CPU-s with it, 0.80 without, twelve runs of each
// alternating on a slow machine). Compiled in, pg takes Node's functions directly. A pg whose stream.js no longer reads as expected fails the compile, so the change is seen.
import { readFile } from 'node:fs/promises';

const CHOICE = 'const { getStream, getSecureStream } = getStreamFuncs()';
const NODE_ONLY = 'const { getStream, getSecureStream } = getNodejsStreamFuncs()';

/** @type {import('esbuild').Plugin} */
export const pgNodeStreams = {
  name: 'cairn-pg-node-streams',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]stream\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes(CHOICE)) throw new Error(`${args.path} no longer picks its stream functions with "${CHOICE}": see bin/pg-node-streams.mjs`);
      return { contents: text.replace(CHOICE, NODE_ONLY), loader: 'js' };
    });
  },
};
