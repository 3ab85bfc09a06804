// Jinja2 compatibility corpus: every case of test/templating/corpus/*.json rendered with our engine and
// compared byte for byte with what Python's Jinja2 3.1 (SandboxedEnvironment) produced for it
// (scripts/jinja-reference.py writes the expected outputs; they are never written by hand).
//
// Error cases compare the kind only: `err instanceof TemplateError && err.kind === expected`, with one
// documented equivalence: an expected `type` (any Python runtime exception other than UndefinedError /
// SecurityError: TypeError, ValueError, ZeroDivisionError, KeyError, TemplateRuntimeError, ...) also
// accepts our `runtime` kind. A syntax error may surface from compile() or from render(): both count.
//
// Where `python3 -c 'import jinja2'` works, the last test re-renders the whole corpus with Jinja2
// (`scripts/jinja-reference.py --check`) so the recorded outputs cannot drift from the reference.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEnvironment, TemplateError } from '../../src/templating/engine/index.ts';
import { engineOptions, loadCorpus, REPO_ROOT, type CorpusCase } from './corpus-cases.ts';

const MIN_CASES = 400;
const cases = loadCorpus();

type Outcome = { ok: true; output: string } | { ok: false; error: unknown };

async function renderCase(c: CorpusCase): Promise<Outcome> {
  try {
    const env = createEnvironment({ ...engineOptions(c.options), timeBudgetMs: 10_000 });
    const template = env.compile(c.template, c.name);
    // A fresh copy of the context per render: the corpus objects stay pristine.
    const context = JSON.parse(JSON.stringify(c.context)) as Record<string, unknown>;
    return { ok: true, output: await template.render(context) };
  } catch (error: unknown) {
    return { ok: false, error };
  }
}

function describeError(e: unknown): string {
  if (e instanceof TemplateError) return `TemplateError(kind=${e.kind}): ${e.message}`;
  if (e instanceof Error) return `raw ${e.name}: ${e.message}`;
  return `non-error thrown: ${String(e)}`;
}

function kindMatches(expected: string, actual: string): boolean {
  return actual === expected || (expected === 'type' && actual === 'runtime');
}

const results = { passed: 0, failed: [] as string[] };

afterAll(() => {
  const total = results.passed + results.failed.length;
  console.log(`\nJinja2 corpus: ${results.passed}/${total} cases pass against the engine`);
  if (results.failed.length > 0) console.log(`failing: ${results.failed.join(', ')}`);
});

const byFile = new Map<string, CorpusCase[]>();
for (const c of cases) byFile.set(c.file, [...(byFile.get(c.file) ?? []), c]);

for (const [file, fileCases] of byFile) {
  describe(`corpus ${file}`, () => {
    for (const c of fileCases) {
      it(c.name, async () => {
        const outcome = await renderCase(c);
        let problem: string | undefined;
        if (c.error !== undefined) {
          if (outcome.ok) problem = `expected error kind "${c.error}", rendered ${JSON.stringify(outcome.output)}`;
          else if (!(outcome.error instanceof TemplateError))
            problem = `expected error kind "${c.error}", got ${describeError(outcome.error)}`;
          else if (!kindMatches(c.error, outcome.error.kind))
            problem = `expected error kind "${c.error}", got ${describeError(outcome.error)}`;
        } else if (!outcome.ok) {
          problem = `expected ${JSON.stringify(c.expected)}, got ${describeError(outcome.error)}`;
        } else if (outcome.output !== c.expected) {
          problem = `expected ${JSON.stringify(c.expected)}\n   actual ${JSON.stringify(outcome.output)}`;
        }
        if (problem === undefined) results.passed += 1;
        else results.failed.push(c.name);
        if (problem !== undefined)
          throw new Error(`${c.name}: ${problem}\n template ${JSON.stringify(c.template)}\n context ${JSON.stringify(c.context)}`);
      });
    }
  });
}

describe('corpus integrity', () => {
  it(`has at least ${MIN_CASES} cases`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(MIN_CASES);
  });

  const probe = spawnSync('python3', ['-c', 'import jinja2'], { encoding: 'utf8' });
  const haveJinja = probe.status === 0;
  if (!haveJinja) {
    const why = probe.error ? probe.error.message : (probe.stderr || 'import failed').trim();
    console.log(`skipping the Jinja2 re-check of the corpus: python3 -c 'import jinja2' failed (${why})`);
  }
  it.skipIf(!haveJinja)('matches Python Jinja2 (scripts/jinja-reference.py --check)', () => {
    const run = spawnSync('python3', [join(REPO_ROOT, 'scripts', 'jinja-reference.py'), '--check'], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/ 0 mismatches, 0 invalid/);
  });
});
