// The run as a job (kind 'upgrade', deployment-wide) on the Jobs page, and the alert of a failed database
// restore. Both are best effort: recording must never make an upgrade fail. The engine can reach the database
// only on PostgreSQL; an embedded database is held by the web process for most of the run, so there the run is
// recorded in the journal (the upgrade card) only.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openPostgres, type Database } from '../../db/database.ts';
import { createJob, finishJob, reportJobProgress } from '../../jobs/record.ts';
import { readEnvFile } from './layout.ts';
import { save, type EngineContext } from './context.ts';
import { engineMailSettings, mailConfigured, mailDigest, mailerFor, restoreFailedMail, upgradeOutcomeMail } from '../mail.ts';

async function withDatabase(ctx: EngineContext, work: (database: Database) => Promise<void>): Promise<void> {
  const url = { ...process.env, ...readEnvFile(ctx.layout.envFile) }.DATABASE_URL;
  if (!url) return;
  let database: Database | null = null;
  try {
    database = await openPostgres(url, 1);
    await work(database);
  } catch (err) {
    ctx.journal.warnings.push(`could not record the upgrade as a job: ${(err as Error).message}`);
  } finally {
    await database?.close().catch(() => {});
  }
}

export async function startRecord(ctx: EngineContext): Promise<void> {
  await withDatabase(ctx, async ({ db }) => {
    ctx.journal.context.jobId = await createJob(db, {
      kind: 'upgrade',
      tenantId: null,
      startedBy: ctx.journal.startedBy.startsWith('user:') ? ctx.journal.startedBy : 'system',
      status: 'running',
    });
    save(ctx);
  });
}

export async function finishRecord(ctx: EngineContext): Promise<void> {
  await recordFinishedJob(ctx);
  await mailOutcome(ctx);
}

async function recordFinishedJob(ctx: EngineContext): Promise<void> {
  const { journal } = ctx;
  const jobId = journal.context.jobId;
  if (!jobId) return;
  // The job row was written before the snapshot, so a restore keeps it; finishJob ignores an id that is gone.
  await withDatabase(ctx, async ({ db }) => {
    const to = journal.versionTo ?? '?';
    if (journal.state === 'done') await finishJob(db, jobId, { status: 'succeeded', result: `${journal.versionFrom} → ${to}${journal.warnings.length ? ` with ${journal.warnings.length} warning(s)` : ''}` });
    else await finishJob(db, jobId, { status: 'failed', error: `${journal.failedStep ?? '?'}: ${journal.error ?? ''} (${journal.outcome?.code ?? 'unknown'})` });
  });
}

/** Automatic runs (any outcome) and failed runs go to the digest recipients when SMTP is configured. */
export async function mailOutcome(ctx: EngineContext): Promise<void> {
  // A failed restore has its own alert (notifyRestoreFailed), sent when it happened.
  const mail = ctx.journal.state === 'restore_failed' ? null : upgradeOutcomeMail(ctx.journal);
  if (!mail) return;
  await sendDigest(ctx, mail, 'the upgrade outcome');
}

async function sendDigest(ctx: EngineContext, mail: { subject: string; text: string }, what: string): Promise<boolean> {
  try {
    const settings = await engineMailSettings(ctx.layout);
    if (!mailConfigured(settings)) return false;
    await mailDigest(settings, mailerFor(settings, ctx.layout), mail);
    return true;
  } catch (err) {
    ctx.journal.warnings.push(`could not mail ${what} to the digest recipients: ${(err as Error).message}`);
    save(ctx);
    return false;
  }
}

/**
 * Mails the digest recipients when SMTP is configured (upgrade settings); the alert is always written to
 * shared/upgrade/alerts.log too, and the card's warning says whether a mail left.
 */
export async function notifyRestoreFailed(ctx: EngineContext, message: string): Promise<void> {
  const mailed = await sendDigest(ctx, restoreFailedMail(ctx.journal, message), 'the failed database restore');
  try {
    mkdirSync(ctx.layout.upgradeDir, { recursive: true });
    appendFileSync(join(ctx.layout.upgradeDir, 'alerts.log'), `${new Date().toISOString()} upgrade ${ctx.journal.id}: database restore failed: ${message}\n`);
    ctx.journal.warnings.push(mailed
      ? 'The digest recipients were mailed about the failed database restore; the alert is also in shared/upgrade/alerts.log.'
      : 'No mail was sent (SMTP is not configured in the upgrade settings, or sending failed): the alert is in shared/upgrade/alerts.log.');
    save(ctx);
  } catch {
    /* the journal already says restore_failed */
  }
}

/** Steps done so far on the run's job (PostgreSQL only, like the record itself), so /api/jobs/ follows the terminal. */
export async function recordStepProgress(ctx: EngineContext, done: number, total: number): Promise<void> {
  const jobId = ctx.journal.context.jobId;
  if (!jobId) return;
  await withDatabase(ctx, async ({ db }) => reportJobProgress(db, jobId, done, total));
}
