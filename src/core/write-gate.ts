// The web process's write gate: while an upgrade keeps the site readable (CAIRN_UPGRADE_SERVE_READS=1 on
// PostgreSQL), the running web answers reads and refuses changes with 503 + Retry-After, from the upgrade's quiesce
// until it hands its port over (to the new release's web, or to the maintenance responder). Closing the gate waits for the changes already under way, so the
// run's snapshot holds every change a client was told had been made. A gate whose run died (the upgrade lock's
// owner gone) opens by itself: a dead engine must not leave a site that takes no changes. Once the run migrates
// while this web answers reads, the gate is sealed: this release's code must not write the new schema, and the
// recovery restores the snapshot, so it stays closed until the recovery stops this process.
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.ts';
import { SAFE_METHODS } from './safe-methods.ts';

/**
 * Signing in and out and choosing a tenant (a reader must be able to sign in to read), and the upgrade engine's own
 * calls. Every other route but GET, HEAD and OPTIONS is a change, as for a read-only token (request-auth.ts).
 */
const ALWAYS_OPEN_PREFIX = '/api/auth/';
const ENGINE_CALLS = new Set([
  '/api/system/upgrade/backup/',
  '/api/system/upgrade/job/',
  '/api/system/upgrade/resume/',
  '/api/system/upgrade/read-only/',
  '/api/system/upgrade/hand-over/',
]);
export const READ_ONLY_RETRY_AFTER_SECONDS = 30;
/** How often a closed gate looks whether its run still lives, when no change arrives to make it look. */
const RUN_CHECK_MS = 5000;

/** The process's background work (checks, schedules, queues), which writes too: paused while the gate is closed. */
export interface BackgroundControl {
  pause(): Promise<void>;
  resume(): Promise<void>;
}

export interface ClosedGate {
  /** Every change under way when the gate closed had ended (false: the wait ran out and the gate opened again). */
  drained: boolean;
  waitedMs: number;
  /** Changes still under way when the wait ran out. */
  inFlight: number;
}

/** The gate could not close because background work would not pause; it is open again. */
export class BackgroundPauseError extends Error {}

export class WriteGate {
  private closed: { runAlive: () => boolean; timer: NodeJS.Timeout; pausedBackground: boolean; sealed: boolean } | null = null;
  private writes = 0;
  private idle: (() => void)[] = [];
  /** Set by `cairn serve` when this process runs background work; null in processes that run none. */
  background: BackgroundControl | null = null;

  /** True while changes are refused (looks at the run first: a dead run's gate opens unless sealed). */
  get readOnly(): boolean {
    if (this.closed && !this.closed.sealed && !this.closed.runAlive()) void this.open();
    return this.closed !== null;
  }

  /** True once sealed: a dead run leaves it closed. */
  get sealed(): boolean {
    return this.closed?.sealed === true;
  }

  /**
   * The database is about to change under this process: stay closed even if the run dies (only `open()`, the
   * recovery's call, opens it). False when the gate is not closed.
   */
  seal(): boolean {
    if (!this.readOnly || !this.closed) return false;
    this.closed.sealed = true;
    return true;
  }

  get writesInFlight(): number {
    return this.writes;
  }

  /**
   * Refuses changes from now on, pauses background work, and waits up to `waitMs` for the changes under way. When
   * they do not end in time the gate opens again (and background work resumes): the caller falls back to stopping.
   */
  async close(runAlive: () => boolean, waitMs: number): Promise<ClosedGate> {
    const started = Date.now();
    if (!this.closed) {
      const timer = setInterval(() => void this.readOnly, RUN_CHECK_MS);
      timer.unref();
      this.closed = { runAlive, timer, pausedBackground: false, sealed: false };
      if (this.background) {
        try {
          await this.background.pause();
        } catch (err) {
          await this.open();
          throw new BackgroundPauseError(`the background work did not stop: ${err instanceof Error ? err.message : String(err)}`);
        }
        if (this.closed) this.closed.pausedBackground = true;
        else await this.background.resume(); // opened meanwhile (the run died while the work paused)
      }
    }
    const drained = await this.untilIdle(Math.max(0, waitMs - (Date.now() - started)));
    const inFlight = this.writes;
    if (!drained) await this.open();
    return { drained, waitedMs: Date.now() - started, inFlight };
  }

  /** Takes changes again and resumes the background work the close paused. */
  async open(): Promise<void> {
    const was = this.closed;
    if (!was) return;
    this.closed = null;
    clearInterval(was.timer);
    if (was.pausedBackground) await this.background?.resume();
  }

  /** Called as a change's handler starts: counts it, or throws the 503 a closed gate answers. */
  beginWrite(): void {
    if (this.readOnly) {
      throw new ApiError(
        503,
        { detail: 'Cairn is being upgraded: it answers reads, and takes changes again once the upgrade has finished. Try again shortly.', maintenance: true },
        { 'Retry-After': String(READ_ONLY_RETRY_AFTER_SECONDS) },
      );
    }
    this.writes++;
  }

  endWrite(): void {
    this.writes--;
    if (this.writes === 0) for (const wake of this.idle.splice(0)) wake();
  }

  private untilIdle(ms: number): Promise<boolean> {
    if (this.writes === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.idle = this.idle.filter((w) => w !== wake);
        resolve(false);
      }, ms);
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.idle.push(wake);
    });
  }
}

/**
 * Puts every change (a route taking another method than GET, HEAD or OPTIONS) through the gate: counted while its
 * handler runs, refused while the gate is closed. Call before routes are added.
 */
export function registerWriteGate(app: FastifyInstance, gate: WriteGate): void {
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (methods.every((m) => SAFE_METHODS.has(m)) || route.url.startsWith(ALWAYS_OPEN_PREFIX) || ENGINE_CALLS.has(route.url)) return;
    const handler = route.handler;
    route.handler = async function gated(this: FastifyInstance, req, reply) {
      if (SAFE_METHODS.has(req.method)) return handler.call(this, req, reply);
      gate.beginWrite();
      try {
        return await handler.call(this, req, reply);
      } finally {
        gate.endWrite();
      }
    };
  });
}
