// Automation routes: the Ansible inventory and its per-host view. HTTP only; the rules are in inventory.ts.
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { getModel } from '../core/registry.ts';
import { unauthorized } from '../core/errors.ts';
import { dbOf } from '../core/http.ts';
import { buildAnsibleInventory, etagMatches, inventoryHost, type QueryValues } from './inventory.ts';
import { inventoryKey, rememberedEtag, rememberEtag } from './inventory-etags.ts';

const INVENTORY_DESCRIPTION = [
  'The standard Ansible dynamic-inventory document for the devices and virtual machines of the active tenant that the caller may view',
  '(device.view / virtualmachine.view): `{all: {children}, ungrouped: {hosts}, <group>: {hosts}, _meta: {hostvars}}`.',
  '',
  'Groups (lowercase; every run of characters outside [a-z0-9_] becomes `_`): `site_`, `region_` (the site\'s own region), `role_`, `platform_`,',
  '`status_`, `tag_`, `device_type_` (slugs), `cluster_` (VMs, cluster name), and `cf_<name>` for every boolean custom field whose value is exactly true.',
  '',
  'Host variables: `ansible_host` (primary IPv4, else IPv6, without mask; absent when none) and a `cairn` block (id, kind, name, site, region, role,',
  'platform, status, device_type, manufacturer, cluster, serial, asset_tag, tags, custom_fields with every field defined for the kind (null when unset),',
  'interfaces with their addresses, config_context).',
  '',
  'Host names are unique: when a device and a VM share a name, the device is listed and the VM left out.',
  '',
  'Filters (repeat a parameter for OR, different parameters AND): site, role, platform, status, tag (slug or id), kind=device|vm, has_primary_ip,',
  'cf_<name>=<value> (parsed by the field\'s type; for a boolean, false also matches hosts where the flag is unset). Unknown parameters are a 400.',
  '`routing=1` adds `cairn.routing` to every host: the routing block config renders read (VRFs, static routes, BGP, OSPF, IS-IS, VTEP, policies and lists, keychain names with placeholders, never keys).',
  '',
  'Answers carry an ETag (sha256 of the document); send it back in If-None-Match to get a 304 when nothing changed (answered from the data version, without rebuilding the document).',
].join('\n');

const hostSchema = {
  type: 'object',
  properties: {
    host: { type: 'string' },
    ansible_host: { type: ['string', 'null'] },
    groups: { type: 'array', items: { type: 'string' } },
    hostvars: { type: 'object', additionalProperties: true },
  },
};

/** A filter given once or repeated (site=a&site=b): the service reads both forms. */
const oneOrMany = (description: string) => Type.Union([Type.String(), Type.Array(Type.String())], { description });
// cf_<name> filters are open-ended (one per custom field), so other parameters pass to the service, which names
// an unknown one in its 400.
const inventoryQuerySchema = Type.Object(
  {
    site: Type.Optional(oneOrMany('Site slug or id.')),
    role: Type.Optional(oneOrMany('Device role slug or id.')),
    platform: Type.Optional(oneOrMany('Platform slug or id.')),
    status: Type.Optional(oneOrMany('Status slug or id.')),
    tag: Type.Optional(oneOrMany('Tag slug or id.')),
    kind: Type.Optional(Type.Union([Type.String({ enum: ['device', 'vm'] }), Type.Array(Type.String({ enum: ['device', 'vm'] }))])),
    has_primary_ip: Type.Optional(oneOrMany('true/false, 1/0, yes/no.')),
    routing: Type.Optional(oneOrMany('1 adds the routing block under cairn.routing.')),
  },
  { additionalProperties: true },
);

/** A group of the inventory: its hosts by name, or (`all`) the names of the groups. */
const inventoryGroup = {
  type: 'object',
  properties: { hosts: { type: 'array', items: { type: 'string' } }, children: { type: 'array', items: { type: 'string' } } },
  additionalProperties: false,
};
/** Ansible's dynamic inventory document: one key per group beside `all`, `ungrouped` and `_meta`. */
const inventorySchema = {
  type: 'object',
  properties: {
    all: inventoryGroup,
    ungrouped: inventoryGroup,
    _meta: {
      type: 'object',
      properties: { hostvars: { type: 'object', description: 'Per host name: its variables.', additionalProperties: hostSchema.properties.hostvars } },
      required: ['hostvars'],
      additionalProperties: false,
    },
  },
  required: ['all', 'ungrouped', '_meta'],
  additionalProperties: inventoryGroup,
};

export function registerAutomationRoutes(app: FastifyInstance): void {
  app.get('/api/inventory/ansible/', {
    schema: {
      tags: ['automation'],
      summary: 'Ansible dynamic inventory (groups, host variables, custom-field flags as cf_<name> groups)',
      description: INVENTORY_DESCRIPTION,
      querystring: inventoryQuerySchema,
      response: {
        200: inventorySchema,
        304: { type: 'null', description: 'Not modified: the If-None-Match ETag is current.' },
      },
    },
    handler: async (req, reply) => {
      if (!req.ctx.user) throw unauthorized();
      const db = dbOf(req);
      const query = req.query as QueryValues;
      reply.header('cache-control', 'private, no-cache');
      const key = await inventoryKey(db, req.ctx, query);
      const known = rememberedEtag(key);
      if (known !== undefined && etagMatches(req.headers['if-none-match'], known)) return reply.header('etag', known).code(304).send();
      const doc = await buildAnsibleInventory(db, req.ctx, query);
      rememberEtag(key, doc.etag);
      reply.header('etag', doc.etag);
      if (etagMatches(req.headers['if-none-match'], doc.etag)) return reply.code(304).send();
      // Sent as the exact bytes the ETag was computed from.
      return reply.type('application/json; charset=utf-8').send(doc.body);
    },
  });

  for (const name of ['dcim.device', 'virtualization.virtualmachine']) {
    const model = getModel(name);
    if (!model) continue;
    app.get(`${model.path}:id/inventory/`, {
      schema: {
        tags: ['automation'],
        summary: `One ${model.label} as the Ansible inventory shows it: {host, ansible_host, groups, hostvars}`,
        params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        response: { 200: hostSchema },
      },
      handler: async (req) => {
        if (!req.ctx.user) throw unauthorized();
        return inventoryHost(dbOf(req), req.ctx, model, (req.params as { id: string }).id);
      },
    });
  }
}
