// The log of `cairn serve`: JSON lines off a terminal, readable lines on one, CAIRN_LOG_FORMAT to choose.
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { loggerOptions, signInBox } from './log-output.ts';

describe('log format', () => {
  it('is JSON off a terminal, pretty on one, and what CAIRN_LOG_FORMAT says either way', () => {
    expect(loadConfig({}, {}, false).logFormat).toBe('json');
    expect(loadConfig({}, {}, true).logFormat).toBe('pretty');
    expect(loadConfig({}, { CAIRN_LOG_FORMAT: 'json' }, true).logFormat).toBe('json');
    expect(loadConfig({}, { CAIRN_LOG_FORMAT: 'pretty' }, false).logFormat).toBe('pretty');
    expect(() => loadConfig({}, { CAIRN_LOG_FORMAT: 'yaml' }, true)).toThrow(ConfigError);
    expect(() => loadConfig({}, { CAIRN_LOG_FORMAT: 'yaml' }, true)).toThrow(/CAIRN_LOG_FORMAT must be json or pretty/);
  });

  it('writes a request as a readable line in the pretty format', async () => {
    let written = '';
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        written += chunk.toString();
        done();
      },
    });
    const app = Fastify({ logger: loggerOptions({ logLevel: 'info', logFormat: 'pretty' }, sink) });
    app.get('/ping', async () => ({ ok: true }));
    expect((await app.inject({ method: 'GET', url: '/ping' })).statusCode).toBe(200);
    await app.close();
    expect(written).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: GET \/ping \[[\w-]{5}\]$/m);
    expect(written).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: 200 in \d+ ms \[[\w-]{5}\]$/m);
    expect(written).not.toMatch(/^\{"level"/m);
  });

  it('boxes the sign-in lines', () => {
    expect(signInBox(['ab', 'abcd'])).toBe(['┌──────┐', '│ ab   │', '│ abcd │', '└──────┘'].join('\n'));
  });
});
