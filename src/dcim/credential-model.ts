// Device credentials: a username and an encrypted, write-only password per device, for automation to log in with.
import { defineModel } from '../core/registry.ts';
import { fieldError } from '../core/errors.ts';
import { secretSetField, secretTransform } from '../core/secrets.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

export const deviceCredentialModel = defineModel({
  name: 'dcim.devicecredential',
  table: 'device_credentials',
  path: '/api/device-credentials/',
  label: 'device credential',
  tenantScoped: true,
  displayField: 'username',
  displayParent: ['device'],
  fields: {
    device: { kind: 'fk', target: 'dcim.device', onDelete: 'cascade' },
    username: { kind: 'string', maxLength: 100 },
    password: { kind: 'string', maxLength: 1000, nullable: true, secret: true, writeOnly: true, transform: secretTransform('password'), help: 'Write-only. Stored encrypted.' },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  computed: { password_set: secretSetField('password', 'Password set') },
  searchFields: ['username', 'description'],
  defaultOrdering: ['device', 'username'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ input }) {
      if (typeof input.username === 'string' && /\s/.test(input.username)) throw fieldError('username', 'A username has no spaces.');
    },
  },
});
