// Puts everything back after a failure before resume: services stopped, `current` and the env file and the unit
// links as they were, the database from the snapshot when a migration ran, then what ran before started again.
// Every undo looks at the disk first, so running it twice (a recovery after a killed rollback) is harmless.
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { restoreSnapshot } from '../../system/backup.ts';
import { runRelease } from './commands.ts';
import { backupTarget, commandOptions, killLeftoverChild, restoreFaultPoint, save, type EngineContext } from './context.ts';
import { currentRelease, webAddress } from '../../install/layout.ts';
import { describeHealth, waitForHealth } from './probe.ts';
import { pointCurrentAt } from './current-link.ts';
import { removeRelease } from './remove-release.ts';
import { notifyRestoreFailed } from './job-record.ts';
import { discardSnapshotOrWarn } from './snapshot.ts';
import { reopenWeb } from './serve-reads.ts';

export async function rollback(ctx: EngineContext): Promise<void> {
  const { journal, layout, host } = ctx;
  killLeftoverChild(ctx);
  const stoppedAnything = journal.context.servicesBefore !== null;
  const say = (line: string) => ctx.progress?.(`  rollback: ${line}`);
  if (!stoppedAnything) {
    // Failed before quiesce: nothing ran differently, only the unpacked release goes.
    say('nothing was stopped; removing the unpacked release');
    removeNewRelease(ctx);
    rmSync(journal.context.workDir, { recursive: true, force: true });
    finish(ctx, { code: 'unchanged', database: 'unchanged', services: 'running' });
    return;
  }

  // 1. Nothing of the new release may keep running; the responder answers meanwhile. A web that still answers
  //    reads (serve-reads.ts: the run failed before its migration) is the old release's own and goes on doing so.
  const readOnlyWeb = journal.context.webReadOnly === true && !journal.context.migrateStarted && !journal.context.handOverStarted && (await host.isActive('web'));
  say(readOnlyWeb ? 'stopping the worker (web, still the old release, answers reads meanwhile)' : 'stopping services (the site answers 503 meanwhile)');
  await host.stop('worker');
  if (!readOnlyWeb) await host.holdPort();

  // 2. Files: current, env file, unit links.
  say(`pointing current back at ${journal.versionFrom}; environment file and unit links as they were`);
  const previous = journal.context.previousRelease!;
  if (currentRelease(layout)?.dir !== previous) pointCurrentAt(layout, previous);
  if (journal.context.envCopy && existsSync(journal.context.envCopy)) copyFileSync(journal.context.envCopy, layout.envFile);
  if (journal.context.swapped) await host.linkUnits(previous);

  // 3. Database: from the snapshot only when a migration ran (or may have).
  let database: 'restored' | 'unchanged' = 'unchanged';
  if (journal.context.migrateStarted) {
    say('restoring the database from the snapshot');
    try {
      if (!journal.context.snapshotFile || !existsSync(journal.context.snapshotFile)) throw new Error('the database snapshot is missing');
      restoreFaultPoint(ctx);
      await restoreSnapshot(backupTarget(layout, journal.versionFrom), journal.context.snapshotFile);
      database = 'restored';
    } catch (err) {
      await restoreFailed(ctx, err);
      return;
    }
  } else if (journal.context.holdToken) {
    // The new release turned maintenance on in a database we keep: turn it off with the old code.
    await runRelease(layout, previous, ['maintenance', 'off'], commandOptions(ctx));
  }
  journal.context.holdToken = null;
  save(ctx);

  // 4. What ran before runs again (web behind the responder's socket), on the old release.
  say(`starting what ran before on ${journal.versionFrom}`);
  const before = journal.context.servicesBefore ?? [];
  if (readOnlyWeb && (await reopenWeb(ctx))) say('web takes changes again');
  else if (before.includes('web')) {
    if (readOnlyWeb) await host.holdPort(); // it would not take changes again: restarted like any other
    await ctx.host.start('web');
  } else await host.releasePort();
  if (before.includes('worker')) await host.start('worker');
  await host.startTimers(journal.context.timersBefore ?? []);
  let services: 'running' | 'unhealthy' = 'running';
  if (before.includes('web')) {
    const { host: addr, port } = webAddress(layout);
    const h = await waitForHealth(addr, port, (x) => x.status === 'ok' && x.version === journal.versionFrom && !x.maintenance, 120_000);
    if (!h.ok) {
      services = 'unhealthy';
      journal.warnings.push(`after the rollback, health says: ${describeHealth(h.last)}`);
    }
  }
  removeNewRelease(ctx);
  await discardSnapshotOrWarn(ctx);
  rmSync(journal.context.workDir, { recursive: true, force: true });
  finish(ctx, { code: 'restored', database, services });
}

function removeNewRelease(ctx: EngineContext): void {
  const dir = ctx.journal.context.newRelease;
  if (dir && dir !== ctx.journal.context.previousRelease && currentRelease(ctx.layout)?.dir !== dir) removeRelease(ctx.layout, dir);
}

function finish(ctx: EngineContext, outcome: NonNullable<EngineContext['journal']['outcome']>): void {
  ctx.journal.state = 'failed';
  ctx.journal.outcome = outcome;
  ctx.journal.finishedAt = new Date().toISOString();
  save(ctx);
}

/** Nothing may start on a database in an unknown state: services stay stopped until `cairn upgrade recover`. */
async function restoreFailed(ctx: EngineContext, err: unknown): Promise<void> {
  const message = err instanceof Error ? err.message : String(err);
  await ctx.host.releasePort();
  ctx.journal.state = 'restore_failed';
  ctx.journal.outcome = { code: 'restore_failed', database: 'restore_failed', services: 'stopped' };
  ctx.journal.finishedAt = new Date().toISOString();
  ctx.progress?.(`  rollback: the database restore failed (${message}); services stay stopped until \`cairn upgrade recover\``);
  ctx.journal.warnings.push(
    `The database restore failed (${message}). Services are stopped; run \`cairn upgrade recover\` to retry. The pre-upgrade backup ${ctx.journal.context.backupId ?? '(none)'} is the last resort.`,
  );
  save(ctx);
  await notifyRestoreFailed(ctx, message);
}
