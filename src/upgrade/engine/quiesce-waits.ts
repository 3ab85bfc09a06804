// The two waits of quiesce (SPEC "Upgrade run"): the host's own package updates first, while the site is still
// up (past the limit the run stops, retryable, with nothing stopped), then a scheduled job that is running may
// finish (up to two minutes) before the workers stop.
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { openPostgres } from '../../db/database.ts';
import { RetryableFailure, save, type EngineContext } from './context.ts';
import { readEnvFile } from '../../install/layout.ts';
import { callWeb } from './web-call.ts';

const PACKAGE_WAIT_MS = 20 * 60_000;
const JOB_WAIT_MS = 2 * 60_000;

/** A duration from the environment (tests shorten the waits), else the default. */
function limitMs(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && value !== '' && Number.isFinite(n) && n >= 0 ? n : fallback;
}

function pollEvery(limit: number): number {
  return Math.max(100, Math.min(5_000, limit / 10));
}

function secondsText(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}


/** Waits for the host's package manager; throws RetryableFailure past the limit. Returns what it waited for. */
export async function waitForPackageManager(ctx: EngineContext): Promise<string> {
  const limit = limitMs(ctx.env.CAIRN_UPGRADE_PACKAGE_WAIT_MS, PACKAGE_WAIT_MS);
  const started = Date.now();
  let busy = await ctx.host.packageManagerBusy();
  if (!busy) return '';
  ctx.progress?.(`      the host is installing its own package updates: waiting up to ${secondsText(limit)} …`);
  while (busy && Date.now() - started < limit) {
    await sleep(pollEvery(limit));
    busy = await ctx.host.packageManagerBusy();
  }
  if (busy) {
    throw new RetryableFailure(
      `the host was still installing package updates after ${secondsText(limit)}; nothing was stopped: try again once they are done`,
    );
  }
  return `waited ${secondsText(Date.now() - started)} for the host's package updates; `;
}

/** Scheduled jobs (started by a schedule) running now, as "kind (started_by)"; null when the engine cannot tell. */
async function runningScheduledJobs(ctx: EngineContext): Promise<string[] | null> {
  const url = { ...process.env, ...readEnvFile(ctx.layout.envFile) }.DATABASE_URL;
  if (url) {
    const database = await openPostgres(url, 1);
    try {
      const rows = await sql<{ kind: string; started_by: string }>`
        SELECT kind, started_by FROM jobs WHERE status = 'running' AND started_by LIKE 'schedule:%' ORDER BY started`.execute(database.db);
      return rows.rows.map((r) => `${r.kind} (${r.started_by})`);
    } finally {
      await database.close();
    }
  }
  // The embedded database is held by the web process: it answers the run (the run's secret is the proof).
  const res = await callWeb(ctx.layout, '/api/system/upgrade/running-jobs/', { token: ctx.engineToken, timeoutMs: 10_000 });
  if (res.status !== 200) return null;
  const body = (await res.json()) as { running?: { kind: string; started_by: string }[] };
  return (body.running ?? []).map((r) => `${r.kind} (${r.started_by})`);
}

/**
 * Lets a running scheduled job finish, up to the limit; the workers stop after that either way (a job cut short
 * is failed by its worker and runs again on its next schedule). Returns a note for the step's detail.
 */
export async function waitForScheduledJobs(ctx: EngineContext): Promise<string> {
  const limit = limitMs(ctx.env.CAIRN_UPGRADE_JOB_WAIT_MS, JOB_WAIT_MS);
  const look = () =>
    runningScheduledJobs(ctx).catch((err: unknown) => {
      ctx.journal.warnings.push(`quiesce: could not see the running jobs (${(err as Error).message}); the workers were stopped without waiting`);
      save(ctx);
      return null;
    });
  const started = Date.now();
  let running = await look();
  if (!running?.length) return '';
  ctx.progress?.(`      waiting up to ${secondsText(limit)} for ${running.length} running scheduled job(s): ${running.join(', ')}`);
  const first = running;
  while (running?.length && Date.now() - started < limit) {
    await sleep(pollEvery(limit));
    running = await look();
  }
  if (running?.length) {
    ctx.journal.warnings.push(`quiesce: ${running.join(', ')} still ran after ${secondsText(limit)}; stopping the workers cut it short`);
    save(ctx);
    return `waited ${secondsText(limit)} for ${first.join(', ')}, which still ran; `;
  }
  return `waited ${secondsText(Date.now() - started)} for ${first.join(', ')} to finish; `;
}
