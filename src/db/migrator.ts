// Applies shipped migrations and compares shipped with applied (health: db_behind_code / code_behind_db).
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { DB } from './types.ts';
import { migrations } from './migrations/index.ts';
import { schemaShape, unreadableChanges, type SchemaShape } from './schema-compat.ts';

const provider: MigrationProvider = { getMigrations: async () => migrations };

export function shippedMigrations(): string[] {
  return Object.keys(migrations).sort();
}

export class MigrationError extends Error {}

type AfterMigrations = (db: Kysely<DB>) => Promise<void>;
const afterMigrations: AfterMigrations[] = [];

/**
 * Database objects derived from the running code rather than from a migration (the search triggers, built from
 * the model registry): brought in line after every migration run, whether or not a migration was applied.
 */
export function runAfterMigrations(step: AfterMigrations): void {
  afterMigrations.push(step);
}

export async function migrateToLatest(db: Kysely<DB>): Promise<string[]> {
  // Every start migrates. Kysely's migrator first lists every table and column of the schema to see whether its
  // own tables exist (two catalog queries: 150 ms of a `cairn serve` start on the embedded database); when the
  // database already holds exactly the shipped migrations there is nothing for it to do, so it is not asked.
  const state = await migrationState(db);
  if (!state.dbBehindCode.length && !state.codeBehindDb.length) {
    await bringDerivedInLine(db);
    return [];
  }
  const applied = await runMigrator(db, provider);
  await bringDerivedInLine(db);
  return applied;
}

async function runMigrator(db: Kysely<DB>, from: MigrationProvider): Promise<string[]> {
  const { error, results } = await new Migrator({ db, provider: from }).migrateToLatest();
  if (error instanceof NotReadableByPrevious) throw error;
  if ((error as { code?: unknown } | undefined)?.code === LOCK_NOT_AVAILABLE) {
    throw new MigrationLockTimeout('a read held a table the migration alters for longer than it may wait: nothing was applied');
  }
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    const what = failed ? `migration ${failed.migrationName} failed: ` : '';
    throw new MigrationError(`${what}${(error as Error).message ?? String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** PostgreSQL's lock_not_available: a lock_timeout ran out. */
const LOCK_NOT_AVAILABLE = '55P03';

/** A migration run under readers waited too long for a table's lock; nothing was applied. */
export class MigrationLockTimeout extends MigrationError {}

/** The pending migrations would leave a schema the code before them cannot read; nothing was applied. */
export class NotReadableByPrevious extends Error {
  constructor(readonly changes: string[]) {
    super(`the code before these migrations could not read the schema after them: ${changes.join('; ')}`);
  }
}

/**
 * Applies the pending migrations only if the code before them can still read the result (schema-compat.ts): the
 * shape is taken before the first and compared after the last, inside the one transaction the migrator runs them
 * in (PostgreSQL's DDL is transactional), and a migration that removes or retypes what old code reads throws
 * NotReadableByPrevious, which rolls every one of them back. For an upgrade whose old web answers reads meanwhile:
 * a long read (an export) holds its tables, and every read after it would queue behind a migration waiting for
 * them, so a lock is waited for `lockWaitMs` at most; past that MigrationLockTimeout, nothing applied.
 */
export async function migrateIfReadable(db: Kysely<DB>, shipped: Record<string, Migration> = migrations, lockWaitMs = 5000): Promise<string[]> {
  const pending = (await migrationState(db, Object.keys(shipped))).dbBehindCode;
  if (!pending.length) {
    await bringDerivedInLine(db);
    return [];
  }
  const first = pending[0]!;
  const last = pending[pending.length - 1]!;
  let before: SchemaShape | null = null;
  const wrapped: Record<string, Migration> = { ...shipped };
  wrapped[first] = { ...wrapped[first]!, up: async (trx) => {
    await sql`SELECT set_config('lock_timeout', ${`${lockWaitMs}ms`}, true)`.execute(trx);
    before = await schemaShape(trx);
    await shipped[first]!.up(trx);
  } };
  const lastUp = wrapped[last]!.up;
  wrapped[last] = { ...wrapped[last]!, up: async (trx) => {
    await lastUp(trx);
    const changes = unreadableChanges(before!, await schemaShape(trx));
    if (changes.length) throw new NotReadableByPrevious(changes);
  } };
  const applied = await runMigrator(db, { getMigrations: async () => wrapped });
  await bringDerivedInLine(db);
  return applied;
}

/** The after-migration steps alone: for a copy of a database this code has just migrated (the test suite's per-file copies). */
export async function bringDerivedInLine(db: Kysely<DB>): Promise<void> {
  for (const step of afterMigrations) await step(db);
}

export interface MigrationState {
  applied: string[];
  /** Shipped by this code, not applied in the database. */
  dbBehindCode: string[];
  /** Applied in the database, not shipped by this code (the code is older than the database). */
  codeBehindDb: string[];
}

export async function migrationState(db: Kysely<DB>, shipped: string[] = shippedMigrations()): Promise<MigrationState> {
  const exists = await sql<{ present: boolean }>`SELECT to_regclass('kysely_migration') IS NOT NULL AS present`.execute(db);
  const applied = exists.rows[0]?.present
    ? (await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db)).rows.map((r) => r.name)
    : [];
  shipped = [...shipped].sort();
  const appliedSet = new Set(applied);
  const shippedSet = new Set(shipped);
  return {
    applied,
    dbBehindCode: shipped.filter((n) => !appliedSet.has(n)),
    codeBehindDb: applied.filter((n) => !shippedSet.has(n)),
  };
}
