// Admission: at most `limit` requests are worked on at once; the others wait their turn, first come first served.
//
// Why: on one event loop, every request in progress takes turns at each await, so with 100 clients each request
// waits behind 99 others at each of its steps, holds its rows and buffers all that time, and the collector copies
// them again and again. Measured on the 2-core machine under the load benchmark's mix (100 connections), 8 at a
// time against no limit: server CPU 2.8–3.3 ms a request against 4.3–4.7 ms, and 260–330 requests/s against
// 215–230, with the same answers. A gunicorn deployment of NetBox bounds its work the same way, by its workers.
//
// Two rules keep the limit from doing harm: a request that has run for `lendAfterMs` (an export, an upload, a
// render) gives its place to the next in line and carries on outside the count, so long requests cannot starve the
// short ones; and a request that has waited `maxWaitMs` is answered 503 with Retry-After instead of waiting on.
import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface AdmissionOptions {
  /** Requests worked on at once. */
  limit: number;
  /** A request waiting longer is answered 503 + Retry-After. */
  maxWaitMs: number;
  /** A request running longer leaves the count. */
  lendAfterMs: number;
  /** Requests that never wait (the health check, which a load balancer must get an answer from). */
  bypass: (req: FastifyRequest) => boolean;
}

// The defaults live with the process configuration, which imports nothing of ours.
export { ADMISSION_DEFAULTS } from '../config.ts';

/** One request's turn: waiting in line, counted among the active, lent (running, no longer counted), or over. */
interface Turn {
  state: 'waiting' | 'counted' | 'lent' | 'finished';
  admit: () => void;
}

/** Registers the admission hook; call before any other onRequest hook so that queued requests cost nothing yet. */
export function registerAdmission(app: FastifyInstance, opts: AdmissionOptions): void {
  let active = 0;
  const queue: Turn[] = [];
  const release = () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      // The freed place passes to the next request still waiting, without leaving the count.
      if (next.state === 'waiting') return next.admit();
    }
    active -= 1;
  };

  app.addHook('onRequest', (req, reply, done) => {
    if (opts.bypass(req)) return done();
    let timer: NodeJS.Timeout | undefined;
    const turn: Turn = {
      state: 'waiting',
      admit: () => {
        clearTimeout(timer);
        turn.state = 'counted';
        timer = setTimeout(() => {
          if (turn.state !== 'counted') return;
          turn.state = 'lent';
          release();
        }, opts.lendAfterMs).unref();
        done();
      },
    };
    // 'close' comes once for every response: sent, failed, or its client gone (also while it waits).
    reply.raw.once('close', () => {
      clearTimeout(timer);
      if (turn.state === 'counted') release();
      turn.state = 'finished';
    });
    if (active < opts.limit) {
      active += 1;
      turn.admit();
      return;
    }
    queue.push(turn);
    timer = setTimeout(() => {
      if (turn.state !== 'waiting') return;
      turn.state = 'finished';
      reply
        .code(503)
        .header('Retry-After', '5')
        .send({ detail: `Cairn is busy: this request waited ${Math.round(opts.maxWaitMs / 1000)} s for its turn. Try again shortly.` });
    }, opts.maxWaitMs).unref();
  });
}
