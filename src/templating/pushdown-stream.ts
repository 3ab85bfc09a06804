// The output of a pushed-down list render (pushdown.ts): the text before the loop, each chunk of rows as the
// database wrote it, the text after. The next chunk is read while the one before is handed on. A chunk holding a row
// whose text PostgreSQL cannot write exactly as the engine would is rendered by the engine instead.
import type { Row } from '../core/crud/serialize.ts';
import { TemplateError } from './engine/index.ts';

/** One chunk as the database wrote it: its rows' text, joined, and what the stream needs to go on. */
export interface PushdownChunk {
  /** The rows' text in list order. */
  text: string;
  /** Rows in the chunk. */
  count: number;
  /** The last row's keyset columns, to read the next chunk after it; null for an empty chunk. */
  last: Row | null;
  /** The rows' ids in list order when some row's text is not exactly the engine's (null when all are). */
  inexactIds: string[] | null;
}

export interface PushdownSource {
  before: string;
  after: string;
  /** Up to `limit` rows after `after` (from the start when null), in list order. */
  read(after: Row | null, limit: number): Promise<PushdownChunk>;
  /** The first chunk, when its read was started already (beside the count). */
  first?: Promise<PushdownChunk>;
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
  let next: Promise<PushdownChunk> | null = source.first ?? source.read(null, Math.min(source.chunkRows, source.cap));
  while (next) {
    const chunk: PushdownChunk = await next;
    check();
    taken += chunk.count;
    const more: boolean = chunk.count === source.chunkRows && taken < source.cap && chunk.last !== null;
    next = more ? source.read(chunk.last, Math.min(source.chunkRows, source.cap - taken)) : null;
    // Settled here if this generator stops before awaiting it (a client gone, a budget spent).
    next?.catch(() => undefined);
    if (chunk.count === 0) break;
    const text = chunk.inexactIds ? await source.renderByEngine(chunk.inexactIds) : chunk.text;
    check();
    if (text) yield text;
  }
  if (source.after) yield source.after;
}
