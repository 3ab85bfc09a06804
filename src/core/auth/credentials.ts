// Turns a token or a session cookie into a RequestContext with one indexed lookup. Token lookups are
// cached for a short time (never past the token's expiry) so a token-authenticated request costs at most
// one query; revocation reaches other processes within TOKEN_CACHE_MS. The same query keeps the token's last_used.
import { createHash, randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import type { AuthUser } from '../context.ts';

export const TOKEN_CACHE_MS = 60_000;
export const SESSION_COOKIE = 'cairn_session';
export const CSRF_COOKIE = 'cairn_csrf';
export const CSRF_HEADER = 'x-csrf-token';
export const SESSION_DAYS = 14;

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function newSecret(bytes = 20): string {
  return randomBytes(bytes).toString('hex');
}

export interface ResolvedCredentials {
  user: AuthUser;
  tenantId: string | null;
  tenantIds: string[];
  permissions: Set<string>;
  readOnly: boolean;
  csrfToken: string | null;
  sessionId: string | null;
  /** The token's id (its write mark's key: src/core/read-routing.ts); null for a session. */
  tokenId: string | null;
  /**
   * Sessions, with read replicas: the WAL position after the session's last write (write_marks), read by the same
   * statement that checks the session. Tokens read theirs per request instead, since their check is cached.
   */
  writeMark: string | null;
}

interface CachedToken {
  value: ResolvedCredentials;
  until: number;
}

const tokenCache = new Map<string, CachedToken>();
const MAX_CACHED_TOKENS = 10_000;

export function forgetCachedTokens(): void {
  tokenCache.clear();
}

interface PrincipalRow {
  id: string;
  username: string;
  email: string;
  is_superuser: boolean;
  is_active: boolean;
  tenant_id: string | null;
  tenant_ids: string[];
  permissions: string[];
  read_only: boolean;
  csrf_token: string | null;
  expires: Date | null;
  token_id: string | null;
  write_mark: string | null;
}

// One query: the principal, its grants and its active tenant.
const permissionsOf = sql`ARRAY(SELECT DISTINCT gp.permission::text FROM user_groups ug JOIN group_permissions gp ON gp.group_id = ug.group_id WHERE ug.user_id = u.id) AS permissions,
  ARRAY(SELECT m.tenant_id::text FROM tenant_memberships m WHERE m.user_id = u.id) AS tenant_ids`;

export async function resolveToken(db: Kysely<DB>, key: string): Promise<ResolvedCredentials | null> {
  const hash = sha256(key);
  const now = Date.now();
  const cached = tokenCache.get(hash);
  if (cached && cached.until > now) return cached.value;
  if (cached) tokenCache.delete(hash);
  // last_used is written in the same statement, only on a cache miss and at most once a minute, so a busy
  // automation token costs no extra write per request (a miss happens about once per TOKEN_CACHE_MS per process).
  const { rows } = await sql<PrincipalRow>`
    WITH touched AS (
      UPDATE tokens tt SET last_used = now() FROM users uu
      WHERE tt.key_hash = ${hash} AND uu.id = tt.user_id AND uu.is_active AND (tt.expires IS NULL OR tt.expires > now())
        AND (tt.last_used IS NULL OR tt.last_used < now() - interval '1 minute')
      RETURNING tt.id
    )
    SELECT u.id, u.username, u.email, u.is_superuser, u.is_active, t.read_only, t.expires, NULL AS csrf_token, t.id AS token_id, NULL AS write_mark,
      CASE WHEN u.is_superuser OR EXISTS (SELECT 1 FROM tenant_memberships m WHERE m.user_id = u.id AND m.tenant_id = t.tenant_id)
        THEN t.tenant_id END AS tenant_id,
      ${permissionsOf}
    FROM tokens t JOIN users u ON u.id = t.user_id
    WHERE t.key_hash = ${hash}`.execute(db);
  const row = rows[0];
  if (!row || !row.is_active || (row.expires && row.expires.getTime() <= now)) return null;
  const value = toCredentials(row, null);
  if (tokenCache.size >= MAX_CACHED_TOKENS) tokenCache.delete(tokenCache.keys().next().value!);
  tokenCache.set(hash, { value, until: Math.min(now + TOKEN_CACHE_MS, row.expires?.getTime() ?? Infinity) });
  return value;
}

/** `withWriteMark`: read replicas are configured, and the session's write mark is read with it (no extra statement). */
export async function resolveSession(db: Kysely<DB>, cookieValue: string, withWriteMark = false): Promise<ResolvedCredentials | null> {
  const id = sha256(cookieValue);
  const writeMark = withWriteMark ? sql`(SELECT w.lsn::text FROM write_marks w WHERE w.key = s.id)` : sql`NULL`;
  const { rows } = await sql<PrincipalRow>`
    SELECT u.id, u.username, u.email, u.is_superuser, u.is_active, false AS read_only, s.expires, s.csrf_token, NULL AS token_id, ${writeMark} AS write_mark,
      COALESCE(
        (SELECT t.id FROM tenants t WHERE t.id = s.tenant_id
           AND (u.is_superuser OR EXISTS (SELECT 1 FROM tenant_memberships m WHERE m.user_id = u.id AND m.tenant_id = t.id))),
        (SELECT m.tenant_id FROM tenant_memberships m WHERE m.user_id = u.id AND m.tenant_id = u.home_tenant_id),
        (SELECT m.tenant_id FROM tenant_memberships m JOIN tenants t ON t.id = m.tenant_id WHERE m.user_id = u.id ORDER BY t.name LIMIT 1),
        CASE WHEN u.is_superuser THEN u.home_tenant_id END
      ) AS tenant_id,
      ${permissionsOf}
    FROM sessions s JOIN users u ON u.id = s.user_id
    WHERE s.id = ${id}`.execute(db);
  const row = rows[0];
  if (!row || !row.is_active || (row.expires && row.expires.getTime() <= Date.now())) return null;
  return toCredentials(row, id);
}

function toCredentials(row: PrincipalRow, sessionId: string | null): ResolvedCredentials {
  return {
    user: { id: row.id, username: row.username, email: row.email, isSuperuser: row.is_superuser },
    tenantId: row.tenant_id,
    tenantIds: row.tenant_ids,
    permissions: new Set(row.permissions),
    readOnly: row.read_only,
    csrfToken: row.csrf_token,
    sessionId,
    tokenId: row.token_id,
    writeMark: row.write_mark,
  };
}

export async function createSession(db: Kysely<DB>, userId: string): Promise<{ cookieValue: string; csrfToken: string; expires: Date }> {
  const cookieValue = newSecret(32);
  const csrfToken = newSecret(16);
  const expires = new Date(Date.now() + SESSION_DAYS * 86_400_000);
  await db.insertInto('sessions').values({ id: sha256(cookieValue), user_id: userId, tenant_id: null, csrf_token: csrfToken, expires }).execute();
  return { cookieValue, csrfToken, expires };
}
