// `cairn demo-data` as a recorded job: the load (the search triggers index it as it goes), then how many search
// entries the tenant has. The terminal and /api/jobs/ show the same steps.
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { generateDemoData, type DemoDataOptions, type DemoDataResult } from './demo-data.ts';
import { createJob, finishJob } from '../jobs/record.ts';
import { terminalProgress } from '../jobs/terminal.ts';
import { inTenant } from '../core/access.ts';

export async function runDemoDataJob(database: Database, options: Omit<DemoDataOptions, 'onProgress'>, print: (line: string) => void = (t) => console.log(t)): Promise<DemoDataResult> {
  const db = database.db;
  // Deployment-wide: the tenant may not exist until the load creates it, and loading is an operator's act.
  const jobId = await createJob(db, { kind: 'demo-data', tenantId: null, startedBy: 'system', status: 'running' });
  const progress = terminalProgress(database, jobId, print);
  let steps = 0;
  const line = (text: string) => {
    steps++;
    progress.line(text);
  };
  try {
    const result = await generateDemoData(db, { ...options, onProgress: line });
    await progress.step(steps);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM search_index WHERE ${inTenant(result.tenantId)}`.execute(db);
    const entries = rows[0]!.n;
    line(`search index: ${entries.toLocaleString('en-US')} entries`);
    await progress.flush();
    await progress.step(steps, steps);
    await finishJob(db, jobId, {
      status: 'succeeded',
      result: `${options.devices} devices, ${result.totalRows} rows in ${(result.ms / 1000).toFixed(1)} s; ${entries} search entries`,
    });
    return result;
  } catch (err) {
    await progress.flush();
    await finishJob(db, jobId, { status: 'failed', error: (err as Error).message }).catch(() => undefined);
    throw err;
  }
}
