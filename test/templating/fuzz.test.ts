// Fuzzing the template engine with at least 10,000 random and mutated templates (deterministic: a seeded
// PRNG, see fuzz-cases.ts). Every template must either render or fail with a TemplateError; none may throw
// a raw JavaScript error, run past its time budget (plus a generous margin), crash the process, or escape
// the sandbox (outputs are searched for the pid and JavaScript internals).
//
// The cases run in a child process (fuzz-runner.ts) under a watchdog: a template that blocks the event loop
// (a synchronous infinite loop in the engine) cannot be stopped from inside, so the parent kills the child,
// records the case as a hang, and restarts after it. A crash (for example out of memory) is recorded the
// same way.
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildFuzzCases, type FuzzCase } from './fuzz-cases.ts';
import type { RunnerMsg } from './fuzz-runner.ts';
import { REPO_ROOT } from './corpus-cases.ts';

const SEED = 0x5eed_c41e;
const TOTAL = 15_000;
const BUDGET_MS = 200;
const MARGIN_MS = 2_000;
/**
 * Silence from the child for this long while a case runs means the case hangs. Generous: the engine's own
 * budget is checked in CPU time by the runner, and a loaded CI machine can stall a healthy child for seconds.
 */
const WATCHDOG_MS = BUDGET_MS + MARGIN_MS + 30_000;

interface Finding {
  id: number;
  problem: string;
  detail: string;
}

const findings: Finding[] = [];
let processed = 0;
let rendered = 0;
let failedCleanly = 0;
let wallMs = 0;
const cases: FuzzCase[] = buildFuzzCases(SEED, TOTAL);

function runFrom(from: number): Promise<number | 'done'> {
  return new Promise((resolve) => {
    const child = fork(join(REPO_ROOT, 'test', 'templating', 'fuzz-runner.ts'), [String(SEED), String(TOTAL), String(from), String(BUDGET_MS), String(MARGIN_MS)], {
      execArgv: ['--import', 'tsx', '--max-old-space-size=1536', '--stack-size=984'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      cwd: REPO_ROOT,
    });
    let current = from - 1;
    let startedAt = Date.now();
    let finished = false;
    let stderr = '';
    child.stderr?.on('data', (b: Buffer) => {
      stderr = (stderr + b.toString()).slice(-4000);
    });
    const timer = setInterval(() => {
      if (Date.now() - startedAt > WATCHDOG_MS) {
        finished = true;
        clearInterval(timer);
        findings.push({ id: current, problem: 'hang', detail: `no progress for ${WATCHDOG_MS} ms; child killed` });
        child.kill('SIGKILL');
        resolve(current + 1);
      }
    }, 250);
    child.on('message', (raw: unknown) => {
      const msg = raw as RunnerMsg;
      if (msg.t === 'start') {
        current = msg.id;
        startedAt = Date.now();
        processed += 1;
      } else if (msg.t === 'end') {
        if (msg.ok) rendered += 1;
        else failedCleanly += 1;
      } else if (msg.t === 'problem') {
        findings.push({ id: msg.id, problem: msg.problem, detail: msg.detail });
      } else if (msg.t === 'done') {
        finished = true;
        clearInterval(timer);
        resolve('done');
      }
    });
    child.on('exit', (code, signal) => {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      if (current < from) {
        // The runner died before its first case: it could not even start (import failure and the like).
        findings.push({ id: -1, problem: 'runner-failed', detail: `exit ${code ?? signal}: ${stderr.trim()}` });
        resolve('done');
        return;
      }
      findings.push({ id: current, problem: 'crash', detail: `child exited (${code ?? signal}) during the case: ${stderr.trim().slice(-800)}` });
      resolve(current + 1);
    });
  });
}

function show(list: Finding[], limit = 25): string {
  return list
    .slice(0, limit)
    .map((f) => {
      const c = cases[f.id];
      const t = c ? JSON.stringify(c.template.length > 240 ? `${c.template.slice(0, 240)}…` : c.template) : '(none)';
      return `#${f.id} [${c?.family ?? '?'}] ${f.problem}: ${f.detail}\n    template ${t}`;
    })
    .join('\n') + (list.length > limit ? `\n… and ${list.length - limit} more` : '');
}

describe('template engine fuzzing', () => {
  beforeAll(async () => {
    const t0 = Date.now();
    let next: number | 'done' = 0;
    let restarts = 0;
    while (next !== 'done' && restarts < 200) {
      next = await runFrom(next);
      if (next !== 'done') restarts += 1;
      if (typeof next === 'number' && next >= cases.length) next = 'done';
    }
    wallMs = Date.now() - t0;
    console.log(
      `fuzz: ${processed} templates in ${(wallMs / 1000).toFixed(1)} s: ${rendered} rendered, ${failedCleanly} failed with a ` +
        `TemplateError (${restarts} hung or crashed); ${findings.length} findings`,
    );
    if (findings.length) console.log(show(findings, 60));
  }, 300_000);

  it(`generates at least 10,000 deterministic templates`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(10_000);
    const again = buildFuzzCases(SEED, 400).map((c) => c.template);
    expect(again.slice(0, 400)).toEqual(cases.slice(0, 400).map((c) => c.template));
  });

  it('runs every template', () => {
    const runnerFailed = findings.filter((f) => f.problem === 'runner-failed');
    expect(runnerFailed, show(runnerFailed)).toEqual([]);
    expect(processed).toBeGreaterThanOrEqual(10_000);
  });

  it('every template renders or fails with a TemplateError (no raw JavaScript error)', () => {
    const bad = findings.filter((f) => f.problem === 'raw-error' || f.problem === 'not-a-string');
    expect(bad, show(bad)).toEqual([]);
  });

  it('no engine-internal JavaScript error hides behind a "runtime" TemplateError', () => {
    const bad = findings.filter((f) => f.problem === 'wrapped-internal-error');
    expect(bad, show(bad)).toEqual([]);
  });

  it(`no template runs past its budget (${BUDGET_MS} ms + ${MARGIN_MS} ms), hangs or crashes the process`, () => {
    const bad = findings.filter((f) => f.problem === 'slow' || f.problem === 'hang' || f.problem === 'crash');
    expect(bad, show(bad)).toEqual([]);
  });

  it('no template escapes the sandbox (no pid, process object or JavaScript internals in the output)', () => {
    const bad = findings.filter((f) => f.problem === 'escape');
    expect(bad, show(bad)).toEqual([]);
  });
});
