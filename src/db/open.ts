// Opens the configured database: PostgreSQL when DATABASE_URL is set, else PGlite under the data directory.
import type { Config } from '../config.ts';
import { openPGlite, openPostgres, type Database } from './database.ts';

export function openConfiguredDatabase(config: Config): Promise<Database> {
  return config.databaseUrl ? openPostgres(config.databaseUrl, config.dbPool, { statementTimeoutMs: config.statementTimeoutMs, namedStatements: config.dbPrepare }) : openPGlite(config.dataDir);
}
