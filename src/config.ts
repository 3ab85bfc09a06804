// Environment and flags → one typed, validated configuration. Errors here are one-line and fatal at start.
import { resolve } from 'node:path';

/** Admission control's defaults (src/core/admission.ts): requests at once, longest wait, and when a long request stops counting. */
export const ADMISSION_DEFAULTS = { limit: 8, maxWaitMs: 15_000, lendAfterMs: 1_000 } as const;

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  /**
   * PostgreSQL streaming standbys of DATABASE_URL (CAIRN_DATABASE_REPLICA_URLS): `cairn serve` sends the reads of
   * GET and HEAD requests to them (src/db/replicas.ts); everything else stays on the primary.
   */
  databaseReplicaUrls: string[];
  /** A replica further behind the primary than this is skipped until it catches up (CAIRN_REPLICA_MAX_LAG_MS). */
  replicaMaxLagMs: number;
  /**
   * How long a read by a token or session that wrote waits for a replica to replay that write before it is read
   * from the primary instead (CAIRN_REPLICA_WAIT_MS; 0: straight to the primary).
   */
  replicaWaitMs: number;
  adminPassword: string | null;
  logLevel: string;
  /** PostgreSQL connections this process keeps at most (CAIRN_DB_POOL). */
  dbPool: number;
  /** A statement running longer is cancelled and its request answered 503 (CAIRN_STATEMENT_TIMEOUT_MS). */
  statementTimeoutMs: number;
  /**
   * Repeated statements are prepared once per connection, on the embedded database once for its session
   * (CAIRN_DB_PREPARE, default on). Off for a pooler that cannot keep a session's prepared statements (PgBouncer in
   * transaction mode before 1.21).
   */
  dbPrepare: boolean;
  /** The embedded database's buffer cache, in MB (CAIRN_EMBEDDED_SHARED_BUFFERS_MB; PostgreSQL's shared_buffers). */
  embeddedSharedBuffersMb: number;
  /** Human-readable lines on a terminal, JSON lines otherwise (CAIRN_LOG_FORMAT chooses). */
  logFormat: 'pretty' | 'json';
  secretKey: string | null;
  /** Requests worked on at once; the others wait their turn (CAIRN_MAX_ACTIVE_REQUESTS, src/core/admission.ts). */
  maxActiveRequests: number;
  /** A request that waited this long for its turn is answered 503 + Retry-After (CAIRN_REQUEST_WAIT_MS). */
  requestWaitMs: number;
  /** Bytes one render request may produce (CAIRN_RENDER_MAX_BYTES). */
  renderMaxBytes: number;
  /** Milliseconds one render request may take, all its renders together (CAIRN_RENDER_TIME_BUDGET_MS). */
  renderTimeBudgetMs: number;
}

/**
 * PostgreSQL connection defaults: 10 connections per process (two processes and a worker stay well inside
 * PostgreSQL's default 100), and no statement may hold one for more than 30 s.
 */
export const DATABASE_DEFAULTS = { pool: 10, statementTimeoutMs: 30_000 } as const;

/**
 * The embedded database's buffer cache: PostgreSQL's default, 128 MB. PGlite maps it into its WebAssembly memory as
 * it opens, and each open pays for those pages (most of it in the kernel), so a smaller one opens for less: a
 * process that opens the database for one command, a test's copy of a small database. A machine short of memory can
 * lower it too.
 */
const EMBEDDED_SHARED_BUFFERS_DEFAULT_MB = 128;

/** CAIRN_EMBEDDED_SHARED_BUFFERS_MB, checked: the setting for openPGlite's `sharedBuffersMb`. */
export function embeddedSharedBuffersMb(env: NodeJS.ProcessEnv = process.env): number {
  return positiveInteger(env, 'CAIRN_EMBEDDED_SHARED_BUFFERS_MB', EMBEDDED_SHARED_BUFFERS_DEFAULT_MB);
}

/**
 * Read replicas: one 3 s behind is stale enough for a reader that did not write (the writer reads its own writes
 * whatever the lag); a writer's read waits up to 250 ms for a replica (replay usually takes a few ms) before it
 * goes to the primary. The lag limit is at most 5 minutes: write marks are kept 10 (core/read-routing.ts).
 */
export const REPLICA_DEFAULTS = { maxLagMs: 3_000, waitMs: 250, maxLagLimitMs: 300_000 } as const;

/** Defaults of the render budget: past these a render stops and its response is refused or cut off. */
export const RENDER_DEFAULTS = { maxBytes: 256 * 1024 * 1024, timeBudgetMs: 120_000 } as const;

export class ConfigError extends Error {}

export interface ConfigOverrides {
  host?: string;
  port?: string | number;
  dataDir?: string;
  databaseUrl?: string;
  /** Comma-separated, as CAIRN_DATABASE_REPLICA_URLS. */
  databaseReplicaUrls?: string;
}

export function loadConfig(overrides: ConfigOverrides = {}, env: NodeJS.ProcessEnv = process.env, onTerminal = Boolean(process.stdout.isTTY)): Config {
  const portText = String(overrides.port ?? env.PORT ?? '8080');
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`Invalid port "${portText}": expected a whole number from 0 to 65535.`);
  }
  const databaseUrl = overrides.databaseUrl ?? env.DATABASE_URL ?? null;
  if (databaseUrl) validateDatabaseUrl(databaseUrl);
  const databaseReplicaUrls = (overrides.databaseReplicaUrls ?? env.CAIRN_DATABASE_REPLICA_URLS ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  // Refused rather than ignored: someone who set it expects reads to leave the primary.
  if (databaseReplicaUrls.length && !databaseUrl) {
    throw new ConfigError('CAIRN_DATABASE_REPLICA_URLS needs DATABASE_URL: the embedded database has no replicas.');
  }
  for (const url of databaseReplicaUrls) validateDatabaseUrl(url, 'CAIRN_DATABASE_REPLICA_URLS');
  const logFormat = env.CAIRN_LOG_FORMAT || (onTerminal ? 'pretty' : 'json');
  if (logFormat !== 'pretty' && logFormat !== 'json') throw new ConfigError(`CAIRN_LOG_FORMAT must be json or pretty (got "${logFormat}").`);
  passwordHashN(env); // refused at start rather than at the first new password
  return {
    host: overrides.host ?? env.HOST ?? '127.0.0.1',
    port,
    dataDir: resolve(overrides.dataDir ?? env.CAIRN_DATA_DIR ?? './data'),
    databaseUrl: databaseUrl || null,
    adminPassword: env.CAIRN_ADMIN_PASSWORD || null,
    logLevel: env.LOG_LEVEL ?? 'info',
    logFormat,
    dbPool: positiveInteger(env, 'CAIRN_DB_POOL', DATABASE_DEFAULTS.pool),
    statementTimeoutMs: positiveInteger(env, 'CAIRN_STATEMENT_TIMEOUT_MS', DATABASE_DEFAULTS.statementTimeoutMs),
    dbPrepare: onOff(env, 'CAIRN_DB_PREPARE', true),
    embeddedSharedBuffersMb: embeddedSharedBuffersMb(env),
    databaseReplicaUrls,
    replicaMaxLagMs: replicaMaxLag(env),
    replicaWaitMs: wholeNumber(env, 'CAIRN_REPLICA_WAIT_MS', REPLICA_DEFAULTS.waitMs),
    secretKey: env.CAIRN_SECRET_KEY || null,
    maxActiveRequests: positiveInteger(env, 'CAIRN_MAX_ACTIVE_REQUESTS', ADMISSION_DEFAULTS.limit),
    requestWaitMs: positiveInteger(env, 'CAIRN_REQUEST_WAIT_MS', ADMISSION_DEFAULTS.maxWaitMs),
    renderMaxBytes: positiveInteger(env, 'CAIRN_RENDER_MAX_BYTES', RENDER_DEFAULTS.maxBytes),
    renderTimeBudgetMs: positiveInteger(env, 'CAIRN_RENDER_TIME_BUDGET_MS', RENDER_DEFAULTS.timeBudgetMs),
  };
}

/**
 * scrypt's work factor for new password hashes (src/core/auth/passwords.ts), as log2(N): 14 (N = 16,384, about
 * 50 ms) unless CAIRN_PASSWORD_HASH_COST says otherwise (10 to 20). Each hash records its own N, so changing it
 * never locks anyone out. The test suite sets 10: it creates thousands of users and checks nothing that depends
 * on the cost.
 */
export function passwordHashN(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.CAIRN_PASSWORD_HASH_COST;
  if (text === undefined || text === '') return 2 ** 14;
  const cost = Number(text);
  if (!Number.isInteger(cost) || cost < 10 || cost > 20) {
    throw new ConfigError(`Invalid CAIRN_PASSWORD_HASH_COST "${text}": expected a whole number from 10 to 20 (log2 of scrypt's N).`);
  }
  return 2 ** cost;
}

function onOff(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const text = env[name]?.trim().toLowerCase();
  if (text === undefined || text === '') return fallback;
  if (['1', 'true', 'on', 'yes'].includes(text)) return true;
  if (['0', 'false', 'off', 'no'].includes(text)) return false;
  throw new ConfigError(`Invalid ${name} "${env[name]}": expected on or off.`);
}

function replicaMaxLag(env: NodeJS.ProcessEnv): number {
  const value = positiveInteger(env, 'CAIRN_REPLICA_MAX_LAG_MS', REPLICA_DEFAULTS.maxLagMs);
  if (value > REPLICA_DEFAULTS.maxLagLimitMs) {
    throw new ConfigError(`Invalid CAIRN_REPLICA_MAX_LAG_MS "${value}": at most ${REPLICA_DEFAULTS.maxLagLimitMs} (5 minutes); a replica further behind serves no reads.`);
  }
  return value;
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) throw new ConfigError(`Invalid ${name} "${text}": expected a whole number above 0.`);
  return value;
}

function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) throw new ConfigError(`Invalid ${name} "${text}": expected a whole number, 0 or more.`);
  return value;
}

export function validateDatabaseUrl(url: string, setting = 'DATABASE_URL'): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`${setting} is not a valid URL: expected postgres://user@host:port/database.`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new ConfigError(`${setting} must start with postgres:// or postgresql:// (got "${parsed.protocol}").`);
  }
  if (!parsed.hostname && !parsed.searchParams.get('host')) {
    throw new ConfigError(`${setting} names no host.`);
  }
}
