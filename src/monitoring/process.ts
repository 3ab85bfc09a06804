// The monitoring worker as background work the job host runs: inside `cairn serve` (the embedded default) or in
// `cairn worker` processes for deployments on PostgreSQL that want checks off the web processes.
import { defineWorker } from '../jobs/registry.ts';
import { MonitoringWorker, monitoringSettings } from './worker.ts';
import { inProcessSupervisor } from './supervisor.ts';

defineWorker({
  name: 'monitoring',
  recurring: (env) => ({
    name: 'monitoring',
    kind: 'monitoring.run-checks',
    description: 'Dispatch due service checks to the monitoring queue.',
    schedule: monitoringSettings(env).tick,
    setting: 'CAIRN_CHECK_TICK',
    scope: 'deployment',
  }),
  async start(database, env) {
    const worker = new MonitoringWorker(database, monitoringSettings(env));
    await worker.start();
    inProcessSupervisor().register(worker);
    return async () => {
      inProcessSupervisor().unregister(worker.key);
      await worker.stop();
    };
  },
});
