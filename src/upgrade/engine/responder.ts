// The in-process maintenance responder of the systemd host: while the web service is stopped (quiesce → start)
// the engine listens on the web port itself and answers every request 503 with Retry-After, and /api/health/
// with maintenance true. (The local supervisor uses the responder process of responder-process.ts instead,
// which takes the socket over without a gap.)
import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

export const RETRY_AFTER_SECONDS = 30;

export interface Responder {
  close(): Promise<void>;
}

function respond(server: Server, version: string): void {
  server.on('request', (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const health = path === '/api/health/' || path === '/api/health';
    const body = health
      ? { status: 'unavailable', database: false, maintenance: true, version, code_behind_db: [], db_behind_code: [] }
      : { detail: 'Cairn is being upgraded. Try again shortly.', maintenance: true };
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': String(RETRY_AFTER_SECONDS), connection: 'close' });
    res.end(JSON.stringify(body));
    req.resume();
  });
}

/**
 * Binds host:port, retrying while the stopping web process still holds it (it is called as the stop begins,
 * to keep the gap short). Gives up after `timeoutMs`.
 */
export async function startResponder(host: string, port: number, version: string, timeoutMs = 60_000): Promise<Responder> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const server = createServer();
    respond(server, version);
    const bound = await new Promise<Error | null>((resolve) => {
      server.once('error', (err) => resolve(err));
      server.listen({ host, port, exclusive: true }, () => resolve(null));
    });
    if (!bound) {
      return {
        close: () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      };
    }
    server.close();
    if ((bound as NodeJS.ErrnoException).code !== 'EADDRINUSE' || Date.now() > deadline) {
      throw new Error(`the maintenance responder could not listen on ${host}:${port}: ${bound.message}`);
    }
    await sleep(10);
  }
}
