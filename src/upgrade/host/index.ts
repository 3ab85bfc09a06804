// Picks the host implementation: systemd when CAIRN_HOST=systemd (the units set it), else the local supervisor.
import type { InstallLayout } from '../../install/layout.ts';
import { currentRelease, readEnvFile, webAddress } from '../../install/layout.ts';
import { LocalSupervisor } from './local.ts';
import { SystemdHost } from './systemd.ts';
import type { Host } from './types.ts';

export function hostFor(layout: InstallLayout, env: NodeJS.ProcessEnv = process.env): Host {
  const merged = { ...readEnvFile(layout.envFile), ...env };
  if (merged.CAIRN_HOST === 'systemd') {
    const address = { ...webAddress(layout), version: currentRelease(layout)?.version ?? '', layout };
    return new SystemdHost({ user: merged.CAIRN_SYSTEMD_USER !== '0', systemctl: merged.CAIRN_SYSTEMCTL }, address);
  }
  return new LocalSupervisor(layout);
}
