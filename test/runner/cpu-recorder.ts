// Records, per test file, the CPU it cost: this worker's and its reaped children's (the `cairn` processes,
// servers and browsers a file starts and waits for), from /proc/self/stat. On a 2-core machine running both
// passes at once the suite is CPU-bound, so CPU, not the wall time a file held its worker, is what a change to
// the suite must cut. Appends one JSON line per file to CAIRN_TEST_CPU (`.ci/run` sets it beside the
// file-times reports); `npm run test:times` prints the column. Not counted: PostgreSQL's own server processes.
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, expect } from 'vitest';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** utime + stime and cutime + cstime of this process, in milliseconds, or null off Linux. */
function cpuNow(): { self: number; children: number } | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (i: number) => (Number(f[i]) * 1000) / TICKS_PER_SECOND;
    return { self: ms(11) + ms(12), children: ms(13) + ms(14) };
  } catch {
    return null;
  }
}

const out = process.env.CAIRN_TEST_CPU;
if (out) {
  // Taken when the setup file runs, before the test file is imported: its import is part of its cost.
  const start = cpuNow();
  afterAll(() => {
    const end = cpuNow();
    const file = expect.getState().testPath;
    if (!start || !end || !file) return;
    const line = { file: relative(process.cwd(), file), selfMs: Math.round(end.self - start.self), childrenMs: Math.round(end.children - start.children) };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}
