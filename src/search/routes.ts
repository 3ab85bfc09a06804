// HTTP for global search: parse (every bad parameter a 400 naming it), search, answer.
import type { FastifyInstance } from 'fastify';
import { unauthorized } from '../core/errors.ts';
import { Type } from 'typebox';
import { answeredAsBuilt, checkedFirst, dbOf, originOf } from '../core/http.ts';
import { parseSearchRequest, search } from './query.ts';
import { wholeList } from '../core/list-envelope.ts';

export function registerSearchRoutes(app: FastifyInstance): void {
  app.get('/api/search/', {
    ...answeredAsBuilt,
    schema: {
      tags: ['search'],
      summary: 'Search every object of the active tenant the caller may view: ranked exact > prefix > similar; addresses also find their containing prefixes',
      querystring: Type.Object(
        {
          q: Type.String({ description: 'Text to find (1 to 200 characters): a name, slug, serial, asset tag, address, VLAN id, custom-field text…' }),
          types: Type.Optional(Type.String({ description: 'Comma-separated models to search (app.model, e.g. dcim.device,ipam.prefix); default every model the caller may view.' })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Results to return, 1 to 100 (default 20).' })),
        },
        { additionalProperties: false },
      ),
      response: {
        200: {
          type: 'object',
          // The list envelope; a search answers its best `limit` hits in one page (no next page).
          required: ['count', 'next', 'previous', 'results'],
          properties: {
            count: { type: 'integer', description: 'Hits in this answer (at most limit).' },
            next: { type: 'null' },
            previous: { type: 'null' },
            results: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  object_type: { type: 'string' },
                  id: { type: 'string', format: 'uuid' },
                  display: { type: 'string' },
                  url: { type: 'string' },
                  matched_field: { type: 'string', description: 'The field that matched; custom fields as cf.<name>.' },
                  matched_label: { type: 'string', description: 'The field that matched as the UI names it (DNS name; Custom field <name>).' },
                  score: { type: 'number', description: '1 exact, 0.8–0.9 prefix, lower: inside a word or similar.' },
                  context: { type: 'string', description: "What the hit is in, for objects whose name repeats across sites: a VLAN's group, else its site." },
                },
              },
            },
          },
        },
      },
    },
    preParsing: checkedFirst((req) => {
      if (!req.ctx.user) throw unauthorized();
    }),
    handler: async (req) => {
      const parsed = parseSearchRequest(req.ctx, req.query as Record<string, unknown>);
      return wholeList(await search(dbOf(req), req.ctx, parsed, originOf(req)));
    },
  });
}
