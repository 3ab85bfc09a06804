// HEAD: answered by the GET route of its path, with the GET's status and headers and no body, over real HTTP (a
// body sent after a HEAD's headers would be read as the next answer on the connection) and through inject; logged
// as the HEAD it was.
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { startHarness, type Harness } from './helpers/harness.ts';

let h: Harness;
let port: number;
beforeAll(async () => {
  h = await startHarness();
  await h.as('alice').post('/api/sites/', { name: 'Amsterdam 1', slug: 'ams1' });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  port = (h.app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await h?.close();
});

/** Sends `requests` (raw HTTP/1.1, one after another on one connection) and returns every byte answered. */
function exchange(requests: string[], expectAnswers: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(text);
    }, 5000);
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      // Every answer here has a Content-Length: done once the last one's body is in.
      const starts = [...text.matchAll(/^HTTP\/1\.1 /gm)].length;
      if (starts >= expectAnswers && /\r\n\r\n/.test(text.slice(text.lastIndexOf('HTTP/1.1 ')))) {
        const last = text.slice(text.lastIndexOf('HTTP/1.1 '));
        const length = Number(/content-length: (\d+)/i.exec(last)?.[1] ?? 0);
        const [, body = ''] = last.split('\r\n\r\n');
        if (requests.at(-1)!.startsWith('HEAD') || body.length >= length) {
          clearTimeout(timer);
          socket.end();
          resolve(text);
        }
      }
    });
    socket.on('error', reject);
    socket.write(requests.join(''));
  });
}

const request = (method: string, url: string) => `${method} ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token ${h.tokens.alice}\r\n\r\n`;

describe('HEAD', () => {
  it('answers a list with the status and headers of its GET and no body, and the connection goes on', async () => {
    const get = await h.as('alice').get('/api/sites/');
    expect(get.statusCode).toBe(200);
    const text = await exchange([request('HEAD', '/api/sites/'), request('GET', '/api/sites/')], 2);
    const [headAnswer, getAnswer] = text.split(/(?=^HTTP\/1\.1 )/m);
    expect(headAnswer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(headAnswer).toMatch(new RegExp(`\\r\\ncontent-length: ${get.headers['content-length']}\\r\\n`, 'i'));
    expect(headAnswer).toMatch(/\r\ncontent-type: application\/json/i);
    // Nothing after the head's blank line: the next bytes are the GET's answer, whole.
    expect(headAnswer!.endsWith('\r\n\r\n')).toBe(true);
    expect(getAnswer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(JSON.parse(getAnswer!.split('\r\n\r\n')[1]!)).toMatchObject({ count: 1, results: [{ slug: 'ams1' }] });
  });

  it('answers health, an unknown path, a path with no GET and a refused read as their GETs do, without a body', async () => {
    const cases: Array<[string, string | undefined]> = [
      ['/api/health/', undefined],
      ['/api/no-such-thing/', h.tokens.alice],
      // POST only: no GET route, so no HEAD either.
      ['/api/auth/login/', undefined],
      ['/api/sites/', h.tokens.viewer],
      ['/api/sites/', undefined],
    ];
    const seen: number[] = [];
    for (const [url, token] of cases) {
      const headers = token ? { authorization: `Token ${token}` } : {};
      const get = await h.app.inject({ method: 'GET', url, headers });
      const head = await h.app.inject({ method: 'HEAD', url, headers });
      expect(head.statusCode, url).toBe(get.statusCode);
      expect(head.headers['content-length'], url).toBe(get.headers['content-length']);
      expect(head.payload, url).toBe('');
      seen.push(head.statusCode);
    }
    expect(seen).toEqual([200, 404, 404, 200, 401]);
  });

  it('is logged as a HEAD', async () => {
    const lines: string[] = [];
    const stream = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) });
    const app = await buildApp({ database: h.database, logger: { level: 'info', stream } });
    try {
      await app.inject({ method: 'HEAD', url: '/api/health/' });
      await app.inject({ method: 'GET', url: '/api/health/' });
    } finally {
      await app.close();
    }
    const incoming = lines.map((l) => JSON.parse(l) as { msg: string; req?: { method: string; url: string } }).filter((l) => l.msg === 'incoming request');
    expect(incoming.map((l) => `${l.req?.method} ${l.req?.url}`)).toEqual(['HEAD /api/health/', 'GET /api/health/']);
  });
});
