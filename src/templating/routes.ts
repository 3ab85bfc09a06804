// HTTP for export templates beyond the generic CRUD: render (streamed download), preview (JSON), and the
// `?export=` parameter of every list. Parsing and answer shapes only; the rules live in export.ts.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { modelAllows, requireModelPermission } from '../core/access.ts';
import { forbidden } from '../core/errors.ts';
import { answeredAsBuilt, checkedFirst, dbOf, parseId } from '../core/http.ts';
import type { QueryValues } from '../core/crud/list-query.ts';
import type { Row } from '../core/crud/serialize.ts';
import type { ModelDef } from '../core/registry.ts';
import { setListExporter } from '../core/crud/routes.ts';
import { TemplateError } from './engine/index.ts';
import { describeTemplateError } from './environment.ts';
import { findExportTemplate, loadExportTemplate, prepareListRender, renderHeaders, renderPreview, templateFailure } from './export.ts';
import { exportTemplateModel } from './models.ts';

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
  },
  { additionalProperties: false },
);
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

/** Streams a render into the reply. Errors before the first bytes are a 400; after, the text ends with the error. */
async function streamRender(req: FastifyRequest, reply: FastifyReply, template: Row, query: QueryValues): Promise<FastifyReply> {
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
  const chunks = prepared.template.renderStream(prepared.context, { signal: abort.signal })[Symbol.asyncIterator]();
  let first: IteratorResult<string>;
  try {
    first = await chunks.next();
  } catch (err) {
    if (err instanceof TemplateError) throw templateFailure(err);
    throw err;
  }
  const log = req.log;
  async function* body(): AsyncGenerator<Buffer> {
    if (first.done) return;
    // The engine hands over 16 KB pieces; the socket gets 64 KB writes (a quarter of the stream and syscall work
    // on a large export). What is gathered is sent when the render ends or fails.
    let pending = first.value;
    try {
      for (;;) {
        if (pending.length >= STREAM_WRITE_CHARS) {
          const piece = pending;
          pending = '';
          yield Buffer.from(piece, 'utf8');
        }
        const next = await chunks.next();
        if (next.done) break;
        pending += next.value;
      }
      if (pending) yield Buffer.from(pending, 'utf8');
    } catch (err) {
      if (pending) {
        const piece = pending;
        pending = '';
        yield Buffer.from(piece, 'utf8');
      }
      // Headers are gone: the only place left to say what happened is the end of the file.
      if (!(err instanceof TemplateError)) log.error({ err }, 'export render failed');
      const why = err instanceof TemplateError ? describeTemplateError(err) : 'server error (see the log)';
      yield Buffer.from(`\n\n[Render failed: ${why}]\n`, 'utf8');
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
      const { object_type: objectType, template_code: templateCode } = req.body as { object_type: string; template_code: string };
      return renderPreview(dbOf(req), req.ctx, objectType, templateCode, req.query as QueryValues);
    },
  });

  setListExporter(async (req: FastifyRequest, reply: FastifyReply, model: ModelDef, ref: string) => {
    const template = await findExportTemplate(dbOf(req), req.ctx, model, ref);
    return streamRender(req, reply, template, req.query as QueryValues);
  });
}
