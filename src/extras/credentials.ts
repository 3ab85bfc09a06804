// Credential-bearing types: webhooks, automation targets and device credentials. Their secret fields are
// encrypted at rest (src/core/secrets.ts), write-only in the API, masked in the change log and refused by
// templates (the registry's `secret` flag drives all four).
import { defineModel, allModels, type ComputedField } from '../core/registry.ts';
import { ErrorCollector, fieldError } from '../core/errors.ts';
import { secretTransform } from '../core/secrets.ts';
import { checkOutboundUrl, readAllowlist } from '../core/ssrf.ts';
import { sql, type Kysely } from 'kysely';
import { finishJob } from '../jobs/record.ts';
import type { DB } from '../db/types.ts';
import { compileError } from '../templating/environment.ts';

/** `<field>_set`: whether a secret is stored; the only thing about it anyone may read. */
function secretSetField(column: string, label: string): ComputedField {
  return {
    label,
    kind: 'boolean',
    schema: { type: 'boolean' },
    async load({ rows }) {
      return new Map(rows.map((r) => [String(r.id), r[column] !== null && r[column] !== undefined && r[column] !== '']));
    },
  };
}

const HEADER_NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** The payload's `event`, from the change log's action (create → created…). */
export const WEBHOOK_EVENTS = ['created', 'updated', 'deleted'] as const;

/** Outbound URLs are checked when saved (scheme, literal addresses) and again at every send (DNS may change). */
async function checkUrlField(tx: Kysely<DB>, field: string, value: unknown, errors: ErrorCollector): Promise<void> {
  if (typeof value !== 'string') return;
  const problem = checkOutboundUrl(value, await readAllowlist(tx));
  if (problem) errors.add(field, problem);
}

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

export const automationTargetModel = defineModel({
  name: 'automation.automationtarget',
  table: 'automation_targets',
  path: '/api/automation-targets/',
  label: 'automation target',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    kind: {
      kind: 'choice',
      choices: [
        { value: 'awx', label: 'AWX / Ansible Automation Platform' },
        { value: 'semaphore', label: 'Semaphore' },
        { value: 'gitlab', label: 'GitLab pipeline' },
        { value: 'webhook', label: 'Generic webhook' },
      ],
    },
    base_url: { kind: 'url', column: 'url', label: 'Base URL', maxLength: 500, help: 'https:// (plain http:// only to an allow-listed host). AWX: the server root; GitLab: e.g. https://gitlab.example.com.' },
    token: {
      kind: 'string',
      maxLength: 1000,
      nullable: true,
      secret: true,
      writeOnly: true,
      transform: secretTransform('token'),
      help: 'Write-only credential, stored encrypted: AWX/Semaphore API token (Bearer), GitLab pipeline trigger token, webhook signing secret.',
    },
    job_template_id: { kind: 'integer', nullable: true, min: 1, max: 2147483647, label: 'Job template id', help: 'AWX job template id, or Semaphore template id.' },
    project_id: { kind: 'string', maxLength: 200, default: '', label: 'Project id', help: 'Semaphore project id, or GitLab project id or path (group/project).' },
    ref: { kind: 'string', maxLength: 200, default: '', help: 'GitLab branch or tag the pipeline runs on.' },
    extra_vars: { kind: 'json', nullable: true, jsonObject: true, label: 'Extra variables', help: 'JSON object merged into the extra variables of every run (Cairn\'s own keys win).' },
    extra_vars_template: {
      kind: 'text',
      maxLength: 100_000,
      default: '',
      label: 'Extra variables template',
      help: 'Jinja2 rendered per deploy with the device\'s render context (device, routing, config_context…) and `deploy` (run_id, bundle, files, note, target); its output must be a JSON object. Merged over extra_vars; Cairn\'s own cairn_* keys win. Checked on save.',
    },
    roles: { kind: 'm2m', target: 'dcim.devicerole', through: { table: 'automation_target_roles', from: 'target_id', to: 'role_id' }, help: 'Device roles it deploys to; none means every role.' },
    platforms: { kind: 'm2m', target: 'dcim.platform', through: { table: 'automation_target_platforms', from: 'target_id', to: 'platform_id' }, help: 'Platforms it deploys to; none means every platform.' },
    timeout_seconds: { kind: 'integer', default: 30, min: 1, max: 600, label: 'Timeout (s)', help: 'How long a launch or a status read waits for the system before the run is recorded as failed.' },
    enabled: { kind: 'boolean', default: true },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  computed: { token_set: secretSetField('token', 'Token set') },
  searchFields: ['name', 'base_url', 'description'],
  defaultOrdering: ['name'],
  hooks: {
    async validate({ tx, input, existing }) {
      const errors = new ErrorCollector();
      await checkUrlField(tx, 'base_url', input.base_url, errors);
      // Kind-specific settings are checked against the row as it will be (a PATCH may change only the kind).
      const merged = (key: string, column = key): unknown => (key in input ? input[key] : existing?.[column]);
      const kind = merged('kind');
      const has = (key: string) => {
        const v = merged(key);
        return v !== null && v !== undefined && v !== '';
      };
      if ((kind === 'awx' || kind === 'semaphore') && !has('job_template_id')) errors.add('job_template_id', `A ${kind === 'awx' ? 'AWX job template' : 'Semaphore template'} id is needed for this kind.`);
      if ((kind === 'semaphore' || kind === 'gitlab') && !has('project_id')) errors.add('project_id', `A ${kind === 'gitlab' ? 'GitLab' : 'Semaphore'} project id is needed for this kind.`);
      if (kind === 'semaphore' && has('project_id') && !/^\d+$/.test(String(merged('project_id')))) errors.add('project_id', 'A Semaphore project id is a number.');
      if (kind === 'gitlab' && !has('ref')) errors.add('ref', 'A GitLab pipeline needs a ref (branch or tag).');
      if (typeof input.extra_vars_template === 'string' && input.extra_vars_template.trim() !== '') {
        const problem = compileError(input.extra_vars_template);
        if (problem) errors.add('extra_vars_template', problem);
      }
      errors.throwIfAny();
    },
  },
});

export const deviceCredentialModel = defineModel({
  name: 'dcim.devicecredential',
  table: 'device_credentials',
  path: '/api/device-credentials/',
  label: 'device credential',
  tenantScoped: true,
  displayField: 'username',
  fields: {
    device: { kind: 'fk', target: 'dcim.device', onDelete: 'cascade' },
    username: { kind: 'string', maxLength: 100 },
    password: { kind: 'string', maxLength: 1000, nullable: true, secret: true, writeOnly: true, transform: secretTransform('password'), help: 'Write-only. Stored encrypted.' },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  computed: { password_set: secretSetField('password', 'Password set') },
  searchFields: ['username', 'description'],
  defaultOrdering: ['device', 'username'],
  hooks: {
    async validate({ input }) {
      if (typeof input.username === 'string' && /\s/.test(input.username)) throw fieldError('username', 'A username has no spaces.');
    },
  },
});
