#!/usr/bin/env node
// The `cairn` command from a checkout; a fresh clone needs no build step. The TypeScript sources run compiled and
// cached (bin/compiled-sources.mjs says why and when they are compiled again; bin/run-compiled.mjs how they run),
// or through tsx where that compile cannot be had, or when CAIRN_COMPILE_CACHE=0.
import { dirname } from 'node:path';
import { compiledMain } from './compiled-sources.mjs';
import { runCompiled } from './run-compiled.mjs';

const compiled = process.env.CAIRN_COMPILE_CACHE === '0' ? null : await compiledMain();
if (compiled) {
  runCompiled(compiled, { cacheDir: dirname(compiled), sourceMap: true });
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
