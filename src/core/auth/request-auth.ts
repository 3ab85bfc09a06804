// The front of the security boundary: authenticate, pick the active tenant, refuse read-only writes and
// cookie writes without the CSRF token, all in one place for every route.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RequestContext } from '../context.ts';
import { ApiError, forbidden, unauthorized } from '../errors.ts';
import { CSRF_HEADER, SESSION_COOKIE, resolveSession, resolveToken, type ResolvedCredentials } from './credentials.ts';
import { recordFailedToken } from './throttle.ts';
import { routeRequest } from '../read-routing.ts';
import { SAFE_METHODS } from '../safe-methods.ts';

/** Paths answered without credentials. */
// The upgrade engine's calls carry its own secret (src/upgrade/routes.ts) instead of credentials.
const PUBLIC_PATHS = new Set(['/api/health/', '/api/auth/login/', '/api/system/upgrade/resume/', '/api/system/upgrade/backup/', '/api/system/upgrade/running-jobs/', '/api/system/upgrade/job/', '/api/system/upgrade/read-only/', '/api/system/upgrade/hand-over/']);

function pathOf(req: FastifyRequest): string {
  const path = req.url.split('?')[0]!;
  return path.endsWith('/') ? path : `${path}/`;
}

/**
 * The token key an Authorization header carries: `Token <key>` (Cairn's and NetBox's), or NetBox 4.5's
 * `Bearer nbt_<key id>.<secret>`, whose key id is the prefix Cairn shows of a key and the secret the rest of it
 * (`Bearer <key>` is taken too).
 */
export function tokenKey(header: string): string | null {
  const token = /^Token\s+(\S+)$/i.exec(header);
  if (token) return token[1]!;
  const v2 = /^Bearer\s+nbt_([A-Za-z0-9_-]+)\.(\S+)$/i.exec(header);
  if (v2) return `${v2[1]}${v2[2]}`;
  return /^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? null;
}

export function anonymousContext(requestId: string): RequestContext {
  return { user: null, tenantId: null, tenantIds: [], permissions: new Set(), readOnly: false, requestId, via: 'anonymous' };
}

export function registerRequestAuth(app: FastifyInstance): void {
  app.decorateRequest('ctx', null as unknown as RequestContext);
  app.addHook('onRequest', async (req) => {
    req.ctx = anonymousContext(String(req.id));
    const path = pathOf(req);
    if (!path.startsWith('/api/') || PUBLIC_PATHS.has(path)) return;
    // `/api/` answers API clients without credentials NetBox's API root (pynetbox reads NetBox's version there, sending
    // none) and sends browsers to the reference, which asks for them. Credentials sent are checked as anywhere.
    if (path === '/api/' && req.headers.authorization === undefined && !req.cookies[SESSION_COOKIE]) return;

    let creds: ResolvedCredentials | null = null;
    let via: RequestContext['via'] = 'anonymous';
    const header = req.headers.authorization;
    if (header !== undefined) {
      const key = tokenKey(header);
      if (!key) throw unauthorized('Use the header "Authorization: Token <key>".');
      creds = await resolveToken(app.database.db, key);
      if (!creds) {
        // Failed checks count against the address (throttle.ts): a guesser gets 429, valid tokens never pay for it.
        await recordFailedToken(app.database.db, req.ip);
        throw unauthorized('Invalid or expired token.');
      }
      via = 'token';
    } else {
      const cookie = req.cookies[SESSION_COOKIE];
      if (cookie) {
        creds = await resolveSession(app.database.db, cookie, Boolean(app.database.replicas));
        via = 'session';
      }
      if (!creds) throw unauthorized();
    }
    req.ctx = {
      user: creds.user,
      tenantId: creds.tenantId,
      tenantIds: creds.tenantIds,
      permissions: creds.permissions,
      readOnly: creds.readOnly,
      requestId: String(req.id),
      via,
    };
    // With read replicas: a read is given one, a write records its mark once answered (src/core/read-routing.ts).
    if (SAFE_METHODS.has(req.method)) {
      if (app.database.replicas) await routeRequest(app, req, via, creds);
      return;
    }
    if (creds.readOnly) {
      // Refused here for every route; a route whose POST changes nothing but needs a permission a read-only token
      // never carries (revealing a secret) says which, in its config.
      const own = req.routeOptions.config?.readOnlyRefusal;
      throw forbidden(own ?? 'This token is read only: it cannot change anything.');
    }
    if (via === 'session' && req.headers[CSRF_HEADER] !== creds.csrfToken) {
      throw new ApiError(403, { detail: `CSRF check failed: send the session's CSRF token in the ${CSRF_HEADER} header.` });
    }
    if (app.database.replicas) await routeRequest(app, req, via, creds);
  });
}
