import Avvio from 'avvio';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { queuePreReadyListeners } from './ready-listeners.ts';

describe("avvio's 'preReady' listeners behind one", () => {
  queuePreReadyListeners();

  it('runs every listener once, in the order added, from one real listener', () => {
    const boot = Avvio();
    const ran: number[] = [];
    for (let i = 0; i < 1000; i++) boot.once('preReady', () => ran.push(i));
    boot.once('start', () => ran.push(-1));
    expect(boot.listenerCount('preReady')).toBe(1);
    expect(boot.listenerCount('start')).toBe(1);
    boot.emit('preReady');
    expect(ran).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    boot.emit('preReady');
    expect(ran).toHaveLength(1000);
    expect(boot.listenerCount('preReady')).toBe(0);
  });

  it('keeps a listener added while they run for the next emit, as EventEmitter does', () => {
    const boot = Avvio();
    const ran: string[] = [];
    boot.once('preReady', () => {
      ran.push('first');
      boot.once('preReady', () => ran.push('added'));
    });
    boot.once('preReady', () => ran.push('second'));
    boot.emit('preReady');
    expect(ran).toEqual(['first', 'second']);
    boot.emit('preReady');
    expect(ran).toEqual(['first', 'second', 'added']);
  });

  it("finishes a fastify app's routes: their hooks, schemas and not-found handling", async () => {
    const app = Fastify();
    app.addHook('onRequest', async (_req, reply) => {
      reply.header('x-hooked', 'yes');
    });
    for (let i = 0; i < 200; i++) {
      app.get(`/r${i}`, { schema: { querystring: { type: 'object', properties: { n: { type: 'integer' } } } } }, async (req) => ({ i, n: (req.query as { n?: number }).n ?? null }));
    }
    await app.ready();
    const ok = await app.inject('/r199?n=5');
    expect(ok.json()).toEqual({ i: 199, n: 5 });
    expect(ok.headers['x-hooked']).toBe('yes');
    expect((await app.inject('/r7?n=x')).statusCode).toBe(400);
    expect((await app.inject('/nowhere')).statusCode).toBe(404);
    await app.close();
  });
});
