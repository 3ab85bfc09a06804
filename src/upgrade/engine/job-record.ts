// The run as a job (kind 'upgrade', deployment-wide) on the Jobs page, and the alert of a failed database
// restore. Both are best effort: recording must never make an upgrade fail. On PostgreSQL the engine writes the
// record itself; an embedded database is held by the web process, so there the engine asks the running web
// (its engine-only route, proven by the run's secret). While web is stopped (quiesce → resume) nothing can be
// written; every write carries the whole record as the journal has it, so the first one after the new (or the
// restored old) web serves again brings it up to date.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openPostgres } from '../../db/database.ts';
import { applyUpgradeJobWrite, upgradeJobWrite, type UpgradeJobWrite } from '../job-write.ts';
import { readEnvFile } from '../../install/layout.ts';
import { callWeb } from './web-call.ts';
import { save, type EngineContext } from './context.ts';
import { engineMailSettings, mailConfigured, mailDigest, mailerFor, restoreFailedMail, upgradeOutcomeMail } from '../mail.ts';

type Written = { id: string } | { unreachable: string } | { failed: string };

async function writeDirect(url: string, write: UpgradeJobWrite): Promise<Written> {
  let database: Awaited<ReturnType<typeof openPostgres>> | null = null;
  try {
    database = await openPostgres(url, 1);
    return { id: await applyUpgradeJobWrite(database.db, write) };
  } catch (err) {
    return { failed: (err as Error).message };
  } finally {
    await database?.close().catch(() => {});
  }
}

async function writeThroughWeb(ctx: EngineContext, write: UpgradeJobWrite): Promise<Written> {
  let res: Response;
  try {
    res = await callWeb(ctx.layout, '/api/system/upgrade/job/', { method: 'POST', token: ctx.engineToken, body: write, timeoutMs: 10_000 });
  } catch (err) {
    return { unreachable: `the web service did not answer (${(err as Error).message})` };
  }
  const body = (await res.json().catch(() => ({}))) as { id?: string; detail?: string };
  // 503: the maintenance responder, or the new web behind maintenance (the start step): not serving yet.
  if (res.status === 503) return { unreachable: 'the web service was in maintenance' };
  if (res.status !== 200 || !body.id) return { failed: `HTTP ${res.status} ${body.detail ?? ''}`.trim() };
  return { id: body.id };
}

/**
 * Brings the run's job record to what the journal says now. `final` is the last write of a run (or of a
 * recovery): only its failure is worth a warning, earlier ones are made good by the next write.
 */
async function syncRecord(ctx: EngineContext, final: boolean): Promise<void> {
  const write = upgradeJobWrite(ctx.journal);
  const url = { ...process.env, ...readEnvFile(ctx.layout.envFile) }.DATABASE_URL;
  const written = url ? await writeDirect(url, write) : await writeThroughWeb(ctx, write);
  if ('id' in written) {
    if (ctx.journal.context.jobId !== written.id) {
      ctx.journal.context.jobId = written.id;
      save(ctx);
    }
    return;
  }
  // Embedded: a write while web is stopped is made good by the next one; after a failed restore web stays
  // stopped on purpose, and `cairn upgrade recover` finishes the record.
  if (!url && (!final || ctx.journal.state === 'restore_failed')) return;
  ctx.journal.warnings.push(`could not record the upgrade as a job: ${'unreachable' in written ? written.unreachable : written.failed}`);
  save(ctx);
}

export async function startRecord(ctx: EngineContext): Promise<void> {
  await syncRecord(ctx, false);
}

export async function finishRecord(ctx: EngineContext): Promise<void> {
  await syncRecord(ctx, true);
  await mailOutcome(ctx);
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

/** Steps done so far on the run's job, so /api/jobs/ follows the terminal (while web serves, on the embedded database). */
export async function recordStepProgress(ctx: EngineContext): Promise<void> {
  await syncRecord(ctx, false);
}
