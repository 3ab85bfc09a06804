// HTTP for upgrades: the last upgrade card and the stale-lock clearing (users.manage), and the resume call the
// engine makes with its one-time token to open the site after the start step.
import { createHash, timingSafeEqual } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { can } from '../core/context.ts';
import { conflict, forbidden, notFound, unauthorized } from '../core/errors.ts';
import { answeredAsBuilt, dbOf } from '../core/http.ts';
import { upgradeKeepsReads } from './reads-setting.ts';
import { detectRoot, layoutFor, readEnvFile, type InstallLayout } from '../install/layout.ts';
import { createBackup } from '../system/backup.ts';
import { BUSY_MESSAGE, lockOwnerAlive, readLock } from '../install/lock.ts';
import { readJournal, unfinished } from './engine/journal.ts';
import { releaseHold } from './engine/hold.ts';
import { upgradeStatus } from './records.ts';
import { BackupAnswer, CancelAnswer, HandOverAnswer, JobWriteAnswer, ReadOnlyAnswer, ReadWriteAnswer, ResumeAnswer, RunningJobsAnswer, UpgradeStatusAnswer } from './answer-schemas.ts';
import { BackgroundPauseError } from '../core/write-gate.ts';
import { handOverToNewWeb, HandOverError } from './host/handover.ts';
import { applyUpgradeJobWrite, UPGRADE_JOB_WRITE_SCHEMA, type UpgradeJobWrite } from './job-write.ts';

const tags = ['system'];
/** How long the read-only call waits for the changes under way (a bulk import may take a while). */
const WRITE_WAIT_MS = 60_000;
const emptyBody = { type: 'object', additionalProperties: false, properties: {} };
const readOnlyBody = {
  type: 'object',
  additionalProperties: false,
  properties: { through_recovery: { type: 'boolean', description: 'Stay read-only even if the run dies: the run is about to migrate.' } },
};

function requireAdmin(req: FastifyRequest): void {
  if (!req.ctx.user) throw unauthorized();
  if (!can(req.ctx, 'users.manage')) throw forbidden('users.manage required.');
}

function sameHash(token: string, hex: string): boolean {
  const want = Buffer.from(hex, 'hex');
  const got = createHash('sha256').update(token).digest();
  return want.length === got.length && timingSafeEqual(want, got);
}

function installLayout(): InstallLayout | null {
  const root = detectRoot();
  return root ? layoutFor(root) : null;
}

/** The live upgrade run proves itself with its secret, whose hash only the live lock owner wrote. */
function requireEngine(req: FastifyRequest, refusal: string): InstallLayout {
  const layout = installLayout();
  const token = req.headers['x-cairn-upgrade-token'];
  const lock = layout ? readLock(layout.lockFile) : null;
  if (!layout || !lock?.tokenSha256 || typeof token !== 'string' || !lockOwnerAlive(layout.lockFile) || !sameHash(token, lock.tokenSha256)) {
    throw forbidden(refusal);
  }
  return layout;
}

export function registerUpgradeRoutes(app: FastifyInstance): void {
  app.get('/api/system/upgrade/', {
    ...answeredAsBuilt,
    schema: { tags, summary: 'Running version and the last upgrade card (users.manage)', response: { 200: UpgradeStatusAnswer } },
    handler: async (req) => {
      requireAdmin(req);
      const layout = installLayout();
      const status = layout ? upgradeStatus(layout) : { last_upgrade: null, lock: { held: false, owner_alive: false, unfinished_run: false } };
      return { running_version: app.cairnVersion, installed: layout !== null, reads_during_upgrade: layout !== null && upgradeKeepsReads(layout, process.env), ...status };
    },
  });

  app.post('/api/system/upgrade/cancel/', {
    ...answeredAsBuilt,
    schema: { tags, summary: 'Clear a stale upgrade lock (refused while an upgrade is alive or unrecovered)', body: emptyBody, response: { 200: CancelAnswer } },
    handler: async (req) => {
      requireAdmin(req);
      const layout = installLayout();
      if (!layout) throw notFound('This deployment is not an installed release (no install root): there is no upgrade lock.');
      if (lockOwnerAlive(layout.lockFile)) throw conflict(BUSY_MESSAGE);
      if (unfinished(readJournal(layout.journalFile))) throw conflict(`${BUSY_MESSAGE} An interrupted upgrade must be recovered first: cairn upgrade recover`);
      const hadLock = readLock(layout.lockFile) !== null;
      rmSync(layout.lockFile, { force: true });
      return { cleared: true, had_lock: hadLock };
    },
  });

  // Called by the upgrade engine only, while the web process holds the embedded database: the pre-upgrade backup
  // taken with the running code. The proof is the run's secret, whose hash only the live lock owner wrote.
  app.post('/api/system/upgrade/backup/', {
    ...answeredAsBuilt,
    schema: { tags, summary: 'Pre-upgrade backup of the embedded database (engine only)', security: [],
      description: 'Answers only the live upgrade run, which proves itself with the `x-cairn-upgrade-token` header; everyone else gets 403.', response: { 200: BackupAnswer } },
    handler: async (req) => {
      const layout = requireEngine(req, 'Only the running upgrade may ask for this backup.');
      const env = { ...process.env, ...readEnvFile(layout.envFile) };
      const database = app.database;
      return createBackup(
        {
          databaseUrl: null,
          dataDir: database.dataDir ?? env.CAIRN_DATA_DIR ?? layout.dataDir,
          envFile: existsSync(layout.envFile) ? layout.envFile : null,
          backupsDir: layout.backupsDir,
          version: app.cairnVersion,
          database,
        },
        'pre-upgrade',
      );
    },
  });

  // Called by the upgrade engine only, at quiesce on an embedded database (which this process holds): the
  // scheduled jobs running now, which the run lets finish before it stops the workers.
  app.get('/api/system/upgrade/running-jobs/', {
    ...answeredAsBuilt,
    schema: { tags, summary: 'Scheduled jobs running now (engine only)', security: [],
      description: 'Answers only the live upgrade run, which proves itself with the `x-cairn-upgrade-token` header; everyone else gets 403.', response: { 200: RunningJobsAnswer } },
    handler: async (req) => {
      requireEngine(req, 'Only the running upgrade may ask for this.');
      const rows = await sql<{ kind: string; started_by: string }>`
        SELECT kind, started_by FROM jobs WHERE status = 'running' AND started_by LIKE 'schedule:%' ORDER BY started`.execute(app.database.db);
      return { running: rows.rows };
    },
  });

  // Called by the upgrade engine only, on an embedded database (which this process holds): the run's job record
  // (kind 'upgrade') as its journal says it is now; the engine writes it itself on PostgreSQL.
  app.post('/api/system/upgrade/job/', {
    ...answeredAsBuilt,
    schema: { tags, summary: "Write the upgrade run's job record (engine only)", security: [], body: UPGRADE_JOB_WRITE_SCHEMA,
      description: 'Answers only the live upgrade run (or recovery), which proves itself with the `x-cairn-upgrade-token` header; everyone else gets 403.', response: { 200: JobWriteAnswer } },
    handler: async (req) => {
      requireEngine(req, 'Only the running upgrade may write its job record.');
      return { id: await applyUpgradeJobWrite(app.database.db, req.body as UpgradeJobWrite) };
    },
  });

  // Called by the upgrade engine only, at quiesce when the run keeps the site readable (CAIRN_UPGRADE_SERVE_READS=1,
  // PostgreSQL): this process refuses changes from now on and answers once those under way have ended, so the
  // run's snapshot holds them. It answers reads until the new release's web takes over (or the run takes the port).
  // Called again with through_recovery as the run migrates: from then on a dead run leaves it read-only.
  app.post('/api/system/upgrade/read-only/', {
    ...answeredAsBuilt,
    schema: { tags, summary: 'Refuse changes and keep answering reads (engine only)', security: [], body: readOnlyBody,
      description: 'Answers only the live upgrade run, which proves itself with the `x-cairn-upgrade-token` header; everyone else gets 403. 409 when changes under way did not end in time (nothing is refused then).', response: { 200: ReadOnlyAnswer } },
    handler: async (req) => {
      const layout = requireEngine(req, 'Only the running upgrade may make the site read-only.');
      if (app.database.backend === 'pglite') throw conflict('The embedded database is held by this process: an upgrade needs it to itself, and stops this process instead.');
      const closed = await app.writeGate.close(() => lockOwnerAlive(layout.lockFile), WRITE_WAIT_MS).catch((err: unknown) => {
        throw err instanceof BackgroundPauseError ? conflict(`${err.message}: the site takes changes again, and the upgrade stops it instead.`) : err;
      });
      if (!closed.drained) {
        throw conflict(`${closed.inFlight} change(s) were still under way after ${Math.round(closed.waitedMs / 1000)} s: the site takes changes again, and the upgrade stops it instead.`);
      }
      if ((req.body as { through_recovery?: boolean }).through_recovery === true) app.writeGate.seal();
      return { read_only: true, waited_ms: closed.waitedMs, through_recovery: app.writeGate.sealed };
    },
  });

  // Called by the upgrade engine only, at its start step while this (old) web answers reads: this process starts
  // the new release's web on its own socket and stops once that one listens, so reads are answered throughout.
  app.post('/api/system/upgrade/hand-over/', {
    ...answeredAsBuilt,
    schema: { tags, summary: "Hand the port to the new release's web (engine only)", security: [], body: emptyBody,
      description: "Answers only the live upgrade run, which proves itself with the `x-cairn-upgrade-token` header; everyone else gets 403. 409 while changes are taken (the run made this web read-only first) or when the new release's web did not listen (this one serves on).", response: { 200: HandOverAnswer } },
    handler: async (req) => {
      requireEngine(req, 'Only the running upgrade may hand the port over.');
      if (!app.writeGate.readOnly) throw conflict('This web takes changes: the upgrade makes it read-only before it hands the port over.');
      try {
        return { pid: await handOverToNewWeb(app) };
      } catch (err) {
        if (err instanceof HandOverError) throw conflict(`${err.message}; this web serves on.`);
        throw err;
      }
    },
  });

  // Called by the upgrade engine only, as a run that failed before its migration rolls back: this process, the
  // release the site stays on, takes changes again and resumes its background work.
  app.delete('/api/system/upgrade/read-only/', {
    ...answeredAsBuilt,
    schema: { tags, summary: 'Take changes again after a rolled-back upgrade (engine only)', security: [],
      description: 'Answers only the live upgrade run (or recovery), which proves itself with the `x-cairn-upgrade-token` header; everyone else gets 403.', response: { 200: ReadWriteAnswer } },
    handler: async (req) => {
      requireEngine(req, 'Only the running upgrade may end the read-only state.');
      await app.writeGate.open();
      return { read_only: false };
    },
  });

  // Called by the upgrade engine only; the token is its proof (no user is signed in during an upgrade).
  app.post('/api/system/upgrade/resume/', {
    ...answeredAsBuilt,
    schema: { tags, summary: 'Open the site after an upgrade (engine only, one-time token)', security: [],
      description: 'Answers only the upgrade run holding the one-time `x-cairn-upgrade-token`; everyone else gets 403.', response: { 200: ResumeAnswer } },
    handler: async (req) => {
      const token = req.headers['x-cairn-upgrade-token'];
      if (typeof token !== 'string' || !(await releaseHold(dbOf(req), token))) throw forbidden('Invalid or expired upgrade token.');
      return { resumed: true };
    },
  });
}
