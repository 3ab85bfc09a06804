// Preloaded (NODE_OPTIONS --require, set in vitest.config.ts) into every process a test run starts. The `cairn`
// processes the tests start live for seconds, and V8's optimising compilers spend more CPU recompiling hot code in
// the background than such a process ever wins back; CI is CPU-bound on two cores. So they run on V8's other tiers:
// - WebAssembly (PGlite) with the baseline compiler alone: a `cairn serve` start took 4.4 CPU-s, 2.6 with it;
// - JavaScript without TurboFan (Ignition and Sparkplug only): test/cli.test.ts with test/upgrade/clean.test.ts,
//   three runs of each alternating, cost the machine 72.6 CPU-s on average with it and 65.2 without.
// The suite's own workers keep TurboFan: they live for the whole run, and without it a long file ran longer.
// The product is unchanged: the same code runs, compiled by V8's other tiers.
const main = process.argv[1] || '';
if (/[\\/]cairn\.mjs$/.test(main)) require('node:v8').setFlagsFromString('--liftoff-only --no-opt');
