// Talking to automation systems: the launch call of each kind, and the status read where the system offers one.
// Every request goes through the SSRF guard (pinned DNS, allow-list; plain http only to allow-listed hosts).
//   awx        POST /api/v2/job_templates/<id>/launch/ {extra_vars}       poll GET /api/v2/jobs/<id>/
//   semaphore  POST /api/project/<p>/tasks {template_id, environment}   poll GET /api/project/<p>/tasks/<id>
//   gitlab     POST /api/v4/projects/<p>/trigger/pipeline (trigger token, ref, variables[…]); a trigger token cannot
//              read pipelines, so the run keeps the status the trigger answered
//   webhook    POST <base_url> with the run as JSON, signed like outbound webhooks when a token is set; no status
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { decryptSecret } from '../core/secrets.ts';
import { guardedRequest, readAllowlist, type GuardedResponse } from '../core/ssrf.ts';
import { signatureOf } from '../extras/webhook-delivery.ts';
import type { DeployStatus } from './deploy-models.ts';

export interface TargetRow {
  id: string;
  name: string;
  kind: 'awx' | 'semaphore' | 'gitlab' | 'webhook';
  url: string;
  token: string | null;
  job_template_id: number | null;
  project_id: string;
  ref: string;
  extra_vars: Record<string, unknown> | null;
  extra_vars_template: string;
  timeout_seconds: number;
  enabled: boolean;
}

export interface LaunchResult {
  externalId: string;
  externalUrl: string;
  status: DeployStatus;
  detail: string;
  /** The system can be asked for the run's status later. */
  pollable: boolean;
}

/** The launch reached the system and it refused, or it could not be reached: the run is recorded as failed. */
export class LaunchError extends Error {}

function base(target: TargetRow): string {
  return target.url.replace(/\/+$/, '');
}

function bearer(target: TargetRow): Record<string, string> {
  return target.token ? { authorization: `Bearer ${decryptSecret(target.token)}` } : {};
}

async function send(db: Kysely<DB>, target: TargetRow, url: string, method: 'GET' | 'POST', headers: Record<string, string>, body?: Buffer): Promise<GuardedResponse> {
  // A row written before timeout_seconds existed (a run's stored target snapshot) waits the old 30 s.
  const timeoutMs = (target.timeout_seconds ?? 30) * 1000;
  return guardedRequest(url, { method, headers: { accept: 'application/json', ...headers }, body, allowlist: await readAllowlist(db), allowPlainHttp: true, timeoutMs, maxBytes: 4 * 1024 * 1024 });
}

/** The answer as a JSON object, or a LaunchError naming the status and the start of the body. */
function jsonAnswer(target: TargetRow, what: string, res: GuardedResponse): Record<string, unknown> {
  const text = res.body.toString('utf8');
  if (res.status < 200 || res.status >= 300) throw new LaunchError(`${target.name} answered HTTP ${res.status} to the ${what}: ${text.slice(0, 200)}`);
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    /* fall through */
  }
  throw new LaunchError(`${target.name} answered the ${what} with something that is not a JSON object.`);
}

function idOf(value: unknown): string {
  return typeof value === 'number' || (typeof value === 'string' && value !== '') ? String(value) : '';
}

// Each system's own words for where a run is, mapped onto queued/running/succeeded/failed.
const STATUS_WORDS: Record<string, DeployStatus> = {
  new: 'queued',
  pending: 'queued',
  waiting: 'queued',
  created: 'queued',
  waiting_for_resource: 'queued',
  preparing: 'queued',
  scheduled: 'queued',
  starting: 'queued',
  running: 'running',
  successful: 'succeeded',
  success: 'succeeded',
  failed: 'failed',
  error: 'failed',
  canceled: 'failed',
  cancelled: 'failed',
  stopped: 'failed',
  skipped: 'failed',
};

export function mapStatus(word: unknown): DeployStatus | null {
  return typeof word === 'string' ? (STATUS_WORDS[word.toLowerCase()] ?? null) : null;
}

export async function launchRun(db: Kysely<DB>, target: TargetRow, extraVars: Record<string, unknown>, runId: string): Promise<LaunchResult> {
  const root = base(target);
  switch (target.kind) {
    case 'awx': {
      const body = Buffer.from(JSON.stringify({ extra_vars: extraVars }));
      const res = await send(db, target, `${root}/api/v2/job_templates/${target.job_template_id}/launch/`, 'POST', { 'content-type': 'application/json', ...bearer(target) }, body);
      const answer = jsonAnswer(target, 'launch', res);
      const id = idOf(answer.job) || idOf(answer.id);
      if (!id) throw new LaunchError(`${target.name} accepted the launch but named no job id.`);
      return { externalId: id, externalUrl: `${root}/#/jobs/playbook/${id}/output`, status: mapStatus(answer.status) ?? 'queued', detail: `AWX job ${id} launched.`, pollable: true };
    }
    case 'semaphore': {
      const body = Buffer.from(JSON.stringify({ template_id: target.job_template_id, environment: JSON.stringify(extraVars) }));
      const res = await send(db, target, `${root}/api/project/${target.project_id}/tasks`, 'POST', { 'content-type': 'application/json', ...bearer(target) }, body);
      const answer = jsonAnswer(target, 'task start', res);
      const id = idOf(answer.id);
      if (!id) throw new LaunchError(`${target.name} accepted the task but named no task id.`);
      return { externalId: id, externalUrl: `${root}/project/${target.project_id}/history?t=${id}`, status: mapStatus(answer.status) ?? 'queued', detail: `Semaphore task ${id} started.`, pollable: true };
    }
    case 'gitlab': {
      const form = new URLSearchParams();
      form.set('token', target.token ? decryptSecret(target.token) : '');
      form.set('ref', target.ref);
      for (const [k, v] of Object.entries(extraVars)) form.set(`variables[${k}]`, typeof v === 'string' ? v : JSON.stringify(v));
      const res = await send(db, target, `${root}/api/v4/projects/${encodeURIComponent(target.project_id)}/trigger/pipeline`, 'POST', { 'content-type': 'application/x-www-form-urlencoded' }, Buffer.from(form.toString()));
      const answer = jsonAnswer(target, 'pipeline trigger', res);
      const id = idOf(answer.id);
      return {
        externalId: id,
        externalUrl: typeof answer.web_url === 'string' ? answer.web_url : '',
        status: mapStatus(answer.status) ?? 'queued',
        detail: `GitLab pipeline ${id} triggered; a trigger token cannot read its status, follow it in GitLab.`,
        pollable: false,
      };
    }
    case 'webhook': {
      const body = Buffer.from(JSON.stringify({ event: 'deploy', deploy_run: runId, extra_vars: extraVars }));
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (target.token) headers['x-cairn-signature'] = signatureOf(body, decryptSecret(target.token));
      const res = await send(db, target, root, 'POST', headers, body);
      if (res.status < 200 || res.status >= 300) throw new LaunchError(`${target.name} answered HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
      let id = '';
      try {
        const parsed: unknown = JSON.parse(res.body.toString('utf8'));
        if (parsed && typeof parsed === 'object') id = idOf((parsed as Record<string, unknown>).id);
      } catch {
        /* a receiver owes us no JSON */
      }
      return { externalId: id, externalUrl: '', status: 'queued', detail: `Handed off (HTTP ${res.status}); the receiver reports no status.`, pollable: false };
    }
  }
}

/** The run's status as the system reports it now. */
export async function readRunStatus(db: Kysely<DB>, target: TargetRow, externalId: string): Promise<{ status: DeployStatus; detail: string }> {
  const root = base(target);
  const url =
    target.kind === 'awx' ? `${root}/api/v2/jobs/${encodeURIComponent(externalId)}/` : target.kind === 'semaphore' ? `${root}/api/project/${target.project_id}/tasks/${encodeURIComponent(externalId)}` : null;
  if (!url) throw new LaunchError(`${target.kind} targets report no status.`);
  const answer = jsonAnswer(target, 'status request', await send(db, target, url, 'GET', bearer(target)));
  const status = mapStatus(answer.status);
  if (!status) throw new LaunchError(`${target.name} reported an unknown status ${JSON.stringify(answer.status)}.`);
  return { status, detail: `${target.kind === 'awx' ? 'AWX job' : 'Semaphore task'} ${externalId} is ${String(answer.status)}.` };
}
