// `cairn backup …` and `cairn step-notes`: the command-line side of Settings → Backups and the after-upgrade
// steps. Same rules as the API (backup.ts, step-notes.ts); failures are one line and exit code 1.
import type { Command } from 'commander';
import { loadConfig, type Config, type ConfigOverrides } from '../config.ts';
import { VERSION } from '../version.ts';
import { BackupError, BACKUPS_KEPT, createBackup, listBackups, restoreBackup, type BackupInfo, type BackupProgress } from './backup.ts';
import { localBackupTarget, localRoot } from '../install/local-target.ts';
import type { StepNotesStatus } from '../install/step-notes.ts';

function fail(message: string): never {
  process.stderr.write(`cairn: ${message}\n`);
  process.exit(1);
}

function configOf(cmd: Command): Config {
  const o = cmd.optsWithGlobals() as { dataDir?: string; databaseUrl?: string };
  const overrides: ConfigOverrides = { dataDir: o.dataDir, databaseUrl: o.databaseUrl };
  return loadConfig(overrides);
}

/** Our own errors as one line; anything else goes to main.ts's handler. */
async function userErrors(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    // step-notes.ts (and the database driver it needs) loads only with its command.
    const { StepNotesError } = await import('../install/step-notes.ts');
    if (err instanceof BackupError || err instanceof StepNotesError) fail(err.message);
    throw err;
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function printBackup(b: BackupInfo): void {
  console.log(`${b.id}  ${b.kind.padEnd(11)}  Cairn ${b.version.padEnd(12)}  ${b.created}  ${megabytes(b.size)}`);
}

/** One line per step as it finishes: a backup of a big database takes minutes, and silence looks like a hang. */
const printStep: BackupProgress = (done, total, step) => console.log(`  [${done}/${total}] ${step}`);

async function backupNow(cmd: Command): Promise<void> {
  await userErrors(async () => {
    const target = localBackupTarget(configOf(cmd), VERSION);
    console.log(`Backing up the ${target.databaseUrl ? 'PostgreSQL' : 'embedded'} database, the data directory${target.envFile ? ' and the environment file' : ''} into ${target.backupsDir} …`);
    const info = await createBackup(target, 'manual', printStep);
    console.log(`Backup ${info.id} written (${megabytes(info.size)}): ${info.file}`);
    console.log(`The newest ${BACKUPS_KEPT} backups are kept.`);
  });
}

export function registerBackupCommands(program: Command): void {
  const backup = program
    .command('backup')
    .description(`Back up database, data and config now (\`cairn backup create\`), list or restore backups; the newest ${BACKUPS_KEPT} are kept.`)
    .action(async (_opts, cmd: Command) => backupNow(cmd));

  backup
    .command('create')
    .description('Take a manual backup now (embedded database: while Cairn is stopped).')
    .action(async (_opts, cmd: Command) => backupNow(cmd));

  backup
    .command('list')
    .description('Backups, newest first.')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      await userErrors(async () => {
        const target = localBackupTarget(configOf(cmd), VERSION);
        const list = await listBackups(target.backupsDir);
        if (opts.json) return void console.log(JSON.stringify(list, null, 2));
        if (list.length === 0) return void console.log(`No backups in ${target.backupsDir}.`);
        list.forEach(printBackup);
      });
    });

  backup
    .command('restore <id>')
    .description('Restore a backup made by this same version (stop Cairn first).')
    .option('--yes', 'really replace the database, data directory and environment file')
    .action(async (id: string, opts: { yes?: boolean }, cmd: Command) => {
      await userErrors(async () => {
        const target = localBackupTarget(configOf(cmd), VERSION);
        // Say what is wrong with the id before asking for confirmation.
        if (!(await listBackups(target.backupsDir)).some((b) => b.id === id)) fail(`no backup ${id} in ${target.backupsDir} (see cairn backup list)`);
        if (!opts.yes) {
          fail(`restoring ${id} replaces the database, the data directory and the environment file with the backup's; stop every Cairn process, then run again with --yes`);
        }
        console.log(`Restoring ${id} …`);
        await restoreBackup(target, id, printStep);
        console.log(`Restored ${id}.`);
      });
    });
}

function printSteps(status: StepNotesStatus): void {
  if (status.pending.length === 0) {
    console.log(`No after-upgrade steps pending for Cairn ${status.version}.`);
    return;
  }
  console.log(`After-upgrade steps for Cairn ${status.version}: ${status.pending.length} pending`);
  for (const p of status.pending) {
    console.log(`\n  ${p.id}  (release ${p.release})  ${p.title}`);
    console.log(`    ${p.body}`);
    for (const line of p.snippet.split('\n')) console.log(`      $ ${line}`);
    console.log(`    Docs: ${p.docs}${p.detectable ? '  (disappears by itself once done)' : ''}`);
  }
  console.log('\nAcknowledge with: cairn step-notes --ack <id>   or   cairn step-notes --ack all');
}

export function registerStepNotesCommands(program: Command): void {
  program
    .command('step-notes')
    .description('List pending after-upgrade steps; --ack <id> (repeatable) or --ack all acknowledges them.')
    .option('--ack <id>', 'acknowledge a step by id, or "all"', (value: string, previous: string[] = []) => [...previous, value])
    .option('--json', 'print JSON')
    .action(async (opts: { ack?: string[]; json?: boolean }, cmd: Command) => {
      await userErrors(async () => {
        const [{ openConfiguredDatabase }, { migrateToLatest }, { acknowledgeSteps, stepNotesStatus }] = await Promise.all([
          import('../db/open.ts'),
          import('../db/migrator.ts'),
          import('../install/step-notes.ts'),
          // The registry: migrating brings the search triggers in line with it (src/db/migrator.ts).
          import('../models.ts'),
        ]);
        const database = await openConfiguredDatabase(configOf(cmd));
        try {
          await migrateToLatest(database.db);
          const scope = { db: database.db, version: VERSION, backend: database.backend, root: localRoot() };
          if (opts.ack?.length) {
            const which = opts.ack.includes('all') ? 'all' : opts.ack;
            const newly = await acknowledgeSteps(scope, which, process.env.USER ? `cli:${process.env.USER}` : 'cli');
            if (!opts.json) console.log(newly.length ? `Acknowledged: ${newly.join(', ')}` : 'Nothing new to acknowledge.');
          }
          const status = await stepNotesStatus(scope);
          if (opts.json) console.log(JSON.stringify(status, null, 2));
          else printSteps(status);
        } finally {
          await database.close();
        }
      });
    });
}
