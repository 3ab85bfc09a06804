// HTTP for background jobs: the list and one job, cancellation, and the recurring schedules. Parsing and
// answer shapes only; visibility and the cancel rules are in service.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ErrorCollector, unauthorized } from '../core/errors.ts';
import { answeredAsBuilt, checkedFirst, dbOf, originOf, parseId, requestUrl } from '../core/http.ts';
import { listEnvelopeSchema, pagedList, wholeList } from '../core/list-envelope.ts';
import { JOB_STATUSES, JobAnswer, cancelJob, listJobs, readJob, requireJobAccess, requireJobCancel } from './service.ts';
import { nextRun, recurringJobs } from './schedules.ts';
import type { JobStatus } from './record.ts';

const tags = ['jobs'];
const JobPage = listEnvelopeSchema(JobAnswer);
/** A recurring job as GET /api/jobs/schedules/ answers it. */
const Schedule = Type.Object(
  {
    name: Type.String(),
    kind: Type.String({ description: 'The kind of the jobs it records.' }),
    description: Type.String(),
    schedule: Type.String({ description: 'Cron pattern (server time zone; six fields when seconds matter).' }),
    setting: Type.String({ description: 'The environment variable that overrides the pattern.' }),
    scope: Type.Union([Type.Literal('deployment'), Type.Literal('tenant')]),
    next_run: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Null when the pattern never fires or is invalid.' }),
    schedule_error: Type.Optional(Type.String({ description: 'Why the pattern is invalid.' })),
  },
  { additionalProperties: false },
);
const idParams = Type.Object({ id: Type.String() });
const MAX_LIMIT = 1000;
/** A filter given once, as a comma list, or repeated. */
const oneOrMany = (description: string) => Type.Union([Type.String({ maxLength: 1000 }), Type.Array(Type.String({ maxLength: 1000 }))], { description });
const JobsQuery = Type.Object(
  {
    kind: Type.Optional(oneOrMany('Job kinds, e.g. compliance.evaluate')),
    status: Type.Optional(oneOrMany(`Statuses: ${JOB_STATUSES.join(', ')}`)),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: 50 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  },
  { additionalProperties: false },
);

function listOf(raw: unknown): string[] {
  const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return values.flatMap((v) => String(v).split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/** Signed in and allowed to see jobs: checked before the request's input. */
function mayViewJobs(req: FastifyRequest): void {
  if (!req.ctx.user) throw unauthorized();
  requireJobAccess(req.ctx);
}

export function registerJobRoutes(app: FastifyInstance): void {
  app.get('/api/jobs/', {
    ...answeredAsBuilt,
    schema: {
      tags,
      summary: 'Background jobs the caller may see, newest first (filters kind, status; comma lists allowed; limit/offset)',
      querystring: JobsQuery,
      response: { 200: JobPage },
    },
    preParsing: checkedFirst(mayViewJobs),
    handler: async (req) => {
      const q = req.query as { kind?: string | string[]; status?: string | string[]; limit: number; offset: number };
      const errors = new ErrorCollector();
      const kinds = listOf(q.kind);
      for (const k of kinds) if (k.length > 64) errors.add('kind', 'A job kind is at most 64 characters.');
      const statuses = listOf(q.status);
      for (const s of statuses) if (!(JOB_STATUSES as readonly string[]).includes(s)) errors.add('status', `"${s.slice(0, 40)}" is not a job status: use one of ${JOB_STATUSES.join(', ')}.`);
      errors.throwIfAny();
      const { count, rows } = await listJobs(dbOf(req), req.ctx, { kinds, statuses: statuses as JobStatus[], limit: q.limit, offset: q.offset }, originOf(req));
      return pagedList(requestUrl(req), { count, limit: q.limit, offset: q.offset }, rows);
    },
  });

  app.get('/api/jobs/schedules/', {
    ...answeredAsBuilt,
    schema: { tags, summary: 'Recurring jobs with their schedule (cron, server time zone) and next run', response: { 200: listEnvelopeSchema(Schedule) } },
    preParsing: checkedFirst(mayViewJobs),
    handler: async () => {
      const now = new Date();
      const results = recurringJobs().map((job) => {
        const { next, error } = nextRun(job.schedule, now);
        return { name: job.name, kind: job.kind, description: job.description, schedule: job.schedule, setting: job.setting, scope: job.scope, next_run: next, ...(error ? { schedule_error: error } : {}) };
      });
      return wholeList(results);
    },
  });

  app.get('/api/jobs/:id/', {
    ...answeredAsBuilt,
    schema: { tags, summary: 'One background job', params: idParams, response: { 200: JobAnswer } },
    preParsing: checkedFirst(mayViewJobs),
    handler: async (req) => {
      return readJob(dbOf(req), req.ctx, parseId((req.params as { id: string }).id), originOf(req));
    },
  });

  app.post('/api/jobs/:id/cancel/', {
    ...answeredAsBuilt,
    schema: {
      tags,
      summary: 'Cancel a job that supports it: a queued job at once, a running one at its next step',
      params: idParams,
      response: { 200: JobAnswer },
    },
    // Permission before input (a malformed id or body from a caller who may not cancel is a 403, not a 400).
    preParsing: checkedFirst((req) => {
      mayViewJobs(req);
      requireJobCancel(req.ctx);
    }),
    handler: async (req) => {
      return cancelJob(dbOf(req), req.ctx, parseId((req.params as { id: string }).id), originOf(req));
    },
  });
}
