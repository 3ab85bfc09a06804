// `cairn demo-data` as a recorded job: the load, then the search index of the loaded tenant (the load writes
// with set-based SQL past the registry hooks). The terminal and /api/jobs/ show the same steps.
import type { Database } from '../db/database.ts';
import { generateDemoData, type DemoDataOptions, type DemoDataResult } from '../system/demo-data.ts';
import { rebuildSearchIndex } from '../search/indexer.ts';
import { createJob, finishJob } from './record.ts';
import { terminalProgress } from './terminal.ts';

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
    const index = await rebuildSearchIndex(db, { tenantId: result.tenantId, onProgress: (done, total, model) => line(`  search index: ${model} (${done}/${total})`) });
    line(`search index: ${index.entries.toLocaleString('en-US')} entries`);
    await progress.flush();
    await progress.step(steps, steps);
    await finishJob(db, jobId, {
      status: 'succeeded',
      result: `${options.devices} devices, ${result.totalRows} rows in ${(result.ms / 1000).toFixed(1)} s; ${index.entries} search entries`,
    });
    return result;
  } catch (err) {
    await progress.flush();
    await finishJob(db, jobId, { status: 'failed', error: (err as Error).message }).catch(() => undefined);
    throw err;
  }
}
