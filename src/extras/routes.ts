// Extras routes beyond the generic CRUD: `<object>/config-context/` for the models config contexts apply to.
import type { FastifyInstance } from 'fastify';
import type { ModelDef } from '../core/registry.ts';
import { getModel } from '../core/registry.ts';
import { requireModelPermission } from '../core/access.ts';
import { dbOf, parseId } from '../core/http.ts';
import { configContextOf } from './config-context.ts';

/** Models with site, role and platform; a model that is not loaded (yet) simply has no route. */
const CONFIG_CONTEXT_MODELS = ['dcim.device', 'virtualization.virtualmachine'];

const renderedSchema = {
  type: 'object',
  properties: { rendered: { type: 'object', additionalProperties: true }, applied: { type: 'array', items: { type: 'string' } } },
};

export function registerConfigContextRoute(app: FastifyInstance, model: ModelDef): void {
  app.get(`${model.path}:id/config-context/`, {
    schema: {
      tags: [model.name.split('.')[0]!],
      summary: `A ${model.label}'s config context: the matching contexts merged by weight, then name`,
      params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      response: { 200: renderedSchema },
    },
    handler: async (req) => {
      requireModelPermission(req.ctx, model, 'view');
      return configContextOf(dbOf(req), req.ctx, model, parseId((req.params as { id: string }).id));
    },
  });
}

export function registerExtrasRoutes(app: FastifyInstance): void {
  for (const name of CONFIG_CONTEXT_MODELS) {
    const model = getModel(name);
    if (model) registerConfigContextRoute(app, model);
  }
}
