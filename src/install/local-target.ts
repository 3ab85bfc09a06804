// Where this process's backups go and what they hold: the install layout's shared/ folder when running from an
// installed release, else (a checkout run with `npm start`) a backups folder beside the data directory.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Config } from '../config.ts';
import type { BackupTarget } from './backup-target.ts';
import { detectRoot, layoutFor } from './layout.ts';

export function localBackupTarget(config: Pick<Config, 'databaseUrl' | 'dataDir'>, version: string, env: NodeJS.ProcessEnv = process.env): BackupTarget {
  const root = detectRoot(env);
  const layout = root ? layoutFor(root) : null;
  const envFile = layout ? layout.envFile : resolve('.env');
  return {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    envFile: existsSync(envFile) ? envFile : null,
    backupsDir: env.CAIRN_BACKUPS_DIR ? resolve(env.CAIRN_BACKUPS_DIR) : layout ? layout.backupsDir : join(dirname(config.dataDir), 'backups'),
    version,
  };
}

/** The install root, for step detectors that look for files on the host. */
export function localRoot(env: NodeJS.ProcessEnv = process.env): string | null {
  return detectRoot(env);
}
