// HTTP for background jobs: the list and one job, cancellation, and the recurring schedules. Parsing and
// answer shapes only; visibility and the cancel rules are in service.ts.
import type { FastifyInstance } from 'fastify';
import { ErrorCollector, unauthorized } from '../core/errors.ts';
import { dbOf, originOf, parseId, registryValidated, requestUrl } from '../core/http.ts';
import { pagedList, wholeList } from '../core/list-envelope.ts';
import { JOB_STATUSES, cancelJob, listJobs, readJob, requireJobAccess, requireJobCancel } from './service.ts';
import { nextRun, recurringJobs } from './schedules.ts';
import type { JobStatus } from './record.ts';

const tags = ['jobs'];
const anyObject = { type: 'object', additionalProperties: true };
const idParams = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
const MAX_LIMIT = 1000;
const KNOWN_PARAMS = new Set(['kind', 'status', 'limit', 'offset']);

function listOf(raw: unknown): string[] {
  const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return values.flatMap((v) => String(v).split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

function wholeNumber(raw: unknown, name: string, fallback: number, min: number, max: number, errors: ErrorCollector): number {
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    errors.add(name, `Expected a whole number from ${min} to ${max}.`);
    return fallback;
  }
  return Number(raw);
}

export function registerJobRoutes(app: FastifyInstance): void {
  app.get('/api/jobs/', {
    ...registryValidated,
    schema: {
      tags,
      summary: 'Background jobs the caller may see, newest first (filters kind, status; comma lists allowed; limit/offset)',
      querystring: { type: 'object', properties: { kind: { type: 'string' }, status: { type: 'string' }, limit: { type: 'integer' }, offset: { type: 'integer' } } },
      response: { 200: anyObject },
    },
    handler: async (req) => {
      if (!req.ctx.user) throw unauthorized();
      requireJobAccess(req.ctx);
      const q = req.query as Record<string, unknown>;
      const errors = new ErrorCollector();
      for (const key of Object.keys(q)) if (!KNOWN_PARAMS.has(key)) errors.add(key, 'Unknown filter. Jobs can be filtered by kind and status, and paged with limit and offset.');
      const kinds = listOf(q.kind);
      // eslint-disable-next-line no-control-regex -- control characters are refused (NUL cannot reach PostgreSQL)
      for (const k of kinds) if (k.length > 64 || /[\u0000-\u001f\u007f]/.test(k)) errors.add('kind', 'A job kind is at most 64 printable characters.');
      const statuses = listOf(q.status);
      for (const s of statuses) if (!(JOB_STATUSES as readonly string[]).includes(s)) errors.add('status', `"${s.slice(0, 40)}" is not a job status: use one of ${JOB_STATUSES.join(', ')}.`);
      const limit = wholeNumber(q.limit, 'limit', 50, 1, MAX_LIMIT, errors);
      const offset = wholeNumber(q.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER, errors);
      errors.throwIfAny();
      const { count, rows } = await listJobs(dbOf(req), req.ctx, { kinds, statuses: statuses as JobStatus[], limit, offset }, originOf(req));
      return pagedList(requestUrl(req), { count, limit, offset }, rows);
    },
  });

  app.get('/api/jobs/schedules/', {
    ...registryValidated,
    schema: { tags, summary: 'Recurring jobs with their schedule (cron, server time zone) and next run', response: { 200: anyObject } },
    handler: async (req) => {
      if (!req.ctx.user) throw unauthorized();
      requireJobAccess(req.ctx);
      const now = new Date();
      const results = recurringJobs().map((job) => {
        const { next, error } = nextRun(job.schedule, now);
        return { name: job.name, kind: job.kind, description: job.description, schedule: job.schedule, setting: job.setting, scope: job.scope, next_run: next, ...(error ? { schedule_error: error } : {}) };
      });
      return wholeList(results);
    },
  });

  app.get('/api/jobs/:id/', {
    ...registryValidated,
    schema: { tags, summary: 'One background job', params: idParams, response: { 200: anyObject } },
    handler: async (req) => {
      if (!req.ctx.user) throw unauthorized();
      requireJobAccess(req.ctx);
      return readJob(dbOf(req), req.ctx, parseId((req.params as { id: string }).id), originOf(req));
    },
  });

  app.post('/api/jobs/:id/cancel/', {
    ...registryValidated,
    schema: { tags, summary: 'Cancel a job that supports it: a queued job at once, a running one at its next step', params: idParams, response: { 200: anyObject } },
    // Permission before input (a malformed id or body from a caller who may not cancel is a 403, not a 400).
    preParsing: async (req, _reply, payload) => {
      if (!req.ctx.user) throw unauthorized();
      requireJobAccess(req.ctx);
      requireJobCancel(req.ctx);
      return payload;
    },
    handler: async (req) => {
      return cancelJob(dbOf(req), req.ctx, parseId((req.params as { id: string }).id), originOf(req));
    },
  });
}
