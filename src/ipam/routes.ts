// IPAM routes beyond the generic CRUD: next free addresses of a prefix (NetBox's available-ips, same names and
// shapes so scripts carry over: GET answers a plain list, POST the created address or list of addresses).
import type { FastifyInstance } from 'fastify';
import { requireModelPermission } from '../core/access.ts';
import { requireModel } from '../core/registry.ts';
import { badRequest } from '../core/errors.ts';
import { dbOf, originOf, parseId, registryValidated } from '../core/http.ts';
import { briefObject, serializeRows } from '../core/crud/serialize.ts';
import { loadScopedRow } from '../core/crud/write.ts';
import { familyOf } from './service.ts';
import { MAX_AVAILABLE, allocateAddresses, freeAddresses, loadPrefix } from './available.ts';

const idParams = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };

export function registerIpamRoutes(app: FastifyInstance): void {
  const prefixes = requireModel('ipam.prefix');
  const addresses = requireModel('ipam.ipaddress');
  const vrfs = requireModel('ipam.vrf');
  const available = `${prefixes.path}:id/available-ips/`;

  app.get(available, {
    ...registryValidated,
    schema: {
      tags: ['ipam'],
      summary: 'The first free addresses of a prefix (limit, default 50), with its mask',
      params: idParams,
      querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: MAX_AVAILABLE } } },
      response: {
        200: {
          type: 'array',
          items: { type: 'object', properties: { family: { type: 'integer' }, address: { type: 'string' }, vrf: { anyOf: [{ type: 'object', additionalProperties: true }, { type: 'null' }] } } },
        },
      },
    },
    preParsing: async (req, _reply, payload) => {
      requireModelPermission(req.ctx, prefixes, 'view');
      requireModelPermission(req.ctx, addresses, 'view');
      return payload;
    },
    handler: async (req) => {
      const raw = (req.query as { limit?: unknown }).limit;
      const limit = raw === undefined ? 50 : Number(raw);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_AVAILABLE) throw badRequest({ limit: [`A whole number from 1 to ${MAX_AVAILABLE}.`] });
      const db = dbOf(req);
      const prefix = await loadPrefix(db, req.ctx, parseId((req.params as { id: string }).id));
      const vrf = prefix.vrf_id ? briefObject(vrfs, await loadScopedRow(db, req.ctx, vrfs, String(prefix.vrf_id)), originOf(req)) : null;
      return (await freeAddresses(db, prefix, limit)).map((address) => ({ family: familyOf(address), address, vrf }));
    },
  });

  app.post(available, {
    ...registryValidated,
    schema: {
      tags: ['ipam'],
      summary: 'Create addresses in the first free addresses of a prefix: {} or an object for one, a list for several (all or none)',
      params: idParams,
      response: { 201: { anyOf: [{ type: 'object', additionalProperties: true }, { type: 'array', items: { type: 'object', additionalProperties: true } }] } },
    },
    preParsing: async (req, _reply, payload) => {
      requireModelPermission(req.ctx, prefixes, 'view');
      requireModelPermission(req.ctx, addresses, 'add');
      return payload;
    },
    handler: async (req, reply) => {
      const db = dbOf(req);
      const rows = await allocateAddresses(db, req.ctx, parseId((req.params as { id: string }).id), req.body);
      const out = await serializeRows(db, req.ctx, addresses, rows, { origin: originOf(req) });
      reply.code(201);
      return Array.isArray(req.body) ? out : out[0];
    },
  });
}
