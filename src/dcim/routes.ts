// DCIM routes beyond the generic CRUD: the choices vocabularies.
import type { FastifyInstance } from 'fastify';
import { allVocabularies } from '../core/vocabularies.ts';
import { unauthorized } from '../core/errors.ts';

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
}
