// Opens the configured database: PostgreSQL when DATABASE_URL is set, else PGlite under the data directory.
import type { Config } from '../config.ts';
import { openPGlite, openPostgres, type Database } from './database.ts';

/**
 * `withReplicas`: only `cairn serve` answers reads from CAIRN_DATABASE_REPLICA_URLS; one-shot commands and
 * workers, which read what they are about to write, use the primary alone.
 */
export function openConfiguredDatabase(config: Config, { withReplicas = false } = {}): Promise<Database> {
  if (!config.databaseUrl) return openPGlite(config.dataDir, { namedStatements: config.dbPrepare, sharedBuffersMb: config.embeddedSharedBuffersMb });
  return openPostgres(config.databaseUrl, config.dbPool, {
    statementTimeoutMs: config.statementTimeoutMs,
    namedStatements: config.dbPrepare,
    ...(withReplicas && config.databaseReplicaUrls.length ? { replicas: { urls: config.databaseReplicaUrls, maxLagMs: config.replicaMaxLagMs, waitMs: config.replicaWaitMs } } : {}),
  });
}
