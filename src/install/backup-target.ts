// Where a backup is taken from and kept: the database (embedded or PostgreSQL), data directory, environment file
// and backups folder of one installation. Used by backups (src/system) and upgrades (src/upgrade) alike.
import type { Database } from '../db/database.ts';

export interface BackupTarget {
  /** null: the embedded PGlite database under dataDir/pgdata. */
  databaseUrl: string | null;
  dataDir: string;
  envFile: string | null;
  backupsDir: string;
  /** The version of the code that runs against this database (recorded in, and checked against, backups). */
  version: string;
  /** Embedded only: the database when THIS process has it open (it holds the data directory's lock). */
  database?: Pick<Database, 'dumpDataDir'>;
}
