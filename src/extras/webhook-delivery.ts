// One delivery attempt of one outbox row: build the body from the committed change, sign it, POST it through the
// SSRF guard, record the attempt in webhook_deliveries, then either drop the row (delivered, or out of tries)
// or schedule the next try with exponential backoff. The background-job record follows the whole delivery.
import { createHmac } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { decryptSecret } from '../core/secrets.ts';
import { guardedRequest, readAllowlist } from '../core/ssrf.ts';
import { clipText, recordTable } from '../core/records.ts';
import { joinTenantRecord, tenantAs } from '../core/access.ts';
import { createJob, finishJob } from '../jobs/record.ts';
import { eventOf } from './webhook-outbox.ts';

const deliveries = recordTable('webhook_deliveries', { numbered: true });

export interface WebhookSettings {
  /** Tries per delivery, the first included. */
  maxAttempts: number;
  /** Wait before the second try; each later wait doubles. */
  retryBaseMs: number;
  timeoutMs: number;
}

function positiveNumber(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number (got "${text}").`);
  return n;
}

export function webhookSettings(env: NodeJS.ProcessEnv = process.env): WebhookSettings {
  return {
    maxAttempts: 5,
    retryBaseMs: Math.round(positiveNumber(env.CAIRN_WEBHOOK_RETRY_BASE_SECONDS, 30, 'CAIRN_WEBHOOK_RETRY_BASE_SECONDS') * 1000),
    timeoutMs: Math.round(positiveNumber(env.CAIRN_WEBHOOK_TIMEOUT_SECONDS, 10, 'CAIRN_WEBHOOK_TIMEOUT_SECONDS') * 1000),
  };
}

/** Delay after the given (1-based) failed attempt: base, 2×base, 4×base… */
export function retryDelayMs(attempt: number, settings: WebhookSettings): number {
  return settings.retryBaseMs * 2 ** (attempt - 1);
}

export function signatureOf(body: Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

interface PendingDelivery {
  id: string;
  tenant: string;
  attempts: number;
  job_id: string | null;
  webhook_id: string;
  webhook_name: string;
  url: string;
  secret: string | null;
  additional_headers: unknown;
  enabled: boolean;
  change_id: string;
  time: Date;
  username: string;
  request_id: string;
  action: string;
  object_type: string;
  object_id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  tenant_slug: string;
  tenant_name: string;
}

/** The JSON body of the issue: the same bytes for every try of one delivery (built from the stored change). */
export function webhookBody(d: PendingDelivery): Buffer {
  const payload = {
    event: eventOf(d.action),
    object_type: d.object_type,
    object_id: d.object_id,
    tenant: { id: d.tenant, slug: d.tenant_slug, name: d.tenant_name },
    user: d.username,
    timestamp: new Date(d.time).toISOString(),
    request_id: d.request_id,
    data: d.after ?? d.before,
    snapshots: { before: d.before, after: d.after },
  };
  return Buffer.from(JSON.stringify(payload), 'utf8');
}

function headersOf(d: PendingDelivery, body: Buffer): Record<string, string> {
  const extra: Record<string, string> = {};
  if (typeof d.additional_headers === 'string' && d.additional_headers !== '') {
    const parsed: unknown = JSON.parse(decryptSecret(d.additional_headers));
    if (parsed && typeof parsed === 'object') for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') extra[k.toLowerCase()] = v;
  }
  // Ours last: an additional header cannot replace the signature or the content type.
  const own: Record<string, string> = {
    'content-type': 'application/json',
    'x-cairn-event': String(eventOf(d.action)),
    'x-cairn-delivery': d.id,
  };
  if (d.secret) own['x-cairn-signature'] = signatureOf(body, decryptSecret(d.secret));
  return { ...extra, ...own };
}

async function loadPending(db: Kysely<DB>, id: string): Promise<PendingDelivery | null> {
  const { rows } = await sql<PendingDelivery>`
    SELECT o.id, ${tenantAs('o')}, o.attempts, o.job_id, w.id AS webhook_id, w.name AS webhook_name, w.url, w.secret, w.additional_headers, w.enabled,
      c.id AS change_id, c.time, c.username, c.request_id, c.action, c.object_type, c.object_id, c.before, c.after,
      t.slug AS tenant_slug, t.name AS tenant_name
    FROM webhook_outbox o JOIN webhooks w ON w.id = o.webhook_id JOIN object_changes c ON c.id = o.change_id ${joinTenantRecord('o', 't')}
    WHERE o.id = ${id}`.execute(db);
  return rows[0] ?? null;
}

export interface AttemptOutcome {
  delivered: boolean;
  attempt: number;
  statusCode: number | null;
  error: string;
  nextRetry: Date | null;
}

/** One try of one outbox row (claimed by the caller). Returns null when the row is gone (webhook deleted). */
export async function attemptDelivery(db: Kysely<DB>, outboxId: string, settings: WebhookSettings): Promise<AttemptOutcome | null> {
  const d = await loadPending(db, outboxId);
  if (!d) return null;
  const jobId = d.job_id ?? (await startJob(db, d));
  if (!d.enabled) {
    await sql`DELETE FROM webhook_outbox WHERE id = ${d.id}`.execute(db);
    await finishJob(db, jobId, { status: 'cancelled', result: `Webhook ${d.webhook_name} was disabled before delivery.` });
    return null;
  }
  const attempt = d.attempts + 1;
  const started = performance.now();
  let statusCode: number | null = null;
  let error = '';
  try {
    const body = webhookBody(d);
    const res = await guardedRequest(d.url, {
      method: 'POST',
      body,
      headers: headersOf(d, body),
      allowlist: await readAllowlist(db),
      allowPlainHttp: true,
      timeoutMs: settings.timeoutMs,
      maxBytes: 1024 * 1024,
    });
    statusCode = res.status;
    if (res.status < 200 || res.status >= 300) error = `HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`;
  } catch (err) {
    error = (err as Error).message;
  }
  const durationMs = Math.round(performance.now() - started);
  const delivered = error === '';
  const nextRetry = !delivered && attempt < settings.maxAttempts ? new Date(Date.now() + retryDelayMs(attempt, settings)) : null;
  // One transaction: a reader never sees a recorded success while the outbox row or the job still says otherwise.
  await db.transaction().execute(async (trx) => {
    await deliveries.append(trx, d.tenant, [
      {
        webhook_id: d.webhook_id,
        webhook_name: d.webhook_name,
        change_id: d.change_id,
        event: eventOf(d.action),
        object_type: d.object_type,
        object_id: d.object_id,
        attempt,
        status_code: statusCode,
        duration_ms: durationMs,
        succeeded: delivered,
        error: clipText(error, 1000),
        next_retry: nextRetry,
        job_id: jobId,
      },
    ]);
    if (nextRetry) {
      await sql`UPDATE webhook_outbox SET attempts = ${attempt}, next_attempt_at = ${nextRetry.toISOString()}::timestamptz, claimed_until = NULL WHERE id = ${d.id}`.execute(trx);
    } else {
      await sql`DELETE FROM webhook_outbox WHERE id = ${d.id}`.execute(trx);
      const where = `${d.webhook_name} for ${d.object_type} ${d.object_id} (${eventOf(d.action)})`;
      await finishJob(
        trx,
        jobId,
        delivered
          ? { status: 'succeeded', result: `Delivered ${where} on try ${attempt} (HTTP ${statusCode}).` }
          : { status: 'failed', error: `Gave up on ${where} after ${attempt} tries: ${error}` },
      );
    }
  });
  return { delivered, attempt, statusCode, error, nextRetry };
}

async function startJob(db: Kysely<DB>, d: PendingDelivery): Promise<string> {
  const jobId = await createJob(db, {
    kind: 'webhook.delivery',
    tenantId: d.tenant,
    startedBy: d.username ? `user:${d.username}` : 'system',
    status: 'running',
    subject: { objectType: 'extras.webhook', objectId: d.webhook_id },
  });
  await sql`UPDATE webhook_outbox SET job_id = ${jobId} WHERE id = ${d.id}`.execute(db);
  return jobId;
}
