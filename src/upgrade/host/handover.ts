// Hand-over of the web port, so a client never meets a refused connection during an upgrade:
//   web (SIGUSR2) → spawns the maintenance responder with its listening socket as fd 3, waits until it answers,
//                   then closes and exits;
//   responder      → answers 503 + Retry-After on that socket while the site is down; on SIGUSR2 spawns the web
//                   service of <root>/current with the same socket, and exits once the new web listens.
// The socket is never closed in between: at worst a connection waits in the kernel's backlog for a moment.
import { spawn } from 'node:child_process';
import { Server as NetServer } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { detectRoot, layoutFor } from '../../install/layout.ts';
import { lockOwnerAlive } from '../../install/lock.ts';
import { removeAdminSnapshot, writeAdminSnapshot } from '../maintenance-admins.ts';

export { inheritedListenFd } from './listen-fd.ts';

interface HandleWithFd {
  _handle?: { fd?: number } | null;
}

/** The listening socket's file descriptor of a Node server (Linux), or null. */
export function serverFd(server: unknown): number | null {
  const fd = (server as HandleWithFd)._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : null;
}

/** How long a listener that hands over lets the requests it accepted take before it drops their connections. */
export const DRAIN_MS = 5000;
/** How often connections that became idle are closed once a close has begun. */
const SWEEP_MS = 25;

/**
 * Makes a close end as soon as what the server accepted is answered: idle connections (keep-alive ones between
 * requests) are closed at once, as gunicorn and nginx close theirs, and again as the requests in flight end. Node
 * counts a connection that was accepted but has not sent its request yet as active, not idle, so its request is
 * still answered (handover.test.ts keeps that true). A fixed second of grace before closing idle connections,
 * here before, made the upgrade's quiesce step a second longer every time a keep-alive connection was open.
 */
export function sweepIdleConnections(server: HttpServer): void {
  const closeIdle = server.closeIdleConnections.bind(server);
  let sweeping = false;
  server.closeIdleConnections = () => {
    closeIdle();
    if (sweeping) return;
    sweeping = true;
    setInterval(closeIdle, SWEEP_MS).unref();
  };
}

/** Stops accepting on `server`, answers what it already accepted, then calls `onClosed` (all connections gone). */
export function drainAndClose(server: HttpServer, onClosed: () => void): void {
  sweepIdleConnections(server);
  NetServer.prototype.close.call(server, () => onClosed());
  server.closeIdleConnections();
  setTimeout(() => server.closeAllConnections(), DRAIN_MS).unref();
}

/**
 * Called by `cairn serve` once it listens: tells a parent that waits for it (the responder) that it does, and
 * on SIGUSR2 hands its socket to a new responder and stops.
 */
export function installUpgradeHandover(app: FastifyInstance, stop: () => Promise<void>): void {
  const root = detectRoot();
  // The last run's admin snapshot served its window; this web answers the card itself.
  if (root) removeAdminSnapshot(layoutFor(root));
  if (process.send) {
    process.send({ listening: true });
    process.disconnect();
  }
  process.on('SIGUSR2', async () => {
    await snapshotAdminsForUpgrade(app);
    const fd = serverFd(app.server);
    if (fd === null) return void stop();
    // The responder accepts on the same socket from now on; what we accepted last is still answered.
    const handOff = () => {
      sweepIdleConnections(app.server);
      void stop();
    };
    const responder = spawn(process.execPath, [process.argv[1]!, 'upgrade', 'responder'], {
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit', fd, 'ipc'],
      env: { ...process.env, CAIRN_LISTEN_FD: '3' },
    });
    const fallback = setTimeout(handOff, 30_000);
    responder.once('message', () => {
      clearTimeout(fallback);
      responder.disconnect();
      responder.unref();
      handOff();
    });
    responder.once('exit', () => {
      clearTimeout(fallback);
      handOff();
    });
  });
}

/**
 * While an upgrade holds the lock, leaves the maintenance responder the admins' credentials it may accept for the
 * upgrade card (../maintenance-admins.ts). Called as this web gives the site up: on the hand-over and on a stop.
 * Never throws nor waits long: without a snapshot the responder answers the card to nobody, nothing worse.
 */
export async function snapshotAdminsForUpgrade(app: FastifyInstance): Promise<void> {
  const root = detectRoot();
  if (!root) return;
  const layout = layoutFor(root);
  if (!lockOwnerAlive(layout.lockFile)) return;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      writeAdminSnapshot(app.database.db, layout),
      new Promise((resolve) => (timer = setTimeout(resolve, SNAPSHOT_WAIT_MS))),
    ]);
  } catch (err) {
    console.warn(`The maintenance responder will not serve the upgrade card: ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}

const SNAPSHOT_WAIT_MS = 5000;
