// What one engine process carries through a run (or a recovery): the layout, the host, the journal it keeps
// writing, the maintenance responder while it holds the web port, and the log of every command it ran.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BackupTarget } from '../../system/backup.ts';
import type { Host } from '../host/types.ts';
import { readEnvFile, type InstallLayout } from '../../install/layout.ts';
import { writeJournal, type Journal, type StepName } from './journal.ts';
import { processAlive, processStartTime } from '../../install/lock.ts';
import type { ReleaseWork } from './release-work.ts';

export interface EngineContext {
  layout: InstallLayout;
  host: Host;
  journal: Journal;
  env: NodeJS.ProcessEnv;
  /** The run's secret (its hash is in the lock file): lets the running web process take the embedded backup. */
  engineToken: string | null;
  /** Where the run's progress goes as it happens (the terminal of `cairn upgrade bundle|recover`); none for a quiet run. */
  progress?: (line: string) => void;
  /** The new release's work done in this process, when this process is that release (its stage); absent: its commands are run. */
  releaseWork?: ReleaseWork;
}

/** A failure before anything stopped that is worth trying again later as it is (automatic updates may retry it). */
export class RetryableFailure extends Error {}

export function save(ctx: EngineContext): void {
  writeJournal(ctx.layout.journalFile, ctx.journal);
}

export function logFile(ctx: EngineContext): string {
  mkdirSync(ctx.journal.context.workDir, { recursive: true, mode: 0o700 });
  return join(ctx.journal.context.workDir, 'upgrade.log');
}

export function newRunId(): string {
  return `${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}-${randomBytes(3).toString('hex')}`;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

export function backupTarget(layout: InstallLayout, version: string): BackupTarget {
  const env = { ...process.env, ...readEnvFile(layout.envFile) };
  return {
    databaseUrl: env.DATABASE_URL || null,
    dataDir: env.CAIRN_DATA_DIR || layout.dataDir,
    envFile: existsSync(layout.envFile) ? layout.envFile : null,
    backupsDir: layout.backupsDir,
    version,
  };
}

/** How the run starts a release's command (runRelease): its output into the run's log, its pid recorded (trackChild). */
export function commandOptions(ctx: EngineContext): { log: string; onSpawn: (pid: number) => void } {
  return { log: logFile(ctx), onSpawn: (pid) => trackChild(ctx, pid) };
}

/** Records a child command's pid so recovery can stop it if this process is killed while it runs. */
export function trackChild(ctx: EngineContext, pid: number): void {
  ctx.journal.context.child = { pid, pidStart: processStartTime(pid) };
  save(ctx);
}

/** Kills a command a killed engine left running (a migrate still holding the database, say). */
export function killLeftoverChild(ctx: EngineContext): void {
  const child = ctx.journal.context.child;
  if (child && processAlive(child.pid, child.pidStart)) {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      /* gone meanwhile */
    }
  }
  ctx.journal.context.child = null;
}

function faultsAt(ctx: EngineContext): string[] {
  return (ctx.env.CAIRN_UPGRADE_FAIL_AT ?? '').split(',').map((s) => s.trim());
}

/**
 * Test-only: CAIRN_UPGRADE_FAIL_AT may also name `restore`, which makes the rollback's database restore fail
 * once per run (a marker in the run's work folder), so `cairn upgrade recover` then retries it for real.
 */
export function restoreFaultPoint(ctx: EngineContext): void {
  if (!faultsAt(ctx).includes('restore')) return;
  const marker = join(ctx.journal.context.workDir, 'restore-fault-injected');
  if (existsSync(marker)) return;
  mkdirSync(ctx.journal.context.workDir, { recursive: true, mode: 0o700 });
  writeFileSync(marker, `${process.pid}\n`);
  throw new Error('fault injected into the database restore (CAIRN_UPGRADE_FAIL_AT=restore)');
}

/** Test-only fault injection (documented in deploy/README.md): fail, or stop dead, right after a step's work. */
export async function faultPoint(ctx: EngineContext, step: StepName): Promise<void> {
  if (faultsAt(ctx).includes(step)) throw new Error(`fault injected after the ${step} step's work (CAIRN_UPGRADE_FAIL_AT=${step})`);
  if (ctx.env.CAIRN_UPGRADE_PAUSE_AT === step) {
    // Written aside, then renamed: whoever sees the file finds it whole (test/upgrade/kill.test.ts once read it
    // empty, between its creation and the write).
    const paused = join(ctx.layout.upgradeDir, 'paused');
    writeFileSync(`${paused}.partial`, `${process.pid} ${step}\n`);
    renameSync(`${paused}.partial`, paused);
    // Wait to be killed: the test stands in for a power cut or an OOM kill here.
    await new Promise<never>(() => setInterval(() => {}, 1 << 30));
  }
}
