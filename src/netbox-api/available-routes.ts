// NetBox's available-* routes over Cairn's own allocation (src/ipam/available.ts, carve.ts): the same locks, checks
// and change log. GET lists what is free; POST creates objects in it from NetBox bodies (one object or a list, all
// or none); 409 when there is not room enough (pynetbox raises AllocationError on it).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { requireModelPermission } from '../core/access.ts';
import { dbOf, originOf } from '../core/http.ts';
import { badRequest, notFound, type FieldErrors } from '../core/errors.ts';
import { briefObject, serializeRows, type Row } from '../core/crud/serialize.ts';
import { loadScopedRow } from '../core/crud/write.ts';
import type { QueryValues } from '../core/crud/list-query.ts';
import { requireModel } from '../core/registry.ts';
import { allocateAddresses, freeAddresses, loadContainer, MAX_AVAILABLE } from '../ipam/available.ts';
import { allocateVlans, availablePrefixes, carvePrefixes, freeVids } from '../ipam/carve.ts';
import { allocateAsns, freeAsns } from '../ipam/asn-available.ts';
import { familyOf } from '../ipam/service.ts';
import { dialectOf } from './dialect.ts';
import { idOfNumid } from './numids.ts';
import { cairnBody, netboxErrors } from './writes.ts';
import { toNetbox, toNetboxTree } from './serializer.ts';
import { dialectRoute } from './route-options.ts';

interface Available {
  /** The container's model and the route's name (`available-ips`). */
  container: string;
  route: string;
  /** The model of what is created. */
  created: string;
  /** Body keys that are no field of the created model but the allocation's own (`prefix_length`). */
  extra?: string[];
  /** What is free in the container, with Cairn's briefs (turned into NetBox's by the route). */
  free(db: Kysely<DB>, ctx: RequestContext, row: Row, limit: number, origin: string): Promise<unknown[]>;
  create(db: Kysely<DB>, ctx: RequestContext, containerId: string, body: unknown): Promise<Row[]>;
}

const vrfOf = async (db: Kysely<DB>, ctx: RequestContext, row: Row, origin: string) => {
  const vrfs = requireModel('ipam.vrf');
  return row.vrf_id ? briefObject(vrfs, await loadScopedRow(db, ctx, vrfs, String(row.vrf_id)), origin) : null;
};

const AVAILABLE: Available[] = [
  ...(['prefix', 'range'] as const).map((kind) => ({
    container: kind === 'prefix' ? 'ipam.prefix' : 'ipam.iprange',
    route: 'available-ips',
    created: 'ipam.ipaddress',
    async free(db: Kysely<DB>, ctx: RequestContext, row: Row, limit: number, origin: string) {
      const { space } = await loadContainer(db, ctx, kind, String(row.id));
      const vrf = await vrfOf(db, ctx, row, origin);
      return (await freeAddresses(db, space, limit)).map((address) => ({ family: familyOf(address), address, vrf }));
    },
    create: (db: Kysely<DB>, ctx: RequestContext, id: string, body: unknown) => allocateAddresses(db, ctx, kind, id, body),
  })),
  {
    container: 'ipam.prefix',
    route: 'available-prefixes',
    created: 'ipam.prefix',
    extra: ['prefix_length'],
    async free(db, ctx, row, _limit, origin) {
      const vrf = await vrfOf(db, ctx, row, origin);
      return (await availablePrefixes(db, row)).map((p) => ({ family: familyOf(p), prefix: p, vrf }));
    },
    create: carvePrefixes,
  },
  {
    container: 'ipam.vlangroup',
    route: 'available-vlans',
    created: 'ipam.vlan',
    async free(db, _ctx, row, limit, origin) {
      const group = briefObject(requireModel('ipam.vlangroup'), row, origin);
      return (await freeVids(db, row, limit)).map((vid) => ({ vid, group }));
    },
    create: allocateVlans,
  },
  {
    container: 'ipam.asnrange',
    route: 'available-asns',
    created: 'ipam.asn',
    async free(db, ctx, row, limit, origin) {
      const rirs = requireModel('ipam.rir');
      const rir = row.rir_id ? briefObject(rirs, await loadScopedRow(db, ctx, rirs, String(row.rir_id)), origin) : null;
      return (await freeAsns(db, row, limit)).map((asn) => ({ asn, rir }));
    },
    create: allocateAsns,
  },
];

/** The available-* paths the dialect serves, for its OpenAPI document. */
export function availablePaths(): Array<{ path: string; base: string }> {
  return AVAILABLE.flatMap((a) => {
    const entry = dialectOf(a.container);
    return entry && dialectOf(a.created) ? [{ path: `${entry.path}{id}/${a.route}/`, base: `${entry.path.slice(5, -1)}/${a.route}`.replace(/[/-]/g, '_') }] : [];
  });
}

export function registerAvailableRoutes(app: FastifyInstance): void {
  for (const a of AVAILABLE) {
    const container = dialectOf(a.container);
    const created = dialectOf(a.created);
    if (!container || !created) continue;
    const path = `${container.path}:id/${a.route}/`;
    const containerRow = async (req: FastifyRequest) => {
      const id = await idOfNumid(dbOf(req), req.ctx, container.model, (req.params as { id: string }).id);
      if (!id) throw notFound(`No ${container.model.label} matches the given query.`);
      return loadScopedRow(dbOf(req), req.ctx, container.model, id);
    };
    app.get(path, {
      ...dialectRoute,
      preParsing: async (req, _reply, payload) => {
        requireModelPermission(req.ctx, container.model, 'view');
        requireModelPermission(req.ctx, created.model, 'view');
        return payload;
      },
      handler: async (req) => {
        const raw = (req.query as QueryValues).limit;
        const text = Array.isArray(raw) ? raw[0] : raw;
        const limit = text === undefined || text === '0' ? 50 : Number(text);
        if (!Number.isInteger(limit) || limit < 1) throw badRequest({ limit: ['A whole number.'] });
        const free = await a.free(dbOf(req), req.ctx, await containerRow(req), Math.min(limit, MAX_AVAILABLE), originOf(req));
        return toNetboxTree(dbOf(req), free, originOf(req));
      },
    });
    app.post(path, {
      ...dialectRoute,
      preParsing: async (req, _reply, payload) => {
        requireModelPermission(req.ctx, container.model, 'view');
        requireModelPermission(req.ctx, created.model, 'add');
        return payload;
      },
      handler: async (req, reply) => {
        try {
          const list = Array.isArray(req.body);
          const items = list ? (req.body as unknown[]) : [req.body ?? {}];
          const errors: FieldErrors = {};
          const bodies = [];
          for (const [i, item] of items.entries()) {
            const body = await cairnBody(dbOf(req), req.ctx, created, item ?? {}, errors, list ? `[${i}].` : '');
            for (const key of a.extra ?? []) if (item && typeof item === 'object' && key in item) body[key] = (item as Record<string, unknown>)[key];
            bodies.push(body);
          }
          if (Object.keys(errors).length) throw badRequest(errors);
          const row = await containerRow(req);
          const rows = await a.create(dbOf(req), req.ctx, String(row.id), list ? bodies : bodies[0]);
          const serialized = await serializeRows(dbOf(req), req.ctx, created.model, rows, { origin: originOf(req), briefNumids: true });
          const out = await toNetbox(dbOf(req), req.ctx, created, serialized, { origin: originOf(req) });
          reply.code(201);
          return list ? out : out[0];
        } catch (err) {
          throw netboxErrors(created, err);
        }
      },
    });
  }
}
