// Reads through an upgrade. SPEC's upgrade table shows the maintenance page from quiesce to resume, and that stays
// the default. With CAIRN_UPGRADE_SERVE_READS=1 on PostgreSQL, the running web instead refuses changes at quiesce
// (core/write-gate.ts) and goes on answering reads through swap, deps and the snapshot (a dump, which the server
// takes beside other sessions; its copy needs them gone). Then:
//   migrate  when the old release's code can still read what the migration leaves (it only adds: the new release
//            checks this in the migration's own transaction, db/schema-compat.ts), the old web answers reads on
//            through it, its gate sealed (a dead run leaves it read-only: the recovery restores the snapshot);
//            otherwise the run takes the port first, and the maintenance page lasts from there to resume.
//   start    the old web starts the new release's web on its own socket and stops once that one listens
//            (host/handover.ts); the new web's hold answers reads and refuses changes until resume. Where the host
//            cannot (systemd runs the web itself) the run takes the port and starts web behind it.
// The embedded database has one process: the run needs it to itself from deps on, so there the setting changes
// nothing.
import { serveReadsSetting, SERVE_READS_SETTING } from '../reads-setting.ts';
import { callWeb, refusalOf } from './web-call.ts';
import { backupTarget, save, type EngineContext } from './context.ts';
import type { ReleaseWork } from './release-work.ts';

const READ_ONLY = '/api/system/upgrade/read-only/';
const HAND_OVER = '/api/system/upgrade/hand-over/';

/** Whether this run keeps the site readable: the setting (the environment file wins) on a PostgreSQL install. */
export function servesReads(ctx: EngineContext): boolean {
  const setting = serveReadsSetting(ctx.layout, ctx.env);
  if (setting.invalid !== null) {
    const warning = `${SERVE_READS_SETTING}=${JSON.stringify(setting.invalid)} is neither 1 nor 0: the site was not kept readable (the default).`;
    if (!ctx.journal.warnings.includes(warning)) {
      ctx.journal.warnings.push(warning);
      save(ctx);
    }
    return false;
  }
  return setting.on && backupTarget(ctx.layout, ctx.journal.versionFrom).databaseUrl !== null;
}

/**
 * Quiesce's last stop: the web refuses changes and keeps answering reads when the run serves them and the web can
 * (its release has the call, no change outlasted the wait); otherwise it gives the port to the maintenance responder
 * as SPEC's table has it. Returns what the step's detail says of the web.
 */
export async function quiesceWeb(ctx: EngineContext): Promise<string> {
  const webRan = await ctx.host.isActive('web');
  if (servesReads(ctx) && webRan) {
    const refused = await askReadOnly(ctx);
    if (refused === null) {
      ctx.journal.context.webReadOnly = true;
      save(ctx);
      return 'web answers reads and refuses changes';
    }
    ctx.journal.warnings.push(`quiesce: the site could not be kept readable (${refused}); it showed the maintenance page from quiesce on`);
    save(ctx);
  }
  await ctx.host.holdPort();
  return webRan ? 'web stopped behind the maintenance responder' : 'the maintenance responder holds the port';
}

/**
 * The migrate step's work: with the old web still answering reads when the old release reads what the migration
 * leaves, else behind the responder. The journal's line.
 */
export async function migrate(ctx: EngineContext, work: ReleaseWork): Promise<string> {
  const applied = (lines: string[]) => lines.find((l) => /^Applied \d+ migration/.test(l)) ?? lines[lines.length - 1] ?? '';
  if (ctx.journal.context.webReadOnly && work.migrateIfReadable) {
    // Sealed before the journal says the migration began: a run that dies in between is rolled back by
    // reopening this web (nothing migrated), one that dies after by restoring the snapshot (the web stays read-only).
    const sealed = await askReadOnly(ctx, { through_recovery: true });
    if (sealed === null) {
      startMigration(ctx);
      const result = await work.migrateIfReadable();
      if ('lines' in result) return `${applied(result.lines)}; the web of ${ctx.journal.versionFrom} answered reads throughout`;
      ctx.journal.warnings.push(`migrate: the web of ${ctx.journal.versionFrom} could not answer reads through this migration (${result.refused}): the maintenance page showed from migrate to resume`);
      save(ctx);
    } else {
      ctx.journal.warnings.push(`migrate: the web of ${ctx.journal.versionFrom} could not stay read-only through the migration (${sealed}): the maintenance page showed from migrate to resume`);
      save(ctx);
    }
  }
  await takePort(ctx);
  startMigration(ctx);
  return applied(await work.migrate());
}

function startMigration(ctx: EngineContext): void {
  ctx.journal.context.migrateStarted = true;
  save(ctx);
}

/**
 * The start step's hand-over: the web that answered reads starts the new release's web on its socket (the hold,
 * answering reads, is on). True when the new web serves the port now; false when the run must take the port and
 * start web itself (the web is not answering reads, the host runs web itself, or the hand-over failed).
 */
export async function handOverToNewWeb(ctx: EngineContext, work: ReleaseWork, holdHash: string): Promise<boolean> {
  if (!ctx.journal.context.webReadOnly || ctx.host.kind !== 'local' || !work.holdAnsweringReads) return false;
  await work.holdAnsweringReads(holdHash);
  ctx.journal.context.handOverStarted = true;
  save(ctx);
  try {
    const res = await callWeb(ctx.layout, HAND_OVER, { method: 'POST', token: ctx.engineToken, body: {}, timeoutMs: 180_000 });
    if (res.status === 200) {
      ctx.journal.context.webReadOnly = false;
      save(ctx);
      return true;
    }
    // It answered: that web serves on (409: the new web did not listen and was stopped).
    ctx.journal.context.handOverStarted = false;
    ctx.journal.warnings.push(`start: the web of ${ctx.journal.versionFrom} did not hand its port over (${await refusalOf(res)}); web started behind the maintenance responder`);
  } catch (err) {
    ctx.journal.warnings.push(`start: the web of ${ctx.journal.versionFrom} did not answer the hand-over (${err instanceof Error ? err.message : String(err)}); web started behind the maintenance responder`);
  }
  save(ctx);
  return false;
}

/** The run needs the database to itself from here: a web still answering reads gives the port to the responder. */
export async function takePort(ctx: EngineContext): Promise<void> {
  if (!ctx.journal.context.webReadOnly) return;
  await ctx.host.holdPort();
  ctx.journal.context.webReadOnly = false;
  save(ctx);
}

/** Null when the web refuses changes now; else why it does not. */
async function askReadOnly(ctx: EngineContext, ask: { through_recovery?: true } = {}): Promise<string | null> {
  try {
    const res = await callWeb(ctx.layout, READ_ONLY, { method: 'POST', token: ctx.engineToken, body: ask, timeoutMs: 120_000 });
    if (res.status === 200) return null;
    if (res.status === 404) return `the web of ${ctx.journal.versionFrom} cannot refuse changes alone`;
    return `the web answered ${await refusalOf(res)}`;
  } catch (err) {
    return `the web did not answer: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/**
 * Rollback of a run that failed while the web answered reads (before its migration; rollback.ts decides): that web
 * is the release the site stays on, so it takes changes again rather than being restarted. False when it cannot
 * (then it is restarted).
 */
export async function reopenWeb(ctx: EngineContext): Promise<boolean> {
  const res = await callWeb(ctx.layout, READ_ONLY, { method: 'DELETE', token: ctx.engineToken, timeoutMs: 30_000 }).catch(() => null);
  if (res?.status !== 200) return false;
  ctx.journal.context.webReadOnly = false;
  save(ctx);
  return true;
}
