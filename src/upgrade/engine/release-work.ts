// What the steps from deps to start ask of the NEW release while the site is down: its migration plan, its
// migrations, its check of the database, its maintenance hold. The new release's own stage is that release's
// code, so it does the work in its own process; a process per command (`cairn status --json`, `migrate`,
// `upgrade verify`, `upgrade hold`) cost 0.2-0.7 s of the 503 window each, mostly loading code and starting
// Node. An engine carrying a run to a release without a stage has only the release's commands, one process each.
import { loadConfig, type Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import { openConfiguredDatabase } from '../../db/open.ts';
import { MigrationLockTimeout, migrationState, NotReadableByPrevious } from '../../db/migrator.ts';
import { releaseEnv, type InstallLayout } from '../../install/layout.ts';
import { runRelease } from './commands.ts';
import { holdSite } from './hold.ts';
import { verifyRelease, type AppBuilder } from './verify.ts';

export interface MigrationPlan {
  pending: string[];
  /** Applied to the database but not shipped by the release: the database is newer than it. */
  unknown: string[];
}

export interface ReleaseWork {
  plan(): Promise<MigrationPlan>;
  /** Applies the pending migrations; the lines `cairn migrate` prints. */
  migrate(): Promise<string[]>;
  /**
   * Applies them only if the old release's code can still read the result (db/schema-compat.ts) and no read holds
   * a table they alter for long: the lines, or why not (nothing applied). Absent where the release has no such
   * check (its commands only).
   */
  migrateIfReadable?(): Promise<{ lines: string[] } | { refused: string }>;
  /** The release's check of the database before it serves: the line for the journal. */
  verify(): Promise<string>;
  /** Maintenance on until the engine resumes with the token whose hash this is. */
  hold(tokenSha256: string): Promise<void>;
  /** The same hold, answering reads meanwhile. Absent where the release has no such hold (its commands only). */
  holdAnsweringReads?(tokenSha256: string): Promise<void>;
}

/** The work a stage does in its own process needs these from the layers above the upgrade domain. */
export interface InProcessDeps {
  buildApp: AppBuilder;
  /** `cairn migrate`'s work (src/system/apply-migrations.ts): what is pending applied, what must follow queued; its lines. */
  migrate: (database: Database, opts?: { onlyIfReadable?: boolean }) => Promise<string[]>;
}

/** The work done in this process, which must be the new release's (its stage). */
export function inProcessWork(layout: InstallLayout, deps: InProcessDeps): ReleaseWork {
  // Opened for each piece and closed after it, as the commands did: the snapshot between plan and migrate needs
  // the database without sessions (the server's copy) or closed (the embedded one's files), and start's web
  // needs the embedded database to itself.
  const withDatabase = async <T>(work: (database: Database, config: Config) => Promise<T>): Promise<T> => {
    const config = loadConfig({}, releaseEnv(layout), false);
    const database = await openConfiguredDatabase(config);
    try {
      return await work(database, config);
    } finally {
      await database.close();
    }
  };
  return {
    plan: () =>
      withDatabase(async ({ db }) => {
        const state = await migrationState(db);
        return { pending: state.dbBehindCode, unknown: state.codeBehindDb };
      }),
    migrate: () => withDatabase((database) => deps.migrate(database)),
    migrateIfReadable: () =>
      withDatabase(async (database) => {
        try {
          return { lines: await deps.migrate(database, { onlyIfReadable: true }) };
        } catch (err) {
          if (err instanceof NotReadableByPrevious || err instanceof MigrationLockTimeout) return { refused: err.message };
          throw err;
        }
      }),
    verify: () => withDatabase((database, config) => verifyRelease(database, config, deps.buildApp)),
    hold: (tokenSha256) => withDatabase(({ db }) => holdSite(db, tokenSha256)),
    holdAnsweringReads: (tokenSha256) => withDatabase(({ db }) => holdSite(db, tokenSha256, true)),
  };
}

/** The work done by the new release's commands, a process each (`opts` as for runRelease: the run's log, its child). */
export function commandWork(layout: InstallLayout, releaseDir: string, opts: { log: string; onSpawn: (pid: number) => void }): ReleaseWork {
  const run = (args: string[]) => runRelease(layout, releaseDir, args, opts);
  const lines = (out: string) => out.trim().split('\n');
  return {
    plan: async () => {
      const status = JSON.parse(await run(['status', '--json'])) as { pending_migrations: string[]; unknown_migrations: string[] };
      return { pending: status.pending_migrations, unknown: status.unknown_migrations };
    },
    migrate: async () => lines(await run(['migrate'])),
    verify: async () => lines(await run(['upgrade', 'verify'])).pop() ?? 'verified',
    hold: async (tokenSha256) => void (await run(['upgrade', 'hold', '--token-sha256', tokenSha256])),
  };
}
