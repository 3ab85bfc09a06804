// The NetBox dialect's routes beyond the models' own: the API root (where pynetbox reads the version), /api/status/,
// NetBox's JSON OpenAPI document (nb_inventory reads its filter names), a cable end's trace, and the available-*
// routes (available-routes.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { versions } from 'node:process';
import { setDialectDocs } from '../core/docs.ts';
import { dbOf, originOf } from '../core/http.ts';
import { notFound, unauthorized } from '../core/errors.ts';
import { tenantOf } from '../core/access.ts';
import { loadScopedRow } from '../core/crud/write.ts';
import { registerAvailableRoutes } from './available-routes.ts';
import { dialectOf } from './dialect.ts';
import { idOfNumid } from './numids.ts';
import { CONFIG_TEMPLATES_PATH, toNetboxTree } from './serializer.ts';
import { permitted } from '../core/crud/routes.ts';
import { cableEndKinds } from '../dcim/cable-ends.ts';
import { traceFrom } from '../dcim/trace.ts';
import { loadSubject, renderOne } from '../templating/render.ts';
import { requireModel } from '../core/registry.ts';
import { NETBOX_APPS, NETBOX_VERSION } from './endpoints.ts';
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

  // NetBox's render-config: the device's (or VM's) bound config template rendered by Cairn's engine, as
  // {configtemplate, content}; `?format=txt` answers the text alone.
  for (const [kind, name] of [['device', 'dcim.device'], ['vm', 'virtualization.virtualmachine']] as const) {
    const entry = dialectOf(name);
    if (!entry) continue;
    app.post(`${entry.path}:id/render-config/`, {
      ...dialectRoute,
      preParsing: permitted(entry.model, 'view'),
      handler: async (req, reply) => {
        const id = await idOfNumid(dbOf(req), req.ctx, entry.model, (req.params as { id: string }).id);
        if (!id) throw notFound(`No ${entry.model.label} matches the given query.`);
        const subject = await loadSubject(dbOf(req), req.ctx, kind, id);
        const result = await renderOne(dbOf(req), req.ctx, kind, subject, { kind: 'bound' });
        const file = Object.values(result.files)[0];
        const content = file?.output ?? '';
        if ((req.query as { format?: string }).format === 'txt') return reply.type('text/plain; charset=utf-8').send(content);
        const templates = requireModel('extras.exporttemplate');
        const template = file ? { id: file.template_id, url: `${originOf(req)}${templates.path}${file.template_id}/`, display: file.template, name: file.template } : null;
        const configtemplate = (await toNetboxTree(dbOf(req), template, originOf(req))) as Record<string, unknown> | null;
        // One of NetBox's config templates (config-templates.ts serves Cairn's device export templates as those).
        if (configtemplate && typeof configtemplate.id === 'number') configtemplate.url = `${originOf(req)}${CONFIG_TEMPLATES_PATH}${configtemplate.id}/`;
        return { configtemplate, content };
      },
    });
  }
  registerAvailableRoutes(app);
}
