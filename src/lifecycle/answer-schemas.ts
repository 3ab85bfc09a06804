// What the end-of-life routes answer, as the OpenAPI document publishes it (the platform mapping's answer is
// eolPayloadProperties, shared with the platforms' `eol` value).
import { Type } from 'typebox';

const nullableString = (description?: string) => Type.Union([Type.String(), Type.Null()], description ? { description } : {});
const nullableDate = (description: string) => Type.Union([Type.String({ format: 'date' }), Type.Null()], { description });

/** GET/PUT/PATCH /api/eol/settings/ and the refresh's 202: everything for a deployment admin, two fields for others. */
export const SettingsAnswer = Type.Object(
  {
    enabled: Type.Boolean(),
    warning_days: Type.Integer({ description: 'Days before end of life from which a platform is `warning`.' }),
    sources: Type.Optional(Type.Array(Type.String(), { description: 'Deployment admins only: the catalogs refreshed.' })),
    source_urls: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Per source: blank for the public service, else a mirror.' })),
    ssrf_allowlist: Type.Optional(Type.Array(Type.String())),
    available_sources: Type.Optional(
      Type.Array(Type.Object({ key: Type.String(), label: Type.String(), default_url: Type.String(), homepage: Type.String() }, { additionalProperties: false })),
    ),
    last_refresh_at: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
    last_refresh_status: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: ['', 'queued', 'running', 'ok', 'failed'] })),
    last_refresh_error: Type.Optional(Type.String()),
    last_refresh_via: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: ['', 'online', 'import'] })),
    products: Type.Optional(Type.Integer({ description: 'Products in the catalog.' })),
    mappings: Type.Optional(Type.Integer({ description: 'Platforms mapped, in every tenant.' })),
    can_manage: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** POST /api/eol/import/: what the document changed in the catalog and in the mappings. */
export const ImportAnswer = Type.Object(
  {
    products: Type.Integer({ description: 'Products in the catalog after the import.' }),
    added: Type.Integer(),
    removed: Type.Integer(),
    removed_products: Type.Array(Type.String(), { description: 'The names of the products removed (at most 50).' }),
    mappings: Type.Integer({ description: 'Mappings of this source re-filled from the catalog.' }),
    changed: Type.Integer({ description: 'Mappings whose facts changed.' }),
  },
  { additionalProperties: false },
);

const productFields = {
  source: Type.String(),
  name: Type.String({ description: 'The catalog name, as in /api/eol/products/<source>/<name>/.' }),
  label: Type.String(),
  category: Type.String(),
};
const Product = Type.Object(productFields, { additionalProperties: false });
const Suggestion = Type.Object(
  { ...productFields, score: Type.Number({ description: 'Higher is a better match.' }), cycle: Type.String({ description: "The cycle the platform's name points at, or ''." }) },
  { additionalProperties: false },
);

/** GET /api/eol/products/: the list envelope, with suggestions for a platform when one was given. */
export const ProductsAnswer = Type.Object(
  {
    count: Type.Integer(),
    next: nullableString(),
    previous: nullableString(),
    results: Type.Array(Product),
    suggestions: Type.Optional(Type.Array(Suggestion, { description: 'With platform=<id>: the products that match it, best first.' })),
  },
  { additionalProperties: false },
);

const Cycle = Type.Object(
  {
    name: Type.String(),
    label: Type.String(),
    release_date: nullableDate('When the cycle was released.'),
    support_until: nullableDate('End of active support (bug fixes).'),
    eol_date: nullableDate('End of life: end of security support.'),
    eol: Type.Union([Type.Boolean(), Type.Null()], { description: "The source's own end-of-life flag; null when it does not say." }),
    lts: Type.Boolean(),
    latest: Type.String(),
  },
  { additionalProperties: false },
);

/** GET /api/eol/products/<source>/<name>/. */
export const ProductAnswer = Type.Object(
  { ...productFields, aliases: Type.Array(Type.String()), releases: Type.Array(Cycle) },
  { additionalProperties: false },
);
