// `npm run bench [name…] [--tiny] [--devices N]`: runs every bench/*.bench.ts (or those whose file name contains one
// of the given names). Each module's default export runs its measurements and prints its own lines; figures are
// ratios against a reference measured in the same run, never absolute thresholds.
//   --tiny        every benchmark at a size that only shows it starts, sets up and measures (seconds in all: the
//                 suite runs it, test/bench-smoke.test.ts); its figures mean nothing
//   --devices N   the device count of every benchmark that takes one (bench/helpers.ts benchSize)
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const wanted: string[] = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i]!;
  if (a === '--tiny') process.env.BENCH_TINY = '1';
  else if (a === '--devices' || a.startsWith('--devices=')) {
    const value = a.includes('=') ? a.slice(a.indexOf('=') + 1) : args[++i];
    if (!value || !/^\d+$/.test(value)) {
      console.error(`--devices takes a whole number, not ${value ?? 'nothing'}`);
      process.exit(2);
    }
    process.env.BENCH_DEVICES_ALL = value;
  } else if (a.startsWith('--')) {
    console.error(`unknown option ${a} (options: --tiny, --devices N)`);
    process.exit(2);
  } else wanted.push(a);
}
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();
if (files.length === 0) {
  console.error(`no benchmark matches ${wanted.join(', ')}`);
  process.exit(2);
}

// Benchmarks only imported, not run (the smoke check's for those whose setup is a build, a browser or an install:
// the suite's own browser and upgrade tests run those paths).
const importOnly = new Set((process.env.BENCH_IMPORT_ONLY ?? '').split(',').filter(Boolean));
let failed = 0;
for (const file of files) {
  const name = file.replace(/\.bench\.ts$/, '');
  console.log(`\n== ${name}`);
  const started = Date.now();
  const cpu = process.cpuUsage();
  try {
    const mod = (await import(pathToFileURL(join(here, file)).href)) as { default?: unknown };
    if (typeof mod.default !== 'function') throw new Error('its default export is not the benchmark function');
    if (importOnly.has(name)) console.log('imported only (BENCH_IMPORT_ONLY)');
    else await (mod.default as () => Promise<void>)();
    const used = process.cpuUsage(cpu);
    console.log(`== ${name} done in ${((Date.now() - started) / 1000).toFixed(1)} s (this process's CPU ${((used.user + used.system) / 1e6).toFixed(1)} s)`);
  } catch (err) {
    failed++;
    console.error(`bench ${file} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }
}
process.exit(failed ? 1 : 0);
