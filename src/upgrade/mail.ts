// Upgrade mail to the digest recipients: which runs are mailed (automatic ones whatever the outcome, any failed
// one, a failed database restore), what the mail says, and where the engine finds the SMTP settings. The engine
// runs in its own process while the web service may be stopped, so it reads the settings itself: from the
// database on PostgreSQL, and on the embedded database (held by the web process), or a PostgreSQL database a
// failed restore left unreadable, from the copy the web process writes beside the journal whenever the settings
// change or it launches a run (shared/upgrade/mail-settings.json, mode 0600, password encrypted as in the database).
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPostgres } from '../db/database.ts';
import { configureSecrets, decryptSecret } from '../core/secrets.ts';
import { SmtpMailer, type MailMessage, type Mailer } from '../core/mail.ts';
import type { Journal } from './engine/journal.ts';
import { readEnvFile, type InstallLayout } from '../install/layout.ts';
import { DEFAULT_UPGRADE_SETTINGS, readUpgradeSettings, type UpgradeSettings } from './settings.ts';
import { parseVersion } from '../install/version.ts';

/** Configured = a host, a sender and at least one recipient. */
export function mailConfigured(s: UpgradeSettings): boolean {
  return s.smtp_host !== '' && s.mail_from !== '' && s.digest_recipients.length > 0;
}

/** The mail a finished run deserves, or null: automatic runs always, others only when they failed. */
export function upgradeOutcomeMail(journal: Journal, site = ''): Omit<MailMessage, 'from' | 'to'> | null {
  const failed = journal.state !== 'done';
  if (journal.trigger !== 'auto' && !failed) return null;
  const to = targetVersion(journal);
  const how = journal.trigger === 'auto' ? 'Automatic upgrade' : 'Upgrade';
  const outcome = journal.state === 'done'
    ? `succeeded: Cairn ${to} is running`
    : journal.state === 'restore_failed'
      ? 'FAILED and the database restore failed: the services are stopped until `cairn upgrade recover` succeeds'
      : journal.outcome?.code === 'restored'
        ? `failed and was rolled back: Cairn ${journal.versionFrom} is running again`
        : `failed before anything was changed: Cairn ${journal.versionFrom} is still running`;
  const subject = `[Cairn${site ? ` ${site}` : ''}] ${how} ${journal.versionFrom} → ${to} ${journal.state === 'done' ? 'succeeded' : journal.state === 'restore_failed' ? 'failed (database restore failed)' : 'failed'}`;
  const lines = [
    `${how} of Cairn from ${journal.versionFrom} to ${to} ${outcome}.`,
    '',
    `Run: ${journal.id}`,
    `Started by: ${journal.startedBy} (${journal.trigger}) at ${journal.startedAt}`,
    `Finished: ${journal.finishedAt ?? 'not yet'}`,
  ];
  if (journal.outcome) lines.push(`Outcome: ${journal.outcome.code}; database ${journal.outcome.database}; services ${journal.outcome.services}`);
  if (journal.failedStep) lines.push('', `Failed step: ${journal.failedStep}`, `Error: ${journal.error ?? ''}`);
  if (journal.errorTail) lines.push('', 'Output (last lines):', journal.errorTail.slice(-1500));
  if (journal.warnings.length) lines.push('', 'Warnings:', ...journal.warnings.map((w) => `- ${w}`));
  lines.push('', 'Steps:', ...journal.steps.map((s) => `- ${s.name}: ${s.status}${s.detail ? ` (${s.detail.slice(0, 200)})` : ''}`));
  lines.push('', 'See Settings → Updates, or `cairn upgrade status` on the server.');
  return { subject, text: lines.join('\n') };
}

/**
 * The release a run was going to: the journal's (set once the bundle verified), else the version in the bundle's
 * file name (downloads and uploads are kept as cairn-<version>.tar.gz), so a bundle that failed verification is
 * still named in the mail.
 */
function targetVersion(journal: Journal): string {
  if (journal.versionTo) return journal.versionTo;
  const named = /(?:^|\/)cairn-([^/]+)\.(?:tar\.gz|tgz)$/.exec(journal.bundle)?.[1];
  return named && parseVersion(named) ? named : '(unknown version)';
}

export function restoreFailedMail(journal: Journal, message: string): Omit<MailMessage, 'from' | 'to'> {
  return {
    subject: `[Cairn] Upgrade ${journal.versionFrom} → ${targetVersion(journal)}: DATABASE RESTORE FAILED, services stopped`,
    text: [
      `The upgrade of Cairn from ${journal.versionFrom} to ${targetVersion(journal)} failed, and putting the database back from its snapshot failed too:`,
      message,
      '',
      'The services are stopped so nothing runs on that database. Run `cairn upgrade recover` on the server to retry the restore;',
      `the pre-upgrade backup${journal.context.backupId ? ` ${journal.context.backupId}` : ''} is the last resort (cairn backup restore <id>).`,
      '',
      `Run: ${journal.id}, failed step: ${journal.failedStep ?? '?'}: ${journal.error ?? ''}`,
    ].join('\n'),
  };
}

// ------------------------------------------------------------------------------ settings for the engine

function mirrorFile(layout: InstallLayout): string {
  return join(layout.upgradeDir, 'mail-settings.json');
}

/** Written by the web process (settings saved, run launched) for an engine that cannot open the embedded database. */
export function writeMailMirror(layout: InstallLayout, settings: UpgradeSettings): void {
  mkdirSync(layout.upgradeDir, { recursive: true, mode: 0o700 });
  const file = mirrorFile(layout);
  const tmp = `${file}.${process.pid}.tmp`;
  const { smtp_host, smtp_port, smtp_tls, smtp_user, smtp_password, mail_from, digest_recipients } = settings;
  writeFileSync(tmp, JSON.stringify({ smtp_host, smtp_port, smtp_tls, smtp_user, smtp_password, mail_from, digest_recipients }), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** The SMTP settings as the engine sees them now: database on PostgreSQL, else the web process's copy. */
export async function engineMailSettings(layout: InstallLayout): Promise<UpgradeSettings> {
  const env = { ...process.env, ...readEnvFile(layout.envFile) };
  if (env.DATABASE_URL) {
    try {
      const database = await openPostgres(env.DATABASE_URL, 1);
      try {
        return await readUpgradeSettings(database.db);
      } finally {
        await database.close().catch(() => {});
      }
    } catch {
      // A failed restore may leave the database unreadable: that is when the alert matters most.
    }
  }
  try {
    return { ...DEFAULT_UPGRADE_SETTINGS, ...(JSON.parse(readFileSync(mirrorFile(layout), 'utf8')) as Partial<UpgradeSettings>) };
  } catch {
    return DEFAULT_UPGRADE_SETTINGS;
  }
}

/** A mailer for the settings, with the password decrypted by the deployment key the install uses. */
export function mailerFor(settings: UpgradeSettings, layout: InstallLayout | null): Mailer {
  let password = '';
  if (settings.smtp_password) {
    if (layout) {
      const env = { ...process.env, ...readEnvFile(layout.envFile) };
      configureSecrets({ secretKey: env.CAIRN_SECRET_KEY || null, keyFile: join(env.CAIRN_DATA_DIR || layout.dataDir, 'secret.key') });
    }
    password = decryptSecret(settings.smtp_password);
  }
  return new SmtpMailer({ host: settings.smtp_host, port: settings.smtp_port, tls: settings.smtp_tls, user: settings.smtp_user || undefined, password });
}

/** Sends to the digest recipients; says what happened in one line for the journal. */
export async function mailDigest(settings: UpgradeSettings, mailer: Mailer, mail: Omit<MailMessage, 'from' | 'to'>): Promise<string> {
  await mailer.send({ ...mail, from: settings.mail_from, to: settings.digest_recipients });
  return `mailed to ${settings.digest_recipients.join(', ')}`;
}
