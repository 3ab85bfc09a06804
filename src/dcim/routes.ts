// DCIM routes beyond the generic CRUD: the choices vocabularies, a rack's elevation, and the cable trace of a port.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { traceFrom, traceSchema } from './trace.ts';
import { cableEndKinds } from './cable-ends.ts';
import { allVocabularies } from '../core/vocabularies.ts';
import { unauthorized } from '../core/errors.ts';
import { requireModelPermission, tenantOf } from '../core/access.ts';
import { requireModel } from '../core/registry.ts';
import { answeredAsBuilt, checkedFirst, dbOf, originOf, parseId } from '../core/http.ts';
import { loadScopedRow } from '../core/crud/write.ts';
import { listEnvelopeSchema, wholeList } from '../core/list-envelope.ts';
import { elevationUnitSchema, rackElevation, type RackFace } from './rack-elevation.ts';

const optionSchema = { type: 'object', properties: { value: { type: 'string' }, label: { type: 'string' }, group: { type: 'string' } } };

export function registerDcimRoutes(app: FastifyInstance): void {
  app.get('/api/dcim/choices/', {
    schema: {
      tags: ['dcim'],
      summary: 'The option lists (interface types, cable types, 802.1Q modes, …) that choice fields accept',
      response: { 200: { type: 'object', additionalProperties: { type: 'array', items: optionSchema } } },
    },
    handler: async (req) => {
      if (!req.ctx.user) throw unauthorized();
      return Object.fromEntries(allVocabularies());
    },
  });

  const racks = requireModel('dcim.rack');
  const devices = requireModel('dcim.device');
  app.get(`${racks.path}:id/elevation/`, {
    ...answeredAsBuilt,
    schema: {
      tags: ['dcim'],
      summary: 'The units of one rack face, top to bottom as drawn, each with the device that takes it (face: front or rear, default front)',
      params: Type.Object({ id: Type.String() }),
      querystring: Type.Object({ face: Type.Optional(Type.Union([Type.Literal('front'), Type.Literal('rear')])) }, { additionalProperties: false }),
      response: { 200: listEnvelopeSchema(elevationUnitSchema) },
    },
    preParsing: checkedFirst((req) => {
      requireModelPermission(req.ctx, racks, 'view');
      requireModelPermission(req.ctx, devices, 'view');
    }),
    handler: async (req) => {
      const rack = await loadScopedRow(dbOf(req), req.ctx, racks, parseId((req.params as { id: string }).id));
      const face: RackFace = (req.query as { face?: RackFace }).face ?? 'front';
      return wholeList(await rackElevation(dbOf(req), req.ctx, rack, face, originOf(req)));
    },
  });

  // NetBox has the trace on every kind of cable end (interfaces, ports, power feeds…); a walk may start at any.
  for (const { type: name } of cableEndKinds()) {
    const model = requireModel(name);
    app.get(`${model.path}:id/trace/`, {
      schema: {
        tags: ['dcim'],
        summary: `The cable path from a ${model.label}: through cables, patch panels (front port › rear port) and circuits to the far end`,
        params: Type.Object({ id: Type.String() }),
        response: { 200: traceSchema },
      },
      preParsing: checkedFirst((req) => requireModelPermission(req.ctx, model, 'view')),
      handler: async (req) => {
        const row = await loadScopedRow(dbOf(req), req.ctx, model, parseId((req.params as { id: string }).id));
        return traceFrom(dbOf(req), tenantOf(row), { type: name, id: String(row.id) }, originOf(req));
      },
    });
  }
}
