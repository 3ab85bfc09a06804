// Builds the Fastify app (no listen): the server, the CLI and the tests all start from here.
import { join } from 'node:path';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import AjvCompiler from '@fastify/ajv-compiler';
import { lazyFactory, lazySerializerFactory } from './core/lazy-compile.ts';
import { queuePreReadyListeners } from './core/ready-listeners.ts';
import type { Database } from './db/database.ts';
import type { Config } from './config.ts';
import { loadConfig } from './config.ts';
import { ApiError } from './core/errors.ts';
import { uuidv7 } from './core/ids.ts';
import { isDatabaseUnavailable, translateDbError } from './core/crud/db-errors.ts';
import { registerRequestAuth } from './core/auth/request-auth.ts';
import { registerReadRouting } from './core/read-routing.ts';
import { registerAuthRoutes } from './core/auth/routes.ts';
import { registerModelRoutes, registerModelSchemas } from './core/crud/routes.ts';
import { allModels } from './core/registry.ts';
import { registerHealthRoutes, healthSchema, isHealthUrl, stoppingHealth } from './system/health.ts';
import { bulkDeleteResultSchema } from './core/crud/bulk.ts';
import { spreadsheetImportSchemas } from './core/crud/spreadsheet-import.ts';
import { readMaintenance, retryAfterSeconds } from './system/maintenance.ts';
import { registerDocsRoutes } from './core/docs.ts';
import { applyOperationContract } from './core/openapi-contract.ts';
import { registerCatalogRoutes } from './core/catalogs.ts';
import { configureSecrets } from './core/secrets.ts';
import { configureRenderBudget } from './templating/render-budget.ts';
import { registerControlCharacterGuard } from './core/text-guard.ts';
import { registerWriteGate, WriteGate } from './core/write-gate.ts';
import { ADMISSION_DEFAULTS, registerAdmission } from './core/admission.ts';
import { answerChecksEnabled, registerAnswerCheck } from './core/answer-check.ts';
import { VERSION } from './version.ts';
import './models.ts';
// The schedules catalogue lists what the domains declared.
import './background.ts';
import { registerDomainRoutes } from './routes.ts';
import { registerNetboxApi } from './netbox-api/routes.ts';
import { registerUiApiRoutes } from './system/ui-api.ts';
import { registerWebUi } from './system/web-ui.ts';
import { SAFE_METHODS } from './core/safe-methods.ts';
import { arrivedAsHead, routeHeadAsGet } from './core/head-requests.ts';

const PAST_MAINTENANCE = new Set(['/api/system/upgrade/resume/', '/api/system/upgrade/hand-over/']);

type PoolArgs = Parameters<ReturnType<typeof AjvCompiler>>;
type RouteCompiler = (route: AjvCompiler.RouteDefinition) => unknown;


export interface BuildOptions {
  database: Database;
  config?: Config;
  logger?: boolean | { level: string; stream?: NodeJS.WritableStream };
}

/** Fastify's own request fields in the log, with the method the client sent (a HEAD is routed as a GET). */
function requestForLog(req: FastifyRequest): Record<string, unknown> {
  return {
    method: arrivedAsHead(req.raw) ? 'HEAD' : req.method,
    url: req.url,
    version: req.headers['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** Converts AJV errors to `{field: [message]}`. */
function validationBody(err: FastifyError): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const v of err.validation ?? []) {
    const params = v.params as Record<string, unknown>;
    let field = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
    let message = v.message ?? 'Invalid value.';
    if (v.keyword === 'required') {
      field = [field, String(params.missingProperty)].filter(Boolean).join('.');
      message = 'This field is required.';
    } else if (v.keyword === 'additionalProperties') {
      field = [field, String(params.additionalProperty)].filter(Boolean).join('.');
      message = err.validationContext === 'querystring' ? 'Unknown parameter.' : 'Unknown field.';
    } else if (v.keyword === 'type') {
      message = `Expected ${String(params.type)}.`;
    } else if (v.keyword === 'minimum' || v.keyword === 'maximum') {
      // The registry validator's (and Django REST framework's) wording, so one API speaks one way.
      message = `Ensure this value is ${v.keyword === 'minimum' ? 'greater' : 'less'} than or equal to ${String(params.limit)}.`;
    } else if (v.keyword === 'minLength' || v.keyword === 'maxLength') {
      message = params.limit === 1 && v.keyword === 'minLength' ? 'This field may not be blank.' : `Ensure this field has ${v.keyword === 'minLength' ? 'at least' : 'no more than'} ${String(params.limit)} characters.`;
    } else if (v.keyword === 'minItems' || v.keyword === 'maxItems') {
      message = `Ensure this list has ${v.keyword === 'minItems' ? 'at least' : 'no more than'} ${String(params.limit)} items.`;
    } else if (v.keyword === 'enum') {
      message = `One of ${(params.allowedValues as unknown[]).map(String).join(', ')}.`;
    } else if (v.keyword === 'format') {
      message = params.format === 'uuid' ? 'Expected an id (a UUID).' : `Expected a ${String(params.format)}.`;
    }
    const key = field || (err.validationContext === 'body' ? 'non_field_errors' : String(err.validationContext ?? 'non_field_errors'));
    (out[key] ??= []).push(message);
  }
  return out;
}

export async function buildApp(opts: BuildOptions): Promise<FastifyInstance> {
  queuePreReadyListeners();
  const ajv = AjvCompiler();
  const strictBody = { allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: false } as const;
  const coercing = { allErrors: true, coerceTypes: 'array', removeAdditional: false, useDefaults: true } as const;
  const app = Fastify({
    logger: opts.logger ? { ...(typeof opts.logger === 'object' ? opts.logger : {}), serializers: { req: requestForLog } } : false,
    genReqId: () => uuidv7(),
    // A HEAD is answered by its path's GET route (src/core/head-requests.ts), not by a HEAD route beside each one.
    exposeHeadRoutes: false,
    rewriteUrl: routeHeadAsGet,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    bodyLimit: 70 * 1024 * 1024,
    // Behind a TLS proxy (CAIRN_TRUST_PROXY=1), take the scheme and client address from X-Forwarded-* so session
    // cookies are marked Secure.
    trustProxy: process.env.CAIRN_TRUST_PROXY === '1' || process.env.CAIRN_TRUST_PROXY === 'true',
    // Fastify's own closing answer is a 503 without Retry-After; the hook below answers it with one.
    return503OnClosing: false,
    schemaController: {
      compilersFactory: {
        // Bodies are never coerced ("5" is not 5); query strings and params are.
        // Both compile each route's schema on its first use (src/core/lazy-compile.ts).
        buildValidator: lazyFactory((external: PoolArgs[0], options: PoolArgs[1]) => {
          const base = options as { customOptions?: Record<string, unknown> } & Record<string, unknown>;
          const body = ajv(external, { ...base, customOptions: { ...base.customOptions, ...strictBody } } as PoolArgs[1]) as RouteCompiler;
          const rest = ajv(external, { ...base, customOptions: { ...base.customOptions, ...coercing } } as PoolArgs[1]) as RouteCompiler;
          return (route: AjvCompiler.RouteDefinition) => (route.httpPart === 'body' ? body(route) : rest(route));
        }) as unknown as ReturnType<typeof AjvCompiler>,
        buildSerializer: lazySerializerFactory as never,
      },
    },
  });
  const config = opts.config ?? loadConfig();
  app.decorate('database', opts.database);
  app.decorate('config', config);
  // Secret fields encrypt through a module-level key holder (FieldDef.transform cannot see the config).
  // Embedded deployments keep a generated key beside their data; PostgreSQL needs CAIRN_SECRET_KEY.
  const embeddedDir = opts.database.backend === 'pglite' ? (opts.database.dataDir ?? config.dataDir) : null;
  configureSecrets({ secretKey: config.secretKey, keyFile: embeddedDir ? join(embeddedDir, 'secret.key') : null });
  configureRenderBudget({ maxBytes: config.renderMaxBytes, timeBudgetMs: config.renderTimeBudgetMs });
  app.decorate('cairnVersion', VERSION);

  app.setErrorHandler((error: FastifyError | ApiError, req, reply) => {
    const translated = translateDbError(error);
    if (translated instanceof ApiError) {
      reply.code(translated.status).headers(translated.headers).send(translated.body);
      return;
    }
    const err = error as FastifyError;
    if (err.validation) {
      reply.code(400).send(validationBody(err));
      return;
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      const detail = err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError ? `The body is not valid JSON: ${err.message}` : err.message;
      reply.code(err.statusCode).send({ detail });
      return;
    }
    if (isDatabaseUnavailable(err)) {
      req.log.error({ err }, 'database unavailable');
      reply.code(503).header('Retry-After', '30').send({ detail: 'The database is unavailable. Try again shortly.' });
      return;
    }
    req.log.error({ err }, 'request failed');
    reply.code(500).send({ detail: 'Server error. The request id is in the log as reqId.', request_id: req.id });
  });
  app.setNotFoundHandler((_req, reply) => {
    reply.code(404).send({ detail: 'Not found.' });
  });

  // First of the onRequest hooks: a request waiting its turn has cost nothing yet (src/core/admission.ts says why).
  registerAdmission(app, {
    limit: config.maxActiveRequests,
    maxWaitMs: config.requestWaitMs,
    lendAfterMs: ADMISSION_DEFAULTS.lendAfterMs,
    bypass: (req) => isHealthUrl(req.url),
  });
  // Before any route is added: the guard attaches itself to each one.
  registerControlCharacterGuard(app);
  // Changes are counted, and refused while an upgrade keeps the site readable (core/write-gate.ts).
  app.decorate('writeGate', new WriteGate());
  registerWriteGate(app, app.writeGate);
  if (answerChecksEnabled()) registerAnswerCheck(app);
  await app.register(fastifyCookie);

  // While the process stops (a restart, an upgrade's stop step), requests still arriving on open connections are
  // told to come back: 503 + Retry-After, the answer clients wait out, never a bare 503.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (req, reply) => {
    if (!closing) return;
    // A read-only web stops as an upgrade takes its port (the new release's web or the responder accepts on the
    // same socket already); its database stays open until its last connection ends, so a read is still answered,
    // and the client's next request goes to a new connection.
    if (app.writeGate.readOnly && SAFE_METHODS.has(req.method)) {
      reply.header('connection', 'close');
      return;
    }
    reply.code(503).header('Retry-After', '5').header('connection', 'close');
    return reply.send(isHealthUrl(req.url) ? stoppingHealth(VERSION) : { detail: 'Cairn is restarting. Try again shortly.' });
  });

  // Maintenance holds every request except health with 503 + Retry-After (reads too, unless it says they pass).
  app.addHook('onRequest', async (req, reply) => {
    if (isHealthUrl(req.url)) return;
    // The upgrade engine opens the site through this call and hands the port over through that one, while the hold
    // it ends is on.
    if (PAST_MAINTENANCE.has(req.url.split('?')[0]!)) return;
    const state = await readMaintenance(app.database.db);
    if (state.active && !(state.reads && SAFE_METHODS.has(req.method))) {
      reply
        .code(503)
        .header('Retry-After', String(retryAfterSeconds(state)))
        .send({ detail: `Cairn is in maintenance${state.reason ? `: ${state.reason}` : ''}. Try again shortly.`, maintenance: true });
    }
  });
  registerRequestAuth(app);
  registerReadRouting(app);

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Cairn API', version: VERSION, description: 'The network source of truth. Every path is scoped to your active tenant.' },
      components: {
        securitySchemes: {
          tokenAuth: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Send "Token <key>".' },
          cookieAuth: { type: 'apiKey', in: 'cookie', name: 'cairn_session' },
        },
      },
      security: [{ tokenAuth: [] }, { cookieAuth: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // operationIds and the error answers of every operation, for client generators.
    transformObject: (documents) => ('openapiObject' in documents ? applyOperationContract(documents.openapiObject as Record<string, unknown>) : documents.swaggerObject) as never,
  });
  // Try-it-out from a signed-in browser: echo the session's CSRF cookie on writes. Built with new Function so
  // its source (which swagger-ui-initializer embeds as text) is plain browser JavaScript.
  const csrfInterceptor = new Function(
    'req',
    `var m = document.cookie.match(/(?:^|; )cairn_csrf=([^;]+)/); if (m && !req.headers['x-csrf-token']) req.headers['x-csrf-token'] = decodeURIComponent(m[1]); return req;`,
  ) as never;
  await app.register(fastifySwaggerUi, {
    routePrefix: '/api/docs',
    staticCSP: false,
    uiConfig: { persistAuthorization: true, tryItOutEnabled: true, requestInterceptor: csrfInterceptor },
  });

  app.addSchema(healthSchema);
  app.addSchema(bulkDeleteResultSchema);
  for (const schema of spreadsheetImportSchemas) app.addSchema(schema);
  for (const model of allModels()) registerModelSchemas(app, model);

  registerHealthRoutes(app);
  registerAuthRoutes(app);
  registerDocsRoutes(app);
  registerCatalogRoutes(app);
  for (const model of allModels()) registerModelRoutes(app, model);
  registerDomainRoutes(app);
  // NetBox's REST API over the same registry, on the NetBox paths Cairn's own routes leave free.
  registerNetboxApi(app);
  registerUiApiRoutes(app);
  registerWebUi(app);

  await app.ready();
  return app;
}
