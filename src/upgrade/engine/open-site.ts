// Ending the maintenance hold of an upgrade: the web service checks the hold token and lets users back in.
import { tail } from './commands.ts';
import { webAddress, type InstallLayout } from '../../install/layout.ts';

/** Lets users back in: the web service checks the hold token and turns maintenance off. */
export async function openSite(layout: InstallLayout, token: string): Promise<void> {
  const { host, port } = webAddress(layout);
  const res = await fetch(`http://${host}:${port}/api/system/upgrade/resume/`, {
    method: 'POST',
    headers: { 'x-cairn-upgrade-token': token },
    signal: AbortSignal.timeout(10_000),
  });
  if (res.status !== 200) throw new Error(`resume answered HTTP ${res.status}: ${tail(await res.text(), 300)} (maintenance ends by itself within 15 minutes)`);
}
