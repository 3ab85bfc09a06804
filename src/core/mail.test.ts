// SMTP authentication against the local stand-in over real TCP: the mechanism is picked from the EHLO's AUTH line
// (PLAIN when offered, else LOGIN), and a server offering neither is refused before any mail is sent.
import { afterEach, describe, expect, it } from 'vitest';
import { authMechanisms, MailError, SmtpMailer } from './mail.ts';
import { startSmtpStandin, type SmtpStandin } from '../../test/helpers/smtp.ts';

const PASSWORD = 'p4ss-w0rd-not-for-logs';
const message = { from: 'cairn@example.com', to: ['ops@example.com'], subject: 'digest', text: 'body' };
const open: SmtpStandin[] = [];

async function standin(authMechanisms: string[]): Promise<SmtpStandin> {
  const s = await startSmtpStandin({ authMechanisms, password: PASSWORD });
  open.push(s);
  return s;
}

function mailer(port: number, password = PASSWORD): SmtpMailer {
  return new SmtpMailer({ host: '127.0.0.1', port, tls: 'none', user: 'relay@example.com', password });
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

describe('SMTP authentication', () => {
  it('reads the mechanisms of the AUTH line, in either form', () => {
    expect(authMechanisms('standin greets you\nAUTH LOGIN plain XOAUTH2\n8BITMIME')).toEqual(['LOGIN', 'PLAIN', 'XOAUTH2']);
    expect(authMechanisms('mx\nAUTH=LOGIN\nSIZE 1000')).toEqual(['LOGIN']);
    expect(authMechanisms('mx\nAUTHX PLAIN\nSIZE 1000')).toEqual([]);
  });

  it('uses AUTH LOGIN when the server offers only LOGIN (Exchange, Office 365)', async () => {
    const s = await standin(['LOGIN']);
    await mailer(s.port).send(message);
    const [mail] = await s.waitFor(1);
    expect(mail).toMatchObject({ from: 'cairn@example.com', to: ['ops@example.com'], auth: { user: 'relay@example.com', password: PASSWORD, mechanism: 'LOGIN' } });
  });

  it('prefers PLAIN when both are offered', async () => {
    const s = await standin(['LOGIN', 'PLAIN']);
    await mailer(s.port).send(message);
    const [mail] = await s.waitFor(1);
    expect(mail!.auth).toEqual({ user: 'relay@example.com', password: PASSWORD, mechanism: 'PLAIN' });
  });

  it('a wrong password over LOGIN fails naming the step, never the password', async () => {
    const s = await standin(['LOGIN']);
    const wrong = 'wrong-secret-value';
    const err = await mailer(s.port, wrong).send(message).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MailError);
    expect((err as MailError).message).toBe('SMTP AUTH LOGIN password: the server answered 535 5.7.8 authentication credentials invalid');
    for (const secret of [wrong, Buffer.from(wrong).toString('base64')]) expect((err as MailError).message).not.toContain(secret);
    expect(s.received).toHaveLength(0);
  });

  it('refuses a server offering neither PLAIN nor LOGIN, naming what it offers, before sending anything', async () => {
    const s = await standin(['CRAM-MD5', 'XOAUTH2']);
    const err = await mailer(s.port).send(message).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MailError);
    expect((err as MailError).message).toBe('SMTP: 127.0.0.1 offers authentication by CRAM-MD5, XOAUTH2; Cairn speaks PLAIN and LOGIN.');
    expect(s.received).toHaveLength(0);
  });

  it('refuses a server with no AUTH line when a user is set', async () => {
    const s = await standin([]);
    await expect(mailer(s.port).send(message)).rejects.toThrow('SMTP: 127.0.0.1 offers no authentication, but a user is set.');
    expect(s.received).toHaveLength(0);
  });
});
