// Outbound mail: a small SMTP client (RFC 5321: EHLO, optional STARTTLS or implicit TLS, AUTH PLAIN or LOGIN, one
// message to several recipients) behind the Mailer interface, so callers and tests never depend on the wire.
// Plain text only; enough for the digest and alert mail this product sends.
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';

export interface MailMessage {
  from: string;
  to: string[];
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export interface SmtpOptions {
  host: string;
  port: number;
  tls: 'none' | 'starttls' | 'tls';
  user?: string;
  password?: string;
  timeoutMs?: number;
  /** PEM of extra trusted CAs (tests, private relays). */
  ca?: string;
}

export class MailError extends Error {}

/** Reads SMTP replies (multi-line `250-…` continued until `250 …`) from a socket that may be swapped for TLS. */
class ReplyReader {
  private buffer = '';
  private waiting: ((reply: { code: number; text: string }) => void) | null = null;
  private failed: Error | null = null;
  private onFail: ((err: Error) => void) | null = null;

  attach(socket: Socket | TLSSocket): void {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.deliver();
    });
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new MailError('The SMTP server closed the connection.')));
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = err;
    this.onFail?.(err);
  }

  private deliver(): void {
    if (!this.waiting) return;
    const lines = this.buffer.split('\r\n');
    for (let i = 0; i < lines.length - 1; i++) {
      const line = lines[i]!;
      if (/^\d{3} /.test(line) || /^\d{3}$/.test(line)) {
        const text = lines.slice(0, i + 1).map((l) => l.slice(4)).join('\n');
        this.buffer = lines.slice(i + 1).join('\r\n');
        const done = this.waiting;
        this.waiting = null;
        this.onFail = null;
        done({ code: Number(line.slice(0, 3)), text });
        return;
      }
    }
  }

  next(): Promise<{ code: number; text: string }> {
    return new Promise((resolve, reject) => {
      if (this.failed) return reject(this.failed);
      this.waiting = resolve;
      this.onFail = reject;
      this.deliver();
    });
  }

  /** A closed plain socket after STARTTLS is expected, not a failure. */
  detach(socket: Socket): void {
    socket.removeAllListeners('data');
    socket.removeAllListeners('close');
    socket.removeAllListeners('error');
  }
}

function dotStuff(text: string): string {
  return text.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..');
}

/** A header value safe to send: no line breaks (header injection), non-ASCII as RFC 2047 UTF-8. */
function headerValue(value: string): string {
  const flat = value.replace(/[\r\n]+/g, ' ');
  return /^[\x20-\x7e]*$/.test(flat) ? flat : `=?UTF-8?B?${Buffer.from(flat, 'utf8').toString('base64')}?=`;
}

export function formatMessage(m: MailMessage, date = new Date(), domain = hostname()): string {
  const headers = [
    `From: ${headerValue(m.from)}`,
    `To: ${m.to.map(headerValue).join(', ')}`,
    `Subject: ${headerValue(m.subject)}`,
    `Date: ${date.toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${randomBytes(12).toString('hex')}@${domain.replace(/[^A-Za-z0-9.-]/g, '') || 'cairn'}>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
  ];
  return `${headers.join('\r\n')}\r\n\r\n${dotStuff(m.text)}`;
}

/** The SASL mechanisms of the EHLO's AUTH line (also the old `AUTH=` form), upper-cased. */
export function authMechanisms(ehloText: string): string[] {
  const mechanisms = new Set<string>();
  for (const m of ehloText.matchAll(/^AUTH[ =](.*)$/gim)) for (const name of m[1]!.trim().split(/\s+/)) if (name) mechanisms.add(name.toUpperCase());
  return [...mechanisms];
}

export class SmtpMailer implements Mailer {
  constructor(private readonly opts: SmtpOptions) {}

  async send(message: MailMessage): Promise<void> {
    if (message.to.length === 0) throw new MailError('No recipients.');
    for (const a of [message.from, ...message.to]) if (/[\r\n<>]/.test(a)) throw new MailError(`Not a usable address: ${JSON.stringify(a)}.`);
    const timeoutMs = this.opts.timeoutMs ?? 30_000;
    const reader = new ReplyReader();
    let socket: Socket | TLSSocket = await this.open(this.opts.tls === 'tls');
    reader.attach(socket);
    const timer = setTimeout(() => socket.destroy(new MailError(`The SMTP server ${this.opts.host}:${this.opts.port} did not finish within ${timeoutMs / 1000} s.`)), timeoutMs);
    const expect = async (codes: number[], what: string) => {
      const reply = await reader.next();
      if (!codes.includes(reply.code)) throw new MailError(`SMTP ${what}: the server answered ${reply.code} ${reply.text.split('\n')[0]}`);
      return reply;
    };
    const command = async (line: string, codes: number[], what = line.split(' ')[0]!) => {
      socket.write(`${line}\r\n`);
      return expect(codes, what);
    };
    try {
      await expect([220], 'greeting');
      const me = hostname().replace(/[^A-Za-z0-9.-]/g, '') || 'cairn';
      let ehlo = await command(`EHLO ${me}`, [250]);
      if (this.opts.tls === 'starttls') {
        if (!/^STARTTLS\b/im.test(ehlo.text)) throw new MailError(`SMTP: ${this.opts.host} does not offer STARTTLS (set smtp_tls to none or tls).`);
        await command('STARTTLS', [220]);
        reader.detach(socket);
        socket = await this.upgrade(socket as Socket);
        reader.attach(socket);
        ehlo = await command(`EHLO ${me}`, [250]);
      }
      if (this.opts.user) {
        if (!/^AUTH\b/im.test(ehlo.text)) throw new MailError(`SMTP: ${this.opts.host} offers no authentication, but a user is set.`);
        await this.authenticate(authMechanisms(ehlo.text), command);
      }
      await command(`MAIL FROM:<${message.from}>`, [250], 'MAIL FROM');
      for (const to of message.to) await command(`RCPT TO:<${to}>`, [250, 251], `RCPT TO ${to}`);
      await command('DATA', [354]);
      await command(`${formatMessage(message)}\r\n.`, [250], 'message');
      await command('QUIT', [221]).catch(() => {});
    } finally {
      clearTimeout(timer);
      socket.destroy();
    }
  }

  /**
   * PLAIN when offered, else LOGIN (RFC 4954; Exchange and Office 365 often offer only that). The credentials go
   * only on the wire: every error names the step, never the line sent.
   */
  private async authenticate(offered: string[], command: (line: string, codes: number[], what: string) => Promise<unknown>): Promise<void> {
    const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
    const user = this.opts.user ?? '';
    const password = this.opts.password ?? '';
    if (offered.includes('PLAIN')) {
      await command(`AUTH PLAIN ${b64(`\0${user}\0${password}`)}`, [235], 'AUTH PLAIN');
    } else if (offered.includes('LOGIN')) {
      await command('AUTH LOGIN', [334], 'AUTH LOGIN');
      await command(b64(user), [334], 'AUTH LOGIN user name');
      await command(b64(password), [235], 'AUTH LOGIN password');
    } else {
      throw new MailError(`SMTP: ${this.opts.host} offers authentication by ${offered.join(', ') || 'no mechanism'}; Cairn speaks PLAIN and LOGIN.`);
    }
  }

  private open(implicitTls: boolean): Promise<Socket | TLSSocket> {
    const { host, port } = this.opts;
    return new Promise((resolve, reject) => {
      const s = implicitTls
        ? tlsConnect({ host, port, servername: host, ...(this.opts.ca ? { ca: this.opts.ca } : {}) }, () => resolve(s))
        : netConnect({ host, port }, () => resolve(s));
      s.once('error', (err) => reject(new MailError(`SMTP: cannot connect to ${host}:${port}: ${err.message}`)));
    });
  }

  private upgrade(plain: Socket): Promise<TLSSocket> {
    return new Promise((resolve, reject) => {
      const s = tlsConnect({ socket: plain, servername: this.opts.host, ...(this.opts.ca ? { ca: this.opts.ca } : {}) }, () => resolve(s));
      s.once('error', (err) => reject(new MailError(`SMTP STARTTLS with ${this.opts.host}: ${err.message}`)));
    });
  }
}
