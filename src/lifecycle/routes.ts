// HTTP for end-of-life data: settings, refresh, import (deployment admin), products and platform mappings
// (tenant endpoints, 404 while the feature is off). Parsing and answer shapes only; rules are in service.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import multipart from '@fastify/multipart';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { can } from '../core/context.ts';
import { requireModelPermission } from '../core/access.ts';
import { fieldError, forbidden, unauthorized } from '../core/errors.ts';
import { answeredAsBuilt, checkedFirst, dbOf, parseId } from '../core/http.ts';
import { wholeList } from '../core/list-envelope.ts';
import { loadScopedRow } from '../core/crud/write.ts';
import { readAllowlist } from '../core/ssrf.ts';
import { manufacturerModel, platformModel } from '../dcim/models.ts';
import { allSources } from './sources.ts';
import { eolPayloadProperties } from './models.ts';
import { ImportAnswer, ProductAnswer, ProductsAnswer, SettingsAnswer } from './answer-schemas.ts';
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
  settingsChanged,
  suggestProducts,
} from './service.ts';

const tags = ['eol'];
const idParams = Type.Object({ id: Type.String() });
/** A platform's end-of-life answer: its status, and its mapping's source, cycle and facts when it has one. */
const EolAnswer = {
  type: 'object',
  description: "The platform's end-of-life status; with a mapping, the catalog cycle it is mapped to and that cycle's facts.",
  properties: eolPayloadProperties,
  required: ['status'],
  additionalProperties: false,
};
const SettingsBody = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    sources: Type.Optional(Type.Array(Type.String())),
    source_urls: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Per source: blank for the public service, else an https:// mirror.' })),
    warning_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 3650 })),
    ssrf_allowlist: Type.Optional(Type.Array(Type.String(), { description: 'Addresses, CIDRs or host names outbound fetches may reach although not public.' })),
  },
  { additionalProperties: false },
);
const ProductsQuery = Type.Object(
  {
    q: Type.Optional(Type.String()),
    source: Type.Optional(Type.String()),
    platform: Type.Optional(Type.String({ description: 'A platform id: its suggested products come first.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2000, default: 50 })),
  },
  { additionalProperties: false },
);
const MappingBody = Type.Object(
  { source: Type.Optional(Type.String()), product: Type.String(), cycle: Type.String() },
  { additionalProperties: false },
);

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

const signedIn = checkedFirst((req) => {
  if (!req.ctx.user) throw unauthorized();
});
const adminOnly = checkedFirst(requireAdmin);

/** A tenant endpoint: 404 while the feature is off, then sign-in and permission, all before the input. */
function catalogAccess(action: 'view' | 'change') {
  return checkedFirst(async (req) => {
    await requireEnabled(dbOf(req));
    if (!req.ctx.user) throw unauthorized();
    requireModelPermission(req.ctx, platformModel, action);
  });
}

export function registerLifecycleRoutes(app: FastifyInstance): void {
  app.get('/api/eol/settings/', {
    ...answeredAsBuilt,
    schema: { tags, summary: 'End-of-life settings (deployment admins see everything, others enabled and warning_days)', response: { 200: SettingsAnswer } },
    preParsing: signedIn,
    handler: async (req) => {
      return settingsAnswer(dbOf(req), can(req.ctx, 'users.manage'));
    },
  });
  for (const method of ['put', 'patch'] as const) {
    app[method]('/api/eol/settings/', {
      ...answeredAsBuilt,
      schema: { tags, summary: 'Change end-of-life settings (deployment admin); only the fields sent change', body: SettingsBody, response: { 200: SettingsAnswer } },
      preParsing: adminOnly,
      handler: async (req) => {
        const { rulesAffected } = await saveSettings(dbOf(req), req.ctx, req.body);
        // Violations follow the new window at once, not at the next scheduled evaluation.
        if (rulesAffected) await settingsChanged(dbOf(req));
        return settingsAnswer(dbOf(req), true);
      },
    });
  }
  app.post('/api/eol/refresh/', {
    ...answeredAsBuilt,
    schema: { tags, summary: 'Queue a refresh of the catalog and every mapping (deployment admin)', response: { 202: SettingsAnswer } },
    preParsing: adminOnly,
    handler: async (req, reply) => {
      await queueRefresh(dbOf(req), `user:${req.ctx.user!.username}`);
      reply.code(202);
      return settingsAnswer(dbOf(req), true);
    },
  });

  // Multipart is parsed only under this prefix-free plugin, so other routes keep refusing multipart bodies.
  app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: IMPORT_MAX_BYTES, files: 1, fields: 5 } });
    scope.post('/api/eol/import/', {
      ...answeredAsBuilt,
      preParsing: adminOnly,
      schema: {
        tags,
        summary: 'Import a saved endoflife.date /api/v1/products/full document (multipart field `file`, at most 64 MB; deployment admin). Refused when it would remove more than half of the catalog unless the field force=true is sent; the answer names what it removed.',
        consumes: ['multipart/form-data'],
        response: { 200: ImportAnswer },
      },
      handler: async (req) => {
        if (!req.isMultipart()) throw fieldError('file', 'Upload the catalog JSON as `file` (multipart/form-data).');
        let bytes: Buffer | null = null;
        let source: string | undefined;
        // force=true: import even when the document removes more than half of the catalog.
        let force = false;
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
            } else if (part.fieldname === 'force' && typeof part.value === 'string') {
              if (!['true', 'false', '1', '0'].includes(part.value)) throw fieldError('force', 'true or false.');
              force = part.value === 'true' || part.value === '1';
            }
          }
        } catch (err) {
          const code = (err as { code?: string }).code;
          if (code === 'FST_REQ_FILE_TOO_LARGE') throw fieldError('file', 'The file is larger than 64 MB.');
          if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') throw fieldError('file', 'Send one file.');
          throw err;
        }
        if (!bytes) throw fieldError('file', 'Upload the catalog JSON as `file`.');
        return importDocument(dbOf(req), bytes, source, force);
      },
    });
  });

  app.get('/api/eol/products/', {
    ...answeredAsBuilt,
    schema: { tags, summary: 'Catalog products; with platform=<id>, suggestions for that platform first', querystring: ProductsQuery, response: { 200: ProductsAnswer } },
    preParsing: catalogAccess('view'),
    handler: async (req) => {
      const db = dbOf(req);
      const query = req.query as { q?: string; source?: string; platform?: string; limit: number };
      const results = await listProducts(db, {
        q: query.q?.slice(0, 200),
        source: query.source ? query.source : undefined,
        limit: query.limit,
      });
      if (query.platform === undefined || query.platform === '') return wholeList(results);
      const platform = await loadScopedRow(db, req.ctx, platformModel, parseId(query.platform, 'platform'));
      const manufacturer = platform.manufacturer_id ? await loadScopedRow(db, req.ctx, manufacturerModel, String(platform.manufacturer_id)).catch(() => null) : null;
      const suggestions = await suggestProducts(db, { name: String(platform.name), slug: String(platform.slug), manufacturer: manufacturer ? String(manufacturer.name) : null });
      return { ...wholeList(results), suggestions };
    },
  });
  app.get('/api/eol/products/:source/:name/', {
    ...answeredAsBuilt,
    schema: { tags, summary: 'A catalog product with its release cycles', params: Type.Object({ source: Type.String(), name: Type.String() }), response: { 200: ProductAnswer } },
    preParsing: catalogAccess('view'),
    handler: async (req) => {
      const db = dbOf(req);
      const { source, name } = req.params as { source: string; name: string };
      return productDetail(db, source, name);
    },
  });

  const platformPath = '/api/eol/platforms/:id/';
  app.get(platformPath, {
    ...answeredAsBuilt,
    schema: { tags, summary: "A platform's end-of-life mapping and status", params: idParams, response: { 200: EolAnswer } },
    preParsing: catalogAccess('view'),
    handler: async (req) => {
      const { db, settings, id } = await scopedPlatform(req, 'view');
      return readMapping(db, req.ctx, settings, id);
    },
  });
  app.put(platformPath, {
    ...answeredAsBuilt,
    schema: { tags, summary: 'Map a platform to a catalog cycle; its facts are copied now and on every refresh', params: idParams, body: MappingBody, response: { 200: EolAnswer } },
    preParsing: catalogAccess('change'),
    handler: async (req) => {
      const { db, settings, id } = await scopedPlatform(req, 'change');
      return putMapping(db, req.ctx, settings, id, req.body);
    },
  });
  app.delete(platformPath, {
    ...answeredAsBuilt,
    preParsing: catalogAccess('change'),
    schema: { tags, summary: "Remove a platform's end-of-life mapping", params: idParams, response: { 204: { type: 'null', description: 'Removed (or there was none).' } } },
    handler: async (req, reply) => {
      const { db, id } = await scopedPlatform(req, 'change');
      await deleteMapping(db, req.ctx, id);
      reply.code(204).send();
    },
  });
}
