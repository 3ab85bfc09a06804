// Settings → Backups' "Create backup" and "Restore", run by the web process itself: the refusals that the API
// answers as 4xx (an upgrade or a restore holding the site, an unknown id, another version's backup, the embedded
// database that this process holds open) and the mapping of the engine's BackupError to an answer.
import type { FastifyInstance } from 'fastify';
import { forgetCachedTokens } from '../core/auth/credentials.ts';
import { ApiError, badRequest, conflict, notFound } from '../core/errors.ts';
import { BackupError, createBackup, listBackups, restoreBackup, type BackupInfo, type BackupTarget } from './backup.ts';
import { detectRoot, layoutFor } from '../install/layout.ts';
import { BUSY_MESSAGE, lockOwnerAlive } from '../install/lock.ts';
import { localBackupTarget } from '../install/local-target.ts';
import { restoreHolding } from './restore-hold.ts';
import { compareVersions } from '../install/version.ts';

/** backup.ts's id shape: `<UTC stamp>-<kind>-<6 hex>`. */
const BACKUP_ID = /^\d{8}T\d{6}Z-(?:pre-upgrade|manual)-[0-9a-f]{6}$/;

function targetOf(app: FastifyInstance): BackupTarget {
  // The database this process has open is the one to back up, whatever the configuration says.
  const databaseUrl = app.database.backend === 'pglite' ? null : (app.database.pool.options.connectionString ?? app.config.databaseUrl);
  const target = localBackupTarget({ databaseUrl, dataDir: app.database.dataDir ?? app.config.dataDir }, app.cairnVersion);
  // The embedded database is dumped through this process, which holds its data directory.
  return app.database.dumpDataDir ? { ...target, database: app.database } : target;
}

function refuseWhileHeld(target: BackupTarget): void {
  const root = detectRoot();
  if (root && lockOwnerAlive(layoutFor(root).lockFile)) throw conflict(BUSY_MESSAGE);
  const hold = restoreHolding(target.backupsDir);
  if (hold?.alive) throw conflict(`A restore is in progress (backup ${hold.backupId}, since ${hold.since}).`);
  if (hold) throw conflict(`A restore of backup ${hold.backupId} stopped half way: the database may be half restored. Restore a backup on the server (cairn backup restore <id> --yes).`);
}

export async function createBackupNow(app: FastifyInstance): Promise<BackupInfo> {
  const target = targetOf(app);
  refuseWhileHeld(target);
  try {
    return await createBackup(target, 'manual');
  } catch (err) {
    // A missing or failing dump tool is the server's state, not the caller's mistake.
    if (err instanceof BackupError) throw new ApiError(503, { detail: `The backup failed: ${err.message}` });
    throw err;
  }
}

export async function restoreBackupNow(app: FastifyInstance, id: string): Promise<BackupInfo> {
  if (!BACKUP_ID.test(id)) throw badRequest({ id: ['Not a backup id (like 20260101T120000Z-manual-0a1b2c): see the list.'] });
  const target = targetOf(app);
  const info = (await listBackups(target.backupsDir)).find((b) => b.id === id);
  if (!info) throw notFound(`No backup ${id}.`);
  if (compareVersions(info.version, target.version) !== 0) {
    throw badRequest({ id: [`Backup ${id} was made by Cairn ${info.version} and this is Cairn ${target.version}: a backup is restored only onto the version that made it.`] });
  }
  refuseWhileHeld(target);
  if (!target.databaseUrl) {
    throw conflict(`This deployment uses the embedded database, which this web process holds open: stop Cairn and run \`cairn backup restore ${id} --yes\` on the server.`);
  }
  try {
    await restoreBackup(target, id);
  } catch (err) {
    if (err instanceof BackupError) throw new ApiError(503, { detail: `The restore failed: ${err.message}` });
    throw err;
  }
  // Tokens of the backup are the valid ones now.
  forgetCachedTokens();
  return info;
}
