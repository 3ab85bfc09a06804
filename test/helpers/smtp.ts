// A local SMTP stand-in for mail tests: a real TCP listener on 127.0.0.1 speaking enough SMTP (EHLO, optional
// STARTTLS, AUTH PLAIN and/or LOGIN, MAIL, RCPT, DATA, QUIT) to accept messages and keep them for the test to read.
import { createServer, type Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  from: string;
  to: string[];
  data: string;
  auth: { user: string; password: string; mechanism: string } | null;
  tls: boolean;
}

export interface SmtpStandin {
  port: number;
  received: ReceivedMail[];
  close(): Promise<void>;
  /** Resolves once n messages arrived (or rejects after timeoutMs). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedMail[]>;
}

export interface StandinOptions {
  /** Offer STARTTLS with this key and certificate. */
  tls?: { key: Buffer; cert: Buffer };
  /** Answer RCPT TO for these addresses with 550. */
  rejectRecipients?: string[];
  /** The SASL mechanisms the EHLO offers (default PLAIN); others are answered 504. An empty list: no AUTH line. */
  authMechanisms?: string[];
  /** When set, AUTH with another password is answered 535. */
  password?: string;
}

export async function startSmtpStandin(opts: StandinOptions = {}): Promise<SmtpStandin> {
  const received: ReceivedMail[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((raw) => {
    sockets.add(raw);
    raw.on('close', () => sockets.delete(raw));
    let socket: Socket = raw;
    let buffer = '';
    let inData = false;
    // AUTH LOGIN's two challenges: the user name comes first, then the password.
    let login: { user: string | null } | null = null;
    const mechanisms = opts.authMechanisms ?? ['PLAIN'];
    const authenticated = (user: string, password: string, mechanism: string) => {
      if (opts.password !== undefined && password !== opts.password) return send('535 5.7.8 authentication credentials invalid');
      current.auth = { user, password, mechanism };
      send('235 2.7.0 authenticated');
    };
    const b64 = (text: string) => Buffer.from(text, 'base64').toString('utf8');
    let current: ReceivedMail = { from: '', to: [], data: '', auth: null, tls: false };
    const send = (line: string) => socket.write(`${line}\r\n`);
    const onLine = (line: string) => {
      if (inData) {
        if (line === '.') {
          inData = false;
          received.push(current);
          current = { from: '', to: [], data: '', auth: current.auth, tls: current.tls };
          send('250 2.0.0 queued');
        } else current.data += `${line.startsWith('..') ? line.slice(1) : line}\n`;
        return;
      }
      if (login) {
        if (login.user === null) {
          login.user = b64(line);
          send(`334 ${Buffer.from('Password:').toString('base64')}`);
        } else {
          const { user } = login;
          login = null;
          authenticated(user, b64(line), 'LOGIN');
        }
        return;
      }
      const verb = line.split(' ')[0]!.toUpperCase();
      if (verb === 'EHLO' || verb === 'HELO') {
        const ext = [...(opts.tls && !current.tls ? ['STARTTLS'] : []), ...(mechanisms.length ? [`AUTH ${mechanisms.join(' ')}`] : []), '8BITMIME'];
        socket.write(`250-standin greets you\r\n${ext.map((e, i) => `250${i === ext.length - 1 ? ' ' : '-'}${e}`).join('\r\n')}\r\n`);
      } else if (verb === 'STARTTLS' && opts.tls) {
        send('220 2.0.0 go ahead');
        raw.removeAllListeners('data');
        const secure = new TLSSocket(raw, { isServer: true, key: opts.tls.key, cert: opts.tls.cert });
        socket = secure;
        current.tls = true;
        buffer = '';
        secure.on('data', onData);
      } else if (verb === 'AUTH') {
        const [, mechanism = '', token] = line.split(' ');
        if (!mechanisms.includes(mechanism.toUpperCase())) send('504 5.5.4 mechanism not supported');
        else if (mechanism.toUpperCase() === 'LOGIN') {
          login = { user: null };
          send(`334 ${Buffer.from('Username:').toString('base64')}`);
        } else {
          const parts = b64(token ?? '').split('\0');
          authenticated(parts[1] ?? '', parts[2] ?? '', 'PLAIN');
        }
      } else if (verb === 'MAIL') {
        current.from = /<(.*)>/.exec(line)?.[1] ?? '';
        send('250 2.1.0 ok');
      } else if (verb === 'RCPT') {
        const to = /<(.*)>/.exec(line)?.[1] ?? '';
        if (opts.rejectRecipients?.includes(to)) send(`550 5.1.1 <${to}>: no such user`);
        else {
          current.to.push(to);
          send('250 2.1.5 ok');
        }
      } else if (verb === 'DATA') {
        inData = true;
        send('354 end with .');
      } else if (verb === 'QUIT') {
        send('221 2.0.0 bye');
        socket.end();
      } else send('502 5.5.2 not implemented');
    };
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let i: number;
      while ((i = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        onLine(line);
      }
    };
    raw.on('data', onData);
    raw.on('error', () => {});
    send('220 standin ESMTP');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
    async waitFor(n, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`the SMTP stand-in received ${received.length} of ${n} messages`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return received;
    },
  };
}
