// HTTP for config renders, push records and keychain reveal. Parsing and answer shapes only: the rules live in
// render.ts, pushes.ts and the keychain reveal service below the routes' helpers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { modelAllows, requireModelPermission, sameTenant } from '../core/access.ts';
import { parseBoolean } from '../core/lookups.ts';
import { badRequest, forbidden } from '../core/errors.ts';
import { answeredAsBuilt, checkedFirst, dbOf, parseId, requestUrl } from '../core/http.ts';
import { listEnvelopeSchema, pagedList } from '../core/list-envelope.ts';
import { requireModel } from '../core/registry.ts';
import { listConditions } from '../core/crud/read.ts';
import type { QueryValues } from '../core/crud/list-query.ts';
import type { Row } from '../core/crud/serialize.ts';
import { revealKeychainKey } from './keychain-reveal.ts';
import { RenderSession } from './proxies.ts';
import { loadSubject, parseTarget, renderLimits, renderOne, renderSubjects, type SubjectRender } from './render.ts';
import { listPushes, recordPush } from './pushes.ts';
import { tarOf } from './tar.ts';
import type { SubjectKind } from './device-context.ts';

const tags = ['config rendering'];
const idParams = Type.Object({ id: Type.String() });
const renderQuery = Type.Object(
  {
    template: Type.Optional(Type.String({ description: 'An export template id.' })),
    bundle: Type.Optional(Type.String({ description: "A bundle name or id, or 'role' for the bundle bound to the device's role." })),
    archive: Type.Optional(Type.String({ enum: ['tar'], description: 'With a bundle: download a tarball of <device>/<path> entries.' })),
  },
  { additionalProperties: false },
);
/** The last push recorded for a file (config-pushed), or null. */
const pushState = Type.Union([
  Type.Object(
    {
      sha256: Type.String(),
      at: Type.String({ format: 'date-time' }),
      by: Type.String(),
      source: Type.String(),
      note: Type.String(),
      has_output: Type.Boolean({ description: 'Whether the pushed text was recorded (then drift shows a diff).' }),
    },
    { additionalProperties: false },
  ),
  Type.Null(),
]);
/** One rendered file: where it goes, what made it, its hash, and how it compares with the last push. */
const fileEntry = Type.Object(
  {
    path: Type.String({ description: 'The target path on the device (bundles), or the template name.' }),
    template: Type.String(),
    template_id: Type.String({ format: 'uuid' }),
    output: Type.Optional(Type.String({ description: 'The rendered text (left out with hashes=1).' })),
    sha256: Type.String(),
    pushed: pushState,
    drift: Type.Union([Type.Boolean(), Type.Null()], { description: 'True when it differs from the last push; null when never pushed.' }),
    diff: Type.Optional(Type.String({ description: 'A unified diff against the pushed text, when it drifted and the text was recorded.' })),
  },
  { additionalProperties: false },
);
const bundleFiles = Type.Object(
  { bundle: Type.Union([Type.String(), Type.Null()]), files: Type.Record(Type.String(), fileEntry, { description: 'By target path.' }) },
  { additionalProperties: false },
);
/** A push as the history lists it (without its text). */
const pushRecord = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    path: Type.String(),
    template_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    bundle: Type.Union([Type.String(), Type.Null()]),
    sha256: Type.String(),
    has_output: Type.Boolean(),
    pushed_by: Type.String(),
    source: Type.String(),
    note: Type.String(),
    pushed_at: Type.String({ format: 'date-time' }),
    deploy_run: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  },
  { additionalProperties: false },
);
/** The grant reveal-psk needs (the keychain model's permission prefix, `reveal`). */
const KEYCHAIN_REVEAL = 'keychain.reveal';
const SUBJECT_MODELS = { device: 'dcim.device', vm: 'virtualization.virtualmachine' } as const;

/** Permission on the subject's model before input: a caller who may not act gets 403 whatever it sent. */
function mayOnSubject(kind: SubjectKind, action: 'view' | 'change') {
  return checkedFirst((req) => requireModelPermission(req.ctx, requireModel(SUBJECT_MODELS[kind]), action));
}
/** Query parameters of the multi-device render that are not device list filters. */
const MULTI_PARAMS: ReadonlySet<string> = new Set(['template', 'bundle', 'hashes', 'role_slug']);

/** Aborts when the client goes away before the answer is complete: the renders stop there. */
function abortOnClose(reply: FastifyReply): AbortSignal {
  const abort = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  return abort.signal;
}

function bundleAnswer(r: SubjectRender): Record<string, unknown> {
  return { bundle: r.bundle, files: r.files };
}

async function renderRoute(req: FastifyRequest, reply: FastifyReply, kind: SubjectKind): Promise<unknown> {
  const query = req.query as Record<string, unknown>;
  const target = parseTarget(query);
  const db = dbOf(req);
  const subject = await loadSubject(db, req.ctx, kind, parseId((req.params as { id: string }).id));
  const result = await renderOne(db, req.ctx, kind, subject, target, abortOnClose(reply));
  if (query.archive === 'tar') {
    const name = String(subject.name);
    const safe = name.replace(/[^\w.-]/g, '_');
    const tar = tarOf(Object.values(result.files).map((f) => ({ path: `${safe}/${f.path.replace(/^\/+/, '')}`, content: f.output ?? '' })));
    return reply
      .header('content-type', 'application/x-tar')
      .header('content-disposition', `attachment; filename="${safe}.tar"`)
      .header('x-content-type-options', 'nosniff')
      .send(tar);
  }
  if (target.kind === 'bundle') return bundleAnswer(result);
  return Object.values(result.files)[0];
}

export function registerRenderRoutes(app: FastifyInstance): void {
  app.get('/api/devices/render/', {
    ...answeredAsBuilt,
    schema: {
      tags,
      summary: 'Render a template or bundle for many devices (at most 500)',
      description: 'Filters: role, role_slug, site, platform, search and every other filter of the device list. hashes=1 leaves out output and diff.',
      // The device list's filters are checked by the registry's list query, as on the list itself.
      querystring: Type.Object(
        {
          template: Type.Optional(Type.String()),
          bundle: Type.Optional(Type.String()),
          hashes: Type.Optional(Type.String({ enum: ['0', '1', 'true', 'false'] })),
          role_slug: Type.Optional(Type.String()),
        },
        { additionalProperties: true },
      ),
      response: {
        200: Type.Object(
          {
            devices: Type.Record(Type.String(), Type.Object({ name: Type.String(), files: Type.Record(Type.String(), fileEntry) }, { additionalProperties: false }), { description: 'By device id.' }),
            skipped: Type.Record(Type.String(), Type.String(), { description: 'By device id: why it was not rendered.' }),
          },
          { additionalProperties: false },
        ),
      },
    },
    preParsing: mayOnSubject('device', 'view'),
    handler: async (req, reply) => {
      const raw = req.query as Record<string, unknown>;
      // `search` (the seed system's name) is the device list's `q`.
      const query = { ...(req.query as QueryValues) };
      if (query.search !== undefined) {
        if (query.q === undefined) query.q = query.search;
        delete query.search;
      }
      const target = parseTarget(raw);
      const hashesOnly = parseBoolean(raw.hashes) === true;
      const model = requireModel('dcim.device');
      requireModelPermission(req.ctx, model, 'view');
      const db = dbOf(req);
      const { where } = listConditions(req.ctx, model, query, 't', MULTI_PARAMS);
      const roleSlug = typeof raw.role_slug === 'string' ? raw.role_slug : null;
      const roleFilter = roleSlug !== null ? sql`AND t.role_id IN (SELECT r.id FROM device_roles r WHERE ${sameTenant('r', 't')} AND r.slug = ${roleSlug})` : sql``;
      const session = new RenderSession(db, req.ctx);
      await session.prepare();
      // Ids and full rows in one query, capped: beyond the cap only the count is read.
      const cap = renderLimits.maxDevices;
      const { rows } = await sql<Row & { __total: number }>`
        WITH m AS (SELECT t.id, count(*) OVER () AS total FROM devices t WHERE ${where} ${roleFilter})
        SELECT m.total::int AS __total, ${session.selectList('devices', 'd')} FROM m JOIN devices d ON d.id = m.id
        WHERE m.total <= ${cap} OR m.id = (SELECT min(id::text)::uuid FROM m)
        ORDER BY d.name`.execute(db);
      const total = rows[0]?.__total ?? 0;
      if (total > cap) throw badRequest(`${total} devices match; the cap is ${cap}. Narrow it with role, site, platform or search.`);
      for (const r of rows) delete (r as Partial<typeof r>).__total;
      const outcome = await renderSubjects(db, req.ctx, 'device', rows, target, { hashesOnly, signal: abortOnClose(reply) });
      const devices: Record<string, unknown> = {};
      for (const r of outcome.rendered) devices[r.id] = { name: r.name, files: r.files };
      return { devices, skipped: Object.fromEntries(outcome.skipped) };
    },
  });

  for (const [kind, base] of [['device', '/api/devices/'], ['vm', '/api/virtual-machines/']] as const) {
    app.get(`${base}:id/render/`, {
      ...answeredAsBuilt,
      schema: {
        tags,
        summary: `Render the bound template, a template or a bundle for one ${kind === 'device' ? 'device' : 'virtual machine'}`,
        params: idParams,
        querystring: renderQuery,
        response: { 200: Type.Union([fileEntry, bundleFiles], { description: 'A file entry; with a bundle {bundle, files: {path: entry}}; with archive=tar a tarball.' }) },
      },
      preParsing: mayOnSubject(kind, 'view'),
      handler: (req, reply) => renderRoute(req, reply, kind),
    });

    app.post(`${base}:id/config-pushed/`, {
      ...answeredAsBuilt,
      schema: {
        tags,
        summary: 'Record files a push tool wrote to the device (needs change permission on it)',
        params: idParams,
        body: Type.Object({}, {
          description: '{files: [{path, sha256?, output?, template?}], bundle?, source?, note?, deploy_run?} or the single-file shorthand {path, sha256?, output?}. At most 50 files. deploy_run names the deploy run this push finishes.',
          additionalProperties: true,
        }),
        response: { 201: { type: 'object', properties: { recorded: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, sha256: { type: 'string' } } } }, pushed_at: { type: 'string' } } } },
      },
      preParsing: mayOnSubject(kind, 'change'),
      handler: async (req, reply) => {
        const db = dbOf(req);
        const subject = await loadSubject(db, req.ctx, kind, parseId((req.params as { id: string }).id));
        requireModelPermission(req.ctx, requireModel(kind === 'device' ? 'dcim.device' : 'virtualization.virtualmachine'), 'change');
        const result = await recordPush(db, req.ctx, kind, subject, req.body);
        return reply.code(201).send(result);
      },
    });

    app.get(`${base}:id/config-pushes/`, {
      ...answeredAsBuilt,
      schema: {
        tags,
        summary: 'Push history of the device, newest first (without the text)',
        params: idParams,
        querystring: Type.Object(
          {
            path: Type.Optional(Type.String()),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50 })),
            offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: listEnvelopeSchema(pushRecord) },
      },
      preParsing: mayOnSubject(kind, 'view'),
      handler: async (req) => {
        const q = req.query as { path?: string; limit: number; offset: number };
        const { limit, offset } = q;
        const db = dbOf(req);
        const subject = await loadSubject(db, req.ctx, kind, parseId((req.params as { id: string }).id));
        const { count, results } = await listPushes(db, kind, String(subject.id), typeof q.path === 'string' ? q.path : null, limit, offset);
        return pagedList(requestUrl(req), { count, limit, offset }, results);
      },
    });
  }

  app.post('/api/routing/keychains/:id/reveal-psk/', {
    ...answeredAsBuilt,
    config: { readOnlyRefusal: `Revealing a keychain key needs the ${KEYCHAIN_REVEAL} permission, and a read-only token never has it: use a token that is not read-only, of a user who has ${KEYCHAIN_REVEAL}.` },
    schema: {
      tags,
      summary: 'Reveal a keychain key (needs keychain.reveal; every call is written to the change log)',
      params: idParams,
      body: Type.Union([Type.Null(), Type.Object({}, { additionalProperties: false })], { description: 'This call takes no body (or {}).' }),
      response: { 200: Type.Object({ psk: Type.String() }) },
    },
    preParsing: checkedFirst((req) => {
      if (!modelAllows(req.ctx, requireModel('routing.keychain'), 'reveal')) throw forbidden(`Revealing a keychain key needs the ${KEYCHAIN_REVEAL} permission.`);
    }),
    handler: async (req) => {
      return revealKeychainKey(dbOf(req), req.ctx, parseId((req.params as { id: string }).id));
    },
  });
}
