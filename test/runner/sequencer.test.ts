// The slow files' order names files that exist: a renamed or removed file would otherwise drop out of it silently
// and start at the end of the run again (by its size), where one long file alone decides when the run ends.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import { FLOATING } from './floating.ts';
import { SLOW_FIRST, startOrder } from './sequencer.ts';

it('names only files and folders that exist, each once', () => {
  const root = resolve(import.meta.dirname, '..', '..');
  for (const p of SLOW_FIRST) {
    expect(existsSync(resolve(root, p)), p).toBe(true);
    expect(statSync(resolve(root, p)).isDirectory(), p).toBe(p.endsWith('/'));
  }
  expect(new Set(SLOW_FIRST).size).toBe(SLOW_FIRST.length);
});

it('starts every isolated file before the shared ones, each group slowest first', () => {
  const order = startOrder([
    { file: 'src/core/small.test.ts', isolated: false, size: 10 },
    { file: 'test/netbox-clients.test.ts', isolated: false, size: 5 },
    { file: 'src/system/backup-routes.test.ts', isolated: true, size: 1 },
    { file: 'src/core/large.test.ts', isolated: false, size: 99 },
    { file: 'test/upgrade/faults-outcomes.test.ts', isolated: true, size: 2 },
  ]).map((f) => f.file);
  expect(order).toEqual(['test/upgrade/faults-outcomes.test.ts', 'src/system/backup-routes.test.ts', 'test/netbox-clients.test.ts', 'src/core/large.test.ts', 'src/core/small.test.ts']);
});

it('ends with the floating files, in their own order, after files of any size', () => {
  const [first, second] = FLOATING;
  const order = startOrder([
    { file: second, isolated: false, size: 99_999 },
    { file: 'src/core/small.test.ts', isolated: false, size: 1 },
    { file: first, isolated: false, size: 1 },
    { file: 'test/netbox-clients.test.ts', isolated: false, size: 5 },
  ]).map((f) => f.file);
  expect(order).toEqual(['test/netbox-clients.test.ts', 'src/core/small.test.ts', first, second]);
});
