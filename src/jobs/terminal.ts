// Long CLI commands (demo-data, rebuild) print their progress and keep their job record in step, so
// /api/jobs/ shows what the terminal shows. On the embedded database nothing else can read the record while a
// command holds the data directory, and a load's own transaction holds the only connection: the record is
// updated between steps there, live on PostgreSQL.
import type { Database } from '../db/database.ts';
import { reportJobProgress } from './record.ts';

export interface TerminalProgress {
  /** Prints a line and counts it as one step done. */
  line(text: string): void;
  /** Steps done so far, with an optional new total (recorded at once). */
  step(done: number, total?: number): Promise<void>;
  /** Waits for the record to catch up with the lines printed. */
  flush(): Promise<void>;
}

export function terminalProgress(database: Database, jobId: string, print: (text: string) => void = (t) => console.log(t)): TerminalProgress {
  let lines = 0;
  let chain: Promise<void> = Promise.resolve();
  const live = database.backend === 'postgres';
  const record = (done: number, total?: number) => {
    // In order, one at a time: a later count must not be overwritten by an earlier one finishing last.
    chain = chain.then(() => reportJobProgress(database.db, jobId, done, total)).catch(() => undefined);
    return chain;
  };
  return {
    line(text) {
      print(text);
      lines++;
      if (live) void record(lines);
    },
    step: (done, total) => record(done, total),
    flush: () => chain,
  };
}
