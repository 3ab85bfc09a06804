// Push records (SPEC "Push record"): a push tool reports which files it wrote, with their hashes (and the text,
// for diffs). The service never pushes configuration itself. History is append-only; the latest record per
// (device, path) is what renders compare against to report drift.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { ApiError } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { recordTable } from '../core/records.ts';
import type { Row } from '../core/crud/serialize.ts';
import { inTransaction } from '../core/crud/write.ts';
import { SUBJECTS, type SubjectKind } from './device-context.ts';
import { sha256Hex } from './render.ts';
import { callerTenant, tenantOf } from '../core/access.ts';
import { normalizeTargetPath } from './target-path.ts';

export const pushLimits = {
  maxFiles: 50,
  /** Text longer than this (in UTF-8 bytes, as stored and sent) is not kept; the hash always is. */
  maxKeptOutput: 1_048_576,
};

const pushes = recordTable('config_pushes', { numbered: false });
const TOP_KEYS = new Set(['files', 'bundle', 'source', 'note', 'deploy_run']);
const SHORTHAND_KEYS = new Set(['path', 'sha256', 'output', 'template', 'bundle', 'source', 'note', 'deploy_run']);
const FILE_KEYS = new Set(['path', 'sha256', 'output', 'template']);

interface CheckedFile {
  path: string;
  sha256: string;
  output: string | null;
  template: string | null;
}

function refuse(field: string, message: string): never {
  throw new ApiError(400, { [field]: [message] });
}

function optionalText(body: Record<string, unknown>, key: string, max: number): string {
  const v = body[key];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') refuse(key, 'Expected a string.');
  if (v.length > max) refuse(key, `Ensure this field has no more than ${max} characters.`);
  if (/[\u0000]/.test(v)) refuse(key, 'No NUL characters.');
  return v;
}

/** A path a file can land at: not empty, no NUL or control characters, no `..` segment, at most 255 characters. */
function pathProblem(path: string): string | null {
  if (path.trim() === '') return 'needs a path';
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'has a path with NUL or control characters';
  if (path.split(/[\\/]/).includes('..')) return 'has a path with a ".." segment';
  if (path.length > 255) return 'has a path longer than 255 characters';
  return null;
}

/** Checks a push body (files array or the single-file shorthand); every problem is a 400 before anything is written. */
export function checkPushBody(body: unknown): { files: CheckedFile[]; bundle: string; source: string; note: string; deployRun: string | null } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) refuse('non_field_errors', 'Expected a JSON object with files (or path and sha256).');
  const input = body as Record<string, unknown>;
  const shorthand = !('files' in input) && 'path' in input;
  const allowed = shorthand ? SHORTHAND_KEYS : TOP_KEYS;
  for (const key of Object.keys(input)) if (!allowed.has(key)) refuse(key, 'Unknown field.');
  const rawFiles: unknown = shorthand ? [{ path: input.path, sha256: input.sha256, output: input.output, template: input.template }] : input.files;
  if (!Array.isArray(rawFiles) || rawFiles.length === 0) refuse('files', 'A list of files.');
  if (rawFiles.length > pushLimits.maxFiles) refuse('files', `At most ${pushLimits.maxFiles} files per push.`);
  const files: CheckedFile[] = [];
  const seen = new Set<string>();
  rawFiles.forEach((raw: unknown, i: number) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) refuse('files', `Entry ${i} is not an object.`);
    const f = raw as Record<string, unknown>;
    for (const key of Object.keys(f)) if (!FILE_KEYS.has(key) && f[key] !== undefined) refuse('files', `Entry ${i}: unknown field ${key}.`);
    // A path with a directory part is a target path: stored in the form renders key their files by.
    const given = typeof f.path === 'string' ? f.path : '';
    const path = given.includes('/') ? (normalizeTargetPath(given) ?? given) : given;
    const output = typeof f.output === 'string' ? f.output : null;
    if (f.output !== undefined && f.output !== null && output === null) refuse('files', `Entry ${i}: output must be a string.`);
    let sha = typeof f.sha256 === 'string' ? f.sha256.trim().toLowerCase() : '';
    if (f.sha256 !== undefined && f.sha256 !== null && typeof f.sha256 !== 'string') refuse('files', `Entry ${i}: sha256 must be a string.`);
    if (sha === '' && output !== null) sha = sha256Hex(output);
    if (path === '' || !/^[0-9a-f]{64}$/.test(sha)) refuse('files', `Entry ${i} needs a path and a sha256 (64 hex digits) or the output.`);
    const problem = pathProblem(path);
    if (problem) refuse('files', `Entry ${i} ${problem}.`);
    if (output !== null && sha256Hex(output) !== sha) refuse('files', `Entry ${i}: the sha256 does not match the output.`);
    let template: string | null = null;
    if (f.template !== undefined && f.template !== null) {
      if (!isUuid(f.template)) refuse('files', `Entry ${i}: template must be an export template id.`);
      template = (f.template as string).toLowerCase();
    }
    if (seen.has(path)) refuse('files', `Entry ${i}: ${path} is listed twice.`);
    seen.add(path);
    files.push({ path, sha256: sha, output, template });
  });
  // The deploy run this push finishes (optional), so push history and deploy runs line up.
  const run = input.deploy_run;
  if (run !== undefined && run !== null && !isUuid(run)) refuse('deploy_run', 'Expected the id of a deploy run.');
  const deployRun = isUuid(run) ? run.toLowerCase() : null;
  return { files, bundle: optionalText(input, 'bundle', 128), source: optionalText(input, 'source', 64), note: optionalText(input, 'note', 255), deployRun };
}

/** Records a push for one subject (already loaded in the caller's scope, change permission checked): all rows or none. */
export async function recordPush(db: Kysely<DB>, ctx: RequestContext, kind: SubjectKind, subject: Row, body: unknown): Promise<{ recorded: Array<{ path: string; sha256: string }>; pushed_at: string }> {
  const checked = checkPushBody(body);
  const pushedAt = new Date();
  const col = SUBJECTS[kind].ownerColumn;
  await inTransaction(db, async (tx) => {
    if (checked.deployRun !== null) {
      const { rows: runs } = await sql`SELECT 1 FROM deploy_runs WHERE id = ${checked.deployRun} AND ${callerTenant(ctx)}
        AND device_id = ${kind === 'device' ? String(subject.id) : null}::uuid`.execute(tx);
      if (runs.length === 0) refuse('deploy_run', 'No deploy run with this id for this device.');
    }
    // Template ids that are not the tenant's are dropped to null, as an unknown id would be.
    const ids = checked.files.map((f) => f.template).filter((v): v is string => v !== null);
    const { rows } = ids.length
      ? await sql<{ id: string }>`SELECT id FROM export_templates WHERE ${callerTenant(ctx)} AND id = ANY(${ids}::uuid[])`.execute(tx)
      : { rows: [] as Array<{ id: string }> };
    const known = new Set(rows.map((r) => r.id));
    const kept = checked.files.map((f) => f.output !== null && Buffer.byteLength(f.output, 'utf8') <= pushLimits.maxKeptOutput);
    await pushes.append(
      tx,
      tenantOf(subject),
      checked.files.map((f, i) => ({
        [col]: String(subject.id),
        path: f.path,
        template_id: f.template && known.has(f.template) ? f.template : null,
        bundle: checked.bundle,
        sha256: f.sha256,
        output: kept[i] ? f.output! : '',
        has_output: kept[i]!,
        pushed_by_id: ctx.via === 'system' ? null : ctx.user?.id ?? null,
        pushed_by: ctx.user?.username ?? '',
        source: checked.source,
        note: checked.note,
        pushed_at: pushedAt,
        deploy_run_id: checked.deployRun,
      })),
      { returning: false },
    );
  });
  return { recorded: checked.files.map((f) => ({ path: f.path, sha256: f.sha256 })), pushed_at: pushedAt.toISOString() };
}

/** Push history of one subject, newest first, optionally for one path; the text is left out (it can be large). */
export async function listPushes(db: Kysely<DB>, kind: SubjectKind, subjectId: string, path: string | null, limit: number, offset: number) {
  const col = SUBJECTS[kind].ownerColumn;
  const where = sql`${sql.ref(col)} = ${subjectId} ${path !== null ? sql`AND path = ${path}` : sql``}`;
  const [count, page] = await Promise.all([
    sql<{ n: number }>`SELECT count(*)::int AS n FROM config_pushes WHERE ${where}`.execute(db),
    sql<Row>`SELECT id, path, template_id, bundle, sha256, has_output, pushed_by, source, note, pushed_at, deploy_run_id AS deploy_run FROM config_pushes
      WHERE ${where} ORDER BY pushed_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`.execute(db),
  ]);
  return {
    count: count.rows[0]!.n,
    results: page.rows.map((r) => ({ ...r, pushed_at: r.pushed_at instanceof Date ? r.pushed_at.toISOString() : r.pushed_at })),
  };
}
