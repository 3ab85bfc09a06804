// Webhook deliveries: one row per attempt (status code, duration, error, when the next try is due). Written by
// the delivery worker only; the API reads them.
import { defineModel } from '../core/registry.ts';
import { WEBHOOK_EVENTS } from './webhooks.ts';
import './webhook-outbox.ts';

export const webhookDeliveryModel = defineModel({
  name: 'extras.webhookdelivery',
  table: 'webhook_deliveries',
  path: '/api/webhook-deliveries/',
  label: 'webhook delivery',
  labelPlural: 'webhook deliveries',
  tenantScoped: true,
  displayField: 'webhook_name',
  fields: {
    webhook: { kind: 'fk', target: 'extras.webhook', onDelete: 'set_null', nullable: true, readOnly: true },
    webhook_name: { kind: 'string', maxLength: 100, readOnly: true },
    change_id: { kind: 'uuid', nullable: true, readOnly: true, label: 'Change', help: 'The change-log entry delivered.' },
    event: { kind: 'choice', choices: WEBHOOK_EVENTS.map((e) => ({ value: e, label: e })), readOnly: true },
    object_type: { kind: 'string', maxLength: 100, readOnly: true },
    object_id: { kind: 'uuid', readOnly: true },
    attempt: { kind: 'integer', readOnly: true, help: 'Try number, from 1 (at most 5).' },
    status_code: { kind: 'integer', nullable: true, readOnly: true, help: 'HTTP status of the answer; empty when none came.' },
    duration_ms: { kind: 'integer', readOnly: true, label: 'Duration (ms)' },
    succeeded: { kind: 'boolean', readOnly: true },
    error: { kind: 'string', maxLength: 1000, default: '', readOnly: true },
    next_retry: { kind: 'datetime', nullable: true, readOnly: true, help: 'When the next try is due; empty after a success or the last try.' },
    job_id: { kind: 'uuid', nullable: true, readOnly: true, label: 'Background job' },
  },
  searchFields: ['webhook_name', 'object_type', 'error'],
  defaultOrdering: ['-created'],
  operations: { create: false, update: false, delete: false },
});
