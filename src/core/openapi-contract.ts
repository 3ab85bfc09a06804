// What a client generator needs of the OpenAPI document beyond the routes' own schemas: a stable operationId per
// operation (NetBox's drf-spectacular style: `dcim_devices_list`, `dcim_devices_retrieve`, `dcim_devices_bulk_update`),
// and the error answers each operation can give, all in one envelope. Applied once to the generated document,
// so no route has to repeat it.
import { allModels } from './registry.ts';

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
type Method = (typeof METHODS)[number];

export const ERROR_SCHEMA_NAME = 'Error';

/** A property of the error envelope that a field of the same name may take instead, with its list of reasons. */
function orFieldReasons(schema: Record<string, unknown>): Record<string, unknown> {
  return { anyOf: [schema, { type: 'array', items: { type: 'string' } }] };
}

/** The one error envelope (`{detail}` or field errors, src/app.ts setErrorHandler) as a component. */
export const errorSchema = {
  type: 'object',
  description:
    'Every 4xx and 5xx answer. `detail` says what went wrong; a refused write names each field instead, its value the reasons (a list of messages, or an object for a list item).',
  properties: {
    // Each of these names may also be a refused field's (a model's `detail`, a list filter called `kind`): then it
    // holds that field's reasons.
    detail: orFieldReasons({ type: 'string', description: 'What went wrong.' }),
    request_id: orFieldReasons({ type: 'string', description: 'Given with a 500: the reqId of the server log entry.' }),
    maintenance: orFieldReasons({ type: 'boolean', description: 'Given with a 503 while maintenance holds the site: true.' }),
    line: orFieldReasons({ type: 'integer', description: 'Given with a template error: the line of the template it is on.' }),
    kind: orFieldReasons({ type: 'string', description: 'Given with a template error: syntax, undefined, type, security, limit, timeout, cancelled, runtime or unavailable.' }),
  },
  additionalProperties: { oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'object' }] },
};

const ERROR_ANSWERS: Record<string, string> = {
  '400': 'The input was refused: each field named with its reason; nothing changed.',
  '401': 'No valid token or session.',
  '403': 'Signed in, but without the permission this needs.',
  '404': 'No such object in your active tenant.',
  '409': 'Refused because of other data (in use, a duplicate, a full pool); nothing changed.',
  '413': 'The body is larger than the server accepts.',
  '503': 'Maintenance, a restart or an unreachable database: try again after Retry-After seconds.',
};

/** Domain of each model's collection path (`/api/devices/` → dcim), longest paths first. */
function modelPaths(): Array<{ path: string; domain: string }> {
  return allModels()
    .map((m) => ({ path: m.path.replace(/\/$/, ''), domain: m.name.split('.')[0]! }))
    .sort((a, b) => b.path.length - a.path.length);
}

const word = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');

function isListAnswer(op: Json, schemas: Json): boolean {
  const ok = (op.responses as Json | undefined)?.['200'] as Json | undefined;
  let schema = ((ok?.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema as Json | undefined;
  const ref = typeof schema?.$ref === 'string' ? schema.$ref.replace('#/components/schemas/', '') : null;
  if (ref) schema = schemas[ref] as Json | undefined;
  if (!schema) return false;
  return schema.type === 'array' || Boolean((schema.properties as Json | undefined)?.results);
}

/**
 * `<domain>_<path words>_<action>`: the path's words without `api` and its parameters, the action from the method
 * (list/retrieve, create, update, partial_update, destroy; bulk_* on a collection). A POST to an action path
 * (`…/bulk-update/`, `/api/auth/login/`) is named by the path alone.
 */
export function operationIdOf(path: string, method: Method, op: Json, models: Array<{ path: string; domain: string }>, schemas: Json): string {
  const bare = path.replace(/\/$/, '');
  const model = models.find((m) => bare === m.path || bare.startsWith(`${m.path}/`));
  const tag = Array.isArray(op.tags) && typeof op.tags[0] === 'string' ? word(op.tags[0]) : 'api';
  const domain = model?.domain ?? tag;
  const segments = bare.split('/').filter((s) => s && s !== 'api');
  const words = segments.filter((s) => !s.startsWith('{')).map(word);
  if (words[0] === domain) words.shift();
  else if (words[0]?.startsWith(`${domain}_`)) words[0] = words[0].slice(domain.length + 1);
  const base = [domain, ...words].join('_');
  const endsWithParam = segments.at(-1)?.startsWith('{') ?? false;
  const isCollection = model !== undefined && bare === model.path;
  switch (method) {
    case 'get':
      return `${base}_${isListAnswer(op, schemas) || isCollection ? 'list' : 'retrieve'}`;
    case 'post':
      return isCollection || endsWithParam ? `${base}_create` : base;
    case 'put':
      return `${base}_${isCollection ? 'bulk_update' : 'update'}`;
    case 'patch':
      return `${base}_${isCollection ? 'bulk_partial_update' : 'partial_update'}`;
    case 'delete':
      return `${base}_${isCollection ? 'bulk_destroy' : 'destroy'}`;
  }
}

/** Which error answers an operation can give: from its security, parameters, body and method. */
function errorStatuses(path: string, method: Method, op: Json): string[] {
  const open = Array.isArray(op.security) && op.security.length === 0;
  const params = (op.parameters as Json[] | undefined) ?? [];
  const takesInput = op.requestBody !== undefined || params.some((p) => p.in === 'query');
  const out: string[] = [];
  if (takesInput) out.push('400');
  if (!open) out.push('401', '403');
  if (path.includes('{')) out.push('404');
  if (method !== 'get') out.push('409');
  if (op.requestBody !== undefined) out.push('413');
  out.push('503');
  return out;
}

export function applyOperationContract(doc: Json): Json {
  const components = ((doc.components as Json | undefined) ?? {}) as Json;
  const schemas = ((components.schemas as Json | undefined) ?? {}) as Json;
  schemas[ERROR_SCHEMA_NAME] = errorSchema;
  const responses = ((components.responses as Json | undefined) ?? {}) as Json;
  for (const [status, description] of Object.entries(ERROR_ANSWERS)) {
    responses[`Error${status}`] = { description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_SCHEMA_NAME}` } } } };
  }
  doc.components = { ...components, schemas, responses };

  const models = modelPaths();
  const ops: Array<{ path: string; method: Method; op: Json; id: string }> = [];
  for (const [path, item] of Object.entries((doc.paths as Record<string, Json> | undefined) ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (op) ops.push({ path, method, op, id: typeof op.operationId === 'string' ? op.operationId : operationIdOf(path, method, op, models, schemas) });
    }
  }
  // A collection action and an object action share their words (`/devices/render/`, `/devices/{id}/render/`):
  // the one without a path parameter is the list.
  const uses = new Map<string, number>();
  for (const o of ops) uses.set(o.id, (uses.get(o.id) ?? 0) + 1);
  for (const o of ops) if (uses.get(o.id)! > 1 && o.id.endsWith('_retrieve') && !o.path.includes('{')) o.id = `${o.id.slice(0, -'_retrieve'.length)}_list`;
  for (const { path, method, op, id } of ops) {
    op.operationId = id;
    const answers = ((op.responses as Json | undefined) ?? {}) as Json;
    for (const status of errorStatuses(path, method, op)) answers[status] ??= { $ref: `#/components/responses/Error${status}` };
    op.responses = answers;
  }
  return doc;
}
