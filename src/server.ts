// `cairn serve`: open the database, migrate, first-run setup, listen; stop cleanly on SIGINT/SIGTERM.
import type { Config } from './config.ts';
import { openConfiguredDatabase } from './db/open.ts';
import { migrateToLatest } from './db/migrator.ts';
import { ensureInitialData } from './core/accounts.ts';
import { buildApp } from './app.ts';
import './background.ts';
import { backgroundWorkEmbedded, checkScheduleSettings, startBackgroundWork } from './jobs/host.ts';
import { inheritedListenFd, installUpgradeHandover, snapshotAdminsForUpgrade } from './upgrade/host/handover.ts';
import { ensureWebBuild } from './system/web-ui.ts';
import { loggerOptions, signInBox } from './system/log-output.ts';

export async function serve(config: Config): Promise<void> {
  if (backgroundWorkEmbedded()) checkScheduleSettings();
  const database = await openConfiguredDatabase(config, { withReplicas: true });
  let closing = false;
  try {
    await migrateToLatest(database.db);
    const first = await ensureInitialData(database.db, config.adminPassword);
    const uiProblem = ensureWebBuild();
    if (uiProblem) console.warn(uiProblem);
    const app = await buildApp({ database, config, logger: loggerOptions(config) });
    const signIn = first.adminCreated ? firstRunMessage(first.adminPassword && !config.adminPassword ? first.adminPassword : null, config) : null;
    // Printed before listening too: if listening fails, the password (shown once) is not lost with it.
    if (signIn) console.log(signIn);
    let stopWorker: () => Promise<void> = async () => {};
    const stop = async (opts: { adminSnapshot?: boolean } = {}) => {
      if (closing) return;
      closing = true;
      // A stop during an upgrade (systemd quiesce): the engine's responder may show admins the card. Not when this
      // process hands the port to the new release's web, which serves the card itself.
      if (opts.adminSnapshot !== false) await snapshotAdminsForUpgrade(app);
      await stopWorker();
      await app.close();
      await database.close();
      process.exit(0);
    };
    process.on('SIGINT', () => void stop());
    process.on('SIGTERM', () => void stop());
    // An inherited socket (upgrade hand-over, socket activation) is served as is: Node listens on {fd}.
    const fd = inheritedListenFd();
    await app.listen(fd === null ? { host: config.host, port: config.port } : ({ fd } as unknown as { port: number }));
    // Upgrades: tell a waiting responder we listen; on SIGUSR2 hand the socket to a new one and stop.
    installUpgradeHandover(app, stop);
    // Background work (checks, schedules, queues) runs in this process unless CAIRN_EMBEDDED_WORKER=0 (then
    // `cairn worker` processes run it).
    if (backgroundWorkEmbedded()) {
      stopWorker = await startBackgroundWork(database);
      // An upgrade that keeps the site readable pauses it with the changes (core/write-gate.ts).
      app.writeGate.background = {
        pause: async () => {
          const stopping = stopWorker;
          stopWorker = async () => {};
          await stopping();
        },
        resume: async () => {
          if (!closing) stopWorker = await startBackgroundWork(database);
        },
      };
    }
    const replicas = database.replicas ? `, reads of GET requests from ${database.replicas.replicas.length} replica(s)` : '';
    console.log(`Cairn is serving on ${serverUrl(config)} (${database.backend === 'pglite' ? `embedded database in ${config.dataDir}` : `PostgreSQL${replicas}`}).`);
    // …and again as the last line of the start, where it is seen.
    if (signIn) console.log(signIn);
  } catch (err) {
    if (!closing) await database.close().catch(() => {});
    throw err;
  }
}

function serverUrl(config: Config): string {
  return `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
}

function firstRunMessage(generatedPassword: string | null, config: Config): string {
  const url = serverUrl(config);
  return signInBox(
    generatedPassword
      ? ['First run: created user "admin".', `Password: ${generatedPassword}   (shown once: keep it)`, `Sign in at ${url}/ or POST ${url}/api/auth/login/.`]
      : ['First run: created user "admin" with the password from CAIRN_ADMIN_PASSWORD.', `Sign in at ${url}/.`],
  );
}

