// Reads through an upgrade. SPEC's upgrade table shows the maintenance page from quiesce to resume, and that stays
// the default. With CAIRN_UPGRADE_SERVE_READS=1 on PostgreSQL, the running web instead refuses changes at quiesce
// (core/write-gate.ts) and goes on answering reads through swap, deps and the snapshot (a dump, which the server
// takes beside other sessions; its copy needs them gone), and the run takes the port only when the database is about
// to change: before migrate, or before start when nothing is migrated. The maintenance answer then lasts for the
// migration, verify and the new web's start, however large the database. The embedded database has one process:
// the run needs it to itself from deps on, so there the setting changes nothing.
import { readEnvFile } from '../../install/layout.ts';
import { callWeb } from './web-call.ts';
import { backupTarget, save, type EngineContext } from './context.ts';

const SETTING = 'CAIRN_UPGRADE_SERVE_READS';
const READ_ONLY = '/api/system/upgrade/read-only/';

/** Whether this run keeps the site readable: the setting (the environment file wins) on a PostgreSQL install. */
export function servesReads(ctx: EngineContext): boolean {
  const raw = ({ ...ctx.env, ...readEnvFile(ctx.layout.envFile) }[SETTING] ?? '').trim();
  if (raw !== '' && raw !== '0' && raw !== '1') {
    const warning = `${SETTING}=${JSON.stringify(raw)} is neither 1 nor 0: the site was not kept readable (the default).`;
    if (!ctx.journal.warnings.includes(warning)) {
      ctx.journal.warnings.push(warning);
      save(ctx);
    }
    return false;
  }
  return raw === '1' && backupTarget(ctx.layout, ctx.journal.versionFrom).databaseUrl !== null;
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
      return 'web answers reads and refuses changes until the migration';
    }
    ctx.journal.warnings.push(`quiesce: the site could not be kept readable (${refused}); it showed the maintenance page from quiesce on`);
    save(ctx);
  }
  await ctx.host.holdPort();
  return webRan ? 'web stopped behind the maintenance responder' : 'the maintenance responder holds the port';
}

/** The run needs the database to itself from here: a web still answering reads gives the port to the responder. */
export async function takePort(ctx: EngineContext): Promise<void> {
  if (!ctx.journal.context.webReadOnly) return;
  await ctx.host.holdPort();
  ctx.journal.context.webReadOnly = false;
  save(ctx);
}

/** Null when the web refuses changes now; else why it does not. */
async function askReadOnly(ctx: EngineContext): Promise<string | null> {
  try {
    const res = await callWeb(ctx.layout, READ_ONLY, { method: 'POST', token: ctx.engineToken, body: {}, timeoutMs: 120_000 });
    if (res.status === 200) return null;
    if (res.status === 404) return `the web of ${ctx.journal.versionFrom} cannot refuse changes alone`;
    const body = (await res.json().catch(() => ({}))) as { detail?: string };
    return `the web answered HTTP ${res.status}${body.detail ? `: ${body.detail}` : ''}`;
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
