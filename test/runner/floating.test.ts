// A floating file runs in the one pass that claims it first (test/runner/floating.ts): the claim is what keeps it
// from running twice, or not at all.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { claim, FLOATING, passName } from './floating.ts';

const dir = mkdtempSync(join(tmpdir(), 'cairn-claims-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('gives a file to the first pass that asks, once, and records which pass that was', () => {
  expect(claim(dir, 'test/web/features/racks.test.ts')).toBe(true);
  expect(claim(dir, 'test/web/features/racks.test.ts')).toBe(false);
  expect(claim(dir, 'test/web/features/lists.test.ts')).toBe(true);
  expect(readFileSync(join(dir, 'test__web__features__racks.test.ts'), 'utf8')).toBe(passName());
});

it('names each file once', () => {
  expect(new Set(FLOATING).size).toBe(FLOATING.length);
});
