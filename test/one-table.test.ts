// Issue #54: "one table component". A data table of the UI is drawn by web/src/components/DataTable.tsx, so every
// list has the same header, sorting, states and pager, and a fix to one of them reaches all. A page that writes its
// own <table> fails here with its path: give DataTable what the page needs instead.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

/** Files that may write a <table> element themselves. */
const ALLOWED = [
  'web/src/components/DataTable.tsx',
  // A few rows of a file about to be imported, inside the import dialog: a preview, not a list.
  'web/src/pages/list/ImportDialog.tsx',
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return /\.tsx?$/.test(e.name) ? [full] : [];
  });
}

it('web/src: only DataTable (and the import preview) writes a <table>', () => {
  const writers = sources(join(ROOT, 'web/src'))
    .filter((file) => /<table[\s>]/.test(readFileSync(file, 'utf8')))
    .map((file) => relative(ROOT, file))
    .sort();
  expect(writers).toEqual([...ALLOWED].sort());
});
