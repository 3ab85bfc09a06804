// CAIRN_UPGRADE_SERVE_READS, read the one way for the two that need it: the engine decides by it at quiesce whether
// the site stays readable (engine/serve-reads.ts), and the Updates page says by it what starting a run will do.
import { readEnvFile, type InstallLayout } from '../install/layout.ts';

export const SERVE_READS_SETTING = 'CAIRN_UPGRADE_SERVE_READS';

/** The environment file (which wins) over the given environment: where both of the settings below are read. */
function settingsOf(layout: InstallLayout, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, ...readEnvFile(layout.envFile) };
}

function readsSettingIn(settings: NodeJS.ProcessEnv): { on: boolean; invalid: string | null } {
  const raw = (settings[SERVE_READS_SETTING] ?? '').trim();
  if (raw !== '' && raw !== '0' && raw !== '1') return { on: false, invalid: raw };
  return { on: raw === '1', invalid: null };
}

/** The setting as the environment file (which wins) and the given environment leave it; `invalid` for another value. */
export function serveReadsSetting(layout: InstallLayout, env: NodeJS.ProcessEnv): { on: boolean; invalid: string | null } {
  return readsSettingIn(settingsOf(layout, env));
}

/** Whether an upgrade of this install would keep answering reads: the setting on, and a PostgreSQL database. */
export function upgradeKeepsReads(layout: InstallLayout, env: NodeJS.ProcessEnv): boolean {
  const settings = settingsOf(layout, env);
  return readsSettingIn(settings).on && Boolean(settings.DATABASE_URL);
}
