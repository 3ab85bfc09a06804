// Ending the maintenance hold of an upgrade: the web service checks the hold token and lets users back in.
import { tail } from './commands.ts';
import type { InstallLayout } from '../../install/layout.ts';
import { callWeb } from './web-call.ts';

/** Lets users back in: the web service checks the hold token and turns maintenance off. */
export async function openSite(layout: InstallLayout, token: string): Promise<void> {
  const res = await callWeb(layout, '/api/system/upgrade/resume/', { method: 'POST', token, timeoutMs: 10_000 });
  if (res.status !== 200) throw new Error(`resume answered HTTP ${res.status}: ${tail(await res.text(), 300)} (maintenance ends by itself within 15 minutes)`);
}
