// The in-process maintenance responder of the systemd host: while the web service is stopped (quiesce → start)
// the engine listens on the web port itself and answers every request 503 with Retry-After, and /api/health/
// with maintenance true; GET /api/system/upgrade/ for an admin is the card (maintenance-answer.ts). (The local
// supervisor uses the responder process of responder-process.ts instead, which takes the socket over without a gap.)
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { InstallLayout } from '../../install/layout.ts';
import { maintenanceAnswer } from './maintenance-answer.ts';

export { RETRY_AFTER_SECONDS } from './maintenance-answer.ts';

export interface Responder {
  close(): Promise<void>;
}

/**
 * Binds host:port, retrying while the stopping web process still holds it (it is called as the stop begins,
 * to keep the gap short). Gives up after `timeoutMs`.
 */
export async function startResponder(host: string, port: number, version: string, layout: InstallLayout | null = null, timeoutMs = 60_000): Promise<Responder> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const server = createServer(maintenanceAnswer(layout, version));
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
