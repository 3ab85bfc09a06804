// HTTP for config renders, push records and keychain reveal. Parsing and answer shapes only: the rules live in
// render.ts, pushes.ts and the keychain reveal service below the routes' helpers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { modelAllows, requireModelPermission, sameTenant } from '../core/access.ts';
import { ApiError, badRequest, forbidden } from '../core/errors.ts';
import { dbOf, parseId, registryValidated, requestUrl } from '../core/http.ts';
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
const idParams = { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] };
const renderQuery = {
  type: 'object',
  properties: {
    template: { type: 'string', description: 'An export template id.' },
    bundle: { type: 'string', description: "A bundle name or id, or 'role' for the bundle bound to the device's role." },
    archive: { type: 'string', enum: ['tar'], description: 'With a bundle: download a tarball of <device>/<path> entries.' },
  },
  additionalProperties: false,
};
const fileEntry = { type: 'object', additionalProperties: true };
/** Query parameters of the multi-device render that are not device list filters. */
const MULTI_PARAMS: ReadonlySet<string> = new Set(['template', 'bundle', 'hashes', 'role_slug']);

function bundleAnswer(r: SubjectRender): Record<string, unknown> {
  return { bundle: r.bundle, files: r.files };
}

async function renderRoute(req: FastifyRequest, reply: FastifyReply, kind: SubjectKind): Promise<unknown> {
  const query = req.query as Record<string, unknown>;
  for (const key of Object.keys(query)) if (!['template', 'bundle', 'archive'].includes(key)) throw badRequest({ [key]: ['Unknown parameter.'] });
  if (query.archive !== undefined && query.archive !== 'tar') throw badRequest({ archive: ["Only archive=tar is offered."] });
  const target = parseTarget(query);
  const db = dbOf(req);
  const subject = await loadSubject(db, req.ctx, kind, parseId((req.params as { id: string }).id));
  const result = await renderOne(db, req.ctx, kind, subject, target);
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
    ...registryValidated,
    schema: {
      tags,
      summary: 'Render a template or bundle for many devices (at most 500)',
      description: 'Filters: role, role_slug, site, platform, search and every other filter of the device list. hashes=1 leaves out output and diff.',
      querystring: { type: 'object', additionalProperties: true, properties: { template: { type: 'string' }, bundle: { type: 'string' }, hashes: { type: 'string' }, role_slug: { type: 'string' } } },
      response: { 200: { type: 'object', properties: { devices: { type: 'object', additionalProperties: true }, skipped: { type: 'object', additionalProperties: { type: 'string' } } } } },
    },
    handler: async (req) => {
      const raw = req.query as Record<string, unknown>;
      // `search` (the seed system's name) is the device list's `q`.
      const query = { ...(req.query as QueryValues) };
      if (query.search !== undefined) {
        if (query.q === undefined) query.q = query.search;
        delete query.search;
      }
      const target = parseTarget(raw);
      const hashesOnly = raw.hashes === '1' || raw.hashes === 'true';
      if (raw.hashes !== undefined && !['0', '1', 'true', 'false'].includes(String(raw.hashes))) throw badRequest({ hashes: ['Use hashes=1 or hashes=0.'] });
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
      const outcome = await renderSubjects(db, req.ctx, 'device', rows, target, { hashesOnly });
      const devices: Record<string, unknown> = {};
      for (const r of outcome.rendered) devices[r.id] = { name: r.name, files: r.files };
      return { devices, skipped: Object.fromEntries(outcome.skipped) };
    },
  });

  for (const [kind, base] of [['device', '/api/devices/'], ['vm', '/api/virtual-machines/']] as const) {
    app.get(`${base}:id/render/`, {
      ...registryValidated,
      schema: {
        tags,
        summary: `Render the bound template, a template or a bundle for one ${kind === 'device' ? 'device' : 'virtual machine'}`,
        params: idParams,
        querystring: renderQuery,
        response: { 200: { description: 'A file entry; with a bundle {bundle, files: {path: entry}}; with archive=tar a tarball.', ...fileEntry } },
      },
      handler: (req, reply) => renderRoute(req, reply, kind),
    });

    app.post(`${base}:id/config-pushed/`, {
      ...registryValidated,
      schema: {
        tags,
        summary: 'Record files a push tool wrote to the device (needs change permission on it)',
        params: idParams,
        body: {
          type: 'object',
          description: '{files: [{path, sha256?, output?, template?}], bundle?, source?, note?, deploy_run?} or the single-file shorthand {path, sha256?, output?}. At most 50 files. deploy_run names the deploy run this push finishes.',
          additionalProperties: true,
        },
        response: { 201: { type: 'object', properties: { recorded: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, sha256: { type: 'string' } } } }, pushed_at: { type: 'string' } } } },
      },
      handler: async (req, reply) => {
        const db = dbOf(req);
        const subject = await loadSubject(db, req.ctx, kind, parseId((req.params as { id: string }).id));
        requireModelPermission(req.ctx, requireModel(kind === 'device' ? 'dcim.device' : 'virtualization.virtualmachine'), 'change');
        const result = await recordPush(db, req.ctx, kind, subject, req.body);
        return reply.code(201).send(result);
      },
    });

    app.get(`${base}:id/config-pushes/`, {
      ...registryValidated,
      schema: {
        tags,
        summary: 'Push history of the device, newest first (without the text)',
        params: idParams,
        querystring: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'string' }, offset: { type: 'string' } }, additionalProperties: false },
        response: { 200: listEnvelopeSchema({ type: 'object', additionalProperties: true }) },
      },
      handler: async (req) => {
        const q = req.query as Record<string, unknown>;
        const limit = q.limit === undefined ? 50 : Number(q.limit);
        const offset = q.offset === undefined ? 0 : Number(q.offset);
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw badRequest({ limit: ['A whole number from 1 to 1000.'] });
        if (!Number.isInteger(offset) || offset < 0) throw badRequest({ offset: ['A whole number from 0.'] });
        const db = dbOf(req);
        const subject = await loadSubject(db, req.ctx, kind, parseId((req.params as { id: string }).id));
        const { count, results } = await listPushes(db, kind, String(subject.id), typeof q.path === 'string' ? q.path : null, limit, offset);
        return pagedList(requestUrl(req), { count, limit, offset }, results);
      },
    });
  }

  app.post('/api/routing/keychains/:id/reveal-psk/', {
    ...registryValidated,
    schema: {
      tags,
      summary: 'Reveal a keychain key (needs keychain.reveal; every call is written to the change log)',
      params: idParams,
      response: { 200: { type: 'object', properties: { psk: { type: 'string' } } } },
    },
    handler: async (req) => {
      const keychain = requireModel('routing.keychain');
      if (!modelAllows(req.ctx, keychain, 'reveal')) throw forbidden('You do not have permission to reveal keychain keys.');
      const body = req.body;
      if (body !== undefined && body !== null && (typeof body !== 'object' || Object.keys(body).length > 0)) throw new ApiError(400, { non_field_errors: ['This call takes no body.'] });
      return revealKeychainKey(dbOf(req), req.ctx, parseId((req.params as { id: string }).id));
    },
  });
}
