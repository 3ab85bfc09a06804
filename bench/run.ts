// `npm run bench [name…]`: runs every bench/*.bench.ts (or those whose file name contains one of the given names).
// Each module's default export runs its measurements and prints its own lines; figures are ratios against a
// reference measured in the same run, never absolute thresholds.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n== ${file.replace(/\.bench\.ts$/, '')}`);
  try {
    const mod = (await import(pathToFileURL(join(here, file)).href)) as { default: () => Promise<void> };
    await mod.default();
  } catch (err) {
    failed++;
    console.error(`bench ${file} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
process.exit(failed ? 1 : 0);
