// The upgrade run: steps in SPEC order, each journaled before and after. A failure before resume rolls back
// (rollback.ts); from resume on, problems are warnings and the new release stays.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statfsSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createBackup, listBackups, pruneBackups, type BackupInfo } from '../../system/backup.ts';
import { MANIFEST_FILE, unpackBundle } from '../bundle.ts';
import { execFile } from 'node:child_process';
import { compareVersions } from '../../install/version.ts';
import type { Host } from '../host/types.ts';
import { SERVICES } from '../host/types.ts';
import { CommandError, runRelease } from './commands.ts';
import { commandWork, type ReleaseWork } from './release-work.ts';
import {
  backupTarget,
  faultPoint,
  RetryableFailure,
  commandOptions,
  newRunId,
  newToken,
  save,
  sha256,
  type EngineContext,
} from './context.ts';
import { STEPS, readJournal, unfinished, type Journal, type StepName } from './journal.ts';
import { currentRelease, releaseDir, webAddress, type InstallLayout } from '../../install/layout.ts';
import { acquireLock, UpgradeBusyError } from '../../install/lock.ts';
import { describeHealth, probeHealth, waitForHealth } from './probe.ts';
import { finishRecord, recordStepProgress, startRecord } from './job-record.ts';
import { checkStage, handOver, stageProtocols } from './stage-launch.ts';
import { STAGE_PROTOCOL } from './stage-protocol.ts';
import { VERSION } from '../../version.ts';
import { rollback } from './rollback.ts';
import { discardSnapshotOrWarn, snapshotCopyFromBytes } from './snapshot.ts';
import { diskNeed } from './disk-need.ts';
import { databaseBytes } from '../../system/database-copy.ts';
import { waitForPackageManager, waitForScheduledJobs } from './quiesce-waits.ts';
import { restoreHolding } from '../../system/restore-hold.ts';
import { pointCurrentAt } from './current-link.ts';
import { removeRelease } from './remove-release.ts';
import { openSite } from './open-site.ts';
import { printLine } from './print.ts';
import { handOverToNewWeb, migrate, quiesceWeb, servesReads, takePort } from './serve-reads.ts';
import { callWeb } from './web-call.ts';

export class UpgradeRefused extends Error {}

export interface UpgradeRequest {
  layout: InstallLayout;
  host: Host;
  bundlePath: string;
  trigger: Journal['trigger'];
  startedBy: string;
  env?: NodeJS.ProcessEnv;
  /** Where each step's start and end are printed as they happen; stdout unless null (quiet). */
  progress?: ((line: string) => void) | null;
  /** Chosen by a launcher that answers with it before the run starts (POST /api/system/upgrade/). */
  runId?: string;
}

const HEALTH_TIMEOUT_MS = 120_000;
const KEEP_RELEASES = 2;

/** Steps from here on never roll back. */
const RESUME_INDEX = STEPS.indexOf('resume');
/** Steps from here on are the new release's: its stage takes the run over after prepare. */
const HANDOVER_INDEX = STEPS.indexOf('quiesce');

/** Runs one upgrade to its end (done, rolled back, or restore failed) and returns the final journal. */
export async function runUpgrade(req: UpgradeRequest): Promise<Journal> {
  const { layout } = req;
  if (unfinished(readJournal(layout.journalFile))) throw new UpgradeBusyError('An interrupted upgrade must be recovered first: cairn upgrade recover');
  const engineToken = newToken();
  const release = acquireLock(layout.lockFile, 'upgrade', sha256(engineToken));
  try {
    // Checked again under the lock: a recovery may have been running when we looked.
    if (unfinished(readJournal(layout.journalFile))) throw new UpgradeBusyError('An interrupted upgrade must be recovered first: cairn upgrade recover');
    const from = currentRelease(layout);
    if (!from) throw new UpgradeRefused(`No release is installed at ${layout.current}.`);
    const id = req.runId ?? newRunId();
    const journal: Journal = {
      id,
      state: 'running',
      trigger: req.trigger,
      startedBy: req.startedBy,
      versionFrom: from.version,
      versionTo: null,
      bundle: req.bundlePath,
      pid: process.pid,
      startedAt: new Date().toISOString(),
      finishedAt: null,
      step: null,
      steps: [],
      outcome: null,
      failedStep: null,
      error: null,
      errorTail: null,
      warnings: [],
      context: {
        workDir: join(layout.workRoot, id),
        previousRelease: from.dir,
        newRelease: null,
        servicesBefore: null,
        timersBefore: null,
        envCopy: null,
        swapped: false,
        pendingMigrations: null,
        snapshotFile: null,
        migrateStarted: false,
        holdToken: null,
        backupId: null,
        jobId: null,
        child: null,
      },
    };
    const progress = req.progress === undefined ? printLine : (req.progress ?? undefined);
    const ctx: EngineContext = { layout, host: req.host, journal, env: req.env ?? process.env, engineToken, progress };
    save(ctx);
    await execute(ctx);
    return ctx.journal;
  } finally {
    release();
  }
}


async function execute(ctx: EngineContext): Promise<void> {
  await startRecord(ctx);
  for (const name of STEPS.slice(0, HANDOVER_INDEX)) {
    if (await runStep(ctx, name)) {
      await rollback(ctx);
      await finishRecord(ctx);
      return;
    }
  }
  // The new release's own stage carries out the rest when it can (SPEC "Versioning" 4).
  if (ctx.journal.context.stage) ctx.journal = await handOver(ctx);
  else await continueRun(ctx);
}

/** The steps from quiesce on, run by the new release's stage (or by this engine for a release without one). */
export async function continueRun(ctx: EngineContext): Promise<void> {
  for (const name of STEPS.slice(HANDOVER_INDEX)) {
    const failed = await runStep(ctx, name);
    if (failed && STEPS.indexOf(name) < RESUME_INDEX) {
      await rollback(ctx);
      await finishRecord(ctx);
      return;
    }
  }
  ctx.journal.state = 'done';
  ctx.journal.finishedAt = new Date().toISOString();
  ctx.journal.outcome = {
    code: 'new',
    database: ctx.journal.context.migrateStarted ? 'migrated' : 'unchanged',
    services: (await probeHealth(webAddress(ctx.layout).host, webAddress(ctx.layout).port))?.status === 'ok' ? 'running' : 'unhealthy',
  };
  save(ctx);
  await finishRecord(ctx);
}

/** Runs a step with its journal entries; returns true when it failed. Late steps turn failures into warnings. */
async function runStep(ctx: EngineContext, name: StepName): Promise<boolean> {
  const record = { name, status: 'running' as const, started: new Date().toISOString(), ended: null as string | null, detail: '', engine: VERSION };
  ctx.journal.steps.push(record);
  ctx.journal.step = name;
  save(ctx);
  ctx.progress?.(`[${STEPS.indexOf(name) + 1}/${STEPS.length}] ${name} …`);
  const entry = ctx.journal.steps[ctx.journal.steps.length - 1]!;
  try {
    const result = await STEP_WORK[name](ctx);
    await faultPoint(ctx, name);
    entry.status = result.skipped ? 'skipped' : 'ok';
    entry.detail = result.detail;
    entry.ended = new Date().toISOString();
    ctx.journal.context.child = null;
    save(ctx);
    ctx.progress?.(`      ${name} ${entry.status} (${seconds(entry)} s): ${entry.detail}`);
    await recordStepProgress(ctx);
    return false;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    entry.status = 'failed';
    entry.detail = message;
    entry.ended = new Date().toISOString();
    ctx.journal.context.child = null;
    ctx.progress?.(`      ${name} failed (${seconds(entry)} s): ${message}`);
    if (STEPS.indexOf(name) >= RESUME_INDEX) {
      ctx.journal.warnings.push(`${name}: ${message}`);
      save(ctx);
      return false;
    }
    ctx.journal.failedStep = name;
    ctx.journal.error = message;
    ctx.journal.errorTail = err instanceof CommandError ? err.output : null;
    if (err instanceof RetryableFailure) ctx.journal.retryable = true;
    save(ctx);
    return true;
  }
}

function seconds(step: { started: string; ended: string | null }): string {
  return ((Date.parse(step.ended ?? step.started) - Date.parse(step.started)) / 1000).toFixed(1);
}

interface StepResult {
  detail: string;
  skipped?: boolean;
}

function newRelease(ctx: EngineContext): ReleaseWork {
  return ctx.releaseWork ?? commandWork(ctx.layout, ctx.journal.context.newRelease!, commandOptions(ctx));
}

function dirSize(dir: string): number {
  let total = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) total += statSync(p).size;
    }
  };
  if (existsSync(dir)) walk(dir);
  return total;
}

const MB = 1024 * 1024;

const STEP_WORK: Record<StepName, (ctx: EngineContext) => Promise<StepResult>> = {
  async preflight(ctx) {
    const { layout, journal } = ctx;
    // Containers say so through CAIRN_CONTAINER=1 (set by the image), not /.dockerenv: hosts whose own root is
    // a container (CI runners, development boxes) still run real installs.
    if (ctx.env.CAIRN_CONTAINER === '1') throw new UpgradeRefused('This is a container deployment: upgrade by pulling the new image, not in place.');
    const restore = restoreHolding(layout.backupsDir);
    if (restore?.alive) throw new RetryableFailure(`A restore is in progress (backup ${restore.backupId}, since ${restore.since}): upgrade once it has finished.`);
    if (restore) {
      throw new UpgradeRefused(
        `A restore of backup ${restore.backupId} did not finish (since ${restore.since}): the database may be half restored. Run \`cairn backup restore ${restore.backupId} --yes\` again before upgrading.`,
      );
    }
    // The version first (read from the manifest alone), so a refusal does not wait for a full unpack.
    const peeked = await peekBundleVersion(journal.bundle);
    if (peeked) refuseOlder(peeked, journal.versionFrom);
    const staged = join(journal.context.workDir, 'release');
    mkdirSync(journal.context.workDir, { recursive: true, mode: 0o700 });
    const manifest = await unpackBundle(journal.bundle, staged);
    journal.versionTo = manifest.version;
    save(ctx);
    refuseOlder(manifest.version, journal.versionFrom);
    const target = backupTarget(layout, journal.versionFrom);
    const database = target.databaseUrl ? await postgresBytes(target.databaseUrl) : dirSize(target.dataDir);
    const lastBackup = (await listBackups(layout.backupsDir))[0];
    const need = diskNeed({
      release: dirSize(staged),
      backup: backupSkipped(ctx) ? null : lastBackup ? { bytes: lastBackup.size, asLast: true } : { bytes: database, asLast: false },
      snapshot: !target.databaseUrl || database < snapshotCopyFromBytes(ctx) || servesReads(ctx) ? database : null,
    });
    const fs = statfsSync(layout.root);
    const free = fs.bavail * fs.bsize;
    if (free < need.bytes) {
      throw new UpgradeRefused(`Too little disk space under ${layout.root}: ${Math.round(free / MB)} MB free, ${Math.round(need.bytes / MB)} MB needed: ${need.parts}; with a fifth more and 200 MB to spare.`);
    }
    await ctx.host.installRecovery();
    return { detail: `${journal.versionFrom} → ${manifest.version}; bundle verified (${Object.keys(manifest.sha256).length} files); ${Math.round(free / MB)} MB free, ${Math.round(need.bytes / MB)} MB needed: ${need.parts}` };
  },

  async backup(ctx) {
    if (backupSkipped(ctx)) {
      ctx.journal.warnings.push('The pre-upgrade backup was skipped on request (SVC_SKIP_BACKUP=1).');
      return { detail: 'skipped on request (SVC_SKIP_BACKUP=1)', skipped: true };
    }
    const target = backupTarget(ctx.layout, ctx.journal.versionFrom);
    // An embedded database is held by the running web process: it takes the backup itself (with the running code).
    const viaWeb = target.databaseUrl === null && (await ctx.host.isActive('web'));
    const info = viaWeb ? await backupThroughWeb(ctx) : await createBackup(target, 'pre-upgrade');
    ctx.journal.context.backupId = info.id;
    save(ctx);
    const removed = await pruneBackups(ctx.layout.backupsDir, 3);
    return { detail: `backup ${info.id} (${Math.round(info.size / 1024)} KB)${removed.length ? `; pruned ${removed.join(', ')}` : ''}` };
  },

  async prepare(ctx) {
    const { journal, layout } = ctx;
    const target = releaseDir(layout, journal.versionTo!);
    if (existsSync(target)) removeRelease(layout, target); // left by an earlier failed run
    mkdirSync(layout.releases, { recursive: true });
    journal.context.newRelease = target;
    save(ctx);
    renameSync(join(journal.context.workDir, 'release'), target);
    // The release must start (its bundled dependencies load) and name its version before anything stops. Its
    // stage's protocol list does both in one process; a release without a stage is asked for its version.
    const stage = await stageProtocols(ctx);
    const printed = stage ? stage.release : (await runRelease(ctx.layout, target, ['--version'], commandOptions(ctx))).trim();
    if (printed !== journal.versionTo) throw new Error(`the new release reports version "${printed}", expected ${journal.versionTo}`);
    if (stage) checkStage(stage);
    else journal.warnings.push(`Release ${journal.versionTo} has no upgrade stage of its own: the engine of ${journal.versionFrom} carried out the whole run.`);
    journal.context.stage = stage ? { release: stage.release, protocol: STAGE_PROTOCOL, pid: null } : null;
    save(ctx);
    return { detail: `release unpacked to ${target}; it starts and reports ${printed}; ${stage ? `its upgrade stage takes over (protocol ${STAGE_PROTOCOL})` : 'it has no upgrade stage'}` };
  },

  async quiesce(ctx) {
    const { host, journal } = ctx;
    // Still up, nothing stopped: past the limit the run ends here and may simply be tried again.
    const packages = await waitForPackageManager(ctx);
    const services: string[] = [];
    for (const s of SERVICES) if (await host.isActive(s)) services.push(s);
    journal.context.servicesBefore = services;
    journal.context.timersBefore = await host.activeTimers();
    save(ctx);
    await host.stopTimers(journal.context.timersBefore);
    // A scheduled job that is running may finish (up to two minutes); then workers, then web behind the responder
    // (or, keeping the site readable, web refuses changes: serve-reads.ts).
    const jobs = await waitForScheduledJobs(ctx);
    await host.stop('worker');
    const web = await quiesceWeb(ctx);
    const ran = services.join(', ') || 'nothing (no service was running)';
    return { detail: `${packages}${jobs}services that ran: ${ran}; ${web}; timers stopped: ${journal.context.timersBefore.join(', ') || 'none'}` };
  },

  async swap(ctx) {
    const { layout, journal } = ctx;
    if (existsSync(layout.envFile)) {
      journal.context.envCopy = join(journal.context.workDir, 'env.before');
      copyFileSync(layout.envFile, journal.context.envCopy);
    }
    save(ctx);
    pointCurrentAt(layout, journal.context.newRelease!);
    journal.context.swapped = true;
    save(ctx);
    await ctx.host.linkUnits(journal.context.newRelease!);
    return { detail: `current → ${relative(layout.root, journal.context.newRelease!)}` };
  },

  async deps(ctx) {
    const plan = await newRelease(ctx).plan();
    if (plan.unknown.length) {
      throw new Error(`the database has migrations this release does not ship (${plan.unknown.join(', ')}): it is newer than ${ctx.journal.versionTo}`);
    }
    ctx.journal.context.pendingMigrations = plan.pending;
    save(ctx);
    return { detail: `dependencies load; migration plan: ${plan.pending.length} pending${plan.pending.length ? ` (${plan.pending.join(', ')})` : ''}` };
  },

  async snapshot(ctx) {
    const pending = ctx.journal.context.pendingMigrations ?? [];
    if (!pending.length) return { detail: 'no migrations pending: no snapshot needed', skipped: true };
    const { snapshotDatabase } = await import('../../system/backup.ts');
    const file = join(ctx.journal.context.workDir, 'database.snapshot');
    ctx.journal.context.snapshotFile = file;
    save(ctx);
    // While the web answers reads the server cannot copy the database (the copy needs every other session gone).
    const reading = ctx.journal.context.webReadOnly === true;
    const taken = await snapshotDatabase(backupTarget(ctx.layout, ctx.journal.versionFrom), file, reading ? null : snapshotCopyFromBytes(ctx));
    return { detail: `database snapshot: ${taken}${reading ? ', a dump taken while the site answered reads' : ''}` };
  },

  async migrate(ctx) {
    const pending = ctx.journal.context.pendingMigrations ?? [];
    if (!pending.length) return { detail: 'nothing to migrate', skipped: true };
    return { detail: await migrate(ctx, newRelease(ctx)) };
  },

  async static(ctx) {
    const dist = join(ctx.journal.context.newRelease!, 'web', 'dist');
    if (!existsSync(dist)) return { detail: 'this release ships no web build', skipped: true };
    // Readable by a front proxy (nginx) running as another user.
    const open = (p: string) => {
      const st = statSync(p);
      chmodSync(p, st.isDirectory() ? st.mode | 0o555 : st.mode | 0o444);
      if (st.isDirectory()) for (const e of readdirSync(p)) open(join(p, e));
    };
    open(dist);
    return { detail: 'web build made world-readable' };
  },

  async verify(ctx) {
    return { detail: await newRelease(ctx).verify() };
  },

  async start(ctx) {
    const { journal, host, layout } = ctx;
    journal.context.holdToken = newToken();
    save(ctx);
    // Maintenance on (with an expiry, so a dead engine cannot hold the site for ever) before anything serves:
    // the web that answered reads hands its port to the new one (serve-reads.ts), or the run starts web behind
    // the responder.
    const handedOver = await handOverToNewWeb(ctx, newRelease(ctx), sha256(journal.context.holdToken));
    if (!handedOver) {
      await takePort(ctx);
      await newRelease(ctx).hold(sha256(journal.context.holdToken));
      await ctx.host.start('web');
    }
    if (journal.context.servicesBefore?.includes('worker')) await host.start('worker');
    const { host: addr, port } = webAddress(layout);
    const health = await waitForHealth(addr, port, (h) => h.status === 'ok' && h.version === journal.versionTo, HEALTH_TIMEOUT_MS);
    if (!health.ok) throw new Error(`the new release did not report healthy with version ${journal.versionTo} within ${HEALTH_TIMEOUT_MS / 1000} s (last: ${describeHealth(health.last)})`);
    return { detail: `health ok with ${journal.versionTo} behind maintenance${handedOver ? `, started by the web of ${journal.versionFrom} on its port (reads answered)` : ''}` };
  },

  async resume(ctx) {
    const { journal, host, layout } = ctx;
    await openSite(layout, journal.context.holdToken!);
    journal.context.holdToken = null;
    save(ctx);
    await host.startTimers(journal.context.timersBefore ?? []);
    const h = await probeHealth(webAddress(layout).host, webAddress(layout).port);
    if (!h || h.status !== 'ok' || h.maintenance) throw new Error(`after resume health says: ${describeHealth(h)}`);
    return { detail: 'site open' };
  },

  async done(ctx) {
    const { journal, layout } = ctx;
    await discardSnapshotOrWarn(ctx);
    rmSync(journal.context.workDir, { recursive: true, force: true });
    const removed = pruneReleases(layout, [journal.context.newRelease!, journal.context.previousRelease!]);
    return { detail: `work folder removed${removed.length ? `; old releases removed: ${removed.join(', ')}` : ''}` };
  },
};

/** SVC_SKIP_BACKUP=1 skips the pre-upgrade backup on purpose, never for an automatic update. */
function backupSkipped(ctx: EngineContext): boolean {
  return (ctx.env.SVC_SKIP_BACKUP === '1' || ctx.env.CAIRN_SKIP_BACKUP === '1') && ctx.journal.trigger !== 'auto';
}

/** The PostgreSQL database's size; a server that does not answer stops the run here, before anything changed. */
async function postgresBytes(url: string): Promise<number> {
  try {
    return await databaseBytes(url);
  } catch (err) {
    throw new RetryableFailure(`PostgreSQL did not say how large the database is (${err instanceof Error ? err.message : String(err)}): the upgrade needs the database, try again once it answers.`);
  }
}

async function backupThroughWeb(ctx: EngineContext): Promise<BackupInfo> {
  const res = await callWeb(ctx.layout, '/api/system/upgrade/backup/', { method: 'POST', token: ctx.engineToken, timeoutMs: 30 * 60_000 });
  const body = (await res.json().catch(() => ({}))) as Partial<BackupInfo> & { detail?: string };
  if (res.status !== 200 || !body.id) throw new Error(`the running web process could not take the backup: HTTP ${res.status} ${body.detail ?? ''}`);
  return body as BackupInfo;
}

/** Downgrades and the same version are refused, with nothing to override it. */
export function refuseOlder(to: string, from: string): void {
  const order = compareVersions(to, from);
  if (order < 0) throw new UpgradeRefused(`Release ${to} is older than the running ${from}: downgrades are refused.`);
  if (order === 0) throw new UpgradeRefused(`Release ${to} is already running.`);
}

/** The version in a bundle's manifest without unpacking the rest; null when it cannot be read that way. */
export function peekBundleVersion(bundle: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('tar', ['-xzOf', bundle, '--occurrence=1', MANIFEST_FILE], { maxBuffer: 64 * MB }, (err, stdout) => {
      if (err) return resolve(null);
      try {
        const version = (JSON.parse(stdout) as { version?: unknown }).version;
        resolve(typeof version === 'string' ? version : null);
      } catch {
        resolve(null);
      }
    });
  });
}



function pruneReleases(layout: InstallLayout, keep: string[]): string[] {
  const removed: string[] = [];
  const names = existsSync(layout.releases) ? readdirSync(layout.releases) : [];
  const kept = new Set(keep.map((k) => relative(layout.releases, k)));
  // Only the running and the previous release stay: older ones cannot be rolled back to anyway.
  const extra = names.filter((n) => !kept.has(n));
  for (const n of extra.slice(0, Math.max(0, names.length - KEEP_RELEASES))) {
    removeRelease(layout, join(layout.releases, n));
    removed.push(n);
  }
  return removed;
}
