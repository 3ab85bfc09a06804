// Reads /api/health/ of the web service on this machine (the start gate and the rollback's last check).
import { setTimeout as sleep } from 'node:timers/promises';

export interface HealthAnswer {
  httpStatus: number;
  status: string;
  version: string;
  maintenance: boolean;
}

export async function probeHealth(host: string, port: number): Promise<HealthAnswer | null> {
  try {
    const res = await fetch(`http://${host.includes(':') ? `[${host}]` : host}:${port}/api/health/`, { signal: AbortSignal.timeout(5000) });
    const body = (await res.json()) as Partial<HealthAnswer>;
    return { httpStatus: res.status, status: String(body.status), version: String(body.version), maintenance: body.maintenance === true };
  } catch {
    return null;
  }
}

/** Polls health until `accept` says yes; returns the last answer (null if nothing answered) on timeout. */
export async function waitForHealth(
  host: string,
  port: number,
  accept: (h: HealthAnswer) => boolean,
  timeoutMs: number,
): Promise<{ ok: boolean; last: HealthAnswer | null }> {
  const deadline = Date.now() + timeoutMs;
  let last: HealthAnswer | null = null;
  while (Date.now() < deadline) {
    last = (await probeHealth(host, port)) ?? last;
    if (last && accept(last)) return { ok: true, last };
    await sleep(200);
  }
  return { ok: false, last };
}

export function describeHealth(h: HealthAnswer | null): string {
  return h ? `HTTP ${h.httpStatus}, status ${h.status}, version ${h.version}, maintenance ${h.maintenance}` : 'no answer';
}
