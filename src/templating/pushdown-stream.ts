// The output of a pushed-down list render (pushdown.ts): the text before the loop, each chunk of rows as the
// database wrote it, the text after. The next chunk is read while the one before is handed on. A chunk holding a row
// whose text PostgreSQL cannot write exactly as the engine would is rendered by the engine instead.
import type { Row } from '../core/crud/serialize.ts';
import { TemplateError } from './engine/index.ts';

/** One chunk's rows: their keyset columns, their text and whether it is exact. */
export interface PushdownRow extends Row {
  id: string;
  line: string;
  exact: boolean;
}

export interface PushdownSource {
  before: string;
  after: string;
  /** Up to `limit` rows after `after` (from the start when null), in list order. */
  read(after: Row | null, limit: number): Promise<PushdownRow[]>;
  /** The first chunk, when its read was started already (beside the count). */
  first?: Promise<PushdownRow[]>;
  /** The engine's text of the loop's body for these rows, in this order. */
  renderByEngine(ids: string[]): Promise<string>;
  chunkRows: number;
  /** Rows the render may take at most. */
  cap: number;
}

export interface PushdownLimits {
  timeBudgetMs?: number;
  signal?: AbortSignal;
}

export async function* pushdownStream(source: PushdownSource, limits: PushdownLimits): AsyncGenerator<string> {
  const deadline = limits.timeBudgetMs === undefined ? Infinity : Date.now() + limits.timeBudgetMs;
  // As the engine says it (engine/index.ts), so a client and the log read the same either way.
  const check = () => {
    if (limits.signal?.aborted) throw new TemplateError('cancelled', 'render cancelled');
    if (Date.now() > deadline) throw new TemplateError('timeout', `render exceeded its time budget of ${limits.timeBudgetMs} ms`);
  };
  check();
  if (source.before) yield source.before;
  let taken = 0;
  let next: Promise<PushdownRow[]> | null = source.first ?? source.read(null, Math.min(source.chunkRows, source.cap));
  while (next) {
    const rows: PushdownRow[] = await next;
    check();
    taken += rows.length;
    const more: boolean = rows.length === source.chunkRows && taken < source.cap;
    next = more ? source.read(rows[rows.length - 1]!, Math.min(source.chunkRows, source.cap - taken)) : null;
    // Settled here if this generator stops before awaiting it (a client gone, a budget spent).
    next?.catch(() => undefined);
    if (rows.length === 0) break;
    let exact = true;
    for (let i = 0; i < rows.length && exact; i++) exact = rows[i]!.exact;
    if (exact) {
      let text = '';
      for (let i = 0; i < rows.length; i++) text += rows[i]!.line;
      if (text) yield text;
    } else {
      const text = await source.renderByEngine(rows.map((r) => r.id));
      check();
      if (text) yield text;
    }
  }
  if (source.after) yield source.after;
}
