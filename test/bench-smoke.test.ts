// Every benchmark starts and sets up: `npm run bench -- --tiny` in a process of its own (as `npm run bench` runs,
// outside vitest: a benchmark importing something that imports vitest fails there, not here), each benchmark at a
// size that only exercises its setup and measurements, on a copy of the run's migrated template. Two are only
// imported, their paths run by the suite's own tests: `web` (a web build, a server and a browser: about 20 CPU-s),
// by the browser tests; `upgrade` (an install with demo data and an upgrade keeping reads: 20 s of wall and some
// 15 CPU-s of a slow machine), by test/upgrade/clean.test.ts, which installs and upgrades with the same helpers
// and checks the lines the bench prints of its run (upgradeFigures). When both passes run, this runs in the
// PostgreSQL one only (the export's COPY and the NetBox import need PostgreSQL; on the embedded database they print
// that they skip).
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, inject, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const IMPORT_ONLY = ['web', 'upgrade'];
const skip = Boolean(process.env.CAIRN_TEST_BOTH_PASSES) && !process.env.TEST_DATABASE_URL;

function runBench(env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'run-ts.mjs'), join(ROOT, 'bench', 'run.ts'), '--tiny'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => done({ code, out }));
  });
}

describe.skipIf(skip)('npm run bench -- --tiny', () => {
  it('runs every benchmark file at a tiny size without an error', async () => {
    const names = readdirSync(join(ROOT, 'bench')).filter((f) => f.endsWith('.bench.ts')).map((f) => f.replace(/\.bench\.ts$/, '')).sort();
    expect(names.length).toBeGreaterThan(10);
    // As a person runs it: none of vitest's variables (a module that asks "am I in a test run?" must say no).
    const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'TEST')) as NodeJS.ProcessEnv;
    env.BENCH_IMPORT_ONLY = IMPORT_ONLY.join(',');
    delete env.BENCH_DATABASE_URL;
    delete env.BENCH_PGLITE_TEMPLATE;
    delete env.BENCH_TEMPLATE_DATABASE;
    if (process.env.TEST_DATABASE_URL) {
      env.BENCH_DATABASE_URL = process.env.TEST_DATABASE_URL;
      env.BENCH_TEMPLATE_DATABASE = inject('pgTemplate');
    } else if (inject('pgliteTemplate')) env.BENCH_PGLITE_TEMPLATE = inject('pgliteTemplate');
    const { code, out } = await runBench(env);
    const failures = out.split('\n').filter((l) => l.startsWith('bench ') && l.includes(' failed: '));
    expect(failures, out.slice(-4000)).toEqual([]);
    expect(code, out.slice(-4000)).toBe(0);
    for (const name of names) {
      expect(out, `${name} did not finish`).toContain(`== ${name} done in`);
      if (IMPORT_ONLY.includes(name)) continue;
      // It measured something: a line of its own between its header and its end.
      const section = out.slice(out.indexOf(`\n== ${name}\n`), out.indexOf(`== ${name} done in`));
      expect(section.split('\n').filter((l) => l.trim() && !l.startsWith('==')).length, `${name} printed nothing`).toBeGreaterThan(0);
    }
  }, 900_000);
});
