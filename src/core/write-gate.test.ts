import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from './errors.ts';
import { BackgroundPauseError, registerWriteGate, WriteGate } from './write-gate.ts';

let app: FastifyInstance | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
});

/** A server with the gate and a write whose handler waits for `release` (a change under way). */
async function gatedServer(gate: WriteGate): Promise<{ app: FastifyInstance; release: () => void; entered: Promise<void> }> {
  const server = Fastify();
  server.setErrorHandler((err, _req, reply) => {
    if (err instanceof ApiError) return reply.code(err.status).headers(err.headers).send(err.body);
    return reply.code(500).send({ detail: String(err) });
  });
  registerWriteGate(server, gate);
  let release!: () => void;
  let entered!: () => void;
  const enteredP = new Promise<void>((r) => (entered = r));
  const held = new Promise<void>((r) => (release = r));
  server.get('/api/things/', async () => ({ count: 0 }));
  server.post('/api/things/', async () => ({ made: true }));
  server.post('/api/slow/', async () => {
    entered();
    await held;
    return { made: true };
  });
  server.post('/api/auth/login/', async () => ({ signed_in: true }));
  server.post('/api/system/upgrade/read-only/', async () => ({ read_only: true }));
  await server.ready();
  app = server;
  return { app: server, release, entered: enteredP };
}

describe('the write gate', () => {
  it('closed: reads are answered, changes get 503 + Retry-After with a message saying why, signing in still works', async () => {
    const gate = new WriteGate();
    const { app } = await gatedServer(gate);
    expect((await app.inject({ method: 'POST', url: '/api/things/' })).statusCode).toBe(200);
    expect(await gate.close(() => true, 1000)).toMatchObject({ drained: true, inFlight: 0 });
    expect(gate.readOnly).toBe(true);
    expect((await app.inject({ method: 'GET', url: '/api/things/' })).statusCode).toBe(200);
    const refused = await app.inject({ method: 'POST', url: '/api/things/' });
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.json()).toEqual({ detail: expect.stringContaining('it answers reads, and takes changes again once the upgrade has finished'), maintenance: true });
    expect((await app.inject({ method: 'POST', url: '/api/auth/login/' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/api/system/upgrade/read-only/' })).statusCode).toBe(200);
    await gate.open();
    expect((await app.inject({ method: 'POST', url: '/api/things/' })).statusCode).toBe(200);
  });

  it('closing waits for the changes under way; one that outlasts the wait opens the gate again', async () => {
    const gate = new WriteGate();
    const { app, release, entered } = await gatedServer(gate);
    const slow = app.inject({ method: 'POST', url: '/api/slow/' });
    await entered;
    expect(gate.writesInFlight).toBe(1);
    const short = await gate.close(() => true, 50);
    expect(short).toMatchObject({ drained: false, inFlight: 1 });
    expect(gate.readOnly).toBe(false);

    const closing = gate.close(() => true, 10_000);
    // Refused from the moment the close began, while the one under way goes on.
    expect((await app.inject({ method: 'POST', url: '/api/things/' })).statusCode).toBe(503);
    release();
    expect((await slow).statusCode).toBe(200);
    expect(await closing).toMatchObject({ drained: true, inFlight: 0 });
    expect(gate.writesInFlight).toBe(0);
  });

  it('a failed change is counted out too', async () => {
    const gate = new WriteGate();
    const server = Fastify();
    registerWriteGate(server, gate);
    server.post('/api/broken/', async () => {
      throw new Error('boom');
    });
    app = server;
    expect((await server.inject({ method: 'POST', url: '/api/broken/' })).statusCode).toBe(500);
    expect(gate.writesInFlight).toBe(0);
  });

  it('pauses background work while closed and resumes it on opening; a dead run opens the gate by itself', async () => {
    const gate = new WriteGate();
    const calls: string[] = [];
    gate.background = { pause: async () => void calls.push('pause'), resume: async () => void calls.push('resume') };
    let alive = true;
    await gate.close(() => alive, 1000);
    expect(calls).toEqual(['pause']);
    expect(gate.readOnly).toBe(true);
    alive = false;
    expect(gate.readOnly).toBe(false);
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('a sealed gate (the run migrates) stays closed when the run dies, until opened', async () => {
    const gate = new WriteGate();
    expect(gate.seal()).toBe(false); // nothing to seal while open
    let alive = true;
    await gate.close(() => alive, 1000);
    expect(gate.seal()).toBe(true);
    alive = false;
    expect(gate.readOnly).toBe(true);
    expect(() => gate.beginWrite()).toThrow(/being upgraded/);
    await gate.open();
    expect(gate.readOnly).toBe(false);
    expect(gate.sealed).toBe(false);
  });

  it('background work that will not pause leaves the gate open, and says so', async () => {
    const gate = new WriteGate();
    gate.background = {
      pause: async () => {
        throw new Error('a queue did not stop');
      },
      resume: async () => {},
    };
    await expect(gate.close(() => true, 1000)).rejects.toThrow(BackgroundPauseError);
    expect(gate.readOnly).toBe(false);
  });
});
