// The budget of one render request: the bytes it may produce and the time it may take, all its renders together
// (one list export, or every file of every device of a multi-device render). Past either, the render stops; what
// the client then gets is a 4xx when nothing was sent yet, or a cut-off transfer (see routes.ts), never a file
// that looks whole. Set from the configuration at start (CAIRN_RENDER_MAX_BYTES, CAIRN_RENDER_TIME_BUDGET_MS).
import { RENDER_DEFAULTS } from '../config.ts';
import { TemplateError } from './engine/index.ts';

/** The configured limits; an object so the app sets it at start and tests can lower it. */
export const renderBudgetLimits: { maxBytes: number; timeBudgetMs: number } = { ...RENDER_DEFAULTS };

export function configureRenderBudget(limits: { maxBytes: number; timeBudgetMs: number }): void {
  renderBudgetLimits.maxBytes = limits.maxBytes;
  renderBudgetLimits.timeBudgetMs = limits.timeBudgetMs;
}

/** One request's budget, started when the request starts rendering. */
export class RenderBudget {
  readonly maxBytes: number;
  readonly timeBudgetMs: number;
  private readonly deadline: number;
  private used = 0;

  constructor(limits = renderBudgetLimits) {
    this.maxBytes = limits.maxBytes;
    this.timeBudgetMs = limits.timeBudgetMs;
    this.deadline = Date.now() + limits.timeBudgetMs;
  }

  /**
   * The engine limits for the next render: what is left of both. The engine counts output in UTF-16 units, never
   * more than the UTF-8 bytes, so its cap holds memory to the budget and `spend` checks the bytes exactly.
   */
  renderOptions(signal?: AbortSignal): { maxOutputBytes: number; timeBudgetMs: number; signal?: AbortSignal } {
    const timeLeft = this.deadline - Date.now();
    if (timeLeft <= 0) throw this.timeError();
    return { maxOutputBytes: Math.max(0, this.maxBytes - this.used), timeBudgetMs: timeLeft, ...(signal ? { signal } : {}) };
  }

  /** Counts `bytes` more output; throws the limit error once the total is past the cap. */
  spend(bytes: number): void {
    this.used += bytes;
    if (this.used > this.maxBytes) throw new TemplateError('limit', `output exceeds the limit of ${this.maxBytes} bytes for one render request (CAIRN_RENDER_MAX_BYTES)`);
  }

  get bytesUsed(): number {
    return this.used;
  }

  /** Whether an error of a render ends the whole request rather than one device's files. */
  isRequestWide(err: TemplateError): boolean {
    return err.kind === 'timeout' || err.kind === 'cancelled' || (err.kind === 'limit' && /output (exceeds the )?limit/.test(err.message));
  }

  private timeError(): TemplateError {
    return new TemplateError('timeout', `the render request exceeded its time budget of ${this.timeBudgetMs} ms (CAIRN_RENDER_TIME_BUDGET_MS)`);
  }
}
