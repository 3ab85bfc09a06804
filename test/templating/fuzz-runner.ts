// Child process of test/templating/fuzz.test.ts (run with `node --import tsx`).
//
// Renders the fuzz cases [from, total) one by one and reports over IPC:
//   { t: 'start', id }                        before each case (the parent's watchdog uses it to spot hangs
//                                             that block this process's event loop)
//   { t: 'problem', id, problem, detail }     a case that broke a rule
//   { t: 'end', id, ok }                      after each case: rendered (true) or failed cleanly
//   { t: 'done', count, rendered, errors }    at the end
// Rules checked here: a case renders to a string or fails with a TemplateError; a TemplateError of kind
// 'runtime' wrapping a native JavaScript error is an engine bug in disguise (no host objects are
// registered, so nothing else can throw one); no case takes longer than its budget plus a margin; the
// output never shows JavaScript internals (and, for sandbox probes, never the pid).
import { createEnvironment, TemplateError } from '../../src/templating/engine/index.ts';
import { buildFuzzCases, type FuzzCase } from './fuzz-cases.ts';

export interface StartMsg {
  t: 'start';
  id: number;
}
export interface EndMsg {
  t: 'end';
  id: number;
  /** Rendered (true) or failed with an error (false). */
  ok: boolean;
}
export interface ProblemMsg {
  t: 'problem';
  id: number;
  problem: 'raw-error' | 'wrapped-internal-error' | 'slow' | 'escape' | 'not-a-string';
  detail: string;
}
export interface DoneMsg {
  t: 'done';
  count: number;
  rendered: number;
  errors: number;
}
export type RunnerMsg = StartMsg | EndMsg | ProblemMsg | DoneMsg;

const NATIVE_ERRORS = [TypeError, RangeError, ReferenceError, SyntaxError, EvalError, URIError];

const [seedArg, totalArg, fromArg, budgetArg, marginArg] = process.argv.slice(2);
const seed = Number(seedArg);
const total = Number(totalArg);
const from = Number(fromArg ?? 0);
const budgetMs = Number(budgetArg ?? 200);
const marginMs = Number(marginArg ?? 2000);

function send(msg: RunnerMsg): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) {
      console.log(JSON.stringify(msg));
      resolve();
      return;
    }
    process.send(msg, undefined, {}, () => resolve());
  });
}

function leakMarkers(c: FuzzCase): string[] {
  const markers = ['[native code]', 'Symbol(', '[object ', 'function (', 'function(', '=> {', 'node:internal', '/node_modules/', 'src/templating/'];
  if (c.strictMarkers) markers.push('function', 'process', 'globalThis', 'Object]', 'prototype', 'constructor');
  // A marker that the template itself contains can legitimately be echoed (for example as text).
  return markers.filter((m) => !c.template.includes(m));
}

function checkOutput(c: FuzzCase, out: unknown): string | undefined {
  if (typeof out !== 'string') return `render resolved to ${typeof out}`;
  for (const m of leakMarkers(c)) if (out.includes(m)) return `output contains ${JSON.stringify(m)}: ${out.slice(0, 300)}`;
  if (c.strictMarkers && new RegExp(`\\b${process.pid}\\b`).test(out)) return `output contains the pid ${process.pid}`;
  return undefined;
}

async function runOne(c: FuzzCase): Promise<{ ok: boolean; problem?: Omit<ProblemMsg, 't' | 'id'> }> {
  // CPU time, not wall time: on a loaded machine wall time measures the neighbours, not the engine.
  const started = process.cpuUsage();
  let ok = false;
  let problem: Omit<ProblemMsg, 't' | 'id'> | undefined;
  try {
    const env = createEnvironment({ timeBudgetMs: budgetMs, maxOutputBytes: 1_000_000 });
    const out: unknown = await env.compile(c.template).render(structuredClone(c.context));
    ok = true;
    const bad = checkOutput(c, out);
    if (bad !== undefined) problem = { problem: typeof out === 'string' ? 'escape' : 'not-a-string', detail: bad };
  } catch (err: unknown) {
    if (!(err instanceof TemplateError)) {
      const e = err instanceof Error ? `${err.name}: ${err.message}\n${(err.stack ?? '').split('\n').slice(1, 4).join('\n')}` : String(err);
      problem = { problem: 'raw-error', detail: e };
    } else {
      const cause: unknown = err.cause;
      if (err.kind === 'runtime' && NATIVE_ERRORS.some((k) => cause instanceof k) && cause instanceof Error) {
        const where = (cause.stack ?? '').split('\n').slice(1, 3).join(' | ');
        problem = { problem: 'wrapped-internal-error', detail: `${cause.name}: ${cause.message} ${where}` };
      } else {
        const leak = checkOutput(c, err.message);
        if (leak !== undefined && c.strictMarkers) problem = { problem: 'escape', detail: `error message: ${leak}` };
      }
    }
  }
  const cpu = process.cpuUsage(started);
  const elapsed = (cpu.user + cpu.system) / 1000;
  if (problem === undefined && elapsed > budgetMs + marginMs)
    problem = { problem: 'slow', detail: `used ${Math.round(elapsed)} ms of CPU (budget ${budgetMs} ms)` };
  return { ok, problem };
}

const cases = buildFuzzCases(seed, total);
let rendered = 0;
let errors = 0;
for (let i = from; i < cases.length; i++) {
  const c = cases[i] as FuzzCase;
  await send({ t: 'start', id: c.id });
  const r = await runOne(c);
  if (r.ok) rendered += 1;
  else errors += 1;
  if (r.problem) await send({ t: 'problem', id: c.id, ...r.problem });
  await send({ t: 'end', id: c.id, ok: r.ok });
}
await send({ t: 'done', count: cases.length - from, rendered, errors });
process.exit(0);
