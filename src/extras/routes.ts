// Extras routes beyond the generic CRUD: `<object>/config-context/` for the models config contexts apply to, and
// `<object>/config-context/sources/`: the same merge with, for each key, the context it came from.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { ModelDef } from '../core/registry.ts';
import { getModel } from '../core/registry.ts';
import { requireModelPermission } from '../core/access.ts';
import { dbOf, originOf, parseId } from '../core/http.ts';
import { configContextOf, configContextSourcesOf } from './config-context.ts';

/** Models with site, role and platform; a model that is not loaded (yet) simply has no route. */
const CONFIG_CONTEXT_MODELS = ['dcim.device', 'virtualization.virtualmachine'];

const renderedSchema = {
  type: 'object',
  properties: { rendered: { type: 'object', additionalProperties: true }, applied: { type: 'array', items: { type: 'string' } } },
};

const contextSource = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    url: Type.String(),
    display: Type.String(),
    name: Type.String(),
    weight: Type.Integer(),
  },
  { description: 'A config context, with the weight that placed it in the merge.' },
);

const sourcesSchema = Type.Object({
  rendered: Type.Object({}, { additionalProperties: true, description: 'The merged context, as /config-context/ answers it.' }),
  applied: Type.Array(Type.String(), { description: 'Names of the contexts that matched, in merge order.' }),
  contexts: Type.Array(contextSource, { description: 'The contexts that matched, in merge order (weight, then name): a later one wins.' }),
  keys: Type.Array(
    Type.Object({
      path: Type.Array(Type.String(), { description: "The key's path from the top: mappings are walked, anything else (a list, a scalar, an empty mapping) is a value." }),
      value: Type.Unknown(),
      source: contextSource,
      overridden: Type.Array(contextSource, { description: 'Earlier contexts that set this path too, whose values were replaced.' }),
    }),
    { description: 'Every value of the merged context with the context it came from, in the order of the merged context.' },
  ),
});

const idParams = Type.Object({ id: Type.String() });

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
  app.get(`${model.path}:id/config-context/sources/`, {
    schema: {
      tags: [model.name.split('.')[0]!],
      summary: `A ${model.label}'s config context with, for each key, the config context it came from`,
      params: idParams,
      response: { 200: sourcesSchema },
    },
    handler: async (req) => {
      requireModelPermission(req.ctx, model, 'view');
      return configContextSourcesOf(dbOf(req), req.ctx, model, parseId((req.params as { id: string }).id), originOf(req));
    },
  });
}

export function registerExtrasRoutes(app: FastifyInstance): void {
  for (const name of CONFIG_CONTEXT_MODELS) {
    const model = getModel(name);
    if (model) registerConfigContextRoute(app, model);
  }
}
