// When .ci/run runs both passes side by side, the run ends when the later pass ends. How long each pass takes
// depends on the machine (the embedded database runs as WebAssembly in the test workers, PostgreSQL as native
// code beside them), so no fixed split of the files keeps the two ending together: one machine ended them 6 s
// apart, the next 46 s, with one core idle all that while. So the files whose pass was chosen only to even out the
// passes float: both passes list them, after everything else, and the first pass to reach one claims it (a file
// created exclusively in a directory both passes share, CAIRN_TEST_CLAIMS, which .ci/run makes); the other pass
// skips it. Both passes take them in the same order, slowest first, so the pass that is ahead takes more of them
// and the last ones taken are short.
//
// A file floats only when its answers do not depend on the database behind it: the browser tests of pages (which
// check the UI over the API the rest of the suite checks on both databases), the catalogs the registry derives,
// the API document, and the files that open no database at all. A file with a test for one database only (the
// generated client's type check, a PostgreSQL-only race) or a placement for a reason of its own stays in
// vitest.config.ts's fixed lists.
import { openSync, closeSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const feature = (name: string) => `test/web/features/${name}.test.ts`;

/** Files that run in whichever pass reaches them first, slowest first (`npm run test:times` of a CI run). */
export const FLOATING = [
  'test/web/ui.test.ts',
  feature('feature-pages'),
  feature('forms'),
  feature('admin-pages'),
  feature('search-space'),
  feature('rack-reservations'),
  feature('device-components'),
  feature('template-device-preview'),
  feature('device-page'),
  feature('cable-trace'),
  feature('spreadsheet-import'),
  feature('circuits'),
  'test/api-docs.test.ts',
  feature('racks'),
  'test/web/backups.test.ts',
  'test/catalogs.test.ts',
  feature('lists'),
  feature('contacts'),
  feature('deploy'),
  feature('console-power'),
  'test/compiled-sources.test.ts',
  'test/templating/fuzz.test.ts',
  'test/templating/corpus.test.ts',
  'test/runner/passes.test.ts',
  'test/runner/machine-figures.test.ts',
  'test/helpers/data-dir-copy.test.ts',
  'test/runner/floating.test.ts',
];

/** The directory both passes claim floating files in, when they float (both passes run, and .ci/run made it). */
export function claimsDir(): string | undefined {
  return process.env.CAIRN_TEST_BOTH_PASSES ? process.env.CAIRN_TEST_CLAIMS || undefined : undefined;
}

/** This pass's name, as .ci/run's reports call it. */
export function passName(): 'embedded' | 'postgresql' {
  return process.env.TEST_DATABASE_URL ? 'postgresql' : 'embedded';
}

/**
 * Claims `file` (relative to the root) for this pass in `dir`: true when this pass is the first to ask. The claim
 * is a file created with O_EXCL, which one of two processes asking at once gets; it holds the pass's name.
 */
export function claim(dir: string, file: string): boolean {
  let fd: number;
  try {
    fd = openSync(join(dir, file.replaceAll('/', '__')), 'wx');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    writeSync(fd, passName());
  } finally {
    closeSync(fd);
  }
  return true;
}
