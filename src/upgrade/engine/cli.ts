// `cairn upgrade ...`: bundle, online, recover, status, and the two commands an engine runs with the NEW
// release's code during a run (verify, hold) when that release's stage does not do the work itself
// (release-work.ts).
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig, type Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import { SERVICES, type ServiceName } from '../host/types.ts';
import type { UpgradeCard } from '../records.ts';
import { detectRoot, layoutFor, type InstallLayout } from '../../install/layout.ts';
import { ACCEPTED_CALLER_PROTOCOLS } from './stage-protocol.ts';
import { VERSION } from '../../version.ts';
import { compareVersions } from '../../install/version.ts';
import { launchedBy } from '../launch-env.ts';
import type { AppBuilder } from './verify.ts';
import type { InProcessDeps } from './release-work.ts';

// Each command imports what it runs when it runs (see src/main.ts): the engine starts several of these per run.

export class UpgradeCliError extends Error {}

function layoutOf(opts: { root?: string }): InstallLayout {
  const root = opts.root ? resolve(opts.root) : detectRoot();
  if (!root) throw new UpgradeCliError('No install root: pass --root <dir> or set CAIRN_ROOT (upgrades work on an installed layout, see deploy/README.md).');
  return layoutFor(root);
}

function printCard(card: UpgradeCard | null): void {
  if (!card) {
    console.log('No upgrade has run on this install.');
    return;
  }
  console.log(`Upgrade ${card.id}: ${card.version_from} → ${card.version_to ?? '?'} (${card.trigger}, by ${card.started_by}), ${card.state}${card.outcome ? `, outcome ${card.outcome.code}, database ${card.outcome.database}, services ${card.outcome.services}` : ''}`);
  for (const s of card.steps) console.log(`  ${s.name.padEnd(10)} ${s.status.padEnd(8)} ${s.seconds === null ? '' : `${s.seconds.toFixed(1)} s  `}${s.detail}`);
  if (card.failed_step) console.log(`Failed at ${card.failed_step}: ${card.error}`);
  if (card.output_excerpt) console.log(`Output:\n${card.output_excerpt}`);
  for (const w of card.warnings) console.log(`Warning: ${w}`);
}

function configOf(cmd: Command): Config {
  const o = cmd.optsWithGlobals() as { dataDir?: string; databaseUrl?: string };
  return loadConfig({ dataDir: o.dataDir, databaseUrl: o.databaseUrl });
}

async function withDb<T>(cmd: Command, work: (database: Database, config: Config) => Promise<T>): Promise<T> {
  const config = configOf(cmd);
  const { openConfiguredDatabase } = await import('../../db/open.ts');
  const database = await openConfiguredDatabase(config);
  try {
    return await work(database, config);
  } finally {
    await database.close();
  }
}

/** Refusals and failures a user can act on: one line on stderr, exit code 1, no stack trace. */
function handled<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      process.stderr.write(`cairn: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    }
  };
}

/** What the commands need from the layers above the upgrade domain (the command line hands them in). */
export interface UpgradeCommandDeps {
  /** The HTTP app `cairn upgrade verify` calls its list endpoints on. */
  loadAppBuilder: () => Promise<AppBuilder>;
  /** `cairn migrate`'s work, done by the stage in its own process. */
  loadMigrations: () => Promise<InProcessDeps['migrate']>;
}

export function registerUpgradeCommands(program: Command, deps: UpgradeCommandDeps): void {
  const upgrade = program.command('upgrade').description('Upgrade this install: backup, verify, roll back on failure.');
  const rootOption = ['--root <dir>', 'install root (env CAIRN_ROOT; default: the install this release belongs to)'] as const;

  upgrade
    .command('bundle <file>')
    .description('Upgrade to the release in a bundle file (cairn-X.Y.Z.tar.gz).')
    .option(...rootOption)
    .action(handled(async (file: string, opts: { root?: string }) => {
      const layout = layoutOf(opts);
      const path = resolve(file);
      if (!existsSync(path)) throw new UpgradeCliError(`No bundle at ${path}.`);
      const launch = launchedBy(process.env);
      const [{ runUpgrade }, { hostFor }, { upgradeStatus }] = await Promise.all([import('./run.ts'), import('../host/index.ts'), import('../records.ts')]);
      const journal = await runUpgrade({ layout, host: hostFor(layout), bundlePath: path, trigger: launch.trigger, startedBy: launch.startedBy ?? `cli:${userInfo().username}`, runId: launch.runId });
      printCard(upgradeStatus(layout).last_upgrade);
      if (journal.state !== 'done') process.exit(1);
    }));

  upgrade
    .command('online')
    .description('Upgrade to the newest release of the configured release feed (or --release X), downloaded and checked against its SHA-256.')
    .option(...rootOption)
    // Not --version: that is the program's own flag (it prints the running version wherever it appears).
    .option('--release <version>', 'a release the feed lists (default: the newest for the channel)')
    .option('--feed <url>', 'release feed URL (default: the feed_url setting, read from the database)')
    .action(handled(async (opts: { root?: string; release?: string; feed?: string }, cmd: Command) => {
      const layout = layoutOf(opts);
      const [{ runOnlineUpgrade }, { hostFor }, { upgradeStatus }] = await Promise.all([import('../online-cli.ts'), import('../host/index.ts'), import('../records.ts')]);
      const journal = await runOnlineUpgrade(layout, hostFor(layout), { version: opts.release, feedUrl: opts.feed, config: configOf(cmd), startedBy: `cli:${userInfo().username}` });
      printCard(upgradeStatus(layout).last_upgrade);
      if (journal.state !== 'done') process.exit(1);
    }));

  upgrade
    .command('recover')
    .description('Finish or roll back an upgrade whose process died (the recovery unit runs this).')
    .option(...rootOption)
    .action(handled(async (opts: { root?: string }) => {
      const layout = layoutOf(opts);
      const [{ recoverUpgrade }, { hostFor }, { upgradeStatus }] = await Promise.all([import('./recover.ts'), import('../host/index.ts'), import('../records.ts')]);
      const result = await recoverUpgrade(layout, hostFor(layout));
      if (result.action === 'nothing') console.log('Nothing to recover.');
      else printCard(upgradeStatus(layout).last_upgrade);
      if (result.action === 'restore_failed') process.exit(1);
    }));

  upgrade
    .command('status')
    .description('The last upgrade: who, when, outcome, each step.')
    .option(...rootOption)
    .option('--json', 'print JSON')
    .action(handled(async (opts: { root?: string; json?: boolean }) => {
      const { upgradeStatus } = await import('../records.ts');
      const status = upgradeStatus(layoutOf(opts));
      if (opts.json) console.log(JSON.stringify(status, null, 2));
      else {
        printCard(status.last_upgrade);
        if (status.lock.owner_alive) console.log('An upgrade is running now.');
        else if (status.lock.unfinished_run) console.log('The last upgrade was interrupted: run `cairn upgrade recover`.');
      }
    }));

  upgrade
    .command('verify')
    .description('(run by the upgrade engine) Check this release against the database before it serves.')
    .action(handled(async (_opts, cmd: Command) => {
      const { verifyRelease } = await import('./verify.ts');
      const buildApp = await deps.loadAppBuilder();
      console.log(await withDb(cmd, (database, config) => verifyRelease(database, config, buildApp)));
    }));

  program
    .command('services')
    .description('Restart the services of this install (refused while an upgrade runs or waits for recovery).')
    .argument('<action>', 'restart')
    .argument('[services...]', 'web and/or worker (default: those running)')
    .option(...rootOption)
    .action(handled(async (action: string, names: string[], opts: { root?: string }) => {
      if (action !== 'restart') throw new UpgradeCliError(`Unknown action "${action}": the only one is restart.`);
      const bad = names.filter((n) => !(SERVICES as readonly string[]).includes(n));
      if (bad.length) throw new UpgradeCliError(`Unknown service ${bad.join(', ')}: choose from ${SERVICES.join(', ')}.`);
      const layout = layoutOf(opts);
      const [{ restartServices }, { hostFor }] = await Promise.all([import('./restart.ts'), import('../host/index.ts')]);
      const restarted = await restartServices(layout, hostFor(layout), names as ServiceName[]);
      console.log(restarted.length ? `Restarted ${restarted.join(', ')}.` : 'No service was running.');
    }));

  upgrade
    .command('compare <a> <b>')
    .description('(used by deploy/install.sh) Print -1, 0 or 1 as release a is older than, equal to or newer than b.')
    .action(handled(async (a: string, b: string) => {
      console.log(String(Math.sign(compareVersions(a, b))));
    }));

  upgrade
    .command('responder')
    .description('(run by `serve` and the local supervisor) Answer 503 on the web port while the site is down.')
    .action(handled(async () => {
      const root = detectRoot();
      if (!root) throw new UpgradeCliError('The maintenance responder runs only in an installed release (CAIRN_ROOT).');
      const { runResponderProcess } = await import('./responder-process.ts');
      await runResponderProcess(layoutFor(root), VERSION);
    }));

  upgrade
    .command('stage')
    .description('(run by the upgrade engine of the release before) Take an upgrade to this release over after prepare.')
    .option('--protocols', 'print the hand-over protocols this stage accepts, as JSON, and exit')
    .action(handled(async (opts: { protocols?: boolean }) => {
      if (opts.protocols) return void console.log(JSON.stringify({ release: VERSION, protocols: ACCEPTED_CALLER_PROTOCOLS }));
      // Loaded before the hello: the steps that use them run while the site is down.
      const [{ runStage }, { printLine }, buildApp, migrate] = await Promise.all([import('./stage.ts'), import('./print.ts'), deps.loadAppBuilder(), deps.loadMigrations()]);
      process.exit(await runStage(printLine, { buildApp, migrate }));
    }));

  upgrade
    .command('hold')
    .description('(run by the upgrade engine) Maintenance on for the start step, opened again by the engine.')
    .requiredOption('--token-sha256 <hex>', 'SHA-256 of the one-time resume token')
    .action(handled(async (opts: { tokenSha256: string }, cmd: Command) => {
      const { holdSite } = await import('./hold.ts');
      await withDb(cmd, (database) => holdSite(database.db, opts.tokenSha256));
      console.log('Maintenance on until the upgrade resumes.');
    }));
}
