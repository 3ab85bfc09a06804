// The `cairn` command line. Every command is scriptable: flags instead of prompts, exit code 1 and a
// one-line message on failure, no stack traces.
import { Command, Option } from 'commander';
import { loadConfig, type Config, type ConfigOverrides } from './config.ts';
import type { Database } from './db/database.ts';
import { MAX_DEMO_DEVICES } from './system/demo-data-limits.ts';
import { registerTemplateCommands } from './templating/cli.ts';
import { registerNetBoxImportCommands } from './netbox-import/cli.ts';
import { registerUpgradeCommands } from './upgrade/engine/cli.ts';
import { registerBackupCommands, registerStepNotesCommands } from './system/system-cli.ts';
import { VERSION } from './version.ts';

// Only the command definitions load up front; each command imports what it runs when it runs. A one-shot command
// then loads what it needs (`--version` or the upgrade stage's protocol list no server framework, no database
// driver), which the upgrade engine, scripts and tests start many times over.

/** Failures a user can act on: printed as one line, exit code 1. Their modules are loaded once one has failed. */
async function isUserError(err: unknown): Promise<boolean> {
  const [config, database, lock, migrator, accounts, demo] = await Promise.all([
    import('./config.ts'),
    import('./db/database.ts'),
    import('./db/lock.ts'),
    import('./db/migrator.ts'),
    import('./core/accounts.ts'),
    import('./system/demo-data.ts'),
  ]);
  const kinds = [config.ConfigError, database.DatabaseOpenError, lock.DataDirLockedError, migrator.MigrationError, accounts.AccountError, demo.DemoDataError];
  return kinds.some((E) => err instanceof E);
}

function fail(message: string): never {
  process.stderr.write(`cairn: ${message}\n`);
  process.exit(1);
}

function globalOverrides(cmd: Command): ConfigOverrides {
  const o = cmd.optsWithGlobals() as { dataDir?: string; databaseUrl?: string; databaseReplicaUrls?: string; host?: string; port?: string };
  return { dataDir: o.dataDir, databaseUrl: o.databaseUrl, databaseReplicaUrls: o.databaseReplicaUrls, host: o.host, port: o.port };
}

/**
 * Opens the database with migrations applied, runs `work`, closes. Migrating loads the model registry first (the
 * search triggers are derived from it after every migration run: src/db/migrator.ts), so `work` imports the domain
 * code it runs after the registry, in the order a whole-program import would have.
 */
async function withDatabase<T>(cmd: Command, work: (db: Database, config: Config) => Promise<T>, migrate = true): Promise<T> {
  const config = loadConfig(globalOverrides(cmd));
  const { openConfiguredDatabase } = await import('./db/open.ts');
  if (migrate) await import('./models.ts');
  const database = await openConfiguredDatabase(config);
  try {
    if (migrate) await (await import('./db/migrator.ts')).migrateToLatest(database.db);
    return await work(database, config);
  } finally {
    await database.close();
  }
}

const program = new Command();
program
  .name('cairn')
  .description('Cairn: the network source of truth.')
  .version(VERSION)
  .option('--data-dir <dir>', 'embedded database directory (env CAIRN_DATA_DIR, default ./data)')
  .option('--database-url <url>', 'PostgreSQL URL (env DATABASE_URL); without it the embedded database is used')
  .showHelpAfterError();

program
  .command('serve')
  .description('Serve the API and UI (applies migrations; first run creates tenant "Default" and user admin).')
  .option('--host <host>', 'address to listen on (env HOST, default 127.0.0.1)')
  .option('--port <port>', 'port (env PORT, default 8080)')
  .option('--database-replica-urls <urls>', 'comma-separated PostgreSQL streaming standbys that answer the reads of GET requests (env CAIRN_DATABASE_REPLICA_URLS)')
  .action(async (_opts, cmd: Command) => {
    const { serve } = await import('./server.ts');
    await serve(loadConfig(globalOverrides(cmd)));
  });

program
  .command('worker')
  .description('Run background work in this process: monitoring checks, webhook deliveries, deploy polls, end-of-life refreshes (PostgreSQL deployments; `serve` runs them itself unless CAIRN_EMBEDDED_WORKER=0).')
  .action(async (_opts, cmd: Command) => {
    // The registry first, then the domains' declared background work, as `serve` loads them.
    await import('./models.ts');
    await import('./background.ts');
    const { runWorkerProcess } = await import('./jobs/worker-process.ts');
    await runWorkerProcess(loadConfig(globalOverrides(cmd)));
  });

program
  .command('migrate')
  .description('Apply pending database migrations.')
  .action(async (_opts, cmd: Command) => {
    const { applyMigrations } = await import('./system/apply-migrations.ts');
    await withDatabase(cmd, async (database) => console.log((await applyMigrations(database)).join('\n')), false);
  });

program
  .command('createsuperuser')
  .description('Create a superuser (non-interactive).')
  .requiredOption('--username <username>')
  .requiredOption('--password <password>')
  .option('--email <email>', 'e-mail address', '')
  .action(async (opts: { username: string; password: string; email: string }, cmd: Command) => {
    await withDatabase(cmd, async (database) => {
      const { createTenant, createUser, defaultTenantId } = await import('./core/accounts.ts');
      const tenantId = (await defaultTenantId(database.db)) ?? (await createTenant(database.db, 'Default', 'default')).id;
      await createUser(database.db, { username: opts.username, password: opts.password, email: opts.email, isSuperuser: true, tenantIds: [tenantId] });
      console.log(`Superuser ${opts.username} created.`);
    });
  });

const tenant = program.command('tenant').description('Manage tenants.');
tenant
  .command('create')
  .description('Create a tenant.')
  .requiredOption('--name <name>')
  .requiredOption('--slug <slug>')
  .option('--description <text>', 'description', '')
  .action(async (opts: { name: string; slug: string; description: string }, cmd: Command) => {
    await withDatabase(cmd, async (database) => {
      const { createTenant } = await import('./core/accounts.ts');
      const t = await createTenant(database.db, opts.name, opts.slug, opts.description);
      console.log(t.id);
    });
  });

const token = program.command('token').description('Manage API tokens.');
token
  .command('create')
  .description('Create an API token and print only its key.')
  .requiredOption('--username <username>')
  .option('--tenant <slug>', "tenant the token is scoped to (default: the user's home tenant)")
  .option('--read-only', 'refuse every write made with this token')
  .addOption(new Option('--expires-days <n>', 'days until the token expires').argParser((v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > 3650) fail('--expires-days takes a whole number from 1 to 3650.');
    return n;
  }))
  .option('--description <text>', 'what the token is for', '')
  .action(async (opts: { username: string; tenant?: string; readOnly?: boolean; expiresDays?: number; description: string }, cmd: Command) => {
    await withDatabase(cmd, async (database) => {
      const { createToken } = await import('./core/accounts.ts');
      const key = await createToken(database.db, {
        username: opts.username,
        tenantSlug: opts.tenant,
        readOnly: opts.readOnly ?? false,
        expiresDays: opts.expiresDays,
        description: opts.description,
      });
      console.log(key);
    });
  });

program
  .command('status')
  .description('Version, database and pending migrations.')
  .option('--json', 'print JSON')
  .action(async (opts: { json?: boolean }, cmd: Command) => {
    const { migrationState } = await import('./db/migrator.ts');
    const { extensionState } = await import('./search/support.ts');
    await withDatabase(
      cmd,
      async (database, config) => {
        const state = await migrationState(database.db);
        const status = {
          version: VERSION,
          database: database.backend === 'pglite' ? `embedded (${config.dataDir})` : 'postgresql',
          applied_migrations: state.applied.length,
          pending_migrations: state.dbBehindCode,
          unknown_migrations: state.codeBehindDb,
          missing_extensions: (await extensionState(database.db)).missing,
        };
        if (opts.json) console.log(JSON.stringify(status, null, 2));
        else {
          console.log(`Cairn ${status.version}`);
          console.log(`Database: ${status.database}`);
          console.log(`Migrations applied: ${status.applied_migrations}; pending: ${status.pending_migrations.join(', ') || 'none'}`);
          if (status.unknown_migrations.length) console.log(`Applied but not shipped by this code (code is older than the database): ${status.unknown_migrations.join(', ')}`);
          for (const m of status.missing_extensions) console.log(`Missing database extension ${m.name}: ${m.effect}. A superuser must run: ${m.statement}`);
        }
      },
      false,
    );
  });

const maintenance = program.command('maintenance').description('Maintenance mode on/off (every request but /api/health/ answers 503); collectstatic rebuilds a stale web UI.');
maintenance
  .command('on')
  .option('--minutes <n>', 'turn off by itself after n minutes')
  .option('--reason <text>', 'shown to clients', '')
  .action(async (opts: { minutes?: string; reason: string }, cmd: Command) => {
    const minutes = opts.minutes === undefined ? null : Number(opts.minutes);
    if (minutes !== null && (!Number.isFinite(minutes) || minutes <= 0)) fail('--minutes takes a positive number.');
    await withDatabase(cmd, async (database) => {
      const { setMaintenance } = await import('./system/maintenance.ts');
      await setMaintenance(database.db, true, minutes, opts.reason);
      console.log('Maintenance mode on.');
    });
  });
maintenance
  .command('collectstatic')
  .description('Rebuild the web UI into the folder it is served from, when its sources changed since the last build.')
  .action(async () => {
    const { collectStatic } = await import('./system/web-ui.ts');
    const outcome = collectStatic();
    console.log(outcome.message);
    if (outcome.status === 'failed') process.exitCode = 1;
  });
maintenance.command('off').action(async (_opts, cmd: Command) => {
  await withDatabase(cmd, async (database) => {
    const { setMaintenance } = await import('./system/maintenance.ts');
    await setMaintenance(database.db, false);
    console.log('Maintenance mode off.');
  });
});

program
  .command('demo-data')
  .description('Load a deterministic demo network (sites, devices, interfaces, cables, addresses, BGP) into an empty tenant.')
  .requiredOption('--devices <n>', `number of devices, 1 to ${MAX_DEMO_DEVICES}`)
  .option('--seed <n>', 'seed of the generator: same seed, same network', '1')
  .option('--tenant <slug>', 'tenant to load into (created if missing)', 'default')
  .action(async (opts: { devices: string; seed: string; tenant: string }, cmd: Command) => {
    const devices = Number(opts.devices);
    if (!/^\d+$/.test(opts.devices) || devices < 1 || devices > MAX_DEMO_DEVICES) fail(`--devices takes a whole number from 1 to ${MAX_DEMO_DEVICES}.`);
    if (!/^\d+$/.test(opts.seed)) fail('--seed takes a whole number.');
    await withDatabase(cmd, async (database) => {
      const { runDemoDataJob } = await import('./system/demo-data-job.ts');
      await runDemoDataJob(database, { devices, seed: Number(opts.seed), tenantSlug: opts.tenant });
    });
  });

program
  .command('rebuild')
  .description('Rebuild the search index of every tenant from the tables (also runs nightly); creates missing search extensions where permitted.')
  .action(async (_opts, cmd: Command) => {
    await withDatabase(cmd, async (database) => {
      const { missingExtensions, runQueuedSearchRebuild, runSearchRebuild } = await import('./search/rebuild.ts');
      const onProgress = (done: number, total: number, model: string) => console.log(`  search index: ${model} (${done}/${total})`);
      // A rebuild an upgrade queued is done by this one (under its record), not repeated by the worker later.
      const report = (await runQueuedSearchRebuild(database.db, onProgress)) ?? (await runSearchRebuild(database.db, { startedBy: 'system', onProgress }));
      console.log(`Search index: ${report.entries.toLocaleString('en-US')} entries over ${report.models} models.`);
      for (const name of missingExtensions(report)) console.log(`The ${name} extension is missing; a superuser can run: CREATE EXTENSION IF NOT EXISTS ${name}; then cairn rebuild.`);
    });
  });

const modelsCommand = program.command('models').description("Cairn's models, as the registry assembles them.");
modelsCommand
  .command('list')
  .description('Every model: its name, label and API path.')
  .action(async () => {
    await import('./models.ts');
    const { allModels } = await import('./core/registry.ts');
    for (const m of [...allModels()].sort((a, b) => a.name.localeCompare(b.name))) console.log(`${m.name.padEnd(40)} ${m.labelPlural.padEnd(36)} ${m.path}`);
  });
modelsCommand
  .command('describe <model>')
  .description("One model's fields, computed values, filters and hooks, and which file registered each (e.g. dcim.device).")
  .option('--json', 'print JSON')
  .action(async (ref: string, opts: { json?: boolean }) => {
    await import('./models.ts');
    const { describeModel, formatDescription } = await import('./core/describe.ts');
    const described = describeModel(ref);
    if (!described) fail(`no model ${ref}: \`cairn models list\` names them all (app.model, e.g. dcim.device).`);
    process.stdout.write(opts.json ? `${JSON.stringify(described, null, 2)}\n` : formatDescription(described));
  });

registerTemplateCommands(program);
registerNetBoxImportCommands(program, withDatabase);
registerUpgradeCommands(program, {
  loadAppBuilder: async () => (await import('./app.ts')).buildApp,
  loadMigrations: async () => (await import('./system/apply-migrations.ts')).applyMigrations,
});
registerBackupCommands(program);
registerStepNotesCommands(program);


// Not awaited at the top level: the compiled form is a CommonJS script (bin/compiled-sources.mjs says why).
program.parseAsync(process.argv).catch(async (err: unknown) => {
  if (await isUserError(err)) fail((err as Error).message);
  fail(`unexpected error: ${(err as Error).message}`);
});
