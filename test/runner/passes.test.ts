// When .ci/run runs both passes side by side, vitest.config.ts takes many files out of one pass or the other (to
// run them once, or to even out the passes). A file taken out of both runs nowhere, and nothing else would say so:
// each pass ends green. This lists the files of each pass with the real config (`vitest list`, which imports no
// test file) and checks that the two passes together run every file the single pass runs, and that each pass
// leaves out a good part of them (the split is still there).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FLOATING } from './floating.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const PG_URL = 'postgres://postgres@127.0.0.1:5432/test'; // never connected to: `list` only reads the config
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'cairn-passes-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The test files vitest would run with these variables, relative to the root. */
function listFiles(vars: Record<string, string>): Promise<string[]> {
  // As a person runs it: none of this run's vitest or pass variables.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && !['TEST', 'TEST_DATABASE_URL', 'CAIRN_TEST_BOTH_PASSES', 'CAIRN_TEST_CLAIMS'].includes(k)),
  ) as NodeJS.ProcessEnv;
  Object.assign(env, { CAIRN_TEST_TMPDIR: scratch }, vars);
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'list', '--filesOnly', '--json'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => {
      if (code !== 0) return fail(new Error(`vitest list exited ${code}:\n${err.slice(-2000)}`));
      const rows = JSON.parse(out.slice(out.indexOf('['))) as { file: string }[];
      done([...new Set(rows.map((r) => relative(ROOT, r.file)))].sort());
    });
  });
}

// A test for one database only, in the forms the suite writes it: on PostgreSQL only (skipped or run by
// TEST_DATABASE_URL), or on the embedded database only.
const POSTGRESQL_ONLY = /\.(skipIf\(!process\.env\.TEST_DATABASE_URL\)|runIf\(process\.env\.TEST_DATABASE_URL\))/;
const EMBEDDED_ONLY = /\.(skipIf\(Boolean\(process\.env\.TEST_DATABASE_URL\)\)|runIf\(!process\.env\.TEST_DATABASE_URL\))|if \(!process\.env\.TEST_DATABASE_URL\) expect/;

describe('the two passes of .ci/run', () => {
  let listings: Promise<[string[], string[], string[]]> | undefined;
  const passes = () =>
    (listings ??= Promise.all([
      listFiles({}),
      listFiles({ CAIRN_TEST_BOTH_PASSES: '1' }),
      listFiles({ CAIRN_TEST_BOTH_PASSES: '1', TEST_DATABASE_URL: PG_URL }),
    ]));

  it('run every test file between them', async () => {
    const [single, embedded, postgresql] = await passes();
    expect(single.length).toBeGreaterThan(100);
    expect(single).toContain('test/runner/passes.test.ts');
    const inEither = new Set([...embedded, ...postgresql]);
    expect(single.filter((f) => !inEither.has(f)), 'files neither pass runs').toEqual([]);
    // Each pass leaves out a good part of the single run (else the split was lost, and CI runs twice as long).
    expect(embedded.length).toBeLessThan(single.length * 0.8);
    expect(postgresql.length).toBeLessThan(single.length * 0.8);
  }, 60_000);

  // A file run in one pass only skips, without a word, what it checks on the other database only: the generated
  // client's type check (embedded only) once ran in the PostgreSQL pass alone, and a race on a port's database key
  // (PostgreSQL only) in the embedded pass alone.
  it('run each test for one database only in that database\'s pass', async () => {
    const [single, embedded, postgresql] = await passes();
    const pgOnly = single.filter((f) => POSTGRESQL_ONLY.test(text(f)));
    const embeddedOnly = single.filter((f) => EMBEDDED_ONLY.test(text(f)));
    // The forms are still the suite's (else this checks nothing).
    expect(pgOnly).toContain('src/dcim/ports.test.ts');
    expect(embeddedOnly).toContain('test/openapi-client.test.ts');
    expect(pgOnly.filter((f) => !postgresql.includes(f)), 'files with a PostgreSQL-only test that the PostgreSQL pass leaves out').toEqual([]);
    expect(embeddedOnly.filter((f) => !embedded.includes(f)), 'files with an embedded-only test that the embedded pass leaves out').toEqual([]);
  }, 60_000);

  // With a directory to claim them in (.ci/run's), the floating files are in both passes' lists, and whichever
  // reaches one first runs it (test/runner/claiming-runner.ts); nothing else moves.
  it('list the floating files in both passes when they can claim them, and nothing else differently', async () => {
    const [single, embedded, postgresql] = await passes();
    const claims = { CAIRN_TEST_BOTH_PASSES: '1', CAIRN_TEST_CLAIMS: scratch };
    const [embeddedClaiming, postgresqlClaiming] = await Promise.all([listFiles(claims), listFiles({ ...claims, TEST_DATABASE_URL: PG_URL })]);
    expect(FLOATING.filter((f) => !single.includes(f)), 'floating files that are not test files').toEqual([]);
    // Where a floating file runs is not fixed, so none may hold a test for one database only.
    expect(FLOATING.filter((f) => POSTGRESQL_ONLY.test(text(f)) || EMBEDDED_ONLY.test(text(f))), 'floating files with a test for one database only').toEqual([]);
    for (const [fixed, claiming] of [
      [embedded, embeddedClaiming],
      [postgresql, postgresqlClaiming],
    ]) {
      expect(FLOATING.filter((f) => !claiming.includes(f))).toEqual([]);
      expect(claiming.filter((f) => !FLOATING.includes(f))).toEqual(fixed.filter((f) => !FLOATING.includes(f)));
    }
  }, 60_000);
});
