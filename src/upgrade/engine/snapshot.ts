// The run's database snapshot goes when the run ends, by either road (done, or a finished rollback). Its file is in
// the work folder the run removes anyway; a database copy the server made (src/system/database-copy.ts) is not, and
// would hold a second copy of the database's disk for ever.
import { discardSnapshot } from '../../system/backup.ts';
import { backupTarget, save, type EngineContext } from './context.ts';

/** Never throws: from resume on a problem is a warning (and a rollback must finish), so a copy left behind is one. */
export async function discardSnapshotOrWarn(ctx: EngineContext): Promise<void> {
  const file = ctx.journal.context.snapshotFile;
  if (!file) return;
  try {
    await discardSnapshot(backupTarget(ctx.layout, ctx.journal.versionFrom), file);
  } catch (err) {
    ctx.journal.warnings.push(`The database snapshot ${file} could not be removed (${err instanceof Error ? err.message : String(err)}): drop the database it names by hand once you no longer need it.`);
    save(ctx);
  }
}
