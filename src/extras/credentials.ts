// Credential-bearing types: webhooks, automation targets and device credentials. Their secret fields are
// encrypted at rest (src/core/secrets.ts), write-only in the API, masked in the change log and refused by
// templates (the registry's `secret` flag drives all four).
import { defineModel, allModels, type ComputedField } from '../core/registry.ts';
import { ErrorCollector, fieldError } from '../core/errors.ts';
import { secretTransform } from '../core/secrets.ts';

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
export const WEBHOOK_EVENTS = ['create', 'update', 'delete'] as const;

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
      help: 'Write-only. Signs the body (HMAC-SHA512 in X-Hook-Signature). Stored encrypted.',
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
    events: { kind: 'string_list', maxLength: 10, default: ['create', 'update', 'delete'], help: 'Any of create, update, delete.' },
    enabled: { kind: 'boolean', default: true },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  computed: { secret_set: secretSetField('secret', 'Secret set'), additional_headers_set: secretSetField('additional_headers', 'Additional headers set') },
  searchFields: ['name', 'payload_url', 'description'],
  defaultOrdering: ['name'],
  hooks: {
    async validate({ input }) {
      const errors = new ErrorCollector();
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
        if (bad.length) errors.add('events', `Unknown event ${bad.map((b) => `"${b}"`).join(', ')}; use create, update, delete.`);
      }
      errors.throwIfAny();
    },
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
    base_url: { kind: 'url', column: 'url', label: 'Base URL', maxLength: 500 },
    token: { kind: 'string', maxLength: 1000, nullable: true, secret: true, writeOnly: true, transform: secretTransform('token'), help: 'Write-only API token. Stored encrypted.' },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  computed: { token_set: secretSetField('token', 'Token set') },
  searchFields: ['name', 'base_url', 'description'],
  defaultOrdering: ['name'],
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
