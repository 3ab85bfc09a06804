// NetBox's config templates (/api/extras/config-templates/) over Cairn's: Cairn keeps no model of its own for them.
// A config template there is an export template of a kind a device or virtual machine can be bound to (its
// object_type dcim.device or virtualization.virtualmachine: what templating/bindings.ts accepts for a device's,
// role's, platform's or VM's config_template), rendered by render-config. This serves those rows in NetBox 4.2's
// ConfigTemplateSerializer shape (id, url, display_url, display, name, description, environment_params,
// template_code, data_source, data_path, data_file, data_synced, tags, created, last_updated) and takes NetBox's
// writes onto Cairn's own (a new one is a device export template, not an attachment), with the same permissions,
// fence, checks (the template must compile) and change log as /api/export-templates/.
//
// What Cairn does not keep is answered as NetBox answers an unset value: environment_params {}, no data source or
// file, no tags. A write that sets environment_params to anything but {} or null is refused (400): Cairn's engine
// takes no Jinja2 environment parameters, and keeping them unused would change what the template renders.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { permitted } from '../core/crud/routes.ts';
import { dbOf, originOf, requestUrl } from '../core/http.ts';
import { listPage } from '../core/crud/read.ts';
import { createObject, deleteObject, updateObject } from '../core/crud/write.ts';
import { serializeRows, type ApiObject, type Row } from '../core/crud/serialize.ts';
import type { QueryValues } from '../core/crud/list-query.ts';
import { badRequest, notFound, type FieldErrors } from '../core/errors.ts';
import { requireModel } from '../core/registry.ts';
import { cairnQuery, shapeOf } from './filters.ts';
import { CONFIG_TEMPLATES_PATH, narrowed } from './serializer.ts';
import { isNumid } from './numids.ts';
import { dialectRoute } from './route-options.ts';
import type { DialectModel } from './dialect.ts';

type Json = Record<string, unknown>;
/** The kinds of subject a config template renders (the export templates that can be bound as one). */
export const CONFIG_TEMPLATE_TYPES = ['dcim.device', 'virtualization.virtualmachine'];
/** NetBox's brief config template. */
const BRIEF = new Set(['id', 'url', 'display', 'name', 'description']);
/** The fields a client may write, NetBox's name → Cairn's export template field. */
const WRITABLE = new Map([
  ['name', 'name'],
  ['description', 'description'],
  ['template_code', 'template_code'],
]);

let entryCache: DialectModel | null = null;
/** A dialect entry over Cairn's export templates with NetBox's config template fields (for NetBox's filters). */
function entry(): DialectModel {
  if (entryCache) return entryCache;
  const model = requireModel('extras.exporttemplate');
  const fields = new Map([...WRITABLE.keys()].map((k) => [k, k] as [string, string]));
  entryCache = { model, name: 'extras.configtemplate', path: CONFIG_TEMPLATES_PATH, app: 'extras', out: fields, in: fields, generic: new Map(), aliases: new Map(), genericFields: new Set() };
  return entryCache;
}

/** The url of a config template by its number. */
export function configTemplateUrl(numid: unknown, origin: string): string {
  return `${origin}${CONFIG_TEMPLATES_PATH}${String(numid)}/`;
}

function shaped(o: ApiObject, origin: string): Json {
  return {
    id: Number(o.numid),
    url: configTemplateUrl(o.numid, origin),
    display_url: `${origin}/objects/extras.exporttemplate/${String(o.id)}`,
    display: o.display,
    name: o.name,
    description: o.description,
    environment_params: {},
    template_code: o.template_code,
    data_source: null,
    data_path: '',
    data_file: null,
    data_synced: null,
    tags: [],
    created: o.created,
    last_updated: o.last_updated,
  };
}

/** The Cairn query of a NetBox list request, held to config templates. */
async function queryOf(req: FastifyRequest, extra: QueryValues = {}): Promise<QueryValues> {
  const query = await cairnQuery(dbOf(req), req.ctx, entry(), req.query as QueryValues);
  return { ...query, ...extra, object_type: CONFIG_TEMPLATE_TYPES };
}

/** One config template by its number (404 for another kind of export template, or another tenant's number). */
async function one(req: FastifyRequest): Promise<ApiObject> {
  const { id } = req.params as { id: string };
  const page = isNumid(id) ? await listPage(dbOf(req), req.ctx, entry().model, { numid: [String(Number(id))], object_type: CONFIG_TEMPLATE_TYPES, limit: '1' }, requestUrl(req), true) : null;
  const found = page?.results[0];
  if (!found) throw notFound('No config template matches the given query.');
  return found;
}

/** A NetBox config template body → Cairn's export template body. */
function bodyOf(body: unknown, creating: boolean): Json {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest({ non_field_errors: ['Invalid data. Expected a dictionary.'] });
  const out: Json = creating ? { object_type: 'dcim.device', as_attachment: false } : {};
  const errors: FieldErrors = {};
  for (const [key, value] of Object.entries(body as Json)) {
    const cairn = WRITABLE.get(key);
    if (cairn) out[cairn] = value;
    else if (key === 'environment_params') {
      const empty = value === null || (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0);
      if (!empty) errors.environment_params = ["Cairn's template engine takes no Jinja2 environment parameters: send {} or leave it out."];
    } else if (key === 'data_source' || key === 'data_file') {
      if (value !== null) errors[key] = ['Cairn keeps templates in its database: no data source or file.'];
    }
    // NetBox's read-only and unknown keys are ignored, as NetBox ignores them.
  }
  if (Object.keys(errors).length) throw badRequest(errors);
  return out;
}

async function answer(req: FastifyRequest, rows: Row[]): Promise<Json> {
  const [o] = await serializeRows(dbOf(req), req.ctx, entry().model, rows, { origin: originOf(req), briefNumids: true });
  return shaped(o!, originOf(req));
}

export function registerConfigTemplates(app: FastifyInstance): void {
  const model = entry().model;
  const detail = `${CONFIG_TEMPLATES_PATH}:id/`;
  app.get(CONFIG_TEMPLATES_PATH, {
    ...dialectRoute,
    preParsing: permitted(model, 'view'),
    handler: async (req) => {
      const page = await listPage(dbOf(req), req.ctx, model, await queryOf(req), requestUrl(req), true);
      const shape = { origin: originOf(req), ...shapeOf(req.query as QueryValues) };
      return { ...page, results: page.results.map((o) => narrowed(shaped(o, shape.origin), shape, BRIEF)) };
    },
  });
  app.get(detail, {
    ...dialectRoute,
    preParsing: permitted(model, 'view'),
    handler: async (req) => narrowed(shaped(await one(req), originOf(req)), { origin: originOf(req), ...shapeOf(req.query as QueryValues) }, BRIEF),
  });
  app.post(CONFIG_TEMPLATES_PATH, {
    ...dialectRoute,
    preParsing: permitted(model, 'add'),
    handler: async (req, reply) => {
      const row = await createObject(dbOf(req), req.ctx, model, bodyOf(req.body, true));
      reply.code(201);
      return answer(req, [row]);
    },
  });
  for (const method of ['put', 'patch'] as const) {
    app[method](detail, {
      ...dialectRoute,
      preParsing: permitted(model, 'change'),
      handler: async (req) => {
        const found = await one(req);
        const body = bodyOf(req.body, false);
        // A PUT is NetBox's full form: its required fields (name, template_code) must be sent.
        if (method === 'put') {
          const missing: FieldErrors = {};
          for (const key of ['name', 'template_code']) if (!(key in body)) missing[key] = ['This field is required.'];
          if (Object.keys(missing).length) throw badRequest(missing);
        }
        return answer(req, [await updateObject(dbOf(req), req.ctx, model, String(found.id), body, 'patch')]);
      },
    });
  }
  app.delete(detail, {
    ...dialectRoute,
    preParsing: permitted(model, 'delete'),
    handler: async (req, reply) => {
      await deleteObject(dbOf(req), req.ctx, model, String((await one(req)).id));
      reply.code(204).send();
    },
  });
}
