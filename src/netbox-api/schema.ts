// NetBox's OpenAPI document for the dialect (`/api/schema/?format=json`), from the same dialect entries as its routes:
// each model's list and detail paths, the list's filter parameters by NetBox's names (nb_inventory checks a user's
// query_filters against them) and the methods served. Object schemas are left open: NetBox's clients read paths.
import { listFiltersOf } from '../core/crud/read.ts';
import { filterableField } from '../core/crud/list-query.ts';
import { allModels } from '../core/registry.ts';
import { cableEndKinds } from '../dcim/cable-ends.ts';
import { availablePaths } from './available-routes.ts';
import { dialectModels, dialectOf, type DialectModel } from './dialect.ts';
import { NETBOX_API_VERSION, NETBOX_ENDPOINTS } from './endpoints.ts';
import { CONFIG_TEMPLATES_PATH } from './serializer.ts';

const cairnPaths = () => new Set(allModels().map((m) => m.path));

type Json = Record<string, unknown>;

const TEXT_LOOKUPS = ['n', 'ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie', 'empty'];
const RANGE_LOOKUPS = ['n', 'gt', 'gte', 'lt', 'lte'];

/** NetBox's filter names of a model's list. */
export function filterNames(entry: DialectModel): string[] {
  const names = ['id', 'id__n', 'id__gt', 'id__gte', 'id__lt', 'id__lte', 'q', 'tag', 'tag_id', 'limit', 'offset', 'ordering', 'brief', 'fields', 'omit', 'exclude'];
  for (const [key, nbKey] of entry.out) {
    const field = filterableField(entry.model, key);
    if (!field) continue;
    if (field.kind === 'fk' || field.kind === 'm2m') {
      names.push(nbKey, `${nbKey}__n`);
      if (field.target !== 'extras.status') names.push(`${nbKey}_id`, `${nbKey}_id__n`);
    } else if (['string', 'text', 'slug', 'url', 'choice', 'color', 'inet', 'cidr'].includes(field.kind)) {
      names.push(nbKey, ...TEXT_LOOKUPS.map((l) => `${nbKey}__${l}`));
    } else if (['integer', 'decimal', 'date', 'datetime'].includes(field.kind)) {
      names.push(nbKey, ...RANGE_LOOKUPS.map((l) => `${nbKey}__${l}`));
    } else names.push(nbKey);
  }
  names.push(...Object.keys(listFiltersOf(entry.model.name)), ...Object.keys((entry.model.netbox && entry.model.netbox.filters) || {}));
  return [...new Set(names)];
}

const open = { type: 'object', additionalProperties: true };

function operation(entry: DialectModel, id: string, extra: Json = {}): Json {
  return { operationId: id, tags: [entry.app], responses: { '200': { description: '', content: { 'application/json': { schema: open } } } }, ...extra };
}

let document: Json | null = null;

export function netboxOpenapi(): Json {
  if (document) return document;
  const paths: Json = {};
  for (const entry of dialectModels()) {
    const { model } = entry;
    const base = entry.path.slice(5, -1).replace(/[/-]/g, '_');
    const parameters = filterNames(entry).map((name) => ({ in: 'query', name, schema: { type: 'string' } }));
    const list: Json = { get: operation(entry, `${base}_list`, { parameters }) };
    const detail: Json = { get: operation(entry, `${base}_retrieve`, { parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'integer' } }] }) };
    if (model.operations.create) list.post = operation(entry, `${base}_create`);
    if (model.operations.update) {
      list.put = operation(entry, `${base}_bulk_update`);
      list.patch = operation(entry, `${base}_bulk_partial_update`);
      detail.put = operation(entry, `${base}_update`);
      detail.patch = operation(entry, `${base}_partial_update`);
    }
    if (model.operations.delete) {
      list.delete = operation(entry, `${base}_bulk_destroy`);
      detail.delete = operation(entry, `${base}_destroy`);
    }
    paths[entry.path] = list;
    paths[`${entry.path}{id}/`] = detail;
  }
  // Config templates: Cairn's device export templates in NetBox's shape (config-templates.ts).
  const ops = (id: string, code: string) => ({ operationId: id, tags: ['extras'], responses: { [code]: { description: '', content: { 'application/json': { schema: open } } } } });
  paths[CONFIG_TEMPLATES_PATH] = {
    get: { ...ops('extras_config_templates_list', '200'), parameters: ['id', 'name', 'description', 'q', 'limit', 'offset', 'ordering'].map((name) => ({ in: 'query', name, schema: { type: 'string' } })) },
    post: ops('extras_config_templates_create', '201'),
  };
  const idParam = [{ in: 'path', name: 'id', required: true, schema: { type: 'integer' } }];
  paths[`${CONFIG_TEMPLATES_PATH}{id}/`] = {
    get: { ...ops('extras_config_templates_retrieve', '200'), parameters: idParam },
    put: ops('extras_config_templates_update', '200'),
    patch: ops('extras_config_templates_partial_update', '200'),
    delete: ops('extras_config_templates_destroy', '204'),
  };
  // The lists of kinds Cairn has no model for (answered empty), the status, and a prefix's or range's free addresses.
  for (const endpoint of NETBOX_ENDPOINTS.values()) {
    const path = `/api/${endpoint}/`;
    if (!(path in paths) && !cairnPaths().has(path)) paths[path] = { get: { operationId: `${endpoint.replace(/[/-]/g, '_')}_list`, tags: [endpoint.split('/')[0]], responses: { '200': { description: 'Always empty: Cairn holds none of these.' } } } };
  }
  paths['/api/status/'] = { get: { operationId: 'status_retrieve', tags: ['status'], responses: { '200': { description: '', content: { 'application/json': { schema: open } } } } } };
  for (const { path, base } of availablePaths()) {
    paths[path] = { get: { operationId: `${base}_list`, tags: ['ipam'], responses: { '200': { description: '' } } }, post: { operationId: `${base}_create`, tags: ['ipam'], responses: { '201': { description: '' } } } };
  }
  for (const name of ['dcim.device', 'virtualization.virtualmachine']) {
    const entry = dialectOf(name);
    if (entry) paths[`${entry.path}{id}/render-config/`] = { post: operation(entry, `${entry.path.slice(5, -1).replace(/[/-]/g, '_')}_render_config_create`) };
  }
  for (const { type } of cableEndKinds()) {
    const entry = dialectOf(type);
    if (entry) paths[`${entry.path}{id}/trace/`] = { get: operation(entry, `${entry.path.slice(5, -1).replace(/[/-]/g, '_')}_trace_retrieve`) };
  }
  document = {
    openapi: '3.0.3',
    info: { title: 'NetBox REST API (served by Cairn)', version: NETBOX_API_VERSION, license: { name: 'Apache v2' } },
    paths,
    components: { securitySchemes: { tokenAuth: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Token-based authentication with required prefix "Token"' } } },
    security: [{ tokenAuth: [] }],
  };
  return document;
}
