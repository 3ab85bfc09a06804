// Upgrade mail through a local SMTP stand-in (a real TCP listener): the client's wire protocol (plain,
// STARTTLS, AUTH PLAIN, a refused recipient), and the engine's path: an automatic run's outcome and a failed
// database restore are mailed to the digest recipients with the settings the web process left for the engine.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MailError, SmtpMailer } from '../core/mail.ts';
import { configureSecrets, encryptSecret } from '../core/secrets.ts';
import { startSmtpStandin, type SmtpStandin } from '../../test/helpers/smtp.ts';
import type { EngineContext } from './engine/context.ts';
import { mailOutcome, notifyRestoreFailed } from './engine/job-record.ts';
import type { Journal } from './engine/journal.ts';
import { layoutFor } from '../install/layout.ts';
import type { Host } from './host/types.ts';
import { upgradeOutcomeMail, writeMailMirror } from './mail.ts';
import { DEFAULT_UPGRADE_SETTINGS } from './settings.ts';

let smtp: SmtpStandin;
const dir = mkdtempSync(join(tmpdir(), 'cairn-mail-'));

beforeAll(async () => {
  smtp = await startSmtpStandin();
});
afterAll(async () => {
  await smtp.close();
  rmSync(dir, { recursive: true, force: true });
});

function journal(patch: Partial<Journal>): Journal {
  return {
    id: '20261121T100000-abcdef', state: 'done', trigger: 'auto', startedBy: 'automatic', versionFrom: '1.2.0', versionTo: '1.3.0', bundle: '/x.tar.gz', pid: 1,
    startedAt: '2026-11-21T10:00:00.000Z', finishedAt: '2026-11-21T10:05:00.000Z', step: 'done',
    steps: [{ name: 'preflight', status: 'ok', started: '2026-11-21T10:00:00.000Z', ended: '2026-11-21T10:00:01.000Z', detail: '1.2.0 → 1.3.0' }],
    outcome: { code: 'new', database: 'migrated', services: 'running' }, failedStep: null, error: null, errorTail: null, warnings: [],
    context: { workDir: join(dir, 'work'), previousRelease: null, newRelease: null, servicesBefore: null, timersBefore: null, envCopy: null, swapped: false, pendingMigrations: null, snapshotFile: null, migrateStarted: true, holdToken: null, backupId: 'b1', jobId: null, child: null },
    ...patch,
  } as Journal;
}

describe('SMTP client against the stand-in', () => {
  it('delivers one message to several recipients, with headers, UTF-8 subject and dot-stuffed body', async () => {
    const before = smtp.received.length;
    await new SmtpMailer({ host: '127.0.0.1', port: smtp.port, tls: 'none' }).send({ from: 'cairn@example.com', to: ['a@example.com', 'b@example.com'], subject: 'Upgrade 1.2.0 → 1.3.0', text: 'line one\n.leading dot\nend' });
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    expect(mail).toMatchObject({ from: 'cairn@example.com', to: ['a@example.com', 'b@example.com'], auth: null });
    expect(mail!.data).toContain(`Subject: =?UTF-8?B?${Buffer.from('Upgrade 1.2.0 → 1.3.0').toString('base64')}?=`);
    expect(mail!.data).toContain('line one\n.leading dot\nend');
  });

  it('refuses header injection through an address and says which recipient the server refused', async () => {
    const mailer = new SmtpMailer({ host: '127.0.0.1', port: smtp.port, tls: 'none' });
    await expect(mailer.send({ from: 'x@example.com\r\nBcc: evil@example.com', to: ['a@example.com'], subject: 's', text: 't' })).rejects.toThrow(MailError);
    const picky = await startSmtpStandin({ rejectRecipients: ['nobody@example.com'] });
    try {
      await expect(new SmtpMailer({ host: '127.0.0.1', port: picky.port, tls: 'none' }).send({ from: 'x@example.com', to: ['nobody@example.com'], subject: 's', text: 't' })).rejects.toThrow(/RCPT TO nobody@example.com: the server answered 550/);
    } finally {
      await picky.close();
    }
    await expect(new SmtpMailer({ host: '127.0.0.1', port: smtp.port, tls: 'starttls' }).send({ from: 'x@example.com', to: ['a@example.com'], subject: 's', text: 't' })).rejects.toThrow(/does not offer STARTTLS/);
  });

  it('upgrades to TLS with STARTTLS before authenticating', async () => {
    const certDir = join(dir, 'cert');
    mkdirSync(certDir);
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(certDir, 'key.pem'), '-out', join(certDir, 'cert.pem'), '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
    const cert = readFileSync(join(certDir, 'cert.pem'));
    const secure = await startSmtpStandin({ tls: { key: readFileSync(join(certDir, 'key.pem')), cert } });
    try {
      await new SmtpMailer({ host: 'localhost', port: secure.port, tls: 'starttls', user: 'mailer', password: 's3cret', ca: cert.toString() }).send({ from: 'x@example.com', to: ['a@example.com'], subject: 'tls', text: 'over tls' });
      const [mail] = await secure.waitFor(1);
      expect(mail).toMatchObject({ tls: true, auth: { user: 'mailer', password: 's3cret' } });
    } finally {
      await secure.close();
    }
  });
});

describe('which runs are mailed', () => {
  it.each<[string, Partial<Journal>, RegExp | null]>([
    ['automatic, succeeded', {}, /Automatic upgrade 1\.2\.0 → 1\.3\.0 succeeded/],
    ['automatic, failed early', { state: 'failed', failedStep: 'backup', error: 'disk full', outcome: { code: 'unchanged', database: 'unchanged', services: 'running' } }, /Automatic upgrade 1\.2\.0 → 1\.3\.0 failed/],
    ['automatic, the bundle failed verification (no version in the journal yet): named from the file', { versionTo: null, bundle: '/r/shared/upgrade/downloads/cairn-1.4.0-rc.1.tar.gz', state: 'failed', failedStep: 'preflight' }, /Automatic upgrade 1\.2\.0 → 1\.4\.0-rc\.1 failed/],
    ['by a person, succeeded: not mailed', { trigger: 'online', startedBy: 'user:admin' }, null],
    ['by a person, rolled back', { trigger: 'bundle', state: 'failed', failedStep: 'migrate', error: 'boom', outcome: { code: 'restored', database: 'restored', services: 'running' } }, /^\[Cairn\] Upgrade 1\.2\.0 → 1\.3\.0 failed$/],
  ])('%s', (_name, patch, subject) => {
    const mail = upgradeOutcomeMail(journal(patch));
    if (!subject) return expect(mail).toBeNull();
    expect(mail!.subject).toMatch(subject);
  });
});

describe('the engine mails with the settings the web process left it', () => {
  const root = join(dir, 'root');
  const layout = layoutFor(root);
  const ctx = (j: Journal): EngineContext => ({ layout, host: {} as Host, journal: j, env: {}, engineToken: null });

  beforeAll(() => {
    mkdirSync(layout.dataDir, { recursive: true });
    mkdirSync(layout.upgradeDir, { recursive: true });
    delete process.env.DATABASE_URL;
    // The password is stored encrypted with the install's key (embedded: <data>/secret.key), as the web process saves it.
    configureSecrets({ secretKey: null, keyFile: join(layout.dataDir, 'secret.key') });
    writeMailMirror(layout, {
      ...DEFAULT_UPGRADE_SETTINGS,
      smtp_host: '127.0.0.1',
      smtp_port: smtp.port,
      smtp_tls: 'none',
      smtp_user: 'relay-user',
      smtp_password: encryptSecret('relay-password'),
      mail_from: 'cairn@example.com',
      digest_recipients: ['ops@example.com', 'lead@example.com'],
    });
  });

  it('an automatic upgrade: subject and body name the versions and the outcome', async () => {
    const before = smtp.received.length;
    await mailOutcome(ctx(journal({})));
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    expect(mail).toMatchObject({ from: 'cairn@example.com', to: ['ops@example.com', 'lead@example.com'], auth: { user: 'relay-user', password: 'relay-password' } });
    expect(mail!.data).toContain('Subject: =?UTF-8?B?');
    expect(mail!.data).toContain('Automatic upgrade of Cairn from 1.2.0 to 1.3.0 succeeded: Cairn 1.3.0 is running.');
    expect(mail!.data).toContain('Outcome: new; database migrated; services running');
  });

  it('a failed database restore: mailed, written to alerts.log, and the card says a mail left', async () => {
    const before = smtp.received.length;
    const j = journal({ trigger: 'bundle', startedBy: 'cli:ops', state: 'restore_failed', failedStep: 'migrate', error: 'migration 0015 failed', outcome: { code: 'restore_failed', database: 'restore_failed', services: 'stopped' } });
    await notifyRestoreFailed(ctx(j), 'pg_restore exited 1');
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    expect(mail!.data).toContain('Subject: =?UTF-8?B?');
    expect(mail!.data).toContain('The upgrade of Cairn from 1.2.0 to 1.3.0 failed, and putting the database back from its snapshot failed too:');
    expect(mail!.data).toContain('pg_restore exited 1');
    expect(readFileSync(join(layout.upgradeDir, 'alerts.log'), 'utf8')).toContain('database restore failed: pg_restore exited 1');
    expect(j.warnings.at(-1)).toMatch(/digest recipients were mailed/);
    // The outcome mail is not sent a second time for the same failed restore.
    await mailOutcome(ctx(j));
    await new Promise((r) => setTimeout(r, 200));
    expect(smtp.received.length).toBe(before + 1);
  });

  it('without SMTP settings nothing is sent and alerts.log is the fallback the card names', async () => {
    rmSync(join(layout.upgradeDir, 'mail-settings.json'));
    const before = smtp.received.length;
    const j = journal({ state: 'restore_failed', failedStep: 'migrate' });
    await notifyRestoreFailed(ctx(j), 'second failure');
    expect(smtp.received.length).toBe(before);
    expect(j.warnings.at(-1)).toMatch(/No mail was sent .*shared\/upgrade\/alerts\.log/);
    expect(existsSync(join(layout.upgradeDir, 'alerts.log'))).toBe(true);
  });
});
