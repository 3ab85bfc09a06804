// Deploy: the one place the service asks an automation system to run something (SPEC "Events" 4). Everything a
// caller can get wrong (target, bundle, device, permission, the target's address) is refused before any request
// leaves and before a run is recorded; a run is recorded once the system has been asked, and polled afterwards
// by the worker (pollDeployRun) where the system reports status.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { callerTenant, modelAllows } from '../core/access.ts';
import { badRequest, forbidden } from '../core/errors.ts';
import { isUuid, uuidv7 } from '../core/ids.ts';
import { requireModel } from '../core/registry.ts';
import { clipText, NOW, recordTable } from '../core/records.ts';
import { checkOutboundUrl, readAllowlist, SsrfRefusal } from '../core/ssrf.ts';
import type { Row } from '../core/crud/serialize.ts';
import { loadSubject, renderOne } from '../templating/render.ts';
import { createJob, finishJob } from '../jobs/record.ts';
import { renderExtraVars } from './deploy-vars.ts';
import { launchRun, LaunchError, readRunStatus, type LaunchResult, type TargetRow } from './deploy-launch.ts';
import type { DeployStatus } from './deploy-models.ts';

const deployRuns = recordTable('deploy_runs', { numbered: true });

export interface DeploySettings {
  /** Seconds between status reads of a running run. */
  pollSeconds: number;
  /** A run without a final status after this long is marked failed and no longer read. */
  giveUpHours: number;
}

export function deploySettings(env: NodeJS.ProcessEnv = process.env): DeploySettings {
  const poll = env.CAIRN_DEPLOY_POLL_SECONDS === undefined || env.CAIRN_DEPLOY_POLL_SECONDS === '' ? 10 : Number(env.CAIRN_DEPLOY_POLL_SECONDS);
  if (!Number.isFinite(poll) || poll <= 0) throw new Error(`CAIRN_DEPLOY_POLL_SECONDS must be a positive number (got "${env.CAIRN_DEPLOY_POLL_SECONDS}").`);
  return { pollSeconds: poll, giveUpHours: 24 };
}

const BODY_KEYS = new Set(['target', 'bundle', 'note']);

interface DeployRequest {
  target: string;
  bundle: string | null;
  note: string;
}

function checkDeployBody(body: unknown): DeployRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest({ non_field_errors: ['Expected a JSON object {target, bundle?, note?}.'] });
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input)) if (!BODY_KEYS.has(key)) throw badRequest({ [key]: ['Unknown field.'] });
  if (typeof input.target !== 'string' || input.target.trim() === '') throw badRequest({ target: ['Name the automation target (its id or name).'] });
  if (input.bundle !== undefined && input.bundle !== null && (typeof input.bundle !== 'string' || input.bundle.trim() === '')) throw badRequest({ bundle: ['A bundle name or id, or leave it out.'] });
  if (input.note !== undefined && input.note !== null && typeof input.note !== 'string') throw badRequest({ note: ['Expected a string.'] });
  const note = typeof input.note === 'string' ? input.note : '';
  if (note.length > 255) throw badRequest({ note: ['Ensure this field has no more than 255 characters.'] });
  if (note.includes('\u0000')) throw badRequest({ note: ['No NUL characters.'] });
  return { target: input.target, bundle: typeof input.bundle === 'string' ? input.bundle : null, note };
}

interface TargetWithScope extends TargetRow {
  role_ids: string[];
  platform_ids: string[];
}

async function loadTarget(db: Kysely<DB>, ctx: RequestContext, ref: string): Promise<TargetWithScope> {
  const byId = isUuid(ref) ? sql`t.id = ${ref.toLowerCase()}` : sql`false`;
  const { rows } = await sql<TargetWithScope>`SELECT t.id, t.name, t.kind, t.url, t.token, t.job_template_id, t.project_id, t.ref, t.extra_vars, t.extra_vars_template, t.timeout_seconds, t.enabled,
      ARRAY(SELECT role_id::text FROM automation_target_roles r WHERE r.target_id = t.id) AS role_ids,
      ARRAY(SELECT platform_id::text FROM automation_target_platforms p WHERE p.target_id = t.id) AS platform_ids
    FROM automation_targets t WHERE ${callerTenant(ctx, 't')} AND (${byId} OR t.name = ${ref})
    ORDER BY (t.name = ${ref}) DESC LIMIT 1`.execute(db);
  const target = rows[0];
  if (!target) throw badRequest({ target: [`No automation target '${ref.slice(0, 100)}'.`] });
  if (!target.enabled) throw badRequest({ target: [`The automation target ${target.name} is disabled.`] });
  return target;
}

/** Why the target does not deploy to this device, or null when it does (no roles/platforms listed = all). */
async function notApplicable(db: Kysely<DB>, target: TargetWithScope, device: Row): Promise<string | null> {
  const names = async (table: 'device_roles' | 'platforms', ids: string[]) =>
    (await sql<{ name: string }>`SELECT name FROM ${sql.table(table)} WHERE id = ANY(${ids}::uuid[]) ORDER BY name`.execute(db)).rows.map((r) => r.name).join(', ');
  if (target.role_ids.length && !target.role_ids.includes(String(device.role_id))) {
    return `${target.name} deploys to devices with role ${await names('device_roles', target.role_ids)}; ${String(device.name)} is not one of them.`;
  }
  if (target.platform_ids.length && !(typeof device.platform_id === 'string' && target.platform_ids.includes(device.platform_id))) {
    return `${target.name} deploys to platform ${await names('platforms', target.platform_ids)}; ${String(device.name)} ${device.platform_id ? 'has another platform' : 'has no platform'}.`;
  }
  return null;
}

async function primaryIpOf(db: Kysely<DB>, device: Row): Promise<string | null> {
  const id = (device.primary_ip4_id ?? device.primary_ip6_id) as string | null | undefined;
  if (!id) return null;
  const { rows } = await sql<{ ip: string }>`SELECT host(address) AS ip FROM ip_addresses WHERE id = ${id}`.execute(db);
  return rows[0]?.ip ?? null;
}

export interface DeployOutcome {
  run: Row;
  /** Set when the system refused or could not be reached: the run was recorded as failed. */
  launchError: string | null;
}

export async function deployDevice(db: Kysely<DB>, ctx: RequestContext, deviceId: string, body: unknown): Promise<DeployOutcome> {
  const deviceModel = requireModel('dcim.device');
  const request = checkDeployBody(body);
  // The device first: another tenant's device is a 404 whatever else is wrong.
  const device = await loadSubject(db, ctx, 'device', deviceId);
  if (!modelAllows(ctx, deviceModel, 'deploy')) throw forbidden('You do not have permission to deploy devices (device.deploy).');
  const target = await loadTarget(db, ctx, request.target);
  const refusal = await notApplicable(db, target, device);
  if (refusal) throw badRequest({ target: [refusal] });
  const urlProblem = checkOutboundUrl(target.url, await readAllowlist(db));
  if (urlProblem) throw badRequest({ target: [`${target.name}: ${urlProblem}`] });
  const render = request.bundle !== null ? await renderOne(db, ctx, 'device', device, { kind: 'bundle', ref: request.bundle }) : null;
  const files = render ? Object.fromEntries(Object.values(render.files).map((f) => [f.path, f.sha256])) : {};

  const runId = uuidv7();
  const templated = target.extra_vars_template.trim() === '' ? {}
    : await renderExtraVars(db, ctx, device, target.extra_vars_template, { run_id: runId, target: target.name, bundle: render?.bundle ?? null, files, note: request.note });
  const extraVars: Record<string, unknown> = {
    ...(target.extra_vars ?? {}),
    ...templated,
    cairn_deploy_run: runId,
    cairn_device: { id: String(device.id), name: String(device.name), primary_ip: await primaryIpOf(db, device) },
    cairn_bundle: render?.bundle ?? null,
    cairn_files: files,
    cairn_note: request.note,
  };

  let launched: LaunchResult | null = null;
  let launchError: string | null = null;
  try {
    launched = await launchRun(db, target, extraVars, runId);
  } catch (err) {
    // The guard refusing the address is a bad target, not a run: nothing was sent, nothing is recorded.
    if (err instanceof SsrfRefusal) throw badRequest({ target: [`${target.name}: ${err.message}`] });
    // Anything else (an error answer, unreachable, a timeout that may have launched it, an undecryptable token)
    // is a launch that failed: recorded, so a job the system did start is not lost from the history.
    launchError = err instanceof LaunchError || err instanceof Error ? err.message : String(err);
  }

  const status: DeployStatus = launched ? launched.status : 'failed';
  const final = status === 'succeeded' || status === 'failed';
  const jobId = await createJob(db, {
    kind: 'deploy.run',
    tenantId: ctx.tenantId,
    startedBy: ctx.via === 'system' ? 'system' : `user:${ctx.user?.username ?? ''}`,
    status: 'running',
    subject: { objectType: 'dcim.device', objectId: String(device.id) },
  });
  const settings = deploySettings();
  const nextPoll = launched?.pollable && !final ? new Date(Date.now() + settings.pollSeconds * 1000).toISOString() : null;
  const rows = await deployRuns.append(db, ctx.tenantId, [
    {
      id: runId,
      device_id: String(device.id),
      target_id: target.id,
      target_name: target.name,
      target_kind: target.kind,
      bundle: render?.bundle ?? '',
      files,
      note: request.note,
      requested_by_id: ctx.via === 'system' ? null : ctx.user?.id ?? null,
      requested_by: ctx.user?.username ?? '',
      status,
      status_detail: clipText(launched?.detail ?? launchError ?? '', 500),
      external_id: launched?.externalId ?? '',
      external_url: clipText(launched?.externalUrl ?? '', 1000),
      job_id: jobId,
      next_poll_at: nextPoll,
      finished: final ? NOW : null,
    },
  ]);
  if (launchError !== null) await finishJob(db, jobId, { status: 'failed', error: launchError });
  else if (final) await finishJob(db, jobId, { status: status === 'succeeded' ? 'succeeded' : 'failed', result: launched!.detail });
  else if (!launched!.pollable) await finishJob(db, jobId, { status: 'succeeded', result: launched!.detail });
  return { run: rows[0]!, launchError };
}

/** Claims runs whose status read is due (a lease, so two workers never read one run at once). */
export async function claimDueRuns(db: Kysely<DB>, limit = 50): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`UPDATE deploy_runs SET next_poll_at = now() + interval '5 minutes'
    WHERE id IN (SELECT id FROM deploy_runs WHERE next_poll_at <= now() ORDER BY next_poll_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id`.execute(db);
  return rows.map((r) => r.id);
}

/** Reads one run's status from its system and records it; a final status ends the polling and the job. */
export async function pollDeployRun(db: Kysely<DB>, runId: string, settings: DeploySettings = deploySettings()): Promise<DeployStatus | null> {
  const { rows } = await sql<Row & { target_row: TargetRow | null }>`SELECT r.id, r.status, r.external_id, r.job_id, r.created,
      (SELECT to_jsonb(t) FROM automation_targets t WHERE t.id = r.target_id) AS target_row
    FROM deploy_runs r WHERE r.id = ${runId}`.execute(db);
  const run = rows[0];
  if (!run) return null;
  const end = async (status: DeployStatus, detail: string) => {
    await sql`UPDATE deploy_runs SET status = ${status}, status_detail = ${detail.slice(0, 500)}, next_poll_at = NULL, finished = now(),
      polls = polls + 1, last_updated = now() WHERE id = ${runId}`.execute(db);
    if (typeof run.job_id === 'string') await finishJob(db, run.job_id, status === 'succeeded' ? { status: 'succeeded', result: detail } : { status: 'failed', error: detail });
    return status;
  };
  if (!run.target_row) return end('failed', 'The automation target was deleted; the run status is unknown.');
  const giveUpAt = new Date(String(run.created instanceof Date ? run.created.toISOString() : run.created)).getTime() + settings.giveUpHours * 3_600_000;
  try {
    const { status, detail } = await readRunStatus(db, run.target_row, String(run.external_id));
    if (status === 'succeeded' || status === 'failed') return end(status, detail);
    if (Date.now() > giveUpAt) return end('failed', `No final status after ${settings.giveUpHours} hours (last: ${status}).`);
    await sql`UPDATE deploy_runs SET status = ${status}, status_detail = ${detail.slice(0, 500)}, polls = polls + 1, last_updated = now(),
      next_poll_at = now() + ${`${settings.pollSeconds} seconds`}::interval WHERE id = ${runId}`.execute(db);
    return status;
  } catch (err) {
    // A failed read is not a failed run: say why and try again later, until the give-up time.
    const why = `Status read failed: ${(err as Error).message}`;
    if (Date.now() > giveUpAt) return end('failed', why);
    await sql`UPDATE deploy_runs SET status_detail = ${why.slice(0, 500)}, polls = polls + 1, last_updated = now(),
      next_poll_at = now() + ${`${settings.pollSeconds} seconds`}::interval WHERE id = ${runId}`.execute(db);
    return run.status as DeployStatus;
  }
}

