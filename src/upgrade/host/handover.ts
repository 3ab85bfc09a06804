// Hand-over of the web port, so a client never meets a refused connection during an upgrade:
//   web (SIGUSR2) → spawns the maintenance responder with its listening socket as fd 3, waits until it answers,
//                   then closes and exits;
//   responder      → answers 503 + Retry-After on that socket while the site is down; on SIGUSR2 spawns the web
//                   service of <root>/current with the same socket, and exits once the new web listens.
// The socket is never closed in between: at worst a connection waits in the kernel's backlog for a moment.
// An upgrade that keeps the site readable skips the responder: the old web, answering reads, starts the new web
// of <root>/current on its socket itself (the engine's hand-over call) and stops once the new web listens.
import { spawn } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Server as NetServer } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { detectRoot, layoutFor, releaseEnv, type InstallLayout } from '../../install/layout.ts';
import { lockOwnerAlive, processStartTime } from '../../install/lock.ts';
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
export function installUpgradeHandover(app: FastifyInstance, stop: (opts?: { adminSnapshot?: boolean }) => Promise<void>): void {
  const root = detectRoot();
  // The last run's admin snapshot served its window; this web answers the card itself.
  if (root) removeAdminSnapshot(layoutFor(root));
  if (process.send) {
    process.send({ listening: true });
    process.disconnect();
  }
  // The responder, or the new web, accepts on the same socket from now on; what we accepted last is still answered.
  const handOff = (adminSnapshot = true) => {
    sweepIdleConnections(app.server);
    void stop({ adminSnapshot });
  };
  // The new web accepts from the moment it listens: this one stops accepting first, so no new connection meets
  // the "restarting" answer a stopping process gives.
  const handToNewWeb = () => {
    NetServer.prototype.close.call(app.server);
    handOff(false);
  };
  let handing: Promise<number> | null = null;
  if (root) {
    newWebHandOvers.set(app, async () => {
      // One new web per hand-over: a second call while one starts is refused; after a failed one, tried again.
      if (handing) throw new HandOverError('a hand-over to the new web is under way');
      handing = startNewWeb(app, layoutFor(root), handToNewWeb).catch((err: unknown) => {
        handing = null;
        throw err;
      });
      return handing;
    });
  }
  process.on('SIGUSR2', async () => {
    await snapshotAdminsForUpgrade(app);
    const fd = serverFd(app.server);
    if (fd === null) return void stop();
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

/** The hand-over to the new release's web, for processes started by `cairn serve` in an install. */
const newWebHandOvers = new WeakMap<FastifyInstance, () => Promise<number>>();

/** Why this web did not hand its port to the new release's web (it still serves it). */
export class HandOverError extends Error {}

/** How long the new web may take to listen (it migrates nothing: the run has); then it is stopped. */
const NEW_WEB_LISTEN_MS = 120_000;

/**
 * Starts the web of <root>/current on this process's socket and, once it listens, stops this process (after
 * answering what it accepted): the new web's pid. Throws HandOverError when this process cannot (not started by
 * `cairn serve` in an install, or no socket of its own) or the new web did not listen; this one then serves on.
 */
export function handOverToNewWeb(app: FastifyInstance): Promise<number> {
  const handOver = newWebHandOvers.get(app);
  if (!handOver) return Promise.reject(new HandOverError('this web was not started by `cairn serve` in an install: it cannot start another'));
  return handOver();
}

async function startNewWeb(app: FastifyInstance, layout: InstallLayout, handOff: () => void): Promise<number> {
  const fd = serverFd(app.server);
  if (fd === null) throw new HandOverError('this web does not hold a listening socket to hand over');
  const log = openSync(join(layout.runDir, 'web.log'), 'a');
  let web;
  try {
    web = spawn(process.execPath, [join(layout.current, 'bin', 'cairn.mjs'), 'serve'], {
      cwd: layout.shared,
      detached: true,
      stdio: ['ignore', log, log, fd, 'ipc'],
      env: releaseEnv(layout, { CAIRN_LISTEN_FD: '3' }),
    });
  } finally {
    closeSync(log);
  }
  const child = web;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new HandOverError(`the new web did not listen within ${NEW_WEB_LISTEN_MS / 1000} s (see shared/run/web.log)`));
    }, NEW_WEB_LISTEN_MS);
    child.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new HandOverError(`the new web did not start: ${err.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new HandOverError(`the new web exited (${signal ?? `code ${code}`}) before it listened (see shared/run/web.log)`));
    });
  });
  child.removeAllListeners();
  if (child.connected) child.disconnect();
  child.unref();
  const pid = child.pid!;
  writeFileSync(join(layout.runDir, 'web.pid'), JSON.stringify({ pid, pidStart: processStartTime(pid) }));
  // The answer to the engine's call goes out first; this process then drains and stops.
  setTimeout(handOff, 0);
  return pid;
}
