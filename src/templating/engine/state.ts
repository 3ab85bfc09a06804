// Per-render state: limits, the wall-clock budget, cancellation, recursion depth and the output sink.
import { TemplateError, limitError } from './errors.ts';
import type { Kwargs } from './values.ts';
import { PyRandom } from './py-random.ts';

/** How the sandbox behaves beyond its limits (see EnvironmentOptions). */
export interface SandboxMode {
  immutable: boolean;
  randomSeed: number | null;
}

export interface Limits {
  maxOutputBytes: number;
  timeBudgetMs: number;
  maxRecursionDepth: number;
  maxRangeItems: number;
}

/** Internal filter signature: built-ins bind their parameters themselves (see bind.ts). */
export type FilterImpl = (state: RenderState, value: unknown, args: unknown[], kwargs: Kwargs) => unknown;
export type TestImpl = (state: RenderState, value: unknown, args: unknown[], kwargs: Kwargs) => unknown;

export interface Registry {
  readonly filters: Map<string, FilterImpl>;
  readonly tests: Map<string, TestImpl>;
}

// How many units of work (loop iterations, items a filter walks) pass between two looks at the clock.
const CHECK_EVERY = 1024;
// A synchronous render longer than this gives the event loop a turn, so AbortSignal and timers can fire.
const YIELD_AFTER_MS = 25;
const PIECES_PER_CHUNK = 2048;

export class RenderState {
  ticks = 0;
  depth = 0;
  private nextCheck = CHECK_EVERY;
  private readonly deadline: number;
  private lastYield: number;

  private rng: PyRandom | null = null;

  constructor(
    readonly registry: Registry,
    readonly limits: Limits,
    readonly signal: AbortSignal | undefined,
    readonly templateName: string | undefined,
    readonly sandbox: SandboxMode = { immutable: false, randomSeed: null },
  ) {
    const now = Date.now();
    this.deadline = now + limits.timeBudgetMs;
    this.lastYield = now;
  }

  /** Cheap per-iteration hook: every TICK_MASK+1 calls it checks budget and signal; may return a yield Promise. */
  tick(): Promise<void> | undefined {
    if (++this.ticks < this.nextCheck) return undefined;
    this.nextCheck = this.ticks + CHECK_EVERY;
    return this.check();
  }

  /** Accounts for `n` units of synchronous work (a filter walking a list): checks budget and signal when due. */
  work(n: number): void {
    this.ticks += n;
    if (this.ticks >= this.nextCheck) {
      this.nextCheck = this.ticks + CHECK_EVERY;
      void this.check();
    }
  }

  check(): Promise<void> | undefined {
    if (this.signal?.aborted) throw new TemplateError('cancelled', 'render cancelled');
    const now = Date.now();
    if (now > this.deadline)
      throw new TemplateError('timeout', `render exceeded its time budget of ${this.limits.timeBudgetMs} ms`);
    if (now - this.lastYield > YIELD_AFTER_MS) {
      this.lastYield = now;
      return new Promise((resolve) => setImmediate(resolve));
    }
    return undefined;
  }

  /**
   * An index in [0, length) for the `random` filter: Python's random.choice after random.seed(seed) when the
   * environment is seeded (the same picks as Python's Jinja2, render after render), else Math.random.
   */
  randomIndex(length: number): number {
    if (this.sandbox.randomSeed === null) return Math.floor(Math.random() * length);
    return (this.rng ??= new PyRandom(this.sandbox.randomSeed)).choiceIndex(length);
  }

  /** Guards string building (repetition, padding) against the output cap before the memory is spent. */
  checkSize(n: number): void {
    if (n > this.limits.maxOutputBytes)
      throw limitError(`result of ${n} characters exceeds the output limit of ${this.limits.maxOutputBytes}`);
  }
}

/**
 * Output buffer. The main output of renderStream has a chunk size: when that much is pending, `wantFlush` is set
 * and loops hand the chunk to the consumer (awaiting it, which gives backpressure). Captures (macros, set blocks,
 * filter blocks) never flush. Sizes are counted in UTF-16 code units (= bytes for ASCII output).
 */
export class Out {
  // Pieces are collected in an array and joined every PIECES_PER_CHUNK writes: appending to one growing string
  // allocates a rope node per write that lives until the end, which made the garbage collector the hot spot. The
  // array is filled by index and reused, not emptied and grown again for every join (it grows only for the first
  // PIECES_PER_CHUNK pieces, so a capture of a few pieces stays small).
  private readonly parts: string[] = [];
  private count = 0;
  private joined: string[] = [];
  size = 0;
  wantFlush = false;
  private pending = 0;

  constructor(
    private readonly limit: number,
    private readonly chunk: number = Infinity,
    private readonly sink?: (chunk: string) => Promise<void>,
  ) {}

  write(s: string): void {
    const n = s.length;
    if (n === 0) return;
    this.parts[this.count++] = s;
    if (this.count === PIECES_PER_CHUNK) {
      this.joined.push(this.parts.join(''));
      this.count = 0;
    }
    this.size += n;
    if (this.size > this.limit) throw limitError(`output exceeds the limit of ${this.limit} bytes`);
    if ((this.pending += n) >= this.chunk) this.wantFlush = true;
  }

  /** write(a); write(b); write(c) in one call: a print with the text around it. */
  write3(a: string, b: string, c: string): void {
    const n = a.length + b.length + c.length;
    if (n === 0) return;
    let count = this.count;
    const parts = this.parts;
    // The array never grows past PIECES_PER_CHUNK (write joins it whole): near the end, join what is there first.
    if (count > PIECES_PER_CHUNK - 3) {
      this.joined.push(parts.slice(0, count).join(''));
      count = 0;
    }
    if (a.length !== 0) parts[count++] = a;
    if (b.length !== 0) parts[count++] = b;
    if (c.length !== 0) parts[count++] = c;
    if (count === PIECES_PER_CHUNK) {
      this.joined.push(parts.join(''));
      count = 0;
    }
    this.count = count;
    this.size += n;
    if (this.size > this.limit) throw limitError(`output exceeds the limit of ${this.limit} bytes`);
    if ((this.pending += n) >= this.chunk) this.wantFlush = true;
  }

  take(): string {
    if (this.count) this.joined.push(this.parts.slice(0, this.count).join(''));
    const s = this.joined.length === 1 ? this.joined[0]! : this.joined.join('');
    this.count = 0;
    this.joined = [];
    this.pending = 0;
    this.wantFlush = false;
    return s;
  }

  flush(): Promise<void> {
    const s = this.take();
    return this.sink ? this.sink(s) : Promise.resolve();
  }
}
