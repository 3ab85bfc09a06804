// Where the monitoring worker runs: inside `cairn serve` (the embedded default) or as `cairn worker`, a process
// of its own for deployments on PostgreSQL that want checks off the web processes.
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { openConfiguredDatabase } from '../db/open.ts';
import { migrationState } from '../db/migrator.ts';
import { MonitoringWorker, monitoringSettings } from './worker.ts';
import { inProcessSupervisor, setSupervisor, supervisorFromEnv } from './supervisor.ts';
import { startEolRefreshSchedule } from '../lifecycle/schedule.ts';
import { startComplianceSchedule } from '../compliance/schedule.ts';
import { startSearchRebuildSchedule } from '../search/schedule.ts';
import { startUpgradeCheckSchedule } from '../upgrade/schedule.ts';
import { startOutboundWorker } from '../extras/webhook-worker.ts';
import { configureSecrets } from '../core/secrets.ts';

/** Every recurring job of a worker host; returns one function stopping them all. */
function startSchedules(database: Database): () => void {
  const stops = [startEolRefreshSchedule(database.db), startComplianceSchedule(database.db), startSearchRebuildSchedule(database.db), startUpgradeCheckSchedule(database.db)];
  return () => stops.forEach((stop) => stop());
}

/** Starts the worker in this process (unless CAIRN_EMBEDDED_WORKER=0) and returns how to stop it. */
export async function startEmbeddedWorker(database: Database): Promise<() => Promise<void>> {
  setSupervisor(supervisorFromEnv());
  const settings = monitoringSettings();
  if (!settings.embedded) return async () => {};
  const worker = new MonitoringWorker(database, settings);
  await worker.start();
  inProcessSupervisor().register(worker);
  // Scheduled jobs run where the background work runs.
  const stopSchedule = startSchedules(database);
  // Webhook deliveries and deploy status reads (pg-boss queues of their own).
  const stopOutbound = await startOutboundWorker(database);
  return async () => {
    stopSchedule();
    await stopOutbound();
    inProcessSupervisor().unregister(worker.key);
    await worker.stop();
  };
}

/** `cairn worker`: runs checks until SIGINT/SIGTERM. The database must already be migrated by `cairn serve`/`migrate`. */
export async function runWorkerProcess(config: Config): Promise<void> {
  const database = await openConfiguredDatabase(config);
  const state = await migrationState(database.db);
  if (state.dbBehindCode.length) {
    await database.close();
    throw new Error(`The database is missing ${state.dbBehindCode.length} migration(s): run "cairn migrate" first.`);
  }
  const settings = monitoringSettings();
  const worker = new MonitoringWorker(database, settings);
  await worker.start();
  inProcessSupervisor().register(worker);
  const stopSchedule = startSchedules(database);
  // Webhook signing and automation tokens need the secret key here too (buildApp sets it for `serve`).
  configureSecrets({ secretKey: config.secretKey, keyFile: database.backend === 'pglite' ? `${database.dataDir ?? config.dataDir}/secret.key` : null });
  const stopOutbound = await startOutboundWorker(database);
  console.log(`Cairn worker running checks (concurrency ${settings.concurrency}, retention ${settings.retentionDays} days).`);
  const stop = async () => {
    stopSchedule();
    await stopOutbound();
    await worker.stop();
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
