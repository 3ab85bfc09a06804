// Webhooks: where change events are sent, signed with their secret. The secret is encrypted at rest
// (src/core/secrets.ts), write-only in the API, masked in the change log and refused by templates (the registry's
// `secret` flag drives all four). Automation targets and device credentials live in their domains.
import { defineModel, allModels } from '../core/registry.ts';
import { ErrorCollector } from '../core/errors.ts';
import { secretSetField, secretTransform } from '../core/secrets.ts';
import { checkUrlField } from '../core/ssrf.ts';
import { sql, type Kysely } from 'kysely';
import { finishJob } from '../jobs/record.ts';
import type { DB } from '../db/types.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';


const HEADER_NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** The payload's `event`, from the change log's action (create → created…). */
export const WEBHOOK_EVENTS = ['created', 'updated', 'deleted'] as const;


// Deleting a webhook drops its pending deliveries (cascade); their job records end as cancelled rather than
// staying "running". One query finds them whatever the number of webhooks.
async function cancelDeliveryJobs(tx: Kysely<DB>, webhookIds: string[]): Promise<void> {
  const { rows } = await sql<{ job_id: string }>`SELECT job_id FROM webhook_outbox WHERE webhook_id = ANY(${webhookIds}::uuid[]) AND job_id IS NOT NULL`.execute(tx);
  for (const r of rows) await finishJob(tx, r.job_id, { status: 'cancelled', result: 'The webhook was deleted before the delivery succeeded.' });
}

export const webhookModel = defineModel({
  name: 'extras.webhook',
  table: 'webhooks',
  path: '/api/webhooks/',
  label: 'webhook',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    payload_url: { kind: 'url', column: 'url', label: 'Payload URL', maxLength: 500 },
    secret: {
      kind: 'string',
      maxLength: 255,
      nullable: true,
      secret: true,
      writeOnly: true,
      transform: secretTransform('secret'),
      help: 'Write-only. Signs the body: X-Cairn-Signature: sha256=<hex HMAC-SHA256 of the body bytes>. Stored encrypted.',
    },
    additional_headers: {
      kind: 'json',
      nullable: true,
      secret: true,
      writeOnly: true,
      jsonObject: true,
      transform: secretTransform('additional_headers'),
      help: 'Write-only JSON object of header name → value (often a token). Stored encrypted.',
    },
    object_types: { kind: 'string_list', maxLength: 100, default: [], help: 'Models that trigger it, e.g. dcim.device; empty for none.' },
    events: { kind: 'string_list', maxLength: 10, default: ['created', 'updated', 'deleted'], help: 'Any of created, updated, deleted.' },
    enabled: { kind: 'boolean', default: true },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  computed: { secret_set: secretSetField('secret', 'Secret set'), additional_headers_set: secretSetField('additional_headers', 'Additional headers set') },
  searchFields: ['name', 'payload_url', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, input }) {
      const errors = new ErrorCollector();
      await checkUrlField(tx, 'payload_url', input.payload_url, errors);
      if (input.additional_headers && typeof input.additional_headers === 'object') {
        for (const [name, value] of Object.entries(input.additional_headers)) {
          if (!HEADER_NAME_RE.test(name)) errors.add('additional_headers', `"${name}" is not a valid HTTP header name.`);
          else if (typeof value !== 'string' || /[\r\n]/.test(value)) errors.add('additional_headers', `The value of ${name} must be a single-line string.`);
        }
      }
      if (Array.isArray(input.object_types)) {
        const known = new Set(allModels().filter((m) => m.tenantScoped).map((m) => m.name));
        const bad = (input.object_types as string[]).filter((t) => !known.has(t));
        if (bad.length) errors.add('object_types', `Unknown object type ${bad.map((b) => `"${b}"`).join(', ')} (use names like dcim.device).`);
      }
      if (Array.isArray(input.events)) {
        const bad = (input.events as string[]).filter((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e));
        if (bad.length) errors.add('events', `Unknown event ${bad.map((b) => `"${b}"`).join(', ')}; use created, updated, deleted.`);
      }
      errors.throwIfAny();
    },
    beforeDelete: ({ tx, row }) => cancelDeliveryJobs(tx, [String(row.id)]),
    beforeDeleteMany: ({ tx, rows }) => cancelDeliveryJobs(tx, rows.map((r) => String(r.id))),
  },
});


