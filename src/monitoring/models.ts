// Monitoring: network services on devices and VMs, the check templates and per-IP assignments they own, and
// the executor's history (results) and state changes (events). The rules live in service.ts.
import { sql } from 'kysely';
import { addModelHook, defineModel, type ChoiceOption } from '../core/registry.ts';
import { fieldError } from '../core/errors.ts';
import { registerDeviceMaterializer } from '../dcim/service.ts';
import {
  checkCountField,
  materializeDeviceServices,
  mirrorLegacyPorts,
  reconcileParentServices,
  retargetServicesOfAddresses,
  reconcileServiceChecks,
  releaseChecksOfServices,
  releaseMovedAddresses,
  serviceStatusField,
  validateService,
} from './service.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

const PROTOCOLS: readonly ChoiceOption[] = [
  { value: 'tcp', label: 'TCP' },
  { value: 'udp', label: 'UDP' },
];
const SERVICE_PROTOCOL_CHOICES: readonly ChoiceOption[] = [...PROTOCOLS, { value: 'sctp', label: 'SCTP' }];
const STATES: readonly ChoiceOption[] = [
  { value: 'up', label: 'Up' },
  { value: 'down', label: 'Down' },
  { value: 'unknown', label: 'Unknown' },
];

export const serviceModel = defineModel({
  name: 'monitoring.service',
  table: 'services',
  path: '/api/services/',
  netbox: { name: 'ipam.service' },
  label: 'service',
  tenantScoped: true,
  fields: {
    device: { kind: 'fk', target: 'dcim.device', nullable: true, onDelete: 'cascade', help: 'The device it runs on (or set a virtual machine).' },
    virtual_machine: { kind: 'fk', target: 'virtualization.virtualmachine', nullable: true, onDelete: 'cascade', help: 'The VM it runs on (or set a device).' },
    name: { kind: 'string', maxLength: 128 },
    protocol: { kind: 'choice', choices: SERVICE_PROTOCOL_CHOICES, default: 'tcp', help: 'Legacy: mirrored from the first block of the protocol ports on save.' },
    ports: { kind: 'integer_list', min: 1, max: 65535, default: [], help: 'Legacy: mirrored from the first block of the protocol ports on save.' },
    protocol_ports: { kind: 'json', jsonObject: true, default: {}, help: 'Ports by protocol (tcp, udp, sctp), e.g. {"tcp": [22, 443], "udp": [53]}; ports 1–65535, each once. Monitoring checks tcp and udp.' },
    ip_address: { kind: 'fk', target: 'ipam.ipaddress', nullable: true, onDelete: 'set_null', help: "The service's own address, on one of its parent's interfaces; else the parent's primary IP is watched." },
    monitored: { kind: 'boolean', help: 'Whether checks run for this service; reconciled on save.' },
    description: { kind: 'string', maxLength: 200, default: '' },
    tags: { kind: 'tags' },
  },
  computed: { check_count: checkCountField, status: serviceStatusField },
  searchFields: ['name', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    validate: validateService,
    async afterCreate({ tx, row }) {
      await mirrorLegacyPorts(tx, null, row);
      await reconcileServiceChecks(tx, [String(row.id)]);
    },
    async afterUpdate({ tx, before, row }) {
      await mirrorLegacyPorts(tx, before, row);
      await reconcileServiceChecks(tx, [String(row.id)]);
    },
    beforeDelete: ({ tx, row }) => releaseChecksOfServices(tx, [String(row.id)]),
    beforeDeleteMany: ({ tx, rows }) => releaseChecksOfServices(tx, rows.map((r) => String(r.id))),
  },
});

export const checkTemplateModel = defineModel({
  name: 'monitoring.checktemplate',
  table: 'check_templates',
  path: '/api/check-templates/',
  label: 'check template',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100 },
    slug: { kind: 'slug', maxLength: 100, unique: true, help: 'Services create and reuse templates named <kind>-<port>, e.g. tcp-443, udp-53.' },
    kind: { kind: 'choice', choices: PROTOCOLS },
    port: { kind: 'integer', min: 1, max: 65535 },
    interval_seconds: { kind: 'integer', min: 5, max: 86400, default: 60, label: 'Interval (s)' },
    timeout_ms: { kind: 'integer', min: 50, max: 60000, default: 2000, label: 'Timeout (ms)' },
    rise: { kind: 'integer', min: 1, max: 100, default: 2, help: 'Consecutive successes before a check is up.' },
    fall: { kind: 'integer', min: 1, max: 100, default: 2, help: 'Consecutive failures before a check is down.' },
    enabled: { kind: 'boolean', default: true },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['slug'],
});

export const checkAssignmentModel = defineModel({
  name: 'monitoring.checkassignment',
  table: 'check_assignments',
  path: '/api/check-assignments/',
  label: 'check assignment',
  tenantScoped: true,
  displayField: 'id',
  displayParent: ['ip_address'],
  fields: {
    template: { kind: 'fk', target: 'monitoring.checktemplate', onDelete: 'cascade' },
    ip_address: { kind: 'fk', target: 'ipam.ipaddress', onDelete: 'cascade', label: 'IP address' },
    // Set by reconciliation only: a manual assignment has none and is never removed automatically.
    service: { kind: 'fk', target: 'monitoring.service', nullable: true, onDelete: 'cascade', readOnly: true },
    enabled: { kind: 'boolean', default: true },
    state: { kind: 'choice', choices: STATES, readOnly: true, default: 'unknown' },
    last_result: { kind: 'choice', choices: STATES, readOnly: true, nullable: true },
    last_latency_ms: { kind: 'decimal', readOnly: true, nullable: true, label: 'Last latency (ms)' },
    last_detail: { kind: 'string', readOnly: true, maxLength: 200, default: '' },
    last_checked: { kind: 'datetime', readOnly: true, nullable: true },
    last_change: { kind: 'datetime', readOnly: true, nullable: true },
    consecutive_ok: { kind: 'integer', readOnly: true, default: 0 },
    consecutive_fail: { kind: 'integer', readOnly: true, default: 0 },
  },
  defaultOrdering: ['numid'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    // (template, IP) is unique: say so on the field rather than as a database conflict.
    async validate({ tx, input, existing }) {
      const template = input.template ?? existing?.template_id;
      const ip = input.ip_address ?? existing?.ip_address_id;
      if (!('template' in input) && !('ip_address' in input)) return;
      const { rows } = await sql<{ id: string }>`SELECT id FROM check_assignments WHERE template_id = ${template} AND ip_address_id = ${ip}
        AND id IS DISTINCT FROM ${existing?.id ?? null}::uuid`.execute(tx);
      if (rows[0]) throw fieldError('ip_address', 'This IP address already has a check with this template.');
    },
  },
});

export const checkResultModel = defineModel({
  name: 'monitoring.checkresult',
  table: 'check_results',
  path: '/api/check-results/',
  label: 'check result',
  tenantScoped: true,
  displayField: 'status',
  fields: {
    assignment: { kind: 'fk', target: 'monitoring.checkassignment', onDelete: 'cascade', readOnly: true },
    status: { kind: 'choice', choices: STATES, readOnly: true },
    latency_ms: { kind: 'decimal', nullable: true, readOnly: true, label: 'Latency (ms)' },
    detail: { kind: 'string', maxLength: 200, readOnly: true, default: '' },
  },
  defaultOrdering: ['-numid'],
  operations: { create: false, update: false, delete: false },
});

export const checkEventModel = defineModel({
  name: 'monitoring.checkevent',
  table: 'check_events',
  path: '/api/check-events/',
  label: 'check event',
  tenantScoped: true,
  displayField: 'to_state',
  fields: {
    assignment: { kind: 'fk', target: 'monitoring.checkassignment', onDelete: 'cascade', readOnly: true },
    from_state: { kind: 'choice', choices: STATES, readOnly: true },
    to_state: { kind: 'choice', choices: STATES, readOnly: true },
    detail: { kind: 'string', maxLength: 200, readOnly: true, default: '' },
  },
  defaultOrdering: ['-numid'],
  operations: { create: false, update: false, delete: false },
});

registerDeviceMaterializer(materializeDeviceServices);
// A bulk update reconciles once for all its rows (afterUpdateMany), not once per row.
addModelHook('dcim.device', 'afterUpdate', async ({ tx, before, row, inBulk }) => {
  if (!inBulk) await reconcileParentServices(tx, 'device', [{ before, row }]);
});
addModelHook('dcim.device', 'afterUpdateMany', ({ tx, rows }) => reconcileParentServices(tx, 'device', rows));
addModelHook('virtualization.virtualmachine', 'afterUpdate', async ({ tx, before, row, inBulk }) => {
  if (!inBulk) await reconcileParentServices(tx, 'vm', [{ before, row }]);
});
addModelHook('virtualization.virtualmachine', 'afterUpdateMany', ({ tx, rows }) => reconcileParentServices(tx, 'vm', rows));
addModelHook('ipam.ipaddress', 'afterUpdate', async ({ tx, before, row, inBulk }) => {
  if (!inBulk) await releaseMovedAddresses(tx, [{ before, row }]);
});
addModelHook('ipam.ipaddress', 'afterUpdateMany', ({ tx, rows }) => releaseMovedAddresses(tx, rows));
addModelHook('ipam.ipaddress', 'beforeDelete', ({ tx, row }) => retargetServicesOfAddresses(tx, [String(row.id)]));
addModelHook('ipam.ipaddress', 'beforeDeleteMany', ({ tx, rows }) => retargetServicesOfAddresses(tx, rows.map((r) => String(r.id))));
