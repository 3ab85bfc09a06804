// HTTP for export templates beyond the generic CRUD: render (streamed download), preview (JSON), and the
// `?export=` parameter of every list. Parsing and answer shapes only; the rules live in export.ts.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { modelAllows } from '../core/access.ts';
import { ErrorCollector, forbidden } from '../core/errors.ts';
import { dbOf, parseId, registryValidated } from '../core/http.ts';
import type { QueryValues } from '../core/crud/list-query.ts';
import type { Row } from '../core/crud/serialize.ts';
import type { ModelDef } from '../core/registry.ts';
import { setListExporter } from '../core/crud/routes.ts';
import { TemplateError } from './engine/index.ts';
import { describeTemplateError } from './environment.ts';
import { findExportTemplate, loadExportTemplate, prepareListRender, renderHeaders, renderPreview, templateFailure } from './export.ts';
import { exportTemplateModel } from './models.ts';

const tags = ['extras'];
const idParams = { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] };
// Besides these, any filter of the list of the template's object type narrows the rows (the same names as on that list).
const filtersQuery = {
  type: 'object',
  properties: {
    ordering: { type: 'string', description: 'Row order, as on the list of the template\'s type. Other filters of that list apply too.' },
    q: { type: 'string', description: 'Search, as on the list of the template\'s type.' },
  },
  additionalProperties: true,
};
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

function checkPreviewBody(body: unknown): { objectType: string; templateCode: string } {
  const errors = new ErrorCollector();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    errors.add('non_field_errors', 'Expected a JSON object with object_type and template_code.');
    errors.throwIfAny();
  }
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input)) if (key !== 'object_type' && key !== 'template_code') errors.add(key, 'Unknown field.');
  if (typeof input.object_type !== 'string') errors.add('object_type', input.object_type === undefined ? 'This field is required.' : 'Expected a string.');
  if (typeof input.template_code !== 'string') errors.add('template_code', input.template_code === undefined ? 'This field is required.' : 'Expected a string.');
  else if (input.template_code.length > 1_000_000) errors.add('template_code', 'Ensure this field has no more than 1000000 characters.');
  errors.throwIfAny();
  return { objectType: input.object_type as string, templateCode: input.template_code as string };
}

export function registerTemplatingRoutes(app: FastifyInstance): void {
  app.get('/api/export-templates/:id/render/', {
    ...registryValidated,
    schema: {
      tags,
      summary: 'Render an export template over every row of its type you may view (at most 50,000)',
      description: 'Query parameters narrow the rows exactly as on the list of that type.',
      params: idParams,
      querystring: filtersQuery,
      response: { 200: fileAnswer },
    },
    handler: async (req, reply) => {
      const template = await loadExportTemplate(dbOf(req), req.ctx, parseId((req.params as { id: string }).id));
      return streamRender(req, reply, template, req.query as QueryValues);
    },
  });

  app.get('/api/export-templates/:id/preview/', {
    ...registryValidated,
    schema: { tags, summary: 'Render a saved export template over its first 200 rows', params: idParams, querystring: filtersQuery, response: { 200: previewAnswer } },
    handler: async (req) => {
      const template = await loadExportTemplate(dbOf(req), req.ctx, parseId((req.params as { id: string }).id));
      return renderPreview(dbOf(req), req.ctx, String(template.object_type), String(template.template_code), req.query as QueryValues);
    },
  });

  app.post('/api/export-templates/preview/', {
    ...registryValidated,
    schema: {
      tags,
      summary: 'Render an unsaved template over the first 200 rows of a type',
      querystring: filtersQuery,
      body: { type: 'object', properties: { object_type: { type: 'string' }, template_code: { type: 'string' } }, required: ['object_type', 'template_code'], additionalProperties: false },
      response: { 200: previewAnswer },
    },
    handler: async (req) => {
      // Previewing unsaved source is part of writing templates: the caller must be allowed to add or change them.
      if (!modelAllows(req.ctx, exportTemplateModel, 'add') && !modelAllows(req.ctx, exportTemplateModel, 'change')) {
        throw forbidden('You do not have permission to write export templates.');
      }
      const { objectType, templateCode } = checkPreviewBody(req.body);
      return renderPreview(dbOf(req), req.ctx, objectType, templateCode, req.query as QueryValues);
    },
  });

  setListExporter(async (req: FastifyRequest, reply: FastifyReply, model: ModelDef, ref: string) => {
    const template = await findExportTemplate(dbOf(req), req.ctx, model, ref);
    return streamRender(req, reply, template, req.query as QueryValues);
  });
}
