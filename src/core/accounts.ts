// Account operations shared by the CLI, first-run setup and tests: tenants, users, tokens.
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { systemContext, type RequestContext } from './context.ts';
import { createObject } from './crud/write.ts';
import { tenantModel, tokenModel, userModel } from './models.ts';
import { newSecret, sha256 } from './auth/credentials.ts';
import { randomPassword } from './auth/passwords.ts';
import { ApiError } from './errors.ts';

export class AccountError extends Error {}

/** Re-raises an API validation error as a one-line message for the command line. */
async function asAccountError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ApiError) {
      const parts = Object.entries(err.body).map(([k, v]) => (k === 'detail' ? String(v) : `${k}: ${Array.isArray(v) ? v.join(' ') : String(v)}`));
      throw new AccountError(parts.join('; '));
    }
    throw err;
  }
}

export async function createTenant(db: Kysely<DB>, name: string, slug: string, description = ''): Promise<{ id: string }> {
  const row = await asAccountError(() => createObject(db, systemContext(null), tenantModel, { name, slug, description }));
  return { id: String(row.id) };
}

export interface NewUser {
  username: string;
  password: string;
  email?: string;
  isSuperuser?: boolean;
  tenantIds?: string[];
  groupIds?: string[];
}

export async function createUser(db: Kysely<DB>, user: NewUser): Promise<{ id: string }> {
  const tenants = user.tenantIds ?? [];
  const row = await asAccountError(() =>
    createObject(db, systemContext(null), userModel, {
      username: user.username,
      password: user.password,
      email: user.email ?? '',
      is_superuser: user.isSuperuser ?? false,
      tenants,
      groups: user.groupIds ?? [],
      home_tenant: tenants[0] ?? null,
    }),
  );
  return { id: String(row.id) };
}

export async function defaultTenantId(db: Kysely<DB>): Promise<string | null> {
  const row = await db.selectFrom('tenants').select('id').orderBy('numid').executeTakeFirst();
  return row?.id ?? null;
}

export interface NewToken {
  username: string;
  tenantSlug?: string;
  readOnly?: boolean;
  expiresDays?: number;
  description?: string;
}

/** Creates a token and returns its key (shown once; only its hash is stored). */
export async function createToken(db: Kysely<DB>, t: NewToken): Promise<string> {
  const user = await db.selectFrom('users').select(['id', 'username', 'email', 'is_superuser', 'home_tenant_id']).where('username', '=', t.username).executeTakeFirst();
  if (!user) throw new AccountError(`No user named "${t.username}".`);
  const memberships = (await db.selectFrom('tenant_memberships').select('tenant_id').where('user_id', '=', user.id).execute()).map((r) => r.tenant_id);
  let tenantId = user.home_tenant_id ?? memberships[0] ?? null;
  if (t.tenantSlug) {
    const tenant = await db.selectFrom('tenants').select('id').where('slug', '=', t.tenantSlug).executeTakeFirst();
    if (!tenant) throw new AccountError(`No tenant with slug "${t.tenantSlug}".`);
    tenantId = tenant.id;
  }
  if (!tenantId) throw new AccountError(`User "${t.username}" belongs to no tenant: pass --tenant.`);
  const ctx: RequestContext = {
    user: { id: user.id, username: user.username, email: user.email, isSuperuser: user.is_superuser },
    tenantId,
    tenantIds: memberships,
    permissions: new Set(),
    readOnly: false,
    requestId: 'cli',
    via: 'system',
  };
  const key = newSecret(20);
  const body: Record<string, unknown> = { tenant: tenantId, read_only: t.readOnly ?? false, description: t.description ?? '' };
  if (t.expiresDays !== undefined) body.expires = new Date(Date.now() + t.expiresDays * 86_400_000).toISOString();
  await asAccountError(() => createObject(db, ctx, tokenModel, body, { key_hash: sha256(key), key_prefix: key.slice(0, 8) }));
  return key;
}

export interface FirstRun {
  adminCreated: boolean;
  adminPassword: string | null;
}

/** On an empty database: a tenant "Default" and a superuser `admin` (password from the environment, else random). */
export async function ensureInitialData(db: Kysely<DB>, adminPassword: string | null): Promise<FirstRun> {
  let tenantId = await defaultTenantId(db);
  if (!tenantId) tenantId = (await createTenant(db, 'Default', 'default', 'Created on first run.')).id;
  const anyUser = await db.selectFrom('users').select('id').executeTakeFirst();
  if (anyUser) return { adminCreated: false, adminPassword: null };
  const password = adminPassword ?? randomPassword();
  await createUser(db, { username: 'admin', password, isSuperuser: true, tenantIds: [tenantId] });
  return { adminCreated: true, adminPassword: password };
}
