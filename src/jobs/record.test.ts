// The job record contract (src/jobs/record.ts) that every producer codes against.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { createJob, finishJob, jobCancelRequested, markJobRunning, reportJobProgress, JOB_TEXT_LIMIT } from './record.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
}, 60_000);
afterAll(async () => {
  await database?.close();
});

async function row(id: string) {
  const { rows } = await sql<Record<string, unknown>>`SELECT * FROM jobs WHERE id = ${id}`.execute(database.db);
  return rows[0]!;
}

describe('job records', () => {
  it('walk queued → running → succeeded with progress', async () => {
    const id = await createJob(database.db, { kind: 'demo-data', tenantId: null, startedBy: 'system', total: 10, subject: { objectType: 'dcim.device', objectId: 'x' } });
    expect(await row(id)).toMatchObject({ status: 'queued', done: 0, total: 10, started: null, subject_type: 'dcim.device', cancellable: false });
    await markJobRunning(database.db, id);
    await reportJobProgress(database.db, id, 4);
    expect(await row(id)).toMatchObject({ status: 'running', done: 4, total: 10 });
    await reportJobProgress(database.db, id, 5, 20);
    expect(await row(id)).toMatchObject({ done: 5, total: 20 });
    await finishJob(database.db, id, { status: 'succeeded', result: 'x'.repeat(JOB_TEXT_LIMIT * 2) });
    const done = await row(id);
    expect(done.status).toBe('succeeded');
    expect((done.result as string).length).toBe(JOB_TEXT_LIMIT);
    expect(done.finished).not.toBeNull();
  });

  it('keep the first ending and never restart a cancelled job', async () => {
    const id = await createJob(database.db, { kind: 'eol.refresh', tenantId: null, startedBy: 'schedule:eol', cancellable: true });
    await sql`UPDATE jobs SET status = 'cancelled', cancel_requested = true, finished = now() WHERE id = ${id}`.execute(database.db);
    expect(await jobCancelRequested(database.db, id)).toBe(true);
    await markJobRunning(database.db, id);
    await finishJob(database.db, id, { status: 'succeeded' });
    expect((await row(id)).status).toBe('cancelled');
  });

  it('start running when asked and refuse nonsense progress', async () => {
    const id = await createJob(database.db, { kind: 'upgrade', tenantId: null, startedBy: 'user:admin', status: 'running' });
    expect(await row(id)).toMatchObject({ status: 'running' });
    expect((await row(id)).started).not.toBeNull();
    expect(await jobCancelRequested(database.db, id)).toBe(false);
    await expect(reportJobProgress(database.db, id, -1)).rejects.toThrow(/non-negative/);
    expect(await jobCancelRequested(database.db, '00000000-0000-7000-8000-000000000000')).toBe(true);
  });
});
