// Who is asking, in which tenant, with which grants: built once per request by the auth hook.

export interface AuthUser {
  id: string;
  username: string;
  email: string;
  isSuperuser: boolean;
}

export interface RequestContext {
  user: AuthUser | null;
  tenantId: string | null;
  /** Tenants the user belongs to (a superuser may enter any tenant). */
  tenantIds: readonly string[];
  /** Grants `<model>.<action>`; `*.<action>` grants the action on every model. */
  permissions: ReadonlySet<string>;
  readOnly: boolean;
  requestId: string;
  via: 'session' | 'token' | 'system' | 'anonymous';
  /**
   * false: changes are logged, but the change listeners (the webhook outbox) do not hear of them. An import of
   * another system's objects (`cairn import netbox`) is not news to anyone's webhooks.
   */
  notify?: boolean;
}

export function can(ctx: RequestContext, permission: string): boolean {
  if (ctx.user?.isSuperuser) return true;
  if (ctx.permissions.has(permission)) return true;
  const action = permission.slice(permission.lastIndexOf('.') + 1);
  // `users.manage` and other named extras are never granted by a wildcard.
  return action !== 'manage' && ctx.permissions.has(`*.${action}`);
}

/** The context of CLI commands and internal jobs: acts as a superuser inside one tenant. */
export function systemContext(tenantId: string | null, requestId = 'system'): RequestContext {
  return {
    user: { id: '00000000-0000-0000-0000-000000000000', username: 'system', email: '', isSuperuser: true },
    tenantId,
    tenantIds: tenantId ? [tenantId] : [],
    permissions: new Set(),
    readOnly: false,
    requestId,
    via: 'system',
  };
}
