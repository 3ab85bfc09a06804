// Names for the SQL texts a process sends again and again (a list page's count, its page, the brief loads of its
// relations), so PostgreSQL parses and plans each once per connection instead of once per request: measured
// under the load benchmark, planning was a quarter of the server's time. node-postgres prepares a named
// statement on its first use on a connection and only binds and runs it afterwards.
import { createHash } from 'node:crypto';

/** A text is named once it has been sent this many times: one-off statements stay unnamed. */
const SEEN_BEFORE_NAMING = 3;
/** Named statements per process (each connection prepares at most these); beyond, texts stay unnamed. */
const MAX_NAMED = 400;
/** Texts counted while deciding; the count starts over past this, so one-off texts cannot grow it forever. */
const MAX_COUNTED = 5000;

/**
 * Pattern matches stay unnamed: how many rows `LIKE '%ams1-leaf%'` selects depends on the pattern, and after five
 * runs PostgreSQL may settle on a generic plan that cannot know it. Measured: global search took 15 ms a call
 * under load on a generic plan that read the tenant's whole index, 4 ms on the trigram index a custom plan picks.
 */
const PATTERN_MATCH = /\b(I?LIKE|SIMILAR TO)\b|\s%\s|~\*?\s/i;

export class StatementNames {
  private readonly seen = new Map<string, number>();
  private readonly names = new Map<string, string>();
  /** Part of every name: bumped when the names are given up, so no connection reuses one it prepared before. */
  private generation = 0;

  forgetAll(): void {
    this.names.clear();
    this.seen.clear();
    this.generation++;
  }

  /** The name to send `text` under, or undefined to send it unnamed. */
  nameOf(text: string): string | undefined {
    if (PATTERN_MATCH.test(text)) return undefined;
    const named = this.names.get(text);
    if (named !== undefined || this.names.size >= MAX_NAMED) return named;
    const times = (this.seen.get(text) ?? 0) + 1;
    if (times < SEEN_BEFORE_NAMING) {
      if (this.seen.size >= MAX_COUNTED) this.seen.clear();
      this.seen.set(text, times);
      return undefined;
    }
    this.seen.delete(text);
    const name = `c${this.generation}_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    this.names.set(text, name);
    return name;
  }
}

/**
 * A prepared statement PostgreSQL refuses to run again: after DDL changed the columns a `SELECT *` returns
 * ("cached plan must not change result type"). Sent again unnamed, it runs.
 */
export function isStalePlan(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '0A000' && /cached plan must not change result type/.test(String((err as { message?: unknown }).message));
}
