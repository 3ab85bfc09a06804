// Config renders for devices and VMs: pick the target (a template, a bundle, the role's bundle, or the bound
// template), render each file with the device context, hash it, and attach push state (pushed, drift, diff).
// Many devices render together: contexts, bindings, bundles and push state are each loaded once for all of them.
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { requireModel } from '../core/registry.ts';
import { callerTenant, requireModelPermission, scopeCondition } from '../core/access.ts';
import { ApiError, badRequest, notFound } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import type { Row } from '../core/crud/serialize.ts';
import { TemplateError, type Template } from './engine/index.ts';
import { describeTemplateError, templateEnvironment } from './environment.ts';
import { bundlePathOf, exportTemplateModel } from './models.ts';
import { BUNDLE_NAME_RE } from './bundles.ts';
import { resolveBindings } from './bindings.ts';
import { loadRenderContexts, SUBJECTS, type SubjectKind } from './device-context.ts';
import { RenderSession } from './proxies.ts';
import { unifiedDiff } from './diff.ts';
import { RenderBudget } from './render-budget.ts';

export const renderLimits = {
  /** Devices one multi-device render may take; beyond, a 400 with the count. */
  maxDevices: 500,
};

export interface PushState {
  sha256: string;
  at: string;
  by: string;
  source: string;
  note: string;
  has_output: boolean;
}

export interface FileEntry {
  path: string;
  template: string;
  template_id: string;
  output?: string;
  sha256: string;
  pushed: PushState | null;
  drift: boolean | null;
  diff?: string;
}

/** What a render request asks for: `template=<id>`, `bundle=<name|id|role>`, or neither (the bound template). */
export type TargetRequest = { kind: 'template'; id: string } | { kind: 'bundle'; ref: string } | { kind: 'bound' };

interface Bundle {
  id: string;
  name: string;
  roleIds: string[];
  templates: Row[];
}

/** A target that cannot apply to one device: skipped in a multi-device render, a 400 for a single one. */
class TargetError extends Error {}

/**
 * The `random` filter's seed for one device's or VM's render: from its id, so a config that picks at random
 * (an NTP server, a minute for a job) picks the same on every render of that device, and its drift check does
 * not see a change that is only a new draw, while devices still differ from one another.
 */
export function renderSeedOf(subjectId: string): number {
  return createHash('sha256').update(subjectId).digest().readUInt32BE(0);
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Parses the query's target; malformed values are a 400 naming the parameter. */
export function parseTarget(query: Record<string, unknown>): TargetRequest {
  const template = query.template;
  const bundle = query.bundle;
  if (bundle !== undefined) {
    if (typeof bundle !== 'string' || bundle.trim() === '') throw badRequest({ bundle: ["Say which bundle: an id, a name, or 'role'."] });
    if (bundle !== 'role' && !BUNDLE_NAME_RE.test(bundle)) throw badRequest({ bundle: ['Not a bundle name: printable characters without quotes, slashes or angle brackets, at most 128.'] });
    return { kind: 'bundle', ref: bundle };
  }
  if (template !== undefined) {
    if (typeof template !== 'string' || !isUuid(template)) throw badRequest({ template: ['Give the id of a template.'] });
    return { kind: 'template', id: template.toLowerCase() };
  }
  return { kind: 'bound' };
}

const TEMPLATE_COLUMNS = sql`t.id, t.name, t.object_type, t.template_code, t.target_path, t.file_extension`;

async function loadBundles(db: Kysely<DB>, ctx: RequestContext): Promise<Bundle[]> {
  const { rows } = await sql<{ id: string; name: string; role_ids: string[]; templates: Row[] | null }>`
    SELECT b.id, b.name,
      ARRAY(SELECT role_id::text FROM config_bundle_roles r WHERE r.bundle_id = b.id) AS role_ids,
      (SELECT json_agg(json_build_object('id', t.id, 'name', t.name, 'object_type', t.object_type, 'template_code', t.template_code,
          'target_path', t.target_path, 'file_extension', t.file_extension))
        FROM config_bundle_templates j JOIN export_templates t ON t.id = j.template_id WHERE j.bundle_id = b.id) AS templates
    FROM config_bundles b WHERE ${callerTenant(ctx, 'b')} ORDER BY b.name`.execute(db);
  return rows.map((r) => ({ id: r.id, name: r.name, roleIds: r.role_ids, templates: r.templates ?? [] }));
}

interface Resolver {
  /** The templates one subject renders, and the bundle's name when a bundle was asked for. */
  filesFor(subject: Row): { bundle: string | null; templates: Row[] };
}

/**
 * Turns a target request into a per-subject resolver, reading templates and bundles once. An unknown template or
 * bundle is a 400 for the whole request (not a per-device skip): nothing could render.
 */
async function prepareTarget(db: Kysely<DB>, ctx: RequestContext, kind: SubjectKind, target: TargetRequest, subjects: Row[]): Promise<Resolver> {
  requireModelPermission(ctx, exportTemplateModel, 'view');
  if (target.kind === 'template') {
    const { rows } = await sql<Row>`SELECT ${TEMPLATE_COLUMNS} FROM export_templates t WHERE t.id = ${target.id} AND ${callerTenant(ctx, 't')}`.execute(db);
    const t = rows[0];
    if (!t) throw badRequest({ template: ['Unknown template.'] });
    return { filesFor: () => ({ bundle: null, templates: [t] }) };
  }
  if (target.kind === 'bound') {
    const bindings = await resolveBindings(db, kind, subjects.map((s) => String(s.id)));
    const ids = [...new Set([...bindings.values()].map((b) => b.resolved?.id).filter((v): v is string => !!v))];
    const { rows } = await sql<Row>`SELECT ${TEMPLATE_COLUMNS} FROM export_templates t WHERE t.id = ANY(${ids}::uuid[]) AND ${callerTenant(ctx, 't')}`.execute(db);
    const byId = new Map(rows.map((r) => [String(r.id), r]));
    return {
      filesFor(subject) {
        const t = byId.get(bindings.get(String(subject.id))?.resolved?.id ?? '');
        if (!t) throw new TargetError(`${String(subject.name)} has no config template (none on it, its role or its platform). Unknown template.`);
        return { bundle: null, templates: [t] };
      },
    };
  }
  const bundles = await loadBundles(db, ctx);
  if (target.ref !== 'role') {
    // By name first, then by id (a name that happens to look like an id still wins).
    const found = bundles.find((b) => b.name === target.ref) ?? (isUuid(target.ref) ? bundles.find((b) => b.id === target.ref.toLowerCase()) : undefined);
    if (!found) throw badRequest({ bundle: [`No bundle called '${target.ref}'.`] });
    // A bundle bound to roles is for devices of those roles: a device of another role is not given its files.
    // A bundle bound to no role applies to any device asked for by name.
    if (found.roleIds.length === 0) return { filesFor: () => ({ bundle: found.name, templates: found.templates }) };
    const roleName = await roleNames(db, [...found.roleIds, ...subjects.map((s) => s.role_id)]);
    const bound = found.roleIds.map((r) => roleName.get(r) ?? 'another role').sort().join(', ');
    return {
      filesFor(subject) {
        const role = typeof subject.role_id === 'string' ? subject.role_id : null;
        if (role === null || !found.roleIds.includes(role)) {
          const has = role === null ? 'has no role' : `has the ${roleName.get(role) ?? 'another'} role`;
          throw new TargetError(`Bundle ${found.name} is for the ${bound} role${found.roleIds.length > 1 ? 's' : ''}; ${String(subject.name)} ${has}.`);
        }
        return { bundle: found.name, templates: found.templates };
      },
    };
  }
  const roleName = await roleNames(db, subjects.map((s) => s.role_id));
  return {
    filesFor(subject) {
      const role = typeof subject.role_id === 'string' ? subject.role_id : null;
      if (!role) throw new TargetError(`${String(subject.name)} has no role, so no bundle.`);
      const bound = bundles.filter((b) => b.roleIds.includes(role));
      const name = roleName.get(role) ?? 'its';
      if (bound.length === 0) throw new TargetError(`No bundle is bound to the ${name} role.`);
      if (bound.length > 1) throw new TargetError(`${name} has more than one bundle (${bound.map((b) => b.name).sort().join(', ')}); name one.`);
      return { bundle: bound[0]!.name, templates: bound[0]!.templates };
    },
  };
}

/** Names of device roles by id (one query); ids that are not strings are left out. */
async function roleNames(db: Kysely<DB>, ids: unknown[]): Promise<Map<string, string>> {
  const roleIds = [...new Set(ids.filter((v): v is string => typeof v === 'string'))];
  if (roleIds.length === 0) return new Map();
  const { rows } = await sql<{ id: string; name: string }>`SELECT id, name FROM device_roles WHERE id = ANY(${roleIds}::uuid[])`.execute(db);
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** The latest push per (subject, path), for every subject at once. */
async function loadPushState(db: Kysely<DB>, kind: SubjectKind, ids: string[], withOutput: boolean): Promise<Map<string, Row>> {
  const col = SUBJECTS[kind].ownerColumn;
  if (ids.length === 0) return new Map();
  const { rows } = await sql<Row>`SELECT DISTINCT ON (${sql.ref(col)}, path) ${sql.ref(col)} AS subject, path, sha256, pushed_at::text AS at, pushed_by, source, note, has_output,
      ${withOutput ? sql`output` : sql`''`} AS output
    FROM config_pushes WHERE ${sql.ref(col)} = ANY(${ids}::uuid[]) ORDER BY ${sql.ref(col)}, path, pushed_at DESC`.execute(db);
  return new Map(rows.map((r) => [`${String(r.subject)} ${String(r.path)}`, r]));
}

function pushStamp(at: string): string {
  // "pushed YYYY-MM-DD HH:MM" in UTC, the diff's from-file label.
  const d = new Date(at.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
  return Number.isNaN(d.getTime()) ? at.slice(0, 16) : d.toISOString().slice(0, 16).replace('T', ' ');
}

function attachPushState(entry: FileEntry, push: Row | undefined, hashesOnly: boolean): void {
  if (!push) {
    entry.pushed = null;
    entry.drift = null;
    if (!hashesOnly) entry.diff = '';
    return;
  }
  const at = new Date(String(push.at).replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
  entry.pushed = {
    sha256: String(push.sha256),
    at: Number.isNaN(at.getTime()) ? String(push.at) : at.toISOString(),
    by: String(push.pushed_by ?? ''),
    source: String(push.source ?? ''),
    note: String(push.note ?? ''),
    has_output: Boolean(push.has_output),
  };
  entry.drift = push.sha256 !== entry.sha256;
  if (!hashesOnly) {
    entry.diff = entry.drift && push.has_output ? unifiedDiff(String(push.output), entry.output ?? '', `pushed ${pushStamp(String(push.at))}`, 'rendered now') : '';
  }
}

export interface SubjectRender {
  id: string;
  name: string;
  bundle: string | null;
  files: Record<string, FileEntry>;
}

export interface RenderOutcome {
  rendered: SubjectRender[];
  skipped: Map<string, string>;
}

/**
 * Renders every subject row (already fenced and permission-checked) against the target. Per-subject problems
 * (no role, no bundle, a template error) land in `skipped`; request-wide problems are thrown as 400s.
 */
export async function renderSubjects(
  db: Kysely<DB>,
  ctx: RequestContext,
  kind: SubjectKind,
  subjects: Row[],
  target: TargetRequest,
  opts: { hashesOnly: boolean; signal?: AbortSignal },
): Promise<RenderOutcome> {
  // Every file of every subject shares one budget: the answer is built in memory, so the cap bounds that too.
  const budget = new RenderBudget();
  const resolver = await prepareTarget(db, ctx, kind, target, subjects);
  const skipped = new Map<string, string>();
  const plan: Array<{ subject: Row; bundle: string | null; templates: Row[] }> = [];
  for (const s of subjects) {
    try {
      const { bundle, templates } = resolver.filesFor(s);
      // Sorted by path, then name; only device templates render in a bundle (a template given by id renders as asked).
      const list = (bundle !== null ? templates.filter((t) => t.object_type === 'dcim.device') : templates).sort(
        (a, b) => (bundlePathOf(a) < bundlePathOf(b) ? -1 : bundlePathOf(a) > bundlePathOf(b) ? 1 : String(a.name) < String(b.name) ? -1 : 1),
      );
      plan.push({ subject: s, bundle, templates: list });
    } catch (err) {
      if (err instanceof TargetError) skipped.set(String(s.id), err.message);
      else throw err;
    }
  }
  const session = new RenderSession(db, ctx);
  await session.prepare();
  const planned = plan.map((p) => p.subject);
  const [loaded, pushes] = await Promise.all([
    loadRenderContexts(session, kind, planned),
    loadPushState(db, kind, planned.map((s) => String(s.id)), !opts.hashesOnly),
  ]);
  const compiled = new Map<string, Template | TemplateError>();
  const compile = (t: Row): Template => {
    const id = String(t.id);
    let c = compiled.get(id);
    if (!c) {
      try {
        c = templateEnvironment().compile(String(t.template_code), String(t.name));
      } catch (err) {
        if (!(err instanceof TemplateError)) throw err;
        c = err;
      }
      compiled.set(id, c);
    }
    if (c instanceof TemplateError) throw c;
    return c;
  };
  const rendered: SubjectRender[] = [];
  for (const { subject, bundle, templates } of plan) {
    const id = String(subject.id);
    const context = loaded.contexts.get(id)!;
    try {
      const files: Record<string, FileEntry> = {};
      for (const t of templates) {
        const output = await compile(t).render(context, { ...budget.renderOptions(opts.signal), randomSeed: renderSeedOf(id) });
        budget.spend(Buffer.byteLength(output, 'utf8'));
        const path = bundlePathOf(t);
        const entry: FileEntry = { path, template: String(t.name), template_id: String(t.id), output, sha256: sha256Hex(output), pushed: null, drift: null };
        attachPushState(entry, pushes.get(`${id} ${path}`), opts.hashesOnly);
        if (opts.hashesOnly) delete entry.output;
        files[path] = entry;
      }
      rendered.push({ id, name: String(subject.name), bundle, files });
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      // Past the request's budget nothing more may render: the whole answer is refused, not this subject alone.
      if (budget.isRequestWide(err)) {
        const why = err.kind === 'limit' ? `the output of this request passed its limit of ${budget.maxBytes} bytes (CAIRN_RENDER_MAX_BYTES)` : err.message;
        const where = err.lineno !== undefined ? ` (${err.templateName ?? 'template'} line ${err.lineno})` : '';
        throw new ApiError(400, { detail: `Rendering stopped at ${String(subject.name)}: ${why}${where}.`, kind: err.kind, ...(err.lineno !== undefined ? { line: err.lineno } : {}) });
      }
      skipped.set(id, describeTemplateError(err));
    }
  }
  return { rendered, skipped };
}

/** One subject by id, in the caller's scope (another tenant's id is a 404 like a missing one). */
export async function loadSubject(db: Kysely<DB>, ctx: RequestContext, kind: SubjectKind, id: string): Promise<Row> {
  const model = requireModel(SUBJECTS[kind].model);
  requireModelPermission(ctx, model, 'view');
  const session = new RenderSession(db, ctx);
  await session.prepare();
  const { rows } = await sql<Row>`SELECT ${session.selectList(model.table, 't')} FROM ${sql.table(model.table)} t
    WHERE t.id = ${id} AND ${scopeCondition(ctx, model, 't')}`.execute(db);
  if (!rows[0]) throw notFound();
  return rows[0];
}

/** A single-subject render: a TargetError or template error becomes a 400 naming the reason. */
export async function renderOne(db: Kysely<DB>, ctx: RequestContext, kind: SubjectKind, subject: Row, target: TargetRequest, signal?: AbortSignal): Promise<SubjectRender> {
  const outcome = await renderSubjects(db, ctx, kind, [subject], target, { hashesOnly: false, ...(signal ? { signal } : {}) });
  const why = outcome.skipped.get(String(subject.id));
  if (why !== undefined) throw new ApiError(400, { detail: why });
  return outcome.rendered[0]!;
}

export { TargetError };

/**
 * Previews unsaved template source against one device's (or VM's) render context, as a config render of that
 * subject would see it. The subject is named by a body field (`device` or `virtual_machine`), so a missing one,
 * or one of another tenant, is a 400 on that field.
 */
export async function previewForSubject(db: Kysely<DB>, ctx: RequestContext, kind: SubjectKind, field: string, id: string, templateCode: string): Promise<{ output: string; count: number; truncated: boolean }> {
  let template: Template;
  try {
    template = templateEnvironment().compile(templateCode, 'template_code');
  } catch (err) {
    if (err instanceof TemplateError) throw badRequest({ template_code: [describeTemplateError(err)] });
    throw err;
  }
  let subject: Row;
  try {
    subject = await loadSubject(db, ctx, kind, id);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw badRequest({ [field]: [`No ${kind === 'device' ? 'device' : 'virtual machine'} with this id.`] });
    throw err;
  }
  const session = new RenderSession(db, ctx);
  await session.prepare();
  const loaded = await loadRenderContexts(session, kind, [subject]);
  try {
    const output = await template.render(loaded.contexts.get(String(subject.id))!, { ...new RenderBudget().renderOptions(), randomSeed: renderSeedOf(String(subject.id)) });
    return { output, count: 1, truncated: false };
  } catch (err) {
    if (err instanceof TemplateError) throw new ApiError(400, { detail: describeTemplateError(err), ...(err.lineno !== undefined ? { line: err.lineno } : {}), kind: err.kind });
    throw err;
  }
}
