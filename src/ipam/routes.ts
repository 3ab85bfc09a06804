// IPAM routes beyond the generic CRUD, with NetBox's names and shapes so scripts carry over: the free addresses
// of a prefix or an IP range (available-ips), the free child prefixes of a prefix (available-prefixes), the free
// VIDs of a VLAN group (available-vlans), the free AS numbers of an ASN range (available-asns). GET answers a plain list; POST the created object, or a list of them
// when it was sent a list.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { requireModel, type ModelDef } from '../core/registry.ts';
import { badRequest } from '../core/errors.ts';
import { answeredAsBuilt, dbOf, originOf, parseId, permittedFirst } from '../core/http.ts';
import { briefObject, serializeRows, type Row } from '../core/crud/serialize.ts';
import { briefSchema, schemaName } from '../core/crud/schemas.ts';
import { loadScopedRow } from '../core/crud/write.ts';
import { familyOf } from './service.ts';
import { MAX_AVAILABLE, allocateAddresses, freeAddresses, freeRanges, loadContainer } from './available.ts';
import { allocateVlans, availablePrefixes, carvePrefixes, freeVids } from './carve.ts';
import { allocateAsns, freeAsns } from './asn-available.ts';

const idParams = Type.Object({ id: Type.String() });
const anyObject = Type.Object({}, { additionalProperties: true });
/** No body or {} for one object, an object of its fields, or a list of them (the fields are the model's: its validator checks them). */
const createBody = Type.Union([Type.Null(), anyObject, Type.Array(anyObject, { minItems: 1, maxItems: MAX_AVAILABLE })]);
/** The created object, or the list of them when a list was sent. */
const createdAnswer = (model: ModelDef) => {
  const one = { $ref: `${schemaName(model)}#` };
  return { anyOf: [one, { type: 'array', items: one }] };
};
const nullableBrief = { anyOf: [briefSchema, { type: 'null' }] };
const family = { type: 'integer', enum: [4, 6] };
const FreeAddress = { type: 'object', properties: { family, address: { type: 'string', description: 'The address with its prefix length.' }, vrf: nullableBrief }, required: ['family', 'address', 'vrf'] };
const FreeRange = {
  type: 'object',
  properties: {
    family,
    start_address: { type: 'string', description: 'The first free address, with the mask of the prefix or range.' },
    end_address: { type: 'string', description: 'The last free address of the run, with the same mask.' },
    size: { type: 'string', pattern: '^[0-9]+$', description: 'How many addresses the run holds, as decimal text (an IPv6 run can exceed 2^53).' },
    vrf: nullableBrief,
  },
  required: ['family', 'start_address', 'end_address', 'size', 'vrf'],
};
const FreePrefix = { type: 'object', properties: { family, prefix: { type: 'string' }, vrf: nullableBrief }, required: ['family', 'prefix', 'vrf'] };
const FreeAsn = { type: 'object', properties: { asn: { type: 'integer', minimum: 1, maximum: 4294967295 }, rir: briefSchema }, required: ['asn', 'rir'] };
const FreeVid = { type: 'object', properties: { vid: { type: 'integer', minimum: 1, maximum: 4094 }, group: briefSchema }, required: ['vid', 'group'] };

function limitOf(req: FastifyRequest, fallback: number): number {
  const raw = (req.query as { limit?: unknown }).limit;
  const limit = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_AVAILABLE) throw badRequest({ limit: [`A whole number from 1 to ${MAX_AVAILABLE}.`] });
  return limit;
}

export function registerIpamRoutes(app: FastifyInstance): void {
  const prefixes = requireModel('ipam.prefix');
  const ranges = requireModel('ipam.iprange');
  const addresses = requireModel('ipam.ipaddress');
  const vrfs = requireModel('ipam.vrf');
  const vlans = requireModel('ipam.vlan');
  const groups = requireModel('ipam.vlangroup');
  const asnRanges = requireModel('ipam.asnrange');
  const asns = requireModel('ipam.asn');
  const rirs = requireModel('ipam.rir');
  const limitQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AVAILABLE, default: 50 })) }, { additionalProperties: false });

  const vrfBrief = async (req: FastifyRequest, row: Row) =>
    row.vrf_id ? briefObject(vrfs, await loadScopedRow(dbOf(req), req.ctx, vrfs, String(row.vrf_id)), originOf(req)) : null;
  const answerCreated = async (req: FastifyRequest, reply: FastifyReply, model: ModelDef, rows: Row[]) => {
    const out = await serializeRows(dbOf(req), req.ctx, model, rows, { origin: originOf(req) });
    reply.code(201);
    return Array.isArray(req.body) ? out : out[0];
  };

  for (const [kind, model] of [['prefix', prefixes], ['range', ranges]] as const) {
    const path = `${model.path}:id/available-ips/`;
    app.get(path, {
      ...answeredAsBuilt,
      schema: { tags: ['ipam'], summary: `The first free addresses of ${kind === 'prefix' ? 'a prefix' : 'an IP range'} (limit, default 50), with its mask`, params: idParams, querystring: limitQuery, response: { 200: { type: 'array', items: FreeAddress } } },
      preParsing: permittedFirst([model, 'view'], [addresses, 'view']),
      handler: async (req) => {
        const limit = limitOf(req, 50);
        const { row, space } = await loadContainer(dbOf(req), req.ctx, kind, parseId((req.params as { id: string }).id));
        const vrf = await vrfBrief(req, row);
        return (await freeAddresses(dbOf(req), space, limit)).map((address) => ({ family: familyOf(address), address, vrf }));
      },
    });
    app.get(`${model.path}:id/free-ranges/`, {
      ...answeredAsBuilt,
      schema: {
        tags: ['ipam'],
        summary: `The runs of free addresses of ${kind === 'prefix' ? 'a prefix' : 'an IP range'} between the addresses in use, in address order (limit runs, default 50): NetBox's "N IPs available"`,
        params: idParams,
        querystring: limitQuery,
        response: { 200: { type: 'array', items: FreeRange } },
      },
      preParsing: permittedFirst([model, 'view'], [addresses, 'view']),
      handler: async (req) => {
        const limit = limitOf(req, 50);
        const { row, space } = await loadContainer(dbOf(req), req.ctx, kind, parseId((req.params as { id: string }).id));
        const vrf = await vrfBrief(req, row);
        return (await freeRanges(dbOf(req), space, limit)).map((r) => ({ family: familyOf(r.start_address), ...r, vrf }));
      },
    });
    app.post(path, {
      ...answeredAsBuilt,
      schema: { tags: ['ipam'], summary: `Create addresses in the first free addresses of ${kind === 'prefix' ? 'a prefix' : 'an IP range'}: {} or an object for one, a list for several (all or none)`, params: idParams, body: createBody, response: { 201: createdAnswer(addresses) } },
      preParsing: permittedFirst([model, 'view'], [addresses, 'add']),
      handler: async (req, reply) => {
        const rows = await allocateAddresses(dbOf(req), req.ctx, kind, parseId((req.params as { id: string }).id), req.body);
        return answerCreated(req, reply, addresses, rows);
      },
    });
  }

  const carvePath = `${prefixes.path}:id/available-prefixes/`;
  app.get(carvePath, {
    ...answeredAsBuilt,
    schema: { tags: ['ipam'], summary: 'The free space of a prefix as the largest aligned child prefixes, in address order', params: idParams, response: { 200: { type: 'array', items: FreePrefix } } },
    preParsing: permittedFirst([prefixes, 'view']),
    handler: async (req) => {
      const prefix = await loadScopedRow(dbOf(req), req.ctx, prefixes, parseId((req.params as { id: string }).id));
      const vrf = await vrfBrief(req, prefix);
      return (await availablePrefixes(dbOf(req), prefix)).map((p) => ({ family: familyOf(p), prefix: p, vrf }));
    },
  });
  app.post(carvePath, {
    ...answeredAsBuilt,
    schema: { tags: ['ipam'], summary: 'Carve the first free child prefixes: {"prefix_length": 26} (and other prefix fields), or a list (all or none)', params: idParams, body: createBody, response: { 201: createdAnswer(prefixes) } },
    preParsing: permittedFirst([prefixes, 'add']),
    handler: async (req, reply) => {
      const rows = await carvePrefixes(dbOf(req), req.ctx, parseId((req.params as { id: string }).id), req.body);
      return answerCreated(req, reply, prefixes, rows);
    },
  });

  const vlanPath = `${groups.path}:id/available-vlans/`;
  app.get(vlanPath, {
    ...answeredAsBuilt,
    schema: { tags: ['ipam'], summary: 'The first free VIDs of a VLAN group (limit, default 50)', params: idParams, querystring: limitQuery, response: { 200: { type: 'array', items: FreeVid } } },
    preParsing: permittedFirst([groups, 'view'], [vlans, 'view']),
    handler: async (req) => {
      const limit = limitOf(req, 50);
      const group = await loadScopedRow(dbOf(req), req.ctx, groups, parseId((req.params as { id: string }).id));
      const brief = briefObject(groups, group, originOf(req));
      return (await freeVids(dbOf(req), group, limit)).map((vid) => ({ vid, group: brief }));
    },
  });
  app.post(vlanPath, {
    ...answeredAsBuilt,
    schema: { tags: ['ipam'], summary: 'Create VLANs on the first free VIDs of a group: {"name": …} or a list (all or none)', params: idParams, body: createBody, response: { 201: createdAnswer(vlans) } },
    preParsing: permittedFirst([groups, 'view'], [vlans, 'add']),
    handler: async (req, reply) => {
      const rows = await allocateVlans(dbOf(req), req.ctx, parseId((req.params as { id: string }).id), req.body);
      return answerCreated(req, reply, vlans, rows);
    },
  });

  const asnPath = `${asnRanges.path}:id/available-asns/`;
  app.get(asnPath, {
    ...answeredAsBuilt,
    schema: { tags: ['ipam'], summary: 'The first free AS numbers of an ASN range (limit, default 50), with its RIR', params: idParams, querystring: limitQuery, response: { 200: { type: 'array', items: FreeAsn } } },
    preParsing: permittedFirst([asnRanges, 'view'], [asns, 'view']),
    handler: async (req) => {
      const limit = limitOf(req, 50);
      const range = await loadScopedRow(dbOf(req), req.ctx, asnRanges, parseId((req.params as { id: string }).id));
      const rir = briefObject(rirs, await loadScopedRow(dbOf(req), req.ctx, rirs, String(range.rir_id)), originOf(req));
      return (await freeAsns(dbOf(req), range, limit)).map((asn) => ({ asn, rir }));
    },
  });
  app.post(asnPath, {
    ...answeredAsBuilt,
    schema: { tags: ['ipam'], summary: 'Create ASNs on the first free numbers of a range: {} or an object for one, a list for several (all or none)', params: idParams, body: createBody, response: { 201: createdAnswer(asns) } },
    preParsing: permittedFirst([asnRanges, 'view'], [asns, 'add']),
    handler: async (req, reply) => {
      const rows = await allocateAsns(dbOf(req), req.ctx, parseId((req.params as { id: string }).id), req.body);
      return answerCreated(req, reply, asns, rows);
    },
  });
}
