// The API reference: /api/ → Swagger UI, Redoc served locally, and an OpenAPI document that validates and
// lists every route the running app answers.
import { Validator } from '@seriousme/openapi-schema-validator';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allModels } from '../src/core/registry.ts';
import { startHarness, type Harness } from './helpers/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const DOC_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Every (method, path) Fastify answers, read from `printRoutes({ commonPrefix: false })`: a tree whose lines
 * are `<indent><branch>segment (METHODS)`, four characters per level, each segment continuing its parent.
 */
function registeredRoutes(app: Harness['app']): Array<{ method: string; path: string }> {
  const out: Array<{ method: string; path: string }> = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([\s│├└─]*)(\S.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m || !m[2]) continue;
    const depth = Math.floor(m[1]!.length / 4);
    stack.length = depth;
    stack[depth] = m[2];
    const path = stack.join('');
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim()).filter(Boolean)) out.push({ method, path });
  }
  return out;
}

function normalize(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1').replace(/\/$/, '');
}

/** Routes of the reference itself, left out of the document on purpose (`hide`). */
function isHiddenDocRoute(path: string): boolean {
  // Paths outside /api/ serve the web UI (src/system/web-ui.ts), not the API.
  return !path.startsWith('/api') || path === '/api' || path.startsWith('/api/docs');
}

let fetched: Record<string, unknown> | null = null;

/** The document as /api/schema/ serves it, fetched and parsed once (parsing its YAML took 1-2 s); a copy per test. */
async function schemaDocument(): Promise<Record<string, unknown>> {
  if (!fetched) {
    const res = await h.as('alice').get('/api/schema/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/yaml/);
    fetched = parse(res.body) as Record<string, unknown>;
  }
  return structuredClone(fetched);
}

describe('API reference', () => {
  it('GET /api/ redirects to the Swagger UI', async () => {
    const res = await h.as('alice').get('/api/');
    expect([301, 302, 303, 307, 308]).toContain(res.statusCode);
    expect(res.headers.location).toBe('/api/docs/');
  });

  it('GET /api/ without credentials answers API clients the NetBox dialect\'s root (pynetbox reads its version there)', async () => {
    const res = await h.as('anonymous').get('/api/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['api-version']).toBeDefined();
  });

  it('every page of the reference needs credentials', async () => {
    for (const url of ['/api/docs/', '/api/docs/json', '/api/docs/yaml', '/api/docs/static/index.html', '/api/docs/redoc/', '/api/docs/redoc/redoc.standalone.js', '/api/schema/']) {
      expect((await h.as('anonymous').get(url)).statusCode, url).toBe(401);
    }
  });

  it('/api/docs/ serves Swagger UI', async () => {
    const res = await h.as('alice').get('/api/docs/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toMatch(/swagger-ui/i);
    const init = await h.as('alice').get('/api/docs/static/swagger-initializer.js');
    expect(init.statusCode).toBe(200);
  });

  it('/api/docs/redoc/ serves a page and the Redoc bundle from this server', async () => {
    const page = await h.as('alice').get('/api/docs/redoc/');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('spec-url="/api/schema/"');
    const src = /<script src="([^"]+)"/.exec(page.body)?.[1];
    expect(src).toBeDefined();
    expect(src!.startsWith('/')).toBe(true); // nothing from a CDN
    const bundle = await h.as('alice').get(src!);
    expect(bundle.statusCode).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    expect(bundle.body.length).toBeGreaterThan(100_000);
    expect(bundle.body).toContain('Redoc');
  });

  it('/api/schema/ is a valid OpenAPI document', async () => {
    const doc = await schemaDocument();
    expect(String(doc.openapi)).toMatch(/^3\./);
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('every registered route appears in the document', async () => {
    const doc = await schemaDocument();
    const paths = doc.paths as Record<string, Record<string, unknown>>;
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(paths)) for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${normalize(path)}`);

    const routes = registeredRoutes(h.app).filter((r) => DOC_METHODS.has(r.method));
    // The parse found the routes the registry promises, so an empty or garbled tree cannot pass.
    for (const model of allModels()) if (model.operations.list) expect(routes).toContainEqual({ method: 'GET', path: normalize(model.path) });
    expect(routes).toContainEqual({ method: 'POST', path: '/api/auth/login' });

    // The NetBox dialect's routes are in NetBox's own document (src/netbox-api/schema.ts), not in Cairn's.
    const netbox = (await h.as('alice').get('/api/schema/?format=json')).json() as { paths: Record<string, Record<string, unknown>> };
    const inNetbox = new Set(Object.entries(netbox.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${normalize(path)}`)));
    expect(inNetbox.size).toBeGreaterThan(0);
    for (const key of inNetbox) expect(documented.has(key), `${key} is in both documents`).toBe(false);
    const missing = routes.filter((r) => !isHiddenDocRoute(r.path)).map((r) => `${r.method} ${r.path}`).filter((k) => !documented.has(k) && !inNetbox.has(k));
    expect(missing).toEqual([]);
    // And nothing documented that the app does not answer.
    const answered = new Set(routes.map((r) => `${r.method} ${r.path}`));
    expect([...documented].filter((k) => !answered.has(k))).toEqual([]);
  });

  it('documents each model with its schemas, and the health route without security', async () => {
    const doc = await schemaDocument();
    const paths = doc.paths as Record<string, Record<string, { security?: unknown[]; requestBody?: unknown }>>;
    expect(paths['/api/health/']?.get?.security).toEqual([]);
    const tags = paths['/api/tags/'];
    expect(tags?.post?.requestBody).toBeDefined();
    const schemas = (doc.components as { schemas: Record<string, unknown> }).schemas;
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['ExtrasTag', 'WritableExtrasTag', 'PatchedExtrasTag']));
  });

  it('names every operation once, in a stable NetBox-like form, and documents its answers and errors', async () => {
    const doc = await schemaDocument();
    type Op = { operationId?: string; security?: unknown[]; deprecated?: boolean; responses: Record<string, { $ref?: string; content?: Record<string, { schema?: unknown }> }> };
    const ops: Array<{ key: string; op: Op; path: string }> = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Op>>)) {
      for (const [method, op] of Object.entries(item)) ops.push({ key: `${method.toUpperCase()} ${path}`, op, path });
    }
    const ids = ops.map((o) => o.op.operationId);
    expect(ids.filter((id) => !id || !/^[a-z][a-z0-9_]*[a-z]$/.test(id))).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const idOf = (key: string) => ops.find((o) => o.key === key)?.op.operationId;
    expect({
      list: idOf('GET /api/devices/'),
      retrieve: idOf('GET /api/devices/{id}/'),
      create: idOf('POST /api/devices/'),
      partial: idOf('PATCH /api/devices/{id}/'),
      destroy: idOf('DELETE /api/devices/{id}/'),
      bulk: idOf('POST /api/devices/bulk-update/'),
      action: idOf('GET /api/prefixes/{id}/available-ips/'),
    }).toEqual({
      list: 'dcim_devices_list',
      retrieve: 'dcim_devices_retrieve',
      create: 'dcim_devices_create',
      partial: 'dcim_devices_partial_update',
      destroy: 'dcim_devices_destroy',
      bulk: 'dcim_devices_bulk_update',
      action: 'ipam_prefixes_available_ips_list',
    });

    // Every success answer that has a body says what it is.
    const undocumented = ops.filter(({ op }) => {
      const ok = Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status) && status !== '204');
      return ok.length > 0 && ok.some(([, r]) => !r.content || Object.values(r.content).some((c) => !c.schema));
    });
    expect(undocumented.map((o) => o.key)).toEqual([]);
    // …and what it is: not "an object of anything" (the suite's answer check then holds each route to its schema).
    const schemas = (doc.components as { schemas: Record<string, Record<string, unknown>> }).schemas;
    const shapeless = (schema: Record<string, unknown> | undefined): boolean => {
      if (!schema) return true;
      if (typeof schema.$ref === 'string') return shapeless(schemas[schema.$ref.replace('#/components/schemas/', '')]);
      for (const key of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(schema[key])) return (schema[key] as Array<Record<string, unknown>>).some(shapeless);
      if (schema.type === 'array') return shapeless(schema.items as Record<string, unknown> | undefined);
      // An object of named values (groups, vocabularies) says what each value is.
      const listed = schema.properties !== undefined && Object.keys(schema.properties as object).length > 0;
      return schema.type === 'object' && !listed && (schema.additionalProperties === undefined || schema.additionalProperties === true);
    };
    const vague = ops.filter(({ op }) =>
      Object.entries(op.responses).some(([status, r]) => /^2\d\d$/.test(status) && shapeless(r.content?.['application/json']?.schema as Record<string, unknown> | undefined) && r.content?.['application/json'] !== undefined),
    );
    expect(vague.map((o) => o.key)).toEqual([]);
    expect(ops.filter(({ op }) => !Object.keys(op.responses).some((s) => /^2\d\d$/.test(s))).map((o) => o.key)).toEqual([]);

    // The error envelope is one component, and each operation lists the errors it can answer.
    const components = doc.components as { schemas: Record<string, unknown>; responses: Record<string, unknown> };
    expect(components.schemas.Error).toBeDefined();
    for (const { key, op, path } of ops) {
      const open = Array.isArray(op.security) && op.security.length === 0;
      const expected = [...(open ? [] : ['401', '403']), ...(path.includes('{') ? ['404'] : []), '503'];
      // The route's own description of an error (health's 503) or the shared one.
      for (const status of expected) expect(op.responses[status], `${key} ${status}`).toBeDefined();
      for (const answer of Object.values(op.responses)) if (answer.$ref) expect(components.responses[answer.$ref.replace('#/components/responses/', '')], answer.$ref).toBeDefined();
    }
    expect(ops.find((o) => o.key === 'POST /api/devices/')!.op.responses['400']).toBeDefined();

    // Kept for older clients, and marked so.
    expect(ops.find((o) => o.key === 'POST /api/services/{id}/monitor/')!.op.deprecated).toBe(true);
    expect(ops.filter((o) => o.op.deprecated).map((o) => o.key)).toEqual(['POST /api/services/{id}/monitor/']);
  });
});
