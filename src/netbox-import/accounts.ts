// NetBox's users, groups, API tokens and permissions. Cairn's accounts are deployment-wide (a user belongs to
// tenants): a NetBox user becomes a Cairn user and a member of the import's tenant, keeping NetBox's Django
// password hash (accepted at sign-in and replaced by Cairn's own at the first one, src/core/auth/passwords.ts).
// A username Cairn already has is that account: it joins the tenant, its password and flags stay Cairn's. Tokens
// keep their keys (NetBox up to 4.4 stores them readable; Cairn stores their SHA-256), so scripts keep working.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { TENANT_COLUMN } from '../core/access.ts';
import { BulkLoad } from '../core/crud/bulk-load.ts';
import { columnOf, getModel, requireModel } from '../core/registry.ts';
import { insertRows } from '../core/crud/insert-rows.ts';
import { sha256 } from '../core/auth/credentials.ts';
import type { NetBoxSource, NetBoxRow } from './source.ts';
import { RENAMED_MODELS } from './table-map.ts';

export interface AccountsReport {
  users: { read: number; created: number; matched: number; matchedNames: string[] };
  groups: { read: number; created: number; matched: number };
  tokens: { read: number; created: number; unchanged: number; notes: string[] };
  /** Cairn group grants made from NetBox object permissions. */
  permissionsGranted: number;
  /** NetBox permissions Cairn's model cannot say (constraints, grants to single users, actions without a Cairn name). */
  permissionsNotMapped: string[];
}

/** NetBox's actions → Cairn's (`<model>.<action>`). */
const ACTIONS: Record<string, string> = { view: 'view', add: 'add', change: 'change', delete: 'delete' };

export async function importAccounts(tx: Kysely<DB>, source: NetBoxSource, ctx: RequestContext): Promise<{ report: AccountsReport; userIds: Map<number, string> }> {
  const tenantId = ctx.tenantId!;
  // Users, groups and tokens are deployment-wide: written in no tenant, logged and as quiet as the import.
  const global: RequestContext = { ...ctx, tenantId: null, tenantIds: [] };
  const load = new BulkLoad(tx, ctx);
  const report: AccountsReport = {
    users: { read: 0, created: 0, matched: 0, matchedNames: [] },
    groups: { read: 0, created: 0, matched: 0 },
    tokens: { read: 0, created: 0, unchanged: 0, notes: [] },
    permissionsGranted: 0,
    permissionsNotMapped: [],
  };
  const userTable = source.hasTable('users_user') ? 'users_user' : 'auth_user';
  const groupTable = source.hasTable('users_group') ? 'users_group' : 'auth_group';
  const memberTable = userTable === 'users_user' ? 'users_user_groups' : 'auth_user_groups';

  // Groups, by name.
  const groupIds = new Map<number, string>();
  const nbGroups = source.hasTable(groupTable) ? await source.rows(groupTable) : [];
  report.groups.read = nbGroups.length;
  if (nbGroups.length) {
    const { rows: have } = await sql<{ id: string; name: string }>`SELECT id, name FROM groups WHERE name = ANY(${nbGroups.map((g) => String(g.name))}::text[])`.execute(tx);
    const byName = new Map(have.map((g) => [g.name, g.id]));
    const missing = nbGroups.filter((g) => !byName.has(String(g.name)));
    if (missing.length) {
      const created = await insertRows(tx, global, requireModel('users.group'), missing.map((g) => ({ name: String(g.name), description: String(g.description ?? '').slice(0, 200) })));
      for (const c of created) byName.set(String(c.name), String(c.id));
    }
    report.groups.created = missing.length;
    report.groups.matched = nbGroups.length - missing.length;
    for (const g of nbGroups) groupIds.set(Number(g.id), byName.get(String(g.name))!);
  }

  // Users, by username.
  const userIds = new Map<number, string>();
  const nbUsers = source.hasTable(userTable) ? await source.rows(userTable) : [];
  report.users.read = nbUsers.length;
  if (nbUsers.length) {
    const { rows: have } = await sql<{ id: string; username: string }>`SELECT id, username FROM users WHERE username = ANY(${nbUsers.map((u) => String(u.username))}::text[])`.execute(tx);
    const byName = new Map(have.map((u) => [u.username, u.id]));
    const missing = nbUsers.filter((u) => !byName.has(String(u.username)));
    if (missing.length) {
      const userModel = requireModel('users.user');
      const created = await insertRows(tx, global, userModel, missing.map((u) => ({
        username: String(u.username),
        email: String(u.email ?? ''),
        // Django's hash as is ("!…" marks an unusable password: no password signs in).
        password_hash: String(u.password ?? '!'),
        is_superuser: Boolean(u.is_superuser),
        is_active: Boolean(u.is_active),
        // The users.user field's column (its home tenant), asked of the registry rather than spelt here.
        [columnOf('home_tenant', userModel.fields.home_tenant!)]: tenantId,
      })));
      for (const c of created) byName.set(String(c.username), String(c.id));
    }
    report.users.created = missing.length;
    report.users.matched = nbUsers.length - missing.length;
    report.users.matchedNames = nbUsers.filter((u) => !missing.includes(u)).map((u) => String(u.username));
    for (const u of nbUsers) userIds.set(Number(u.id), byName.get(String(u.username))!);
    await load.link('tenant_memberships', [['user_id', 'uuid']], [[...userIds.values()]], {}, { skipExisting: true, inTenant: true });
  }
  if (source.hasTable(memberTable)) {
    const links = (await source.rows(memberTable)).map((l) => [userIds.get(Number(l.user_id)), groupIds.get(Number(l.group_id))]).filter((l): l is [string, string] => Boolean(l[0] && l[1]));
    if (links.length) {
      await load.link('user_groups', [['user_id', 'uuid'], ['group_id', 'uuid']], [links.map((l) => l[0]), links.map((l) => l[1])], {}, { skipExisting: true });
    }
  }

  // API tokens: the key's hash is how Cairn finds a token, so an existing hash is the same token.
  if (source.hasTable('users_token')) {
    const tokens = await source.rows('users_token');
    report.tokens.read = tokens.length;
    const withKey = tokens.filter((t) => typeof t.key === 'string' && t.key !== '' && userIds.has(Number(t.user_id)));
    if (withKey.length < tokens.length) report.tokens.notes.push(`${tokens.length - withKey.length} tokens without a readable key (NetBox 4.5 v2 tokens) or user were left out`);
    const { rows: have } = await sql<{ key_hash: string }>`SELECT key_hash FROM tokens WHERE key_hash = ANY(${withKey.map((t) => sha256(String(t.key)))}::text[])`.execute(tx);
    const known = new Set(have.map((h) => h.key_hash.trim()));
    const fresh = withKey.filter((t) => !known.has(sha256(String(t.key))));
    const restricted = withKey.filter((t) => Array.isArray(t.allowed_ips) && (t.allowed_ips as unknown[]).length > 0).length;
    if (restricted) report.tokens.notes.push(`${restricted} tokens had allowed_ips, which Cairn tokens do not have: they work from any address now`);
    if (fresh.length) {
      await insertRows(tx, global, requireModel('users.token'), fresh.map((t) => ({
        user_id: userIds.get(Number(t.user_id))!,
        [TENANT_COLUMN]: tenantId,
        key_hash: sha256(String(t.key)),
        key_prefix: String(t.key).slice(0, 8),
        description: String(t.description ?? '').slice(0, 200),
        read_only: t.write_enabled === false,
        expires: t.expires ?? null,
      })));
    }
    report.tokens.created = fresh.length;
    report.tokens.unchanged = withKey.length - fresh.length;
  }

  await importPermissions(tx, source, groupIds, report, global);
  return { report, userIds };
}

/**
 * NetBox object permissions (actions on object types, optionally constrained, granted to groups and users) →
 * Cairn group grants `<model>.<action>` for the unconstrained ones granted to groups; the rest is reported.
 */
async function importPermissions(tx: Kysely<DB>, source: NetBoxSource, groupIds: Map<number, string>, report: AccountsReport, global: RequestContext): Promise<void> {
  if (!source.hasTable('users_objectpermission')) return;
  const perms = await source.rows('users_objectpermission');
  if (perms.length === 0) return;
  const types = source.hasTable('users_objectpermission_object_types') ? await source.rows('users_objectpermission_object_types') : [];
  // 3.7 keeps the grants on the permission (…_groups, …_users), 4.x on the group and the user.
  const groupTable = ['users_group_object_permissions', 'users_objectpermission_groups'].find((t) => source.hasTable(t));
  const userTable = ['users_user_object_permissions', 'users_objectpermission_users'].find((t) => source.hasTable(t));
  const groups = groupTable ? await source.rows(groupTable) : [];
  const users = userTable ? await source.rows(userTable) : [];
  const grants: Array<{ group_id: string; permission: string }> = [];
  for (const p of perms) {
    const name = String(p.name);
    if (p.enabled === false) {
      report.permissionsNotMapped.push(`${name}: disabled in NetBox, not granted`);
      continue;
    }
    if (hasConstraints(p.constraints)) report.permissionsNotMapped.push(`${name}: constraints ${JSON.stringify(p.constraints)} have no Cairn equivalent; not granted`);
    const userCount = users.filter((u) => u.objectpermission_id === p.id).length;
    if (userCount) report.permissionsNotMapped.push(`${name}: granted to ${userCount} users directly; Cairn grants to groups only`);
    if (hasConstraints(p.constraints)) continue;
    const models = types.filter((t) => t.objectpermission_id === p.id).map((t) => {
      const nb = source.objectTypeName(t.objecttype_id ?? t.contenttype_id);
      const cairn = nb ? (RENAMED_MODELS[nb] ?? nb) : null;
      return cairn ? getModel(cairn) : undefined;
    });
    const actions = ((p.actions ?? []) as string[]);
    for (const a of actions.filter((x) => !ACTIONS[x])) report.permissionsNotMapped.push(`${name}: action "${a}" has no Cairn name`);
    for (const g of groups.filter((x) => x.objectpermission_id === p.id)) {
      const groupId = groupIds.get(Number(g.group_id));
      if (!groupId) continue;
      for (const m of models) {
        if (!m) continue;
        for (const a of actions) if (ACTIONS[a]) grants.push({ group_id: groupId, permission: `${m.permission}.${ACTIONS[a]}` });
      }
    }
    const unmapped = models.filter((m) => !m).length;
    if (unmapped) report.permissionsNotMapped.push(`${name}: ${unmapped} object types have no home in Cairn`);
  }
  if (grants.length === 0) return;
  const { rows: have } = await sql<{ group_id: string; permission: string }>`SELECT group_id, permission FROM group_permissions WHERE group_id = ANY(${[...new Set(grants.map((g) => g.group_id))]}::uuid[])`.execute(tx);
  const known = new Set(have.map((h) => `${h.group_id}:${h.permission}`));
  const fresh = [...new Map(grants.map((g) => [`${g.group_id}:${g.permission}`, g])).values()].filter((g) => !known.has(`${g.group_id}:${g.permission}`));
  if (fresh.length) await insertRows(tx, global, requireModel('users.permission'), fresh);
  report.permissionsGranted = fresh.length;
}

function hasConstraints(c: unknown): boolean {
  if (c === null || c === undefined) return false;
  if (Array.isArray(c)) return c.some((x) => hasConstraints(x));
  return typeof c === 'object' && Object.keys(c as object).length > 0;
}

export type { NetBoxRow };
