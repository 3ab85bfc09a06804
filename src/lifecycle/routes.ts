// HTTP for end-of-life data: settings, refresh, import (deployment admin), products and platform mappings
// (tenant endpoints, 404 while the feature is off). Parsing and answer shapes only; rules are in service.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { can } from '../core/context.ts';
import { requireModelPermission } from '../core/access.ts';
import { fieldError, forbidden, unauthorized } from '../core/errors.ts';
import { dbOf, parseId, registryValidated } from '../core/http.ts';
import { wholeList } from '../core/list-envelope.ts';
import { loadScopedRow } from '../core/crud/write.ts';
import { readAllowlist } from '../core/ssrf.ts';
import { manufacturerModel, platformModel } from '../dcim/models.ts';
import { allSources } from './sources.ts';
import { readRefreshState, readSettings, saveSettings } from './settings.ts';
import {
  IMPORT_MAX_BYTES,
  catalogCounts,
  deleteMapping,
  importDocument,
  listProducts,
  productDetail,
  putMapping,
  queueRefresh,
  readMapping,
  requireEnabled,
  suggestProducts,
} from './service.ts';

const tags = ['eol'];
const anyObject = { type: 'object', additionalProperties: true };
const idParams = { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] };

function requireAdmin(req: FastifyRequest): void {
  if (!req.ctx.user) throw unauthorized();
  if (!can(req.ctx, 'users.manage')) throw forbidden('users.manage required.');
}

/** Everything a deployment admin sees; others see only whether the feature is on and its window. */
async function settingsAnswer(db: Kysely<DB>, admin: boolean): Promise<Record<string, unknown>> {
  const settings = await readSettings(db);
  if (!admin) return { enabled: settings.enabled, warning_days: settings.warning_days };
  const [refresh, counts, allowlist] = await Promise.all([readRefreshState(db), catalogCounts(db), readAllowlist(db)]);
  return {
    ...settings,
    ssrf_allowlist: allowlist,
    available_sources: allSources().map((s) => ({ key: s.key, label: s.label, default_url: s.defaultUrl, homepage: s.homepage })),
    last_refresh_at: refresh.at,
    last_refresh_status: refresh.status,
    last_refresh_error: refresh.error,
    last_refresh_via: refresh.via,
    products: counts.products,
    mappings: counts.mappings,
    can_manage: true,
  };
}

/** The platform a tenant endpoint is about, after the feature and permission checks (404 outside the scope). */
async function scopedPlatform(req: FastifyRequest, action: 'view' | 'change') {
  const db = dbOf(req);
  const settings = await requireEnabled(db);
  if (!req.ctx.user) throw unauthorized();
  requireModelPermission(req.ctx, platformModel, action);
  const id = parseId((req.params as { id: string }).id);
  const row = await loadScopedRow(db, req.ctx, platformModel, id);
  return { db, settings, id, row };
}

function limitOf(raw: unknown): number {
  const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : 50;
  return Math.min(Math.max(n, 1), 2000);
}

export function registerLifecycleRoutes(app: FastifyInstance): void {
  app.get('/api/eol/settings/', {
    ...registryValidated,
    schema: { tags, summary: 'End-of-life settings (deployment admins see everything, others enabled and warning_days)', response: { 200: anyObject } },
    handler: async (req) => {
      if (!req.ctx.user) throw unauthorized();
      return settingsAnswer(dbOf(req), can(req.ctx, 'users.manage'));
    },
  });
  for (const method of ['put', 'patch'] as const) {
    app[method]('/api/eol/settings/', {
      ...registryValidated,
      schema: {
        tags,
        summary: 'Change end-of-life settings (deployment admin); only the fields sent change',
        body: {
          type: 'object',
          properties: {
            enabled: { type: 'boolean' },
            sources: { type: 'array', items: { type: 'string' } },
            source_urls: { type: 'object', additionalProperties: { type: 'string' }, description: 'Per source: blank for the public service, else an https:// mirror.' },
            warning_days: { type: 'integer', minimum: 0, maximum: 3650 },
            ssrf_allowlist: { type: 'array', items: { type: 'string' }, description: 'Addresses, CIDRs or host names outbound fetches may reach although not public.' },
          },
          additionalProperties: false,
        },
        response: { 200: anyObject },
      },
      handler: async (req) => {
        requireAdmin(req);
        await saveSettings(dbOf(req), req.ctx, req.body);
        return settingsAnswer(dbOf(req), true);
      },
    });
  }
  app.post('/api/eol/refresh/', {
    ...registryValidated,
    schema: { tags, summary: 'Queue a refresh of the catalog and every mapping (deployment admin)', response: { 202: anyObject } },
    handler: async (req, reply) => {
      requireAdmin(req);
      await queueRefresh(dbOf(req), `user:${req.ctx.user!.username}`);
      reply.code(202);
      return settingsAnswer(dbOf(req), true);
    },
  });

  // Multipart is parsed only under this prefix-free plugin, so other routes keep refusing multipart bodies.
  app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: IMPORT_MAX_BYTES, files: 1, fields: 5 } });
    scope.post('/api/eol/import/', {
      ...registryValidated,
      schema: {
        tags,
        summary: 'Import a saved endoflife.date /api/v1/products/full document (multipart field `file`, at most 64 MB; deployment admin)',
        consumes: ['multipart/form-data'],
        response: { 200: anyObject },
      },
      handler: async (req) => {
        requireAdmin(req);
        if (!req.isMultipart()) throw fieldError('file', 'Upload the catalog JSON as `file` (multipart/form-data).');
        let bytes: Buffer | null = null;
        let source: string | undefined;
        try {
          for await (const part of req.parts()) {
            if (part.type === 'file') {
              if (part.fieldname !== 'file') {
                await part.toBuffer();
                continue;
              }
              bytes = await part.toBuffer();
            } else if (part.fieldname === 'source' && typeof part.value === 'string') {
              source = part.value;
            }
          }
        } catch (err) {
          const code = (err as { code?: string }).code;
          if (code === 'FST_REQ_FILE_TOO_LARGE') throw fieldError('file', 'The file is larger than 64 MB.');
          if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') throw fieldError('file', 'Send one file.');
          throw err;
        }
        if (!bytes) throw fieldError('file', 'Upload the catalog JSON as `file`.');
        return importDocument(dbOf(req), bytes, source);
      },
    });
  });

  app.get('/api/eol/products/', {
    ...registryValidated,
    schema: {
      tags,
      summary: 'Catalog products; with platform=<id>, suggestions for that platform first',
      querystring: {
        type: 'object',
        properties: { q: { type: 'string' }, source: { type: 'string' }, platform: { type: 'string', format: 'uuid' }, limit: { type: 'integer', minimum: 1, maximum: 2000 } },
      },
      response: { 200: anyObject },
    },
    handler: async (req) => {
      const db = dbOf(req);
      await requireEnabled(db);
      if (!req.ctx.user) throw unauthorized();
      requireModelPermission(req.ctx, platformModel, 'view');
      const query = req.query as Record<string, unknown>;
      const results = await listProducts(db, {
        q: typeof query.q === 'string' ? query.q.slice(0, 200) : undefined,
        source: typeof query.source === 'string' && query.source ? query.source : undefined,
        limit: limitOf(query.limit),
      });
      if (query.platform === undefined || query.platform === '') return wholeList(results);
      const platform = await loadScopedRow(db, req.ctx, platformModel, parseId(query.platform, 'platform'));
      const manufacturer = platform.manufacturer_id ? await loadScopedRow(db, req.ctx, manufacturerModel, String(platform.manufacturer_id)).catch(() => null) : null;
      const suggestions = await suggestProducts(db, { name: String(platform.name), slug: String(platform.slug), manufacturer: manufacturer ? String(manufacturer.name) : null });
      return { ...wholeList(results), suggestions };
    },
  });
  app.get('/api/eol/products/:source/:name/', {
    ...registryValidated,
    schema: { tags, summary: 'A catalog product with its release cycles', response: { 200: anyObject } },
    handler: async (req) => {
      const db = dbOf(req);
      await requireEnabled(db);
      if (!req.ctx.user) throw unauthorized();
      requireModelPermission(req.ctx, platformModel, 'view');
      const { source, name } = req.params as { source: string; name: string };
      return productDetail(db, source, name);
    },
  });

  const platformPath = '/api/eol/platforms/:id/';
  app.get(platformPath, {
    ...registryValidated,
    schema: { tags, summary: "A platform's end-of-life mapping and status", params: idParams, response: { 200: anyObject } },
    handler: async (req) => {
      const { db, settings, id } = await scopedPlatform(req, 'view');
      return readMapping(db, settings, id);
    },
  });
  app.put(platformPath, {
    ...registryValidated,
    schema: {
      tags,
      summary: 'Map a platform to a catalog cycle; its facts are copied now and on every refresh',
      params: idParams,
      body: { type: 'object', properties: { source: { type: 'string' }, product: { type: 'string' }, cycle: { type: 'string' } }, required: ['product', 'cycle'], additionalProperties: false },
      response: { 200: anyObject },
    },
    handler: async (req) => {
      const { db, settings, id } = await scopedPlatform(req, 'change');
      return putMapping(db, req.ctx, settings, id, req.body);
    },
  });
  app.delete(platformPath, {
    ...registryValidated,
    schema: { tags, summary: "Remove a platform's end-of-life mapping", params: idParams, response: { 204: { type: 'null', description: 'Removed (or there was none).' } } },
    handler: async (req, reply) => {
      const { db, id } = await scopedPlatform(req, 'change');
      await deleteMapping(db, req.ctx, id);
      reply.code(204).send();
    },
  });
}
