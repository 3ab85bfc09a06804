// The NetBox dialect's routes beyond the models' own: the API root (where pynetbox reads the version), /api/status/,
// NetBox's JSON OpenAPI document (nb_inventory reads its filter names) and a prefix's or IP range's available-ips,
// over Cairn's own allocation (src/ipam/available.ts): the same lock, checks and change log.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { versions } from 'node:process';
import { setDialectDocs } from '../core/docs.ts';
import { dbOf, originOf } from '../core/http.ts';
import { badRequest, notFound, unauthorized, type FieldErrors } from '../core/errors.ts';
import { requireModelPermission, tenantOf } from '../core/access.ts';
import { serializeRows } from '../core/crud/serialize.ts';
import { loadScopedRow } from '../core/crud/write.ts';
import type { QueryValues } from '../core/crud/list-query.ts';
import { allocateAddresses, freeAddresses, loadContainer, MAX_AVAILABLE } from '../ipam/available.ts';
import { familyOf } from '../ipam/service.ts';
import { dialectOf, type DialectModel } from './dialect.ts';
import { idOfNumid } from './numids.ts';
import { cairnBody, netboxErrors } from './writes.ts';
import { toNetbox, toNetboxTree } from './serializer.ts';
import { permitted } from '../core/crud/routes.ts';
import { cableEndKinds } from '../dcim/cable-ends.ts';
import { traceFrom } from '../dcim/trace.ts';
import { NETBOX_API_VERSION, NETBOX_APPS, NETBOX_VERSION } from './endpoints.ts';
import { netboxOpenapi } from './schema.ts';
import { dialectRoute, versionHeader } from './route-options.ts';

function signedIn(req: FastifyRequest): void {
  if (!req.ctx.user) throw unauthorized();
}

export function registerNetboxSpecialRoutes(app: FastifyInstance): void {
  setDialectDocs({
    async root(req: FastifyRequest, reply: FastifyReply) {
      await versionHeader(req, reply);
      const origin = originOf(req);
      return Object.fromEntries(NETBOX_APPS.map((a) => [a, `${origin}/api/${a}/`]));
    },
    async schemaJson(req: FastifyRequest, reply: FastifyReply) {
      await versionHeader(req, reply);
      reply.type('application/json; charset=utf-8');
      return netboxOpenapi();
    },
  });

  app.get('/api/status/', {
    ...dialectRoute,
    preParsing: async (req, _reply, payload) => {
      signedIn(req);
      return payload;
    },
    handler: async (req) => ({
      'django-version': '5.1.8',
      'installed-apps': {},
      'netbox-version': NETBOX_VERSION,
      'python-version': '3.12.0',
      plugins: {},
      'rq-workers-running': 1,
      hostname: req.hostname,
      cairn: { version: req.server.cairnVersion, node: versions.node },
    }),
  });

  // A cable end's trace in NetBox's form: a list of [near ends, cable, far ends], over Cairn's own walk.
  for (const { type } of cableEndKinds()) {
    const entry = dialectOf(type);
    if (!entry) continue;
    app.get(`${entry.path}:id/trace/`, {
      ...dialectRoute,
      preParsing: permitted(entry.model, 'view'),
      handler: async (req) => {
        const id = await idOfNumid(dbOf(req), req.ctx, entry.model, (req.params as { id: string }).id);
        if (!id) throw notFound(`No ${entry.model.label} matches the given query.`);
        const row = await loadScopedRow(dbOf(req), req.ctx, entry.model, id);
        const trace = await traceFrom(dbOf(req), tenantOf(row), { type, id }, originOf(req));
        const path = trace.segments.map((s) => [[s.near_end], s.cable, s.far_end ? [s.far_end] : []]);
        return toNetboxTree(dbOf(req), path, originOf(req));
      },
    });
  }

  for (const [cairnName, kind] of [['ipam.prefix', 'prefix'], ['ipam.iprange', 'range']] as const) {
    const container = dialectOf(cairnName);
    const addresses = dialectOf('ipam.ipaddress');
    if (!container || !addresses) continue;
    const path = `${container.path}:id/available-ips/`;
    const containerId = async (req: FastifyRequest, entry: DialectModel) => {
      const id = await idOfNumid(dbOf(req), req.ctx, entry.model, (req.params as { id: string }).id);
      if (!id) throw notFound(`No ${entry.model.label} matches the given query.`);
      return id;
    };
    app.get(path, {
      ...dialectRoute,
      preParsing: async (req, _reply, payload) => {
        requireModelPermission(req.ctx, container.model, 'view');
        requireModelPermission(req.ctx, addresses.model, 'view');
        return payload;
      },
      handler: async (req) => {
        const raw = (req.query as QueryValues).limit;
        const text = Array.isArray(raw) ? raw[0] : raw;
        const limit = text === undefined || text === '0' ? 50 : Number(text);
        if (!Number.isInteger(limit) || limit < 1) throw badRequest({ limit: ['A whole number.'] });
        const { row, space } = await loadContainer(dbOf(req), req.ctx, kind, await containerId(req, container));
        const vrfModel = dialectOf('ipam.vrf');
        let vrf: unknown = null;
        if (row.vrf_id && vrfModel) {
          const [brief] = await toNetbox(dbOf(req), req.ctx, vrfModel, await serializeRows(dbOf(req), req.ctx, vrfModel.model, [await loadScopedRow(dbOf(req), req.ctx, vrfModel.model, String(row.vrf_id))], { origin: originOf(req), briefNumids: true }), {
            origin: originOf(req),
            brief: true,
          });
          vrf = brief;
        }
        return (await freeAddresses(dbOf(req), space, Math.min(limit, MAX_AVAILABLE))).map((address) => ({ family: familyOf(address), address, vrf }));
      },
    });
    app.post(path, {
      ...dialectRoute,
      preParsing: async (req, _reply, payload) => {
        requireModelPermission(req.ctx, container.model, 'view');
        requireModelPermission(req.ctx, addresses.model, 'add');
        return payload;
      },
      handler: async (req, reply) => {
        try {
          const list = Array.isArray(req.body);
          const items = list ? (req.body as unknown[]) : [req.body ?? {}];
          const errors: FieldErrors = {};
          const bodies = [];
          for (const [i, item] of items.entries()) bodies.push(await cairnBody(dbOf(req), req.ctx, addresses, item ?? {}, errors, list ? `[${i}].` : ''));
          if (Object.keys(errors).length) throw badRequest(errors);
          const rows = await allocateAddresses(dbOf(req), req.ctx, kind, await containerId(req, container), list ? bodies : bodies[0]);
          const out = await toNetbox(dbOf(req), req.ctx, addresses, await serializeRows(dbOf(req), req.ctx, addresses.model, rows, { origin: originOf(req), briefNumids: true }), { origin: originOf(req) });
          reply.code(201);
          return list ? out : out[0];
        } catch (err) {
          throw netboxErrors(addresses, err);
        }
      },
    });
  }
}
