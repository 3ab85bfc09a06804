// Hand-over of the web port, so a client never meets a refused connection during an upgrade:
//   web (SIGUSR2) → spawns the maintenance responder with its listening socket as fd 3, waits until it answers,
//                   then closes and exits;
//   responder      → answers 503 + Retry-After on that socket while the site is down; on SIGUSR2 spawns the web
//                   service of <root>/current with the same socket, and exits once the new web listens.
// The socket is never closed in between: at worst a connection waits in the kernel's backlog for a moment.
import { spawn } from 'node:child_process';
import type { FastifyInstance } from 'fastify';

export { inheritedListenFd } from './listen-fd.ts';

interface HandleWithFd {
  _handle?: { fd?: number } | null;
}

/** The listening socket's file descriptor of a Node server (Linux), or null. */
export function serverFd(server: unknown): number | null {
  const fd = (server as HandleWithFd)._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : null;
}

/**
 * Called by `cairn serve` once it listens: tells a parent that waits for it (the responder) that it does, and
 * on SIGUSR2 hands its socket to a new responder and stops.
 */
export function installUpgradeHandover(app: FastifyInstance, stop: () => Promise<void>): void {
  if (process.send) {
    process.send({ listening: true });
    process.disconnect();
  }
  process.on('SIGUSR2', () => {
    const fd = serverFd(app.server);
    if (fd === null) return void stop();
    const responder = spawn(process.execPath, [process.argv[1]!, 'upgrade', 'responder'], {
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit', fd, 'ipc'],
      env: { ...process.env, CAIRN_LISTEN_FD: '3' },
    });
    const fallback = setTimeout(() => void stop(), 30_000);
    responder.once('message', () => {
      clearTimeout(fallback);
      responder.disconnect();
      responder.unref();
      void stop();
    });
    responder.once('exit', () => {
      clearTimeout(fallback);
      void stop();
    });
  });
}
