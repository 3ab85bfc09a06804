// A listener that hands its socket on (web to the maintenance responder and back) closes, over real TCP: a
// keep-alive connection between requests is closed at once, while a connection it accepted last whose request has
// not arrived yet is kept and answered (the close's speed is `npm run bench -- upgrade`'s quiesce step).
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { drainAndClose } from './handover.ts';

let server: Server | null = null;

afterEach(() => {
  server?.closeAllConnections();
  server = null;
});

async function listening(): Promise<number> {
  server = createServer((_req, res) => res.end('answered'));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** An open connection the server has accepted; `request` sends one GET and resolves with what came back. */
async function open(port: number): Promise<{ socket: Socket; closed: Promise<void>; request: () => Promise<string> }> {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString()));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const request = () =>
    new Promise<string>((resolve) => {
      const before = text.length;
      const done = () => resolve(text.slice(before));
      socket.once('close', done);
      socket.on('data', () => {
        if (text.slice(before).includes('answered')) done();
      });
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    });
  return { socket, closed, request };
}

it('closing keeps a connection whose request is on its way, and closes a keep-alive one between requests at once', async () => {
  const port = await listening();
  const keepAlive = await open(port);
  expect(await keepAlive.request()).toContain('answered');
  const fresh = await open(port);
  // Both accepted by the server before the close begins.
  await new Promise<void>((resolve) => {
    const check = () => server!.getConnections((_err, n) => (n === 2 ? resolve() : setTimeout(check, 5)));
    check();
  });
  let closedAll = false;
  const serverClosed = new Promise<void>((resolve) => drainAndClose(server!, () => resolve(void (closedAll = true))));
  // The keep-alive connection goes first; the fresh one is still open when it has gone…
  await keepAlive.closed;
  expect(fresh.socket.destroyed).toBe(false);
  expect(closedAll).toBe(false);
  // …and its request, sent only now, is answered; then the server closes it and has closed.
  const answer = await fresh.request();
  expect(answer).toMatch(/^HTTP\/1\.1 200/);
  expect(answer).toContain('answered');
  await fresh.closed;
  await serverClosed;
});
