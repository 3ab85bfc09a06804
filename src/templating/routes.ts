// HTTP for export templates beyond the generic CRUD: render (streamed download), preview (JSON), and the
// `?export=` parameter of every list. Parsing and answer shapes only; the rules live in export.ts.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { modelAllows, requireModelPermission } from '../core/access.ts';
import { badRequest, forbidden } from '../core/errors.ts';
import { answeredAsBuilt, checkedFirst, dbOf, parseId } from '../core/http.ts';
import type { QueryValues } from '../core/crud/list-query.ts';
import type { Row } from '../core/crud/serialize.ts';
import type { ModelDef } from '../core/registry.ts';
import { setListExporter } from '../core/crud/routes.ts';
import { TemplateError } from './engine/index.ts';
import { describeTemplateError } from './environment.ts';
import { findExportTemplate, loadExportTemplate, prepareListRender, renderHeaders, renderPreview, templateFailure } from './export.ts';
import { exportTemplateModel } from './models.ts';
import { RenderBudget } from './render-budget.ts';
import { previewForSubject } from './render.ts';

const tags = ['extras'];
const idParams = Type.Object({ id: Type.String() });
// Besides these, any filter of the list of the template's object type narrows the rows (the same names as on that
// list, checked by the registry's list query as there).
const filtersQuery = Type.Object(
  {
    ordering: Type.Optional(Type.String({ description: "Row order, as on the list of the template's type. Other filters of that list apply too." })),
    q: Type.Optional(Type.String({ description: "Search, as on the list of the template's type." })),
  },
  { additionalProperties: true },
);
const PreviewBody = Type.Object(
  {
    object_type: Type.String({ minLength: 1, description: 'app.model of the rows, e.g. dcim.device.' }),
    template_code: Type.String({ maxLength: 1_000_000 }),
    device: Type.Optional(Type.String({ description: 'With object_type dcim.device: render this device\'s config context (device, interfaces, routing, …) instead of a list.' })),
    virtual_machine: Type.Optional(Type.String({ description: 'With object_type virtualization.virtualmachine: render this VM\'s config context.' })),
  },
  { additionalProperties: false },
);

/** The object type a subject field previews for. */
const SUBJECT_FIELDS = [
  { field: 'device', kind: 'device', objectType: 'dcim.device' },
  { field: 'virtual_machine', kind: 'vm', objectType: 'virtualization.virtualmachine' },
] as const;
const mayViewTemplates = checkedFirst((req) => requireModelPermission(req.ctx, exportTemplateModel, 'view'));
const previewAnswer = {
  type: 'object',
  properties: {
    output: { type: 'string', description: 'The template rendered over the first 200 rows.' },
    count: { type: 'integer', description: 'How many rows the full render would take.' },
    truncated: { type: 'boolean', description: 'Whether rows beyond the first 200 were left out.' },
  },
};
const fileAnswer = {
  description: "The rendered file, streamed; served as an inert type (text/plain unless the template declares CSV, JSON, XML or YAML) with charset=utf-8, nosniff and a sandbox CSP.",
  type: 'string',
};

/** Characters gathered before a write to the socket (see streamRender). */
const STREAM_WRITE_CHARS = 64 * 1024;

/** Export streams under way in this process; a render the client walked away from leaves it (tests watch it). */
export const streamingRenders = { active: 0 };

/**
 * Streams a render into the reply. A failure before the first bytes is a 400 with the line and message; after
 * them, the headers (200) are gone, so the transfer is cut off (the socket is destroyed before the terminating
 * chunk, which curl and browsers report as an incomplete transfer) and the error is logged with the request id.
 * The request's budget (bytes and time) ends the render the same way; a client that goes away stops it.
 */
async function streamRender(req: FastifyRequest, reply: FastifyReply, template: Row, query: QueryValues): Promise<FastifyReply> {
  const budget = new RenderBudget();
  const prepared = await prepareListRender(dbOf(req), req.ctx, {
    objectType: String(template.object_type),
    templateCode: String(template.template_code),
    query,
    preview: false,
  });
  const abort = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  const chunks = prepared.stream(budget.renderOptions(abort.signal))[Symbol.asyncIterator]();
  let first: IteratorResult<string>;
  try {
    first = await chunks.next();
    if (!first.done) budget.spend(Buffer.byteLength(first.value, 'utf8'));
  } catch (err) {
    if (err instanceof TemplateError) throw templateFailure(err);
    throw err;
  }
  const log = req.log;
  streamingRenders.active++;
  async function* body(): AsyncGenerator<Buffer> {
    let sent = false;
    try {
      if (first.done) return;
      // The engine hands over 16 KB pieces; the socket gets 64 KB writes (a quarter of the stream and syscall
      // work on a large export).
      let pending = first.value;
      for (;;) {
        if (pending.length >= STREAM_WRITE_CHARS) {
          const piece = Buffer.from(pending, 'utf8');
          pending = '';
          sent = true;
          yield piece;
        }
        const next = await chunks.next();
        if (next.done) break;
        budget.spend(Buffer.byteLength(next.value, 'utf8'));
        pending += next.value;
      }
      if (pending) yield Buffer.from(pending, 'utf8');
    } catch (err) {
      // Nothing sent yet: Fastify answers through the error handler, so this is the 400 with line and message
      // (the file's headers, already handed to the socket's response, would describe the JSON error as the file).
      if (!sent && err instanceof TemplateError && !reply.raw.headersSent) {
        for (const name of Object.keys(renderHeaders(template))) reply.raw.removeHeader(name);
        throw templateFailure(err);
      }
      // Headers are sent: Fastify destroys the socket, so the file stays visibly incomplete.
      const cancelled = err instanceof TemplateError && err.kind === 'cancelled';
      if (!cancelled) {
        const why = err instanceof TemplateError ? describeTemplateError(err) : 'server error';
        log.error({ err, reqId: req.id, template: String(template.name) }, `export render of ${String(template.name)} failed after streaming began; response cut off: ${why}`);
      }
      throw err;
    } finally {
      streamingRenders.active--;
    }
  }
  reply.headers(renderHeaders(template));
  return reply.send(Readable.from(body(), { objectMode: false }));
}

export function registerTemplatingRoutes(app: FastifyInstance): void {
  app.get('/api/export-templates/:id/render/', {
    ...answeredAsBuilt,
    schema: {
      tags,
      summary: 'Render an export template over every row of its type you may view (at most 50,000)',
      description: 'Query parameters narrow the rows exactly as on the list of that type.',
      params: idParams,
      querystring: filtersQuery,
      response: { 200: fileAnswer },
    },
    preParsing: mayViewTemplates,
    handler: async (req, reply) => {
      const template = await loadExportTemplate(dbOf(req), req.ctx, parseId((req.params as { id: string }).id));
      return streamRender(req, reply, template, req.query as QueryValues);
    },
  });

  app.get('/api/export-templates/:id/preview/', {
    ...answeredAsBuilt,
    schema: { tags, summary: 'Render a saved export template over its first 200 rows', params: idParams, querystring: filtersQuery, response: { 200: previewAnswer } },
    preParsing: mayViewTemplates,
    handler: async (req) => {
      const template = await loadExportTemplate(dbOf(req), req.ctx, parseId((req.params as { id: string }).id));
      return renderPreview(dbOf(req), req.ctx, String(template.object_type), String(template.template_code), req.query as QueryValues);
    },
  });

  app.post('/api/export-templates/preview/', {
    ...answeredAsBuilt,
    schema: {
      tags,
      summary: 'Render an unsaved template over the first 200 rows of a type',
      querystring: filtersQuery,
      body: PreviewBody,
      response: { 200: previewAnswer },
    },
    // Previewing unsaved source is part of writing templates: the caller must be allowed to add or change them.
    preParsing: checkedFirst((req) => {
      if (!modelAllows(req.ctx, exportTemplateModel, 'add') && !modelAllows(req.ctx, exportTemplateModel, 'change')) {
        throw forbidden('You do not have permission to write export templates.');
      }
    }),
    handler: async (req) => {
      const body = req.body as { object_type: string; template_code: string; device?: string; virtual_machine?: string };
      const given = SUBJECT_FIELDS.filter((s) => body[s.field] !== undefined);
      if (given.length > 1) throw badRequest({ virtual_machine: ['Give a device or a virtual machine, not both.'] });
      const subject = given[0];
      if (subject) {
        if (body.object_type !== subject.objectType) throw badRequest({ [subject.field]: [`Only a template for ${subject.objectType} previews against one; this one is for ${body.object_type}.`] });
        const id = parseId(body[subject.field], subject.field);
        return previewForSubject(dbOf(req), req.ctx, subject.kind, subject.field, id, body.template_code);
      }
      return renderPreview(dbOf(req), req.ctx, body.object_type, body.template_code, req.query as QueryValues);
    },
  });

  setListExporter(async (req: FastifyRequest, reply: FastifyReply, model: ModelDef, ref: string) => {
    const template = await findExportTemplate(dbOf(req), req.ctx, model, ref);
    return streamRender(req, reply, template, req.query as QueryValues);
  });
}
