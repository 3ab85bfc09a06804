// The API reference: /api/ → Swagger UI, /api/schema/ (OpenAPI 3 YAML from the running routes) and Redoc,
// served from the installed package (nothing from a CDN).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { answeredAsBuilt } from './http.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const require = createRequire(import.meta.url);

const REDOC_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cairn API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="/api/schema/"></redoc><script src="/api/docs/redoc/redoc.standalone.js"></script></body></html>`;

/**
 * Answers of a second API dialect on the reference's own paths (src/netbox-api/): NetBox's API root at `/api/` for
 * clients (a request that sends no credentials or asks for JSON, as pynetbox reads NetBox's version there) and its
 * JSON OpenAPI document at `/api/schema/?format=json`. Installed by that dialect, so the core never imports it.
 */
export interface DialectDocs {
  root(req: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  schemaJson(req: FastifyRequest, reply: FastifyReply): Promise<unknown>;
}
let dialectDocs: DialectDocs | null = null;

export function setDialectDocs(docs: DialectDocs): void {
  dialectDocs = docs;
}

/** Whether `/api/` is asked for by an API client rather than a browser: JSON, or no credentials and no HTML. */
function wantsApiRoot(req: FastifyRequest): boolean {
  const accept = String(req.headers.accept ?? '');
  if (accept.includes('text/html')) return false;
  if (accept.includes('application/json') || String(req.headers['content-type'] ?? '').includes('application/json')) return true;
  return req.headers.authorization === undefined && req.headers.cookie === undefined;
}

export function registerDocsRoutes(app: FastifyInstance): void {
  let redocBundle: Promise<Buffer> | null = null;

  app.get('/api/', { schema: { hide: true } }, async (req, reply) => {
    if (dialectDocs && wantsApiRoot(req)) return dialectDocs.root(req, reply);
    // A browser without credentials is sent to the reference, which asks it to sign in.
    return reply.redirect('/api/docs/');
  });

  app.get('/api/schema/', {
    schema: {
      tags: ['system'],
      summary: 'The OpenAPI 3 document (YAML) of the running API',
      response: { 200: { description: 'The document, as YAML.', content: { 'application/yaml': { schema: { type: 'string' } } } } },
    },
    ...answeredAsBuilt,
  }, async (req, reply) => {
    // Cairn's document is YAML; `format=json` is NetBox's document, the one NetBox's clients ask for this way.
    if (dialectDocs && (req.query as { format?: unknown } | undefined)?.format === 'json') return dialectDocs.schemaJson(req, reply);
    reply.type('application/yaml; charset=utf-8');
    return app.swagger({ yaml: true });
  });

  app.get('/api/docs/redoc/', { schema: { hide: true } }, async (_req, reply) => {
    // img-src keeps Redoc's logo request from leaving the machine.
    reply
      .type('text/html; charset=utf-8')
      .header('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; worker-src 'self' blob:")
      .send(REDOC_PAGE);
  });

  app.get('/api/docs/redoc/redoc.standalone.js', { schema: { hide: true } }, async (_req, reply) => {
    redocBundle ??= readFile(require.resolve('redoc/bundles/redoc.standalone.js'));
    reply.type('application/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=86400');
    return redocBundle;
  });
}
