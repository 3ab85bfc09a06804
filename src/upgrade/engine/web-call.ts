// The engine's calls to the web service on this machine (the routes of ../routes.ts it alone may call): the
// install's web address, the proof in `x-cairn-upgrade-token` (the run's secret, or the hold's one-time token),
// a JSON body when there is one, and a time limit.
import { webAddress, type InstallLayout } from '../../install/layout.ts';

/** http://host:port<path> of the install's web service (an IPv6 host in brackets). */
export function webUrl(layout: InstallLayout, path: string): string {
  const { host, port } = webAddress(layout);
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;
}

export function callWeb(layout: InstallLayout, path: string, opts: { method?: string; token: string | null; body?: unknown; timeoutMs: number }): Promise<Response> {
  const headers: Record<string, string> = { 'x-cairn-upgrade-token': opts.token ?? '' };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(webUrl(layout, path), {
    method: opts.method ?? 'GET',
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: AbortSignal.timeout(opts.timeoutMs),
  });
}

/** "HTTP <status>: <detail>" of an answer the engine did not want, for its journal's warnings. */
export async function refusalOf(res: Response): Promise<string> {
  const body = (await res.json().catch(() => ({}))) as { detail?: string };
  return `HTTP ${res.status}${body.detail ? `: ${body.detail}` : ''}`;
}
