// Fastify finishes each route once every plugin has loaded: it adds one 'preReady' listener per route, with `once`,
// to the app's avvio instance. Node's EventEmitter removes a `once` listener as it runs by searching the list from
// its end, so the 3,400 listeners of Cairn's routes cost O(routes²) at ready: 150 ms of the 1.5 CPU-s a `cairn serve`
// takes to answer its first request, in processes that run on V8's baseline tiers (test/runner/short-process-tiers.cjs),
// and about 25 ms of a warm process's 300 ms buildApp. Here avvio's instances keep their 'preReady' listeners in
// a queue of their own behind one real listener that runs them all, in the order they were added, once: what
// emit('preReady') did, listener by listener (one that throws stops the rest and the throw reaches avvio, as
// before; one added while they run waits for a later emit, as EventEmitter's copy of the list made it).
import Avvio from 'avvio';
import type { EventEmitter } from 'node:events';

type Listener = (...args: unknown[]) => void;
const QUEUE = Symbol('cairn.preReadyQueue');
type Boot = EventEmitter & { [QUEUE]?: Listener[] };

let installed = false;

/** Puts avvio's 'preReady' listeners behind one (idempotent; every fastify app of the process shares avvio). */
export function queuePreReadyListeners(): void {
  if (installed) return;
  installed = true;
  const proto = (Avvio as unknown as { prototype: Boot }).prototype;
  const once = proto.once;
  proto.once = function queuedOnce(this: Boot, event: string | symbol, listener: Listener): Boot {
    if (event !== 'preReady') return once.call(this, event, listener) as Boot;
    let queue = this[QUEUE];
    if (!queue || queue.length === 0) {
      const fresh: Listener[] = [];
      this[QUEUE] = queue = fresh;
      once.call(this, 'preReady', (...args: unknown[]) => {
        for (const run of fresh.splice(0)) run.apply(this, args);
      });
    }
    queue.push(listener);
    return this;
  };
}
