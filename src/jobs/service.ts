// Reading and cancelling job records for the API. Visibility: a tenant's jobs need `job.view` in that tenant
// (and view permission on the job's subject model when it has one); deployment-wide jobs need users.manage.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import { can, type RequestContext } from '../core/context.ts';
import { callerTenant, deploymentWide, modelAllows, rowTenant, type WithTenantColumn } from '../core/access.ts';
import { allModels } from '../core/registry.ts';
import { badRequest, conflict, forbidden, notFound } from '../core/errors.ts';
import { Type, type Static, type TSchema } from 'typebox';
import type { JobStatus } from './record.ts';

export const JOB_STATUSES: readonly JobStatus[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

interface JobRow extends WithTenantColumn {
  id: string;
  kind: string;
  status: JobStatus;
  started_by: string;
  subject_type: string | null;
  subject_id: string | null;
  done: number;
  total: number | null;
  cancellable: boolean;
  cancel_requested: boolean;
  result: string;
  error: string;
  created: Date;
  started: Date | null;
  finished: Date | null;
}

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A job as the API answers it (GET /api/jobs/, one job, its cancellation). */
export const JobAnswer = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    url: Type.String(),
    kind: Type.String({ description: 'What the job does, e.g. compliance.evaluate.' }),
    status: Type.Unsafe<JobStatus>({ type: 'string', enum: [...JOB_STATUSES] }),
    tenant: nullable(Type.String({ format: 'uuid', description: 'The tenant the job worked for; null for deployment-wide work.' })),
    started_by: Type.String({ description: '`user:<name>`, `cli:<login>`, `schedule:<name>` or `system`.' }),
    subject: nullable(Type.Object({ object_type: Type.String(), object_id: Type.String({ format: 'uuid' }) })),
    created: Type.String({ format: 'date-time' }),
    started: nullable(Type.String({ format: 'date-time' })),
    finished: nullable(Type.String({ format: 'date-time' })),
    progress: Type.Object({ done: Type.Integer(), total: nullable(Type.Integer()) }),
    result: Type.String({ description: 'What it did, once succeeded.' }),
    error: Type.String({ description: 'Why it failed.' }),
    cancellable: Type.Boolean({ description: 'Whether it can still be cancelled.' }),
    cancel_requested: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type JobAnswer = Static<typeof JobAnswer>;

function iso(d: Date | null): string | null {
  return d ? new Date(d).toISOString() : null;
}

function answerOf(row: JobRow, origin: string): JobAnswer {
  return {
    id: row.id,
    url: `${origin}/api/jobs/${row.id}/`,
    kind: row.kind,
    status: row.status,
    tenant: rowTenant(row),
    started_by: row.started_by,
    subject: row.subject_type && row.subject_id ? { object_type: row.subject_type, object_id: row.subject_id } : null,
    created: iso(row.created)!,
    started: iso(row.started),
    finished: iso(row.finished),
    progress: { done: row.done, total: row.total },
    result: row.result,
    error: row.error,
    // Only an unfinished job can still be stopped.
    cancellable: row.cancellable && (row.status === 'queued' || row.status === 'running'),
    cancel_requested: row.cancel_requested,
  };
}

/** The WHERE fragment of every job read: what this caller may see, before any filter or id. */
export function jobScope(ctx: RequestContext): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  if (ctx.tenantId && can(ctx, 'job.view')) {
    // A job about an object is as visible as that kind of object.
    const subjectTypes = allModels().filter((m) => modelAllows(ctx, m, 'view')).map((m) => m.name);
    parts.push(sql`(${callerTenant(ctx, 'j')} AND (j.subject_type IS NULL OR j.subject_type = ANY(${subjectTypes}::text[])))`);
  }
  if (can(ctx, 'users.manage')) parts.push(deploymentWide('j'));
  return parts.length ? sql`(${sql.join(parts, sql` OR `)})` : sql`false`;
}

export function requireJobAccess(ctx: RequestContext): void {
  if (!(ctx.tenantId && can(ctx, 'job.view')) && !can(ctx, 'users.manage')) throw forbidden('You do not have permission to view jobs.');
}

/** Whether the caller may cancel any job at all (which one, tenant or deployment-wide, is checked on the row). */
export function requireJobCancel(ctx: RequestContext): void {
  if (!can(ctx, 'job.change') && !can(ctx, 'users.manage')) throw forbidden('You do not have permission to cancel jobs.');
}

export interface JobFilters {
  kinds: string[];
  statuses: JobStatus[];
  limit: number;
  offset: number;
}

export async function listJobs(db: Kysely<DB>, ctx: RequestContext, filters: JobFilters, origin: string): Promise<{ count: number; rows: JobAnswer[] }> {
  const where = [jobScope(ctx)];
  if (filters.kinds.length) where.push(sql`j.kind = ANY(${filters.kinds}::text[])`);
  if (filters.statuses.length) where.push(sql`j.status = ANY(${filters.statuses}::text[])`);
  const cond = sql.join(where, sql` AND `);
  const [counted, page] = await Promise.all([
    sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs j WHERE ${cond}`.execute(db),
    // uuid v7 ids are time-ordered: newest first without a sort on created.
    sql<JobRow>`SELECT j.* FROM jobs j WHERE ${cond} ORDER BY j.id DESC LIMIT ${filters.limit} OFFSET ${filters.offset}`.execute(db),
  ]);
  return { count: counted.rows[0]!.n, rows: page.rows.map((r) => answerOf(r, origin)) };
}

async function loadJob(db: Kysely<DB>, ctx: RequestContext, id: string, forUpdate = false): Promise<JobRow> {
  const { rows } = await sql<JobRow>`SELECT j.* FROM jobs j WHERE j.id = ${id} AND ${jobScope(ctx)} ${forUpdate ? sql`FOR UPDATE` : sql``}`.execute(db);
  // A job the caller may not see reads exactly like one that does not exist.
  if (!rows[0]) throw notFound();
  return rows[0];
}

export async function readJob(db: Kysely<DB>, ctx: RequestContext, id: string, origin: string): Promise<JobAnswer> {
  return answerOf(await loadJob(db, ctx, id), origin);
}

/**
 * A queued job is cancelled at once (its worker skips it); a running one is asked to stop and ends itself at its
 * next unit of work. Tenant jobs need `job.change`, deployment-wide ones users.manage.
 */
export async function cancelJob(db: Kysely<DB>, ctx: RequestContext, id: string, origin: string): Promise<JobAnswer> {
  return db.transaction().execute(async (tx) => {
    const row = await loadJob(tx, ctx, id, true);
    if (rowTenant(row) !== null && !can(ctx, 'job.change')) throw forbidden('You do not have permission to cancel jobs.');
    if (!row.cancellable) throw badRequest({ id: [`A ${row.kind} job cannot be cancelled: it does not stop part-way.`] });
    if (row.status !== 'queued' && row.status !== 'running') throw conflict(`This job has already ${row.status === 'cancelled' ? 'been cancelled' : row.status}.`);
    if (row.cancel_requested) throw conflict('Cancellation was already requested; the job stops at its next step.');
    const { rows } = await sql<JobRow>`UPDATE jobs SET cancel_requested = true,
        status = CASE WHEN status = 'queued' THEN 'cancelled' ELSE status END,
        finished = CASE WHEN status = 'queued' THEN now() ELSE finished END,
        result = CASE WHEN status = 'queued' THEN ${`Cancelled before it started by ${ctx.user?.username ?? 'system'}.`} ELSE result END
      WHERE id = ${id} RETURNING *`.execute(tx);
    return answerOf(rows[0]!, origin);
  });
}
