// NetBox's REST API as a second dialect over the registry: for every model with a NetBox twin (dialect.ts), NetBox's
// list and detail routes (GET, POST, PUT, PATCH, DELETE, list forms, OPTIONS), each a translation onto Cairn's own
// reads (read.ts) and writes (write.ts, bulk.ts): the same fence, permissions, checks and change log. A NetBox
// path that is already one of Cairn's own (`/api/users/tokens/`) keeps Cairn's meaning. The routes are left out of
// Cairn's OpenAPI document (its clients never see them); /api/schema/?format=json describes them (schema.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { scopeCondition } from '../core/access.ts';
import { permitted } from '../core/crud/routes.ts';
import { dbOf, originOf, requestUrl } from '../core/http.ts';
import { listPage, readObject } from '../core/crud/read.ts';
import { createObject, deleteObject, updateObject } from '../core/crud/write.ts';
import { createList, deleteList, patchList } from '../core/crud/bulk.ts';
import { serializeRows, type ApiObject, type Row } from '../core/crud/serialize.ts';
import type { QueryValues } from '../core/crud/list-query.ts';
import { badRequest, notFound, unauthorized, type FieldErrors } from '../core/errors.ts';
import { NETBOX_ENDPOINTS } from './endpoints.ts';
import { allModels, columnOf, fieldLabel, isRequired, requireModel } from '../core/registry.ts';
import { dialectModels, type DialectModel } from './dialect.ts';
import { cairnQuery, shapeOf } from './filters.ts';
import { choiceOptions, CONFIG_TEMPLATES_PATH, installBriefDescriptions, netboxObjects, shapePage, toNetbox } from './serializer.ts';
import { netboxPageBytes } from './page-bytes.ts';
import { cairnBody, netboxErrors } from './writes.ts';
import { idOfNumid, idsBy, isNumid } from './numids.ts';
import { dialectRoute } from './route-options.ts';
import { registerNetboxSpecialRoutes } from './special-routes.ts';
import { registerConfigTemplates } from './config-templates.ts';

type Json = Record<string, unknown>;

/** The content type Fastify gives the JSON answers its serializer writes. */
const JSON_TYPE = 'application/json; charset=utf-8';

export async function shaped(req: FastifyRequest, entry: DialectModel, objects: ApiObject[]): Promise<Json[]> {
  const shape = shapeOf(req.query as QueryValues);
  return toNetbox(dbOf(req), req.ctx, entry, objects, { origin: originOf(req), ...shape });
}

/** Runs `work`, answering Cairn's field errors with NetBox's field names. */
async function translated<T>(entry: DialectModel, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw netboxErrors(entry, err);
  }
}

async function uuidOf(req: FastifyRequest, entry: DialectModel): Promise<string> {
  const id = await idOfNumid(dbOf(req), req.ctx, entry.model, (req.params as { id: string }).id);
  if (!id) throw notFound('No ' + entry.model.label + ' matches the given query.');
  return id;
}

/** A NetBox body (one object or a list) → Cairn bodies; unresolved references are one 400. */
async function bodiesOf(req: FastifyRequest, entry: DialectModel, list: boolean, withIds: boolean): Promise<Json[]> {
  const items = list ? (Array.isArray(req.body) ? req.body : null) : [req.body];
  if (!items || items.length === 0) throw badRequest({ non_field_errors: ['Expected a non-empty list of objects.'] });
  const errors: FieldErrors = {};
  const out: Json[] = [];
  const numbers = withIds ? items.map((item) => (item && typeof item === 'object' ? (item as Json).id : undefined)) : [];
  const ids = withIds ? await idsBy(dbOf(req), req.ctx, entry.model, 'numid', numbers.filter(isNumid)) : new Map<string, string>();
  for (const [i, item] of items.entries()) {
    const prefix = list ? `[${i}].` : '';
    const body = await cairnBody(dbOf(req), req.ctx, entry, item, errors, prefix);
    if (withIds) {
      const id = isNumid(numbers[i]) ? ids.get(String(Number(numbers[i]))) : undefined;
      if (!id) (errors[`${prefix}id`] ??= []).push(numbers[i] === undefined ? 'This field is required.' : `No ${entry.model.label} has the id ${String(numbers[i])}.`);
      else body.id = id;
    }
    out.push(body);
  }
  if (Object.keys(errors).length) throw badRequest(errors);
  return out;
}

/**
 * NetBox's custom field values on a PUT: like a PATCH, a PUT names only the values it changes, the others kept
 * (NetBox's CustomFieldsDataField starts from the object's stored values, partial or not), where Cairn's own PUT
 * replaces them all. Each body is a Cairn body of the object `id` (already found in the caller's fence).
 */
async function keepStoredCustomFields(req: FastifyRequest, entry: DialectModel, items: Array<{ id: string; body: Json }>): Promise<void> {
  const [key, field] = Object.entries(entry.model.fields).find(([, f]) => f.kind === 'custom_fields') ?? [];
  if (!key || !field) return;
  const sent = items.filter(({ body }) => body[key] && typeof body[key] === 'object' && !Array.isArray(body[key]));
  if (!sent.length) return;
  const { rows } = await sql<{ id: string; v: Json | null }>`SELECT id::text AS id, ${sql.ref(columnOf(key, field))} AS v FROM ${sql.table(entry.model.table)}
    WHERE id = ANY(${sent.map((i) => i.id)}::uuid[])`.execute(dbOf(req));
  const stored = new Map(rows.map((r) => [r.id, r.v ?? {}]));
  for (const { id, body } of sent) body[key] = { ...(stored.get(id) ?? {}), ...(body[key] as Json) };
}

/** OPTIONS on a list: what DRF's metadata says, the POST fields with each choice field's choices. */
async function listMetadata(req: FastifyRequest, entry: DialectModel): Promise<Json> {
  const { model } = entry;
  const post: Json = {};
  const statusTarget = 'extras.status';
  let statuses: Array<{ value: string; display_name: string }> | null = null;
  for (const [key, nbKey] of entry.out) {
    const field = model.fields[key]!;
    if (field.writeOnly && field.secret) continue;
    const meta: Json = { type: field.kind === 'fk' ? 'field' : field.kind === 'choice' ? 'choice' : field.kind, required: isRequired(field), read_only: !!field.readOnly, label: fieldLabel(key, field) };
    if (field.help) meta.help_text = field.help;
    if (field.kind === 'choice') meta.choices = choiceOptions(field).map((o) => ({ value: o.value, display_name: o.label }));
    if (field.kind === 'fk' && field.target === statusTarget) {
      if (!statuses) {
        const target = requireModel(statusTarget);
        const { rows } = await sql<{ slug: string; name: string }>`SELECT t.slug, t.name FROM statuses t
          WHERE ${scopeCondition(req.ctx, target, 't')} AND ${model.name} = ANY(t.available_to) ORDER BY t.name`.execute(dbOf(req));
        statuses = rows.map((r) => ({ value: r.slug, display_name: r.name }));
      }
      meta.type = 'choice';
      meta.choices = statuses;
    }
    post[nbKey] = meta;
  }
  for (const [relation, types] of entry.generic) {
    post[`${relation}_type`] = { type: 'choice', required: false, read_only: false, label: fieldLabel(`${relation}_type`, undefined), choices: [...types.keys()].map((t) => ({ value: t, display_name: t })) };
    post[`${relation}_id`] = { type: 'integer', required: false, read_only: false, label: fieldLabel(`${relation}_id`, undefined) };
  }
  return {
    name: model.labelPlural.charAt(0).toUpperCase() + model.labelPlural.slice(1),
    description: '',
    renders: ['application/json', 'text/html'],
    parses: ['application/json', 'multipart/form-data'],
    actions: model.operations.create ? { POST: post } : {},
  };
}

function registerModel(app: FastifyInstance, entry: DialectModel): void {
  const { model, path } = entry;
  const detail = `${path}:id/`;

  app.get(path, {
    ...dialectRoute,
    preParsing: permitted(model, 'view'),
    handler: async (req, reply) => {
      const query = await cairnQuery(dbOf(req), req.ctx, entry, req.query as QueryValues);
      const page = await listPage(dbOf(req), req.ctx, model, query, requestUrl(req), true);
      const shape = { origin: originOf(req), ...shapeOf(req.query as QueryValues) };
      const written = await shapePage(dbOf(req), req.ctx, entry, page.results, shape, (shaper) =>
        // Whole objects, each key once: the page's bytes written straight from Cairn's objects, each related object's
        // text once (page-bytes.ts), the same bytes as the route's serializer would write of NetBox objects.
        shaper.distinctKeys && !shape.brief && !shape.fields?.size && !shape.omit?.size
          ? { bytes: netboxPageBytes(page, page.results, shaper.write, shaper.shared) }
          : { objects: netboxObjects(shaper, page.results, shape) },
      );
      if ('bytes' in written) return reply.type(JSON_TYPE).send(written.bytes);
      return { ...page, results: written.objects };
    },
  });
  app.options(path, { ...dialectRoute, preParsing: permitted(model, 'view'), handler: async (req) => listMetadata(req, entry) });
  app.get(detail, {
    ...dialectRoute,
    preParsing: permitted(model, 'view'),
    handler: async (req) => (await shaped(req, entry, [await readObject(dbOf(req), req.ctx, model, await uuidOf(req, entry), originOf(req), true)]))[0],
  });
  const answer = async (req: FastifyRequest, rows: Row[]) => shaped(req, entry, await serializeRows(dbOf(req), req.ctx, model, rows, { origin: originOf(req), briefNumids: true }));

  if (model.operations.create) {
    app.post(path, {
      ...dialectRoute,
      preParsing: permitted(model, 'add'),
      handler: async (req, reply) =>
        translated(entry, async () => {
          const list = Array.isArray(req.body);
          const bodies = await bodiesOf(req, entry, list, false);
          const rows = list ? await createList(dbOf(req), req.ctx, model, bodies) : [await createObject(dbOf(req), req.ctx, model, bodies[0])];
          reply.code(201);
          const out = await answer(req, rows);
          return list ? out : out[0];
        }),
    });
  }
  if (model.operations.update) {
    for (const method of ['put', 'patch'] as const) {
      app[method](detail, {
        ...dialectRoute,
        preParsing: permitted(model, 'change'),
        handler: async (req) =>
          translated(entry, async () => {
            const id = await uuidOf(req, entry);
            const [body] = await bodiesOf(req, entry, false, false);
            if (method === 'put') await keepStoredCustomFields(req, entry, [{ id, body: body! }]);
            const row = await updateObject(dbOf(req), req.ctx, model, id, body, method === 'put' ? 'update' : 'patch');
            return (await answer(req, [row]))[0];
          }),
      });
      // NetBox's bulk form: a list of objects, each with its id. As in NetBox (BulkUpdateModelMixin: its serializer
      // with partial=False for PUT), a bulk PUT checks each object as a PUT: every required field must be sent;
      // fields left out keep their values, as DRF's non-partial update keeps them.
      app[method](path, {
        ...dialectRoute,
        preParsing: permitted(model, 'change'),
        handler: async (req) =>
          translated(entry, async () => {
            const bodies = await bodiesOf(req, entry, true, true);
            if (method === 'put') await keepStoredCustomFields(req, entry, bodies.map((body) => ({ id: String(body.id), body })));
            return answer(req, await patchList(dbOf(req), req.ctx, model, bodies, method === 'put' ? 'update' : 'patch'));
          }),
      });
    }
  }
  if (model.operations.delete) {
    app.delete(detail, {
      ...dialectRoute,
      preParsing: permitted(model, 'delete'),
      handler: async (req, reply) => {
        await deleteObject(dbOf(req), req.ctx, model, await uuidOf(req, entry));
        reply.code(204).send();
      },
    });
    app.delete(path, {
      ...dialectRoute,
      preParsing: permitted(model, 'delete'),
      handler: async (req, reply) => {
        const items = Array.isArray(req.body) ? (req.body as unknown[]) : [];
        if (!items.length) throw badRequest({ non_field_errors: ['Expected a non-empty list of {"id": …} objects.'] });
        const numbers = items.map((i) => (i && typeof i === 'object' ? (i as Json).id : i));
        const ids = await idsBy(dbOf(req), req.ctx, model, 'numid', numbers.filter(isNumid));
        const errors: FieldErrors = {};
        numbers.forEach((n, i) => {
          if (!isNumid(n) || !ids.has(String(Number(n)))) errors[`[${i}].id`] = [`No ${model.label} has the id ${String(n)}.`];
        });
        if (Object.keys(errors).length) throw badRequest(errors);
        await deleteList(dbOf(req), req.ctx, model, numbers.map((n) => ({ id: ids.get(String(Number(n)))! })));
        reply.code(204).send();
      },
    });
  }
}

/**
 * NetBox's lists of kinds of objects Cairn does not hold (yet): an empty list, which is what this server holds of
 * them, so a client that reads every grouping it knows (nb_inventory reads site groups, rack groups…) goes on.
 * Writes to them are 404: nothing here can keep them. A model added under that NetBox name takes its place.
 */
function registerStandIn(app: FastifyInstance, path: string): void {
  app.get(path, {
    ...dialectRoute,
    preParsing: async (req, _reply, payload) => {
      if (!req.ctx.user) throw unauthorized();
      return payload;
    },
    handler: async () => ({ count: 0, next: null, previous: null, results: [] }),
  });
}

export function registerNetboxApi(app: FastifyInstance): void {
  installBriefDescriptions();
  const served = new Set<string>();
  for (const entry of dialectModels()) {
    registerModel(app, entry);
    served.add(entry.path);
  }
  // Config templates are Cairn's device export templates, in NetBox's shape (config-templates.ts).
  registerConfigTemplates(app);
  served.add(CONFIG_TEMPLATES_PATH);
  const cairnPaths = new Set(allModels().map((m) => m.path));
  for (const endpoint of NETBOX_ENDPOINTS.values()) {
    const path = `/api/${endpoint}/`;
    if (!served.has(path) && !cairnPaths.has(path)) registerStandIn(app, path);
  }
  registerNetboxSpecialRoutes(app);
}
