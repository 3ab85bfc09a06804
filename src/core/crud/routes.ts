// The generic routes every registry model gets: list, create, retrieve, update, partial update, delete, and (where
// other models point at it) what refers to an object.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ModelDef } from '../registry.ts';
import type { Action } from '../access.ts';
import { dbOf, originOf, parseId, permittedFirst, registryValidated, requestUrl } from '../http.ts';
import { listPage, readObject, serializeOne } from './read.ts';
import { createObject, deleteObject, updateObject } from './write.ts';
import { bulkDelete, bulkUpdate, createList, deleteList, patchList, MAX_BULK_IDS } from './bulk.ts';
import { serializeRows } from './serialize.ts';
import { exportListCsv } from './csv-export.ts';
import { importSpreadsheet, type ImportBody } from './spreadsheet-import.ts';
import type { QueryValues } from './list-query.ts';
import { csvQuerySchema, listQuerySchema, outputSchema, pageSchema, schemaName, writeSchema } from './schemas.ts';
import { referencesTo, relatedCounts, RelatedCount } from './related.ts';
import { listEnvelopeSchema } from '../list-envelope.ts';

/**
 * Answers `GET <list>?export=<name or id>` (NetBox's export parameter) with a rendered file instead of a page.
 * Installed by the templating domain, so the core never imports it.
 */
export type ListExporter = (req: FastifyRequest, reply: FastifyReply, model: ModelDef, exportRef: string) => Promise<unknown>;
let listExporter: ListExporter | null = null;

export function setListExporter(exporter: ListExporter): void {
  listExporter = exporter;
}

export function tagOf(model: ModelDef): string {
  return model.name.split('.')[0]!;
}

export function registerModelSchemas(app: FastifyInstance, model: ModelDef): void {
  const name = schemaName(model);
  app.addSchema({ $id: name, ...outputSchema(model) });
  if (model.operations.create || model.operations.update) {
    app.addSchema({ $id: `Writable${name}`, ...writeSchema(model, false) });
    app.addSchema({ $id: `Patched${name}`, ...writeSchema(model, true) });
  }
}

/**
 * The permission check of a route on one model, run before its input is looked at (preParsing: ahead of the body
 * parser, the control character guard and the handler's own checks), so a caller without the permission gets 403,
 * never a 400 about what it sent: the core's one pre-check (permittedFirst, src/core/http.ts) for one model.
 */
export function permitted(model: ModelDef, action: Action) {
  return permittedFirst([model, action]);
}

export function registerModelRoutes(app: FastifyInstance, model: ModelDef): void {
  const name = schemaName(model);
  const tags = [tagOf(model)];
  const one = { $ref: `${name}#` };
  const idParams = { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] };
  const detail = `${model.path}:id/`;

  if (model.operations.list) {
    app.get(model.path, {
      ...registryValidated,
      schema: { tags, summary: `List ${model.labelPlural}`, querystring: listQuerySchema(model), response: { 200: pageSchema(one) } },
      preParsing: permitted(model, 'view'),
      handler: async (req, reply) => {
        const exportRef = (req.query as QueryValues).export;
        if (exportRef !== undefined && listExporter) return listExporter(req, reply, model, String(Array.isArray(exportRef) ? exportRef[0] : exportRef));
        return listPage(dbOf(req), req.ctx, model, req.query as QueryValues, requestUrl(req));
      },
    });
    app.get(`${model.path}csv/`, {
      ...registryValidated,
      schema: {
        tags,
        summary: `Download ${model.labelPlural} as CSV`,
        description:
          'Every row the list selects with the same filters, search and ordering (not one page: limit and offset are ignored), streamed. `columns` names the columns (list-field keys, comma-separated, as /api/list-fields/ lists them); without it, every column. Cells read as the list shows them: an object by its name, a choice by its label.',
        querystring: csvQuerySchema(model),
        response: { 200: { description: 'text/csv; charset=utf-8, as an attachment named after the list.', type: 'string' } },
      },
      preParsing: permitted(model, 'view'),
      handler: async (req, reply) => {
        const csv = await exportListCsv(dbOf(req), req.ctx, model, req.query as QueryValues, originOf(req));
        reply.headers({ 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${csv.fileName}"`, 'x-content-type-options': 'nosniff' });
        return reply.send(Readable.from(csv.lines, { objectMode: false }));
      },
    });
    app.get(detail, {
      ...registryValidated,
      schema: { tags, summary: `Retrieve a ${model.label}`, params: idParams, response: { 200: one } },
      preParsing: permitted(model, 'view'),
      handler: async (req) => {
        return readObject(dbOf(req), req.ctx, model, parseId((req.params as { id: string }).id), originOf(req));
      },
    });
    if (referencesTo(model).length) {
      app.get(`${detail}related/`, {
        ...registryValidated,
        schema: {
          tags,
          summary: `Count what refers to a ${model.label}`,
          description: `For each model with a field pointing at the ${model.label}: how many of its rows you can see do, and the field to filter its list by (\`<list>?<field>=<id>\`). Models you cannot view are left out.`,
          params: idParams,
          response: { 200: listEnvelopeSchema(RelatedCount) },
        },
        preParsing: permitted(model, 'view'),
        handler: async (req) => relatedCounts(dbOf(req), req.ctx, model, parseId((req.params as { id: string }).id)),
      });
    }
  }
  if (model.operations.create) {
    app.post(model.path, {
      ...registryValidated,
      schema: {
        tags,
        summary: `Create a ${model.label}, or several from a list (NetBox's form: one transaction, all or none)`,
        body: { anyOf: [{ $ref: `Writable${name}#` }, { type: 'array', items: { $ref: `Writable${name}#` }, minItems: 1, maxItems: MAX_BULK_IDS }] },
        response: { 201: { anyOf: [one, { type: 'array', items: one }] } },
      },
      preParsing: permitted(model, 'add'),
      handler: async (req, reply) => {
        if (Array.isArray(req.body)) {
          const rows = await createList(dbOf(req), req.ctx, model, req.body);
          reply.code(201);
          return serializeRows(dbOf(req), req.ctx, model, rows, { origin: originOf(req) });
        }
        const row = await createObject(dbOf(req), req.ctx, model, req.body);
        reply.code(201);
        return serializeOne(dbOf(req), req.ctx, model, row, originOf(req));
      },
    });
  }
  if (model.operations.create) {
    app.post(`${model.path}import/`, {
      ...registryValidated,
      schema: {
        tags,
        summary: `Import ${model.labelPlural} from a spreadsheet (CSV, JSON or YAML): all rows or none`,
        description: 'CSV: a header row of field names. Related objects by id, number, slug or unique name; a row with an `id` (id or number) updates that object. Every row is checked, then all are written in one transaction, or none: a 400 lists each refused row (1-based, header not counted), field and message. dry_run checks and writes nothing.',
        body: {
          type: 'object',
          properties: { format: { type: 'string', enum: ['csv', 'json', 'yaml'] }, data: { type: 'string', maxLength: 10_000_000 }, dry_run: { type: 'boolean' } },
          required: ['format', 'data'],
          additionalProperties: false,
        },
        response: {
          200: { $ref: 'SpreadsheetImportResult#' },
          400: { $ref: 'SpreadsheetImportErrors#' },
        },
      },
      preParsing: permitted(model, 'add'),
      handler: async (req) => importSpreadsheet(dbOf(req), req.ctx, model, req.body as ImportBody),
    });
  }
  if (model.operations.update) {
    for (const method of ['put', 'patch'] as const) {
      app[method](detail, {
        ...registryValidated,
        schema: {
          tags,
          summary: `${method === 'put' ? 'Update' : 'Partially update'} a ${model.label}`,
          params: idParams,
          body: { $ref: `${method === 'put' ? 'Writable' : 'Patched'}${name}#` },
          response: { 200: one },
        },
        preParsing: permitted(model, 'change'),
        handler: async (req) => {
          const id = parseId((req.params as { id: string }).id);
          const row = await updateObject(dbOf(req), req.ctx, model, id, req.body, method === 'put' ? 'update' : 'patch');
          return serializeOne(dbOf(req), req.ctx, model, row, originOf(req));
        },
      });
    }
  }
  const idsSchema = { type: 'array', items: { type: 'string', format: 'uuid' }, minItems: 1, maxItems: MAX_BULK_IDS };
  if (model.operations.delete) {
    app.post(`${model.path}bulk-delete/`, {
      ...registryValidated,
      schema: {
        tags,
        summary: `Delete many ${model.labelPlural} by id`,
        description: 'One transaction. Ids outside your tenant or permissions are left out. Rows still in use are skipped with the reason. dry_run reports the same without deleting, plus what a cascade would remove.',
        body: { type: 'object', properties: { ids: idsSchema, dry_run: { type: 'boolean' } }, required: ['ids'], additionalProperties: false },
        response: { 200: { $ref: 'BulkDeleteResult#' } },
      },
      preParsing: permitted(model, 'delete'),
      handler: async (req) => {
        return bulkDelete(dbOf(req), req.ctx, model, req.body);
      },
    });
  }
  if (model.operations.update) {
    app.post(`${model.path}bulk-update/`, {
      ...registryValidated,
      schema: {
        tags,
        summary: `Update many ${model.labelPlural} by id`,
        description: 'Sets the same field values on every row, in one transaction; add_tags / remove_tags add or remove tag ids.',
        body: {
          type: 'object',
          properties: {
            ids: idsSchema,
            fields: { $ref: `Patched${name}#` },
            add_tags: { type: 'array', items: { type: 'string', format: 'uuid' } },
            remove_tags: { type: 'array', items: { type: 'string', format: 'uuid' } },
          },
          required: ['ids'],
          additionalProperties: false,
        },
        response: { 200: { type: 'object', properties: { updated: { type: 'integer' }, ids: { type: 'array', items: { type: 'string' } } } } },
      },
      preParsing: permitted(model, 'change'),
      handler: async (req) => {
        return bulkUpdate(dbOf(req), req.ctx, model, req.body);
      },
    });
  }
  // The NetBox list forms, for clients written against it: `[{id, ...fields}]` and `[{id}]`.
  const itemsSchema = { type: 'array', items: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'], additionalProperties: true }, minItems: 1, maxItems: MAX_BULK_IDS };
  if (model.operations.update) {
    app.patch(model.path, {
      ...registryValidated,
      schema: { tags, summary: `Update many ${model.labelPlural}, each with its own values (NetBox form)`, body: itemsSchema, response: { 200: { type: 'array', items: one } } },
      preParsing: permitted(model, 'change'),
      handler: async (req) => {
        const rows = await patchList(dbOf(req), req.ctx, model, req.body);
        return serializeRows(dbOf(req), req.ctx, model, rows, { origin: originOf(req) });
      },
    });
  }
  if (model.operations.delete) {
    app.delete(model.path, {
      ...registryValidated,
      schema: { tags, summary: `Delete many ${model.labelPlural} (NetBox form): all or none`, body: itemsSchema, response: { 204: { type: 'null', description: 'Deleted.' } } },
      preParsing: permitted(model, 'delete'),
      handler: async (req, reply) => {
        await deleteList(dbOf(req), req.ctx, model, req.body);
        reply.code(204).send();
      },
    });
    app.delete(detail, {
      ...registryValidated,
      schema: { tags, summary: `Delete a ${model.label}`, params: idParams, response: { 204: { type: 'null', description: 'Deleted.' } } },
      preParsing: permitted(model, 'delete'),
      handler: async (req, reply) => {
        await deleteObject(dbOf(req), req.ctx, model, parseId((req.params as { id: string }).id));
        reply.code(204).send();
      },
    });
  }
}
