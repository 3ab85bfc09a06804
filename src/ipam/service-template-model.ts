// NetBox's ipam.servicetemplate: a named layer-4 service (protocol and ports, e.g. ssh tcp/22) to apply to devices
// and VMs, tenant-wide. Labelled "application service template", as NetBox 4.3 does, because Cairn has two other
// services: dcim.devicetypeservice (a "service template" of one device type, materialised on its devices with
// monitoring) and monitoring.service (a service running on one device or VM, with its checks).
import { defineModel } from '../core/registry.ts';
import { fieldError } from '../core/errors.ts';
import './service-choices.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

export const serviceTemplateModel = defineModel({
  name: 'ipam.servicetemplate',
  table: 'service_templates',
  path: '/api/service-templates/',
  label: 'application service template',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    protocol: { kind: 'choice', vocabulary: 'service_protocols' },
    ports: { kind: 'integer_list', label: 'Port numbers', min: 1, max: 65535, help: 'One or more port numbers, 1 to 65535.' },
    description: { kind: 'string', maxLength: 200, default: '' },
    comments: { kind: 'text', default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ input }) {
      if (Array.isArray(input.ports) && input.ports.length === 0) throw fieldError('ports', 'Give at least one port number.');
    },
  },
});
