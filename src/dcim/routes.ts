// DCIM routes beyond the generic CRUD: the choices vocabularies and a device's config context.
import type { FastifyInstance } from 'fastify';
import { requireModel } from '../core/registry.ts';
import { requireModelPermission } from '../core/access.ts';
import { allVocabularies } from '../core/vocabularies.ts';
import { unauthorized } from '../core/errors.ts';
import { dbOf, parseId } from '../core/http.ts';
import { deviceConfigContext } from './service.ts';

const optionSchema = { type: 'object', properties: { value: { type: 'string' }, label: { type: 'string' }, group: { type: 'string' } } };
const renderedSchema = {
  type: 'object',
  properties: { rendered: { type: 'object', additionalProperties: true }, applied: { type: 'array', items: { type: 'string' } } },
};

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

  app.get('/api/devices/:id/config-context/', {
    schema: {
      tags: ['dcim'],
      summary: "A device's config context: matching contexts merged by weight, then name",
      params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      response: { 200: renderedSchema },
    },
    handler: async (req) => {
      requireModelPermission(req.ctx, requireModel('dcim.device'), 'view');
      return deviceConfigContext(dbOf(req), req.ctx, parseId((req.params as { id: string }).id));
    },
  });
}
