// The run's database snapshot goes when the run ends, by either road (done, or a finished rollback). Its file is in
// the work folder the run removes anyway; a database copy the server made (src/system/database-copy.ts) is not, and
// would hold a second copy of the database's disk for ever.
import { discardSnapshot } from '../../system/backup.ts';
import { COPY_FROM_BYTES } from '../../system/database-copy.ts';
import { readEnvFile } from '../../install/layout.ts';
import { backupTarget, save, type EngineContext } from './context.ts';

/**
 * The database size from which the snapshot is the server's copy rather than a dump: CAIRN_SNAPSHOT_COPY_FROM_MB
 * in the environment or the install's environment file (the file wins, as for DATABASE_URL), else
 * src/system/database-copy.ts's. A value that is not a whole number of megabytes is a warning and the default.
 */
export function snapshotCopyFromBytes(ctx: EngineContext): number {
  const raw = { ...ctx.env, ...readEnvFile(ctx.layout.envFile) }.CAIRN_SNAPSHOT_COPY_FROM_MB;
  if (raw === undefined || raw === '') return COPY_FROM_BYTES;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1024 ** 2;
  // Asked at preflight (the disk needed) and again at snapshot: said once.
  const warning = `CAIRN_SNAPSHOT_COPY_FROM_MB=${JSON.stringify(raw)} is not a whole number of megabytes: the default, ${COPY_FROM_BYTES / 1024 ** 2} MB, was used.`;
  if (!ctx.journal.warnings.includes(warning)) {
    ctx.journal.warnings.push(warning);
    save(ctx);
  }
  return COPY_FROM_BYTES;
}

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
