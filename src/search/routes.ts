// HTTP for global search: parse (every bad parameter a 400 naming it), search, answer.
import type { FastifyInstance } from 'fastify';
import { unauthorized } from '../core/errors.ts';
import { Type } from 'typebox';
import { answeredAsBuilt, checkedFirst, dbOf, originOf, requestUrl } from '../core/http.ts';
import { LIMIT_DEFAULT, LIMIT_MAX, OFFSET_MAX, parseSearchRequest, search } from './query.ts';
import { pagedList } from '../core/list-envelope.ts';

const SearchHit = Type.Object({
  object_type: Type.String({ description: 'The model of the hit (app.model).' }),
  id: Type.String({ format: 'uuid' }),
  display: Type.String(),
  url: Type.String(),
  matched_field: Type.String({ description: 'The field that matched; custom fields as cf.<name>.' }),
  matched_label: Type.String({ description: 'The field that matched as the UI names it (DNS name; Custom field <name>).' }),
  matched_value: Type.String({ description: "The matched field's text (its first 200 characters): what the query was found in." }),
  exact: Type.Boolean({ description: 'The matched field is the query itself (the same text, or the same address or network).' }),
  score: Type.Number({ description: 'Relevance: 1 exact, 0.8–0.9 prefix, lower: inside a word or similar; weighted by the field (a name above a description).' }),
  context: Type.Optional(Type.String({ description: "What the hit is in, for objects whose name repeats across sites: a VLAN's group, else its site." })),
});

const TypeCount = Type.Object({
  object_type: Type.String(),
  label: Type.String({ description: 'The type as the UI names it, plural (Devices).' }),
  count: Type.Integer({ description: 'Hits of this type.' }),
  exact: Type.Integer({ description: 'Of them, exact matches.' }),
});

/** The list envelope, plus what a search page offers beside its hits: exact matches and the hits per type. */
const SearchPage = Type.Object({
  count: Type.Integer({ description: 'Hits of the requested types over all pages.' }),
  next: Type.Union([Type.String(), Type.Null()]),
  previous: Type.Union([Type.String(), Type.Null()]),
  exact_count: Type.Integer({ description: 'Of count, the exact matches: they come first, so hits 1 to exact_count are the exact ones.' }),
  counts: Type.Array(TypeCount, { description: 'Hits per type over every type the caller may view (whatever types says), most first: what a client offers to filter by.' }),
  results: Type.Array(SearchHit),
});

export function registerSearchRoutes(app: FastifyInstance): void {
  app.get('/api/search/', {
    ...answeredAsBuilt,
    schema: {
      tags: ['search'],
      summary:
        'Search every object of the active tenant the caller may view: exact matches first, then prefix > similar; addresses also find their containing prefixes. Counted per type, filtered by types, paged by limit/offset',
      querystring: Type.Object(
        {
          q: Type.String({ description: 'Text to find (1 to 200 characters): a name, slug, serial, asset tag, address, VLAN id, custom-field text…' }),
          types: Type.Optional(Type.String({ description: 'Comma-separated models whose hits are answered (app.model, e.g. dcim.device,ipam.prefix); default every model the caller may view. counts still covers every type.' })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMIT_MAX, description: `Results per page, 1 to ${LIMIT_MAX} (default ${LIMIT_DEFAULT}).` })),
          offset: Type.Optional(Type.Integer({ minimum: 0, maximum: OFFSET_MAX, description: `Hits to skip: the page's start (0 to ${OFFSET_MAX}).` })),
        },
        { additionalProperties: false },
      ),
      response: { 200: SearchPage },
    },
    preParsing: checkedFirst((req) => {
      if (!req.ctx.user) throw unauthorized();
    }),
    handler: async (req) => {
      const parsed = parseSearchRequest(req.ctx, req.query as Record<string, unknown>);
      const { count, exact_count, counts, results } = await search(dbOf(req), req.ctx, parsed, originOf(req));
      return { ...pagedList(requestUrl(req), { count, limit: parsed.limit, offset: parsed.offset }, results), exact_count, counts };
    },
  });
}
