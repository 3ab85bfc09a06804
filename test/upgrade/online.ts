// Starting an upgrade the way the Updates page does: a release feed stand-in (plain HTTP on 127.0.0.1, allowed
// because the address is put on the outbound allow-list) serving a real bundle, the upgrade settings pointed at
// it, POST /api/system/upgrade/ {version}, then polling GET /api/system/upgrade/ through the maintenance window.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReleaseFeed {
  url: string;
  /** Paths requested so far. */
  requests: string[];
  close(): Promise<void>;
}

export async function startReleaseFeed(releases: { version: string; bundle: string; prerelease?: boolean }[]): Promise<ReleaseFeed> {
  const requests: string[] = [];
  const files = new Map(releases.map((r) => [`/cairn-${r.version}.tar.gz`, r.bundle]));
  let base = '';
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === '/feed.json') {
      const doc = {
        releases: releases.map((r) => ({
          version: r.version,
          bundle_url: `${base}/cairn-${r.version}.tar.gz`,
          sha256: createHash('sha256').update(readFileSync(r.bundle)).digest('hex'),
          prerelease: r.prerelease ?? r.version.includes('-'),
        })),
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(doc));
    }
    const file = files.get(req.url ?? '');
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/gzip' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${base}/feed.json`, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export function call(port: number, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  return new Promise((ok, fail) => {
    const headers: Record<string, string> = { authorization: `Token ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = request({ host: '127.0.0.1', port, path, method, agent: false, headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          /* keep the text */
        }
        ok({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.on('error', fail);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

export interface PolledCard {
  id: string;
  state: string;
  current_step: string | null;
  [key: string]: unknown;
}

/**
 * Polls the card until the run `runId` has ended. 503 (maintenance) and refused connections while web is
 * away are expected and counted; the steps seen running are returned in order.
 */
export interface PolledRun {
  card: PolledCard;
  stepsSeen: string[];
  unavailable: number;
  /** Steps running in the cards the maintenance responder served (answers with `maintenance: true`). */
  maintenanceSteps: string[];
  /** What the same call answered during the window with a wrong token: every status, in order. */
  strangerStatuses: number[];
}

/**
 * Polls the card until the run `runId` has ended. 503 (maintenance) and refused connections while web is
 * away are expected and counted; the steps seen running are returned in order. Each card the maintenance
 * responder serves is followed by the same call with a wrong token, whose answer is recorded.
 */
export async function pollRun(port: number, token: string, runId: string, timeoutMs = 600_000): Promise<PolledRun> {
  const deadline = Date.now() + timeoutMs;
  const stepsSeen: string[] = [];
  const maintenanceSteps: string[] = [];
  const strangerStatuses: number[] = [];
  let unavailable = 0;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`run ${runId} did not end within ${timeoutMs / 1000} s (steps seen: ${stepsSeen.join(', ')})`);
    const res = await call(port, token, 'GET', '/api/system/upgrade/').catch(() => null);
    if (!res || res.status === 503) unavailable++;
    else if (res.status === 200) {
      const body = res.body as { last_upgrade: PolledCard | null; maintenance?: boolean };
      const card = body.last_upgrade;
      if (card?.id === runId) {
        if (card.current_step && stepsSeen.at(-1) !== card.current_step) stepsSeen.push(card.current_step);
        if (body.maintenance === true) {
          if (card.current_step && maintenanceSteps.at(-1) !== card.current_step) maintenanceSteps.push(card.current_step);
          const stranger = await call(port, 'not-an-admin-token', 'GET', '/api/system/upgrade/').catch(() => null);
          // Counted only when the window was still open after it: on a loaded machine the window can close between
          // the card and the stranger's call, and the live site then answers a wrong token 401, as it should.
          const after = stranger ? await call(port, token, 'GET', '/api/system/upgrade/').catch(() => null) : null;
          const stillOpen = after?.status === 503 || (after?.status === 200 && (after.body as { maintenance?: boolean }).maintenance === true);
          if (stranger && stillOpen) strangerStatuses.push(stranger.status);
        }
        if (card.state !== 'running') return { card, stepsSeen, unavailable, maintenanceSteps, strangerStatuses };
      }
    } else throw new Error(`GET /api/system/upgrade/ answered ${res.status}: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
