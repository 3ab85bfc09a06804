// `cairn upgrade recover` (and the recovery unit): finishes or rolls back a run whose engine died. A run that
// reached resume is finished forward (the new release stays); anything earlier is rolled back; a failed
// database restore is retried.
import { SERVICES } from '../host/types.ts';
import type { Host } from '../host/types.ts';
import { killLeftoverChild, newToken, save, sha256, type EngineContext } from './context.ts';
import { readJournal, unfinished, type Journal } from './journal.ts';
import { webAddress, type InstallLayout } from '../../install/layout.ts';
import { acquireLock } from '../../install/lock.ts';
import { describeHealth, waitForHealth } from './probe.ts';
import { rollback } from './rollback.ts';
import { openSite } from './open-site.ts';
import { printLine } from './print.ts';
import { finishRecord } from './job-record.ts';

export interface RecoverResult {
  action: 'nothing' | 'finished' | 'rolled_back' | 'restore_failed';
  journal: Journal | null;
}

export async function recoverUpgrade(
  layout: InstallLayout,
  host: Host,
  env: NodeJS.ProcessEnv = process.env,
  progress: ((line: string) => void) | null = printLine,
): Promise<RecoverResult> {
  // Refuses while a live engine holds it. The secret lets the web it starts again take the run's job record
  // (embedded database).
  const engineToken = newToken();
  const release = acquireLock(layout.lockFile, 'recover', sha256(engineToken));
  try {
    const journal = readJournal(layout.journalFile);
    if (!journal || !unfinished(journal)) return { action: 'nothing', journal };
    const ctx: EngineContext = { layout, host, journal, env, engineToken, progress: progress ?? undefined };
    ctx.progress?.(`Recovering upgrade ${journal.id} (${journal.versionFrom} → ${journal.versionTo ?? '?'}), interrupted during ${journal.step ?? 'start-up'} …`);
    killLeftoverChild(ctx);
    journal.pid = process.pid;
    journal.warnings.push(`The run was interrupted during ${journal.step ?? 'start-up'}; recovered by \`cairn upgrade recover\`.`);
    save(ctx);
    const reachedResume = journal.steps.some((s) => s.name === 'resume');
    if (journal.state === 'running' && reachedResume) {
      ctx.progress?.('It had reached resume: keeping the new release and finishing forward.');
      await finishForward(ctx);
      await finishRecord(ctx);
      return { action: 'finished', journal: ctx.journal };
    }
    await rollBackInterrupted(ctx, `the upgrade was interrupted during ${journal.step ?? 'start-up'}`);
    return { action: ctx.journal.state === 'restore_failed' ? 'restore_failed' : 'rolled_back', journal: ctx.journal };
  } finally {
    release();
  }
}

/** A run whose engine died (or whose stage ended without finishing it) before resume: the step it was in failed; put everything back. */
export async function rollBackInterrupted(ctx: EngineContext, reason: string): Promise<void> {
  const { journal } = ctx;
  if (journal.state === 'running') {
    const step = journal.steps[journal.steps.length - 1];
    if (step && step.status === 'running') {
      step.status = 'failed';
      step.detail = 'interrupted (the engine process died)';
      step.ended = new Date().toISOString();
    }
    journal.failedStep ??= journal.step;
    journal.error ??= reason;
  }
  ctx.progress?.(`Rolling back: ${journal.error ?? reason}`);
  await rollback(ctx);
  await finishRecord(ctx);
}

/** From resume on nothing rolls back: make sure the new release serves and the site is open. */
async function finishForward(ctx: EngineContext): Promise<void> {
  const { journal, layout, host } = ctx;
  if (!(await host.isActive('web'))) await ctx.host.start('web');
  for (const s of SERVICES) if (s !== 'web' && journal.context.servicesBefore?.includes(s) && !(await host.isActive(s))) await host.start(s);
  const { host: addr, port } = webAddress(layout);
  const h = await waitForHealth(addr, port, (x) => x.status === 'ok' && x.version === journal.versionTo, 120_000);
  if (journal.context.holdToken) {
    try {
      await openSite(layout, journal.context.holdToken);
      journal.context.holdToken = null;
    } catch (err) {
      journal.warnings.push(`resume: ${(err as Error).message}`);
    }
  }
  await host.startTimers(journal.context.timersBefore ?? []);
  if (!h.ok) journal.warnings.push(`after recovery, health says: ${describeHealth(h.last)}`);
  journal.state = 'done';
  journal.finishedAt = new Date().toISOString();
  journal.outcome = { code: 'new', database: journal.context.migrateStarted ? 'migrated' : 'unchanged', services: h.ok ? 'running' : 'unhealthy' };
  save(ctx);
}
