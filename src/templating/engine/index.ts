// Public API of Cairn's template engine: a sandboxed, async-capable implementation of the Jinja2 3.1 language.
//
// Values: context data is plain JSON-like data. JS objects are Python dicts (own enumerable keys only, in
// insertion order; the prototype chain is never read), arrays are lists, null is None. A JS number that is an
// integer is an int; JSON cannot tell 1.0 from 1, so pass `new PyFloat(1)` when a float must print as "1.0".
// Floats computed inside templates (`{{ 4 / 2 }}`) print exactly as Python does.
// Host objects implement TemplateObject (below); the engine only ever calls its protocol methods.
// `UNDEFINED` is the sentinel a host object returns for a missing attribute or item (JS `undefined` works too).
//
// Error kinds (TemplateError.kind) compared with Python Jinja2, for the compatibility corpus:
//   'syntax'      TemplateSyntaxError and TemplateAssertionError (unknown filter or test, detected at compile time)
//   'undefined'   UndefinedError
//   'type'        TypeError, ValueError, ZeroDivisionError, KeyError, IndexError, AttributeError and
//                 TemplateRuntimeError raised by operators, built-in filters, tests and methods
//   'security'    SecurityError (calling a blocked attribute); also mutating data the template did not build
//   'limit'       the sandboxed range() (Jinja2: OverflowError), output cap, recursion depth, size caps
//   'timeout' / 'cancelled'  the wall-clock budget / the AbortSignal
//   'runtime'     an exception thrown by a registered filter, test, global function or host object
//   'unavailable' include / import / from / extends (a template is one source)
import { Compiler } from './compiler.ts';
import { TemplateError, TemplateSyntaxError, toTemplateError } from './errors.ts';
import { addressFilters, addressTests } from './address.ts';
import { builtinFilters } from './filters.ts';
import { builtinGlobals } from './globals.ts';
import { tokenize } from './lexer.ts';
import { NativeFunction, fromHost, hostError } from './ops.ts';
import { parse } from './parser.ts';
import { type Ex, Frame } from './runtime.ts';
import { type AttributeReads, attributeReads } from './reads.ts';
import type { Stmt } from './ast.ts';
import { type FilterImpl, type Limits, Out, RenderState, type TestImpl } from './state.ts';
import { builtinTests } from './tests.ts';
import { type Kwargs, Undefined } from './values.ts';

export { TemplateError, TemplateSyntaxError } from './errors.ts';
export type { TemplateErrorKind } from './errors.ts';
export { TEMPLATE_OBJECT, UNDEFINED, PyFloat, Markup, isTemplateObject } from './values.ts';
export type { ItemReads, TemplateObject } from './values.ts';
export type { AttributeReads } from './reads.ts';

export interface EnvironmentOptions {
  trimBlocks?: boolean;
  lstripBlocks?: boolean;
  keepTrailingNewline?: boolean;
  /** Output cap, default 64 MiB (counted in UTF-16 code units, i.e. bytes for ASCII output). */
  maxOutputBytes?: number;
  /** Wall-clock budget per render, default 30 s. */
  timeBudgetMs?: number;
  /** Macro call and recursive-loop depth, default 100. */
  maxRecursionDepth?: number;
  /** Largest range(), default 100,000 (Jinja2's sandbox MAX_RANGE). */
  maxRangeItems?: number;
  /**
   * Jinja2's ImmutableSandboxedEnvironment: the mutation methods of lists, dicts and sets (append, update, pop…)
   * are refused even on values the template built. Default false: like Jinja2's SandboxedEnvironment, a template
   * may change what it built (never the data it was given).
   */
  immutable?: boolean;
  /** Seeds the `random` filter as Python's random.seed(n) does before a render: the same picks as Python's Jinja2. */
  randomSeed?: number | null;
}

/**
 * A registered filter: called as fn(value, ...args), plus a trailing plain object of keyword arguments when the
 * template passed any. May return a Promise. Throwing fails the render with kind 'runtime'.
 */
export type FilterFunction = (value: unknown, ...args: unknown[]) => unknown;
/** A registered test: same calling convention as filters; the result is read for truthiness. */
export type TestFunction = (value: unknown, ...args: unknown[]) => unknown;

export interface RenderOptions {
  signal?: AbortSignal;
  /** This render's output cap, when lower than the environment's (what is left of a request's budget). */
  maxOutputBytes?: number;
  /** This render's wall-clock budget, when lower than the environment's. */
  timeBudgetMs?: number;
  /** Seeds this render's `random` filter (see EnvironmentOptions.randomSeed), over the environment's seed. */
  randomSeed?: number;
}

/** The environment's limits, lowered where the render options ask for less. */
function limitsOf(options: Required<EnvironmentOptions>, opts: RenderOptions): Limits {
  return {
    maxOutputBytes: Math.min(options.maxOutputBytes, opts.maxOutputBytes ?? Infinity),
    timeBudgetMs: Math.min(options.timeBudgetMs, opts.timeBudgetMs ?? Infinity),
    maxRecursionDepth: options.maxRecursionDepth,
    maxRangeItems: options.maxRangeItems,
  };
}

const STREAM_CHUNK = 16 * 1024;

function callUser(fn: (...a: unknown[]) => unknown, head: unknown[], args: unknown[], kwargs: Kwargs): unknown {
  const all = Object.keys(kwargs).length ? [...head, ...args, { ...kwargs }] : [...head, ...args];
  let r: unknown;
  try {
    r = fn(...all);
  } catch (err) {
    throw hostError(err);
  }
  if (r instanceof Promise) return r.then((x: unknown) => fromHost(x, () => 'registered function returned nothing'), (e: unknown) => Promise.reject(hostError(e)));
  return fromHost(r, () => 'registered function returned nothing');
}

export class Environment {
  readonly options: Required<EnvironmentOptions>;
  readonly filters: Map<string, FilterImpl> = builtinFilters();
  readonly tests: Map<string, TestImpl> = builtinTests();
  readonly globals: Map<string, unknown> = builtinGlobals();

  constructor(options: EnvironmentOptions = {}) {
    this.options = {
      trimBlocks: options.trimBlocks ?? false,
      lstripBlocks: options.lstripBlocks ?? false,
      keepTrailingNewline: options.keepTrailingNewline ?? false,
      maxOutputBytes: options.maxOutputBytes ?? 64 * 1024 * 1024,
      timeBudgetMs: options.timeBudgetMs ?? 30_000,
      maxRecursionDepth: options.maxRecursionDepth ?? 100,
      maxRangeItems: options.maxRangeItems ?? 100_000,
      immutable: options.immutable ?? false,
      randomSeed: options.randomSeed ?? null,
    };
  }

  addFilter(name: string, fn: FilterFunction): void {
    this.filters.set(name, (_state, value, args, kwargs) => callUser(fn, [value], args, kwargs));
  }

  addTest(name: string, fn: TestFunction): void {
    this.tests.set(name, (_state, value, args, kwargs) => callUser(fn, [value], args, kwargs));
  }

  /** Registers a global. A JS function becomes callable from templates as fn(...args[, kwargs]). */
  addGlobal(name: string, value: unknown): void {
    if (typeof value === 'function') {
      const fn = value as (...a: unknown[]) => unknown;
      this.globals.set(name, new NativeFunction(name, (args, kwargs) => callUser(fn, [], args, kwargs)));
    } else this.globals.set(name, value);
  }

  /** Internal registration of an engine-level filter (used for Cairn's address filters). */
  registerFilterImpl(name: string, impl: FilterImpl): void {
    this.filters.set(name, impl);
  }
  registerTestImpl(name: string, impl: TestImpl): void {
    this.tests.set(name, impl);
  }

  compile(source: string, name?: string): Template {
    try {
      const tokens = tokenize(source, this.options, name);
      const ast = parse(tokens, name);
      const body = new Compiler({ filters: this.filters, tests: this.tests }, name).compileBody(ast);
      return new Template(this, body, name, ast);
    } catch (err) {
      if (err instanceof TemplateSyntaxError) throw err;
      const te = toTemplateError(err);
      throw new TemplateSyntaxError(
        te.kind === 'limit' ? 'template is nested too deeply to compile' : te.message,
        te.lineno ?? 1,
        te.column ?? 1,
        name,
      );
    }
  }
}

/** An Environment with Cairn's address filters (host, cidr, prefixlen, netmask, wildcard, network) and tests. */
export function createEnvironment(options?: EnvironmentOptions): Environment {
  const env = new Environment(options);
  for (const [n, f] of addressFilters()) env.registerFilterImpl(n, f);
  for (const [n, t] of addressTests()) env.registerTestImpl(n, t);
  return env;
}

export class Template {
  private readsFound: AttributeReads | null = null;

  constructor(
    private readonly env: Environment,
    private readonly body: Ex,
    readonly name: string | undefined,
    private readonly ast: readonly Stmt[],
  ) {}

  /** The parsed source, for callers that plan work from it (pushdown.ts); not to be changed. */
  statements(): readonly Stmt[] {
    return this.ast;
  }

  /** What the source says about the attributes it reads (see reads.ts), worked out on first ask. */
  reads(): AttributeReads {
    return (this.readsFound ??= attributeReads(this.ast));
  }

  async render(context: Record<string, unknown> = {}, opts: RenderOptions = {}): Promise<string> {
    const out = new Out(limitsOf(this.env.options, opts).maxOutputBytes);
    await this.run(context, opts, out);
    return out.take();
  }

  async *renderStream(context: Record<string, unknown> = {}, opts: RenderOptions = {}): AsyncIterable<string> {
    const queue: string[] = [];
    // Hand-off between the producer (the render) and this consumer; resume gives backpressure.
    const ctl: { wake: (() => void) | null; resume: (() => void) | null; done: boolean; abandoned: boolean; failure: unknown } =
      { wake: null, resume: null, done: false, abandoned: false, failure: null };
    const wakeUp = (): void => {
      const w = ctl.wake;
      ctl.wake = null;
      w?.();
    };
    const sink = (chunk: string): Promise<void> => {
      if (ctl.abandoned) return Promise.reject(new TemplateError('cancelled', 'stream consumer stopped'));
      queue.push(chunk);
      wakeUp();
      return new Promise<void>((res) => {
        ctl.resume = res;
      });
    };
    const out = new Out(limitsOf(this.env.options, opts).maxOutputBytes, STREAM_CHUNK, sink);
    this.run(context, opts, out).then(
      () => {
        const rest = out.take();
        if (rest) queue.push(rest);
        ctl.done = true;
        wakeUp();
      },
      (err: unknown) => {
        ctl.failure = err;
        ctl.done = true;
        wakeUp();
      },
    );
    try {
      for (;;) {
        if (queue.length) {
          yield queue.shift() as string;
          continue;
        }
        const r = ctl.resume;
        ctl.resume = null;
        r?.();
        if (ctl.done) break;
        await new Promise<void>((res) => {
          ctl.wake = res;
        });
      }
      if (ctl.failure) throw ctl.failure;
    } finally {
      if (!ctl.done) {
        ctl.abandoned = true;
        const r = ctl.resume;
        ctl.resume = null;
        r?.();
      }
    }
  }

  private run(context: Record<string, unknown>, opts: RenderOptions, out: Out): Promise<void> {
    const limits = limitsOf(this.env.options, opts);
    const state = new RenderState({ filters: this.env.filters, tests: this.env.tests }, limits, opts.signal, this.name, {
      immutable: this.env.options.immutable,
      randomSeed: opts.randomSeed ?? this.env.options.randomSeed,
    });
    const globals = new Frame(null, state);
    for (const [k, v] of this.env.globals) globals.set(k, v);
    const ctxFrame = new Frame(globals, state);
    if (context && typeof context === 'object') {
      for (const k of Object.keys(context)) {
        const v = context[k];
        if (v === undefined) continue;
        ctxFrame.set(k, typeof v === 'function' ? new Undefined(`'${k}' is a function and not available`, 'security') : v);
      }
    }
    const frame = new Frame(ctxFrame, state);
    const name = this.name;
    const work = (async (): Promise<void> => {
      if (opts.signal?.aborted) throw new TemplateError('cancelled', 'render cancelled');
      const r = this.body(frame, out);
      if (r instanceof Promise) await (r as Promise<unknown>);
    })();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const guard = new Promise<never>((_res, reject) => {
      timer = setTimeout(() => reject(new TemplateError('timeout', `render exceeded its time budget of ${limits.timeBudgetMs} ms`)), limits.timeBudgetMs + 50);
      timer.unref?.();
      if (opts.signal) {
        onAbort = () => reject(new TemplateError('cancelled', 'render cancelled'));
        opts.signal.addEventListener('abort', onAbort, { once: true });
      }
    });
    return Promise.race([work, guard])
      .catch((err: unknown) => {
        throw toTemplateError(err, undefined, name);
      })
      .finally(() => {
        clearTimeout(timer);
        if (onAbort) opts.signal?.removeEventListener('abort', onAbort);
      });
  }
}
