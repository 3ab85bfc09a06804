// What a launcher (launch.ts, deploy/install.sh) tells the `cairn upgrade bundle` process it starts: the trigger,
// who started it and the run id it already answered with. Read once and removed from the environment, so the
// services the run starts do not inherit them.
import type { Journal } from './engine/journal.ts';
import { RUN_ID_RE } from './launch.ts';

export interface LaunchedBy {
  trigger: Journal['trigger'];
  startedBy: string | null;
  runId: string | undefined;
}

const TRIGGERS: readonly Journal['trigger'][] = ['bundle', 'online', 'installer', 'auto'];

export function launchedBy(env: NodeJS.ProcessEnv): LaunchedBy {
  const trigger = TRIGGERS.find((t) => t === env.CAIRN_UPGRADE_TRIGGER) ?? 'bundle';
  const startedBy = env.CAIRN_UPGRADE_STARTED_BY?.trim().slice(0, 200) || null;
  const runId = env.CAIRN_UPGRADE_RUN_ID && RUN_ID_RE.test(env.CAIRN_UPGRADE_RUN_ID) ? env.CAIRN_UPGRADE_RUN_ID : undefined;
  delete env.CAIRN_UPGRADE_TRIGGER;
  delete env.CAIRN_UPGRADE_STARTED_BY;
  delete env.CAIRN_UPGRADE_RUN_ID;
  return { trigger, startedBy, runId };
}
