// scripts/machine-figures.mjs, as .ci/run calls it: the machine's two figures when the run starts, what the run cost
// it at the end, and a usage error for anything else.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const SCRIPT = resolve(import.meta.dirname, '..', '..', 'scripts', 'machine-figures.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'cairn-figures-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function figures(...args: string[]): { code: number | null; out: string; err: string } {
  const run = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

it.runIf(existsSync('/proc/stat'))('measures the machine at the start and prints what the run cost it at the end', () => {
  const file = join(scratch, 'counters.json');
  const start = figures('start', file);
  expect(start.code, start.err).toBe(0);
  expect(start.out).toMatch(/^== this machine: a JavaScript loop took \d+\.\d\d CPU-s, a first touch of 256 MB \d+\.\d\d \(transparent huge pages: \w+\)\n$/);
  const kept = JSON.parse(readFileSync(file, 'utf8')) as { busy: number; faults: number };
  expect(kept.busy).toBeGreaterThan(0);
  expect(kept.faults).toBeGreaterThan(0);
  const end = figures('end', file);
  expect(end.code, end.err).toBe(0);
  const line = end.out.match(/^== the run cost the machine ([\d,]+) CPU-s in ([\d,]+) s \(([\d,]+) of them in the kernel; ([\d,]+) core-s idle(, [\d,]+ stolen by the host)?\), (\d+\.\d) million page faults \(([\d,]+) from disk\)\n$/);
  expect(line, end.out).not.toBeNull();
});

it('refuses a call without a mode and a file, and says how to call it', () => {
  for (const args of [[], ['start'], ['middle', join(scratch, 'x.json')]]) {
    const run = figures(...args);
    expect(run.code).toBe(2);
    expect(run.err).toContain('usage: node scripts/machine-figures.mjs start|end FILE');
  }
});

it('prints nothing at the end when the start left no counters (a run that failed before it)', () => {
  const run = figures('end', join(scratch, 'never-written.json'));
  expect(run).toMatchObject({ code: 0, out: '' });
});
