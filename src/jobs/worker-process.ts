// `cairn worker`: a process that runs the background work the domains declared (checks, schedules, queues) and
// nothing else, for deployments on PostgreSQL that want it off the web processes. Runs until SIGINT/SIGTERM.
import type { Config } from '../config.ts';
import { openConfiguredDatabase } from '../db/open.ts';
import { migrationState } from '../db/migrator.ts';
import { configureSecrets } from '../core/secrets.ts';
import { checkScheduleSettings, startBackgroundWork } from './host.ts';
import { declaredQueues, declaredSchedules, declaredWorkers } from './registry.ts';

/** The database must already be migrated by `cairn serve`/`cairn migrate`. */
export async function runWorkerProcess(config: Config): Promise<void> {
  checkScheduleSettings();
  const database = await openConfiguredDatabase(config);
  const state = await migrationState(database.db);
  if (state.dbBehindCode.length) {
    await database.close();
    throw new Error(`The database is missing ${state.dbBehindCode.length} migration(s): run "cairn migrate" first.`);
  }
  // Webhook signing and automation tokens need the secret key here too (buildApp sets it for `serve`).
  configureSecrets({ secretKey: config.secretKey, keyFile: database.backend === 'pglite' ? `${database.dataDir ?? config.dataDir}/secret.key` : null });
  const stopWork = await startBackgroundWork(database);
  const names = (defs: ReadonlyArray<{ name: string }>) => defs.map((d) => d.name).join(', ') || 'none';
  console.log(`Cairn worker running. Workers: ${names(declaredWorkers())}; schedules: ${names(declaredSchedules())}; queues: ${names(declaredQueues())}.`);
  const stop = async () => {
    await stopWork();
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
