// Runs a piece of work under a job record: created running, finished with a one-line summary or the error.
// For work that runs right where it is asked for (a schedule firing, a CLI command, a synchronous API call);
// queued work calls record.ts itself at each edge.
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { createJob, finishJob, reportJobProgress, type NewJob } from './record.ts';

export interface JobHandle {
  id: string;
  progress(done: number, total?: number): Promise<void>;
}

export async function runRecordedJob<T>(
  db: Kysely<DB>,
  job: Omit<NewJob, 'status'>,
  work: (handle: JobHandle) => Promise<T>,
  summarize: (value: T) => string,
): Promise<T> {
  const id = await createJob(db, { ...job, status: 'running' });
  const handle: JobHandle = { id, progress: (done, total) => reportJobProgress(db, id, done, total) };
  let value: T;
  try {
    value = await work(handle);
  } catch (err) {
    // The record must not hide the real failure: a second error while recording it is dropped.
    await finishJob(db, id, { status: 'failed', error: (err as Error).message }).catch(() => undefined);
    throw err;
  }
  await finishJob(db, id, { status: 'succeeded', result: summarize(value) });
  return value;
}
