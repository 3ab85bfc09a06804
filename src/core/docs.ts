// The API reference: /api/ → Swagger UI, /api/schema/ (OpenAPI 3 YAML from the running routes) and Redoc,
// served from the installed package (nothing from a CDN).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { answeredAsBuilt } from './http.ts';
import type { FastifyInstance } from 'fastify';

const require = createRequire(import.meta.url);

const REDOC_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cairn API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="/api/schema/"></redoc><script src="/api/docs/redoc/redoc.standalone.js"></script></body></html>`;

export function registerDocsRoutes(app: FastifyInstance): void {
  let redocBundle: Promise<Buffer> | null = null;

  app.get('/api/', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/api/docs/'));

  app.get('/api/schema/', {
    schema: {
      tags: ['system'],
      summary: 'The OpenAPI 3 document (YAML) of the running API',
      response: { 200: { description: 'The document, as YAML.', content: { 'application/yaml': { schema: { type: 'string' } } } } },
    },
    ...answeredAsBuilt,
  }, async (_req, reply) => {
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
