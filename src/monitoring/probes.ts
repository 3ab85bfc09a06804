// The probes a check runs against one address: pure network code with a timeout, no database. Configuration
// or internal errors answer `unknown`, never `down`, so a broken check does not page anyone.
import { createSocket } from 'node:dgram';
import { Socket } from 'node:net';
import { randomInt } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { CheckState } from './service.ts';

export interface ProbeResult {
  status: CheckState;
  latencyMs: number | null;
  detail: string;
}

/** TCP: a completed handshake within the timeout is up; refused, unreachable or timed out is down. */
export function probeTcp(host: string, port: number, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = new Socket();
    let settled = false;
    const finish = (result: ProbeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ status: 'down', latencyMs: null, detail: `No answer within ${timeoutMs} ms.` }), timeoutMs);
    socket.once('connect', () => finish({ status: 'up', latencyMs: performance.now() - started, detail: 'Connected.' }));
    socket.once('error', (err: NodeJS.ErrnoException) => finish({ status: 'down', latencyMs: null, detail: err.code === 'ECONNREFUSED' ? 'Connection refused.' : `${err.code ?? err.message}` }));
    socket.connect({ host, port });
  });
}

/** A DNS query for the root NS records: any well-formed answer with our id shows the server is serving. */
export function dnsQuery(id: number): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0100, 2); // recursion desired
  header.writeUInt16BE(1, 4); // one question
  // Root name (a single zero byte), QTYPE NS (2), QCLASS IN (1).
  return Buffer.concat([header, Buffer.from([0, 0, 2, 0, 1])]);
}

/**
 * UDP. Port 53: a real DNS query; an answer is up, ICMP port-unreachable or silence is down (a name server
 * that does not answer is not serving). Other ports: one datagram on a connected socket, where the kernel turns
 * an ICMP port-unreachable into ECONNREFUSED (down), any reply is up, and silence proves nothing (unknown).
 */
export function probeUdp(host: string, port: number, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    const isDns = port === 53;
    const id = randomInt(0, 0x10000);
    let settled = false;
    const finish = (result: ProbeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.close();
      resolve(result);
    };
    const timer = setTimeout(
      () => finish(isDns ? { status: 'down', latencyMs: null, detail: `No DNS answer within ${timeoutMs} ms.` } : { status: 'unknown', latencyMs: null, detail: 'No reply (a silent UDP port may still be open).' }),
      timeoutMs,
    );
    socket.on('error', (err: NodeJS.ErrnoException) =>
      finish(err.code === 'ECONNREFUSED' ? { status: 'down', latencyMs: null, detail: 'Port unreachable.' } : { status: isDns ? 'down' : 'unknown', latencyMs: null, detail: `${err.code ?? err.message}` }),
    );
    socket.on('message', (msg) => {
      if (isDns && (msg.length < 12 || msg.readUInt16BE(0) !== id || (msg[2]! & 0x80) === 0)) return; // not our answer
      finish({ status: 'up', latencyMs: performance.now() - started, detail: isDns ? 'DNS answer.' : 'Reply received.' });
    });
    socket.connect(port, host, () => {
      socket.send(isDns ? dnsQuery(id) : Buffer.from('\n'), (err) => {
        if (err) socket.emit('error', err);
      });
    });
  });
}

export function runProbe(kind: string, host: string, port: number, timeoutMs: number): Promise<ProbeResult> {
  if (kind === 'tcp') return probeTcp(host, port, timeoutMs);
  if (kind === 'udp') return probeUdp(host, port, timeoutMs);
  return Promise.resolve({ status: 'unknown', latencyMs: null, detail: `No probe for kind "${kind}".` });
}
