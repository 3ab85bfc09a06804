#!/usr/bin/env node
// The `cairn` command from a checkout; a fresh clone needs no build step. The TypeScript sources run compiled and
// cached (bin/compiled-sources.mjs says why and when they are compiled again), or through tsx where that compile
// cannot be had, or when CAIRN_COMPILE_CACHE=0.
import { compiledMain, runCompiled } from './compiled-sources.mjs';

const compiled = process.env.CAIRN_COMPILE_CACHE === '0' ? null : await compiledMain();
if (compiled) {
  runCompiled(compiled);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
