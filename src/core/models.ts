// The foundation's models: tenants, accounts, groups and grants, API tokens, the change log and journal.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { defineModel } from './registry.ts';
import { can } from './context.ts';
import { badRequest, fieldError, forbidden } from './errors.ts';
import { hashPassword } from './auth/passwords.ts';
import { forgetCachedTokens } from './auth/credentials.ts';
import { getModel } from './registry.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

const USERNAME_RE = /^[\w.@+-]+$/;

/** Work every new tenant needs (its default statuses, …), registered by the domains that own the data. */
type TenantInitializer = (tx: Kysely<DB>, tenantId: string) => Promise<void>;
const tenantInitializers: TenantInitializer[] = [];

export function onTenantCreated(init: TenantInitializer): void {
  tenantInitializers.push(init);
}

export const tenantModel = defineModel({
  name: 'tenancy.tenant',
  table: 'tenants',
  path: '/api/tenants/',
  netbox: false, // the isolation boundary: NetBox's tenant is tenancy.owner
  label: 'tenant',
  tenantScoped: false,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
  // Everyone signed in sees the tenants they belong to; creating and changing tenants is deployment administration.
  access: (ctx, action) => (action === 'view' ? true : can(ctx, 'users.manage')),
  globalScope: (ctx) => (can(ctx, 'users.manage') ? null : { column: 'id', values: [...ctx.tenantIds] }),
  hooks: {
    async afterCreate({ tx, row }) {
      for (const init of tenantInitializers) await init(tx, String(row.id));
    },
  },
});

export const userModel = defineModel({
  name: 'users.user',
  table: 'users',
  path: '/api/users/',
  label: 'user',
  tenantScoped: false,
  adminOnly: true,
  displayField: 'username',
  fields: {
    username: { kind: 'string', maxLength: 150, unique: true, pattern: USERNAME_RE, patternMessage: 'Letters, digits and @ . + - _ only.' },
    email: { kind: 'string', maxLength: 254, default: '' },
    password: { kind: 'string', column: 'password_hash', writeOnly: true, maxLength: 200, transform: (v) => hashPassword(String(v)) },
    is_superuser: { kind: 'boolean', label: 'Superuser' },
    is_active: { kind: 'boolean', label: 'Active', default: true },
    home_tenant: { kind: 'fk', target: 'tenancy.tenant', nullable: true, onDelete: 'set_null' },
    tenants: { kind: 'm2m', target: 'tenancy.tenant', through: { table: 'tenant_memberships', from: 'user_id', to: 'tenant_id' } },
    groups: { kind: 'm2m', target: 'users.group', through: { table: 'user_groups', from: 'user_id', to: 'group_id' } },
    last_login: { kind: 'datetime', readOnly: true, nullable: true },
    failed_sign_ins: { kind: 'integer', readOnly: true, default: 0, label: 'Failed sign-ins', help: 'Failed sign-ins in a row (reset by a successful one).' },
    sign_in_blocked_until: { kind: 'datetime', readOnly: true, nullable: true, label: 'Sign-in blocked until', help: 'After too many failed sign-ins, sign-in waits until then; it is never blocked for good.' },
  },
  searchFields: ['username', 'email'],
  defaultOrdering: ['username'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ ctx, input, existing }) {
      // Only a superuser makes another superuser: users.manage must not be a path to every permission.
      if (input.is_superuser === true && !(existing?.is_superuser === true) && !ctx.user?.isSuperuser) {
        throw forbidden('Only a superuser can grant superuser status.');
      }
      // Nor may it take over a superuser's account (set its password, rename or deactivate it).
      if (existing?.is_superuser === true && !ctx.user?.isSuperuser) throw forbidden('Only a superuser can change a superuser account.');
      if (typeof input.password === 'string' && input.password.length < 8) throw fieldError('password', 'Use at least 8 characters.');
    },
    async beforeDelete({ ctx, row }) {
      if (row.id === ctx.user?.id) throw badRequest('You cannot delete your own account.');
      if (row.is_superuser === true && !ctx.user?.isSuperuser) throw forbidden('Only a superuser can delete a superuser account.');
    },
  },
});

export const groupModel = defineModel({
  name: 'users.group',
  table: 'groups',
  path: '/api/groups/',
  label: 'group',
  tenantScoped: false,
  adminOnly: true,
  fields: {
    name: { kind: 'string', maxLength: 150, unique: true },
    description: { kind: 'string', maxLength: 200, default: '' },
    builtin: { kind: 'boolean', readOnly: true, label: 'Built-in' },
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    // Documentation and other features name the built-in groups: their grants may change, their names not.
    async validate({ input, existing }) {
      if (existing?.builtin === true && typeof input.name === 'string' && input.name !== existing.name) {
        throw fieldError('name', 'A built-in group cannot be renamed.');
      }
    },
    async beforeDelete({ row }) {
      if (row.builtin === true) throw badRequest(`The built-in group ${String(row.name)} cannot be deleted.`);
    },
  },
});

export const permissionModel = defineModel({
  name: 'users.permission',
  table: 'group_permissions',
  path: '/api/permissions/',
  label: 'permission',
  tenantScoped: false,
  adminOnly: true,
  displayField: 'permission',
  fields: {
    group: { kind: 'fk', target: 'users.group', onDelete: 'cascade' },
    permission: {
      kind: 'string',
      maxLength: 100,
      pattern: /^(\*|[a-z][a-z0-9_]*)\.[a-z][a-z0-9_]*$/,
      patternMessage: 'A grant is <model>.<action>, e.g. device.view, *.view or keychain.reveal.',
    },
  },
  searchFields: ['permission'],
  defaultOrdering: ['permission'],
});

export const tokenModel = defineModel({
  name: 'users.token',
  table: 'tokens',
  path: '/api/users/tokens/',
  label: 'token',
  tenantScoped: false,
  displayField: 'key_prefix',
  // Created by its own route, which returns the key once.
  operations: { create: false },
  fields: {
    user: { kind: 'fk', target: 'users.user', readOnly: true, onDelete: 'cascade' },
    tenant: { kind: 'fk', target: 'tenancy.tenant', required: false, onDelete: 'cascade' },
    description: { kind: 'string', maxLength: 200, default: '' },
    read_only: { kind: 'boolean', label: 'Read only' },
    expires: { kind: 'datetime', nullable: true },
    key_prefix: { kind: 'string', readOnly: true, label: 'Key (first characters)' },
    last_used: { kind: 'datetime', readOnly: true, nullable: true },
  },
  defaultOrdering: ['-created'],
  // Every signed-in user manages their own tokens, and only those.
  access: () => true,
  globalScope: (ctx) => ({ column: 'user_id', values: ctx.user ? [ctx.user.id] : [] }),
  createDefaults: (ctx) => ({ user_id: ctx.user?.id, tenant_id: ctx.tenantId }),
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ ctx, input }) {
      const tenant = input.tenant;
      if (tenant === undefined && !ctx.tenantId) throw fieldError('tenant', 'No active tenant: name the tenant this token is for.');
      if (typeof tenant === 'string' && !ctx.user?.isSuperuser && !ctx.tenantIds.includes(tenant)) {
        throw fieldError('tenant', 'You are not a member of this tenant.');
      }
      if (typeof input.expires === 'string' && Date.parse(input.expires) <= Date.now()) throw fieldError('expires', 'The expiry must be in the future.');
    },
    async afterUpdate() {
      forgetCachedTokens();
    },
    async beforeDelete() {
      forgetCachedTokens();
    },
  },
});

export const changeModel = defineModel({
  name: 'core.objectchange',
  table: 'object_changes',
  path: '/api/changes/',
  label: 'change',
  tenantScoped: true,
  displayField: 'object_repr',
  timestamps: false,
  numbered: false,
  operations: { create: false, update: false, delete: false },
  fields: {
    time: { kind: 'datetime', readOnly: true },
    username: { kind: 'string', readOnly: true },
    request_id: { kind: 'string', readOnly: true },
    action: {
      kind: 'choice',
      readOnly: true,
      choices: [
        { value: 'create', label: 'Created' },
        { value: 'update', label: 'Updated' },
        { value: 'delete', label: 'Deleted' },
        { value: 'reveal', label: 'Secret revealed' },
      ],
    },
    object_type: { kind: 'string', readOnly: true },
    object_id: { kind: 'uuid', readOnly: true },
    object_repr: { kind: 'string', readOnly: true, label: 'Object' },
    before: { kind: 'json', readOnly: true, nullable: true },
    after: { kind: 'json', readOnly: true, nullable: true },
  },
  searchFields: ['object_repr', 'username'],
  defaultOrdering: ['-time'],
});

export const journalModel = defineModel({
  name: 'core.journalentry',
  table: 'journal_entries',
  path: '/api/journal-entries/',
  label: 'journal entry',
  labelPlural: 'journal entries',
  tenantScoped: true,
  displayField: 'kind',
  fields: {
    object_type: { kind: 'string', maxLength: 100 },
    object_id: { kind: 'uuid' },
    kind: {
      kind: 'choice',
      default: 'info',
      choices: [
        { value: 'info', label: 'Info' },
        { value: 'success', label: 'Success' },
        { value: 'warning', label: 'Warning' },
        { value: 'danger', label: 'Danger' },
      ],
    },
    comments: { kind: 'text', maxLength: 65_536 },
    author: { kind: 'fk', target: 'users.user', readOnly: true, nullable: true, onDelete: 'set_null' },
  },
  searchFields: ['comments'],
  defaultOrdering: ['-created'],
  createDefaults: (ctx) => ({ author_id: ctx.via === 'system' ? null : ctx.user?.id ?? null }),
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, ctx, input, existing }) {
      const type = (input.object_type ?? existing?.object_type) as string;
      const id = (input.object_id ?? existing?.object_id) as string;
      const target = getModel(type);
      if (!target || !target.tenantScoped) throw fieldError('object_type', `"${type}" is not an object type journal entries can be written on.`);
      const { rows } = await sql`SELECT 1 FROM ${sql.table(target.table)} WHERE id = ${id} AND tenant_id = ${ctx.tenantId}`.execute(tx);
      if (rows.length === 0) throw fieldError('object_id', `No ${target.label} with id ${id} exists.`);
    },
  },
});
