// Automation targets: the AWX, Semaphore, GitLab or webhook endpoints a deploy starts a run on. The token is a
// secret field (encrypted at rest, write-only, masked in the change log, refused by templates).
import { defineModel } from '../core/registry.ts';
import { ErrorCollector } from '../core/errors.ts';
import { secretSetField, secretTransform } from '../core/secrets.ts';
import { checkUrlField } from '../core/ssrf.ts';
import { compileError } from '../templating/environment.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

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
      help: 'Jinja2 rendered per deploy with the device\'s render context (device, routing, config context…) and the deploy itself (its run id, bundle, files, note and target); its output must be a JSON object. Merged over the extra variables; Cairn\'s own keys win. Checked on save.',
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
  bulkLoadValidation: PLANNED_BY_LOADERS,
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
