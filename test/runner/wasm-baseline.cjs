// Preloaded (NODE_OPTIONS --require, set in vitest.config.ts) into every process a test run starts. The `cairn`
// processes the tests start live for seconds: V8's optimising tier for PGlite's WebAssembly spends more CPU
// recompiling hot functions in the background than such a process ever wins back (a `cairn serve` start took
// 4.4 CPU-s, 2.6 with the baseline compiler alone; CI is CPU-bound on two cores). The product is unchanged:
// the same code runs, compiled by V8's other tier.
const main = process.argv[1] || '';
if (/[\\/]cairn\.mjs$/.test(main)) require('node:v8').setFlagsFromString('--liftoff-only');
