// Sign-in, sign-out, who am I, tenant switching, and creating API tokens (the key is shown once).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { badRequest, unauthorized } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { dbOf, originOf, registryValidated } from '../http.ts';
import { hashPassword, needsRehash, verifyPassword } from './passwords.ts';
import { clearFailedSignIns, recordFailedSignIn, refuseWhileBlocked } from './throttle.ts';
import { CSRF_COOKIE, SESSION_COOKIE, SESSION_DAYS, createSession, newSecret, sha256 } from './credentials.ts';
import { tokenModel } from '../models.ts';
import { createObject } from '../crud/write.ts';
import { serializeOne } from '../crud/read.ts';
import { outputSchema } from '../crud/schemas.ts';

const LoginBody = Type.Object(
  { username: Type.String({ minLength: 1, maxLength: 150 }), password: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);
const TenantBody = Type.Object({ tenant: Type.String({ minLength: 1, maxLength: 100, description: 'Tenant id or slug.' }) }, { additionalProperties: false });

function setSessionCookies(req: FastifyRequest, reply: FastifyReply, cookieValue: string, csrfToken: string): void {
  const secure = req.protocol === 'https';
  const maxAge = SESSION_DAYS * 86_400;
  reply.setCookie(SESSION_COOKIE, cookieValue, { path: '/', httpOnly: true, sameSite: 'lax', secure, maxAge });
  // Readable by the UI so it can echo it in the CSRF header.
  reply.setCookie(CSRF_COOKIE, csrfToken, { path: '/', httpOnly: false, sameSite: 'lax', secure, maxAge });
}

async function describeMe(req: FastifyRequest) {
  const ctx = req.ctx;
  const db = dbOf(req);
  const { rows: tenants } = await sql<{ id: string; name: string; slug: string }>`
    SELECT id, name, slug FROM tenants WHERE id = ANY(${[...ctx.tenantIds, ...(ctx.tenantId ? [ctx.tenantId] : [])]}::uuid[]) ORDER BY name`.execute(db);
  let csrf: string | null = null;
  const cookie = req.cookies[SESSION_COOKIE];
  if (ctx.via === 'session' && cookie) {
    const { rows } = await sql<{ csrf_token: string }>`SELECT csrf_token FROM sessions WHERE id = ${sha256(cookie)}`.execute(db);
    csrf = rows[0]?.csrf_token ?? null;
  }
  return {
    user: { id: ctx.user!.id, username: ctx.user!.username, email: ctx.user!.email, is_superuser: ctx.user!.isSuperuser },
    tenants,
    active_tenant: tenants.find((t) => t.id === ctx.tenantId) ?? null,
    permissions: ctx.user!.isSuperuser ? ['*'] : [...ctx.permissions].sort(),
    via: ctx.via,
    read_only: ctx.readOnly,
    csrf_token: csrf,
  };
}

const tenantSchema = {
  type: 'object',
  properties: { id: { type: 'string', format: 'uuid' }, name: { type: 'string' }, slug: { type: 'string' } },
  required: ['id', 'name', 'slug'],
};

/** A named component: clients (the web UI's generated types among them) refer to it as `Me`. */
const meSchema = {
  $id: 'Me',
  type: 'object',
  properties: {
    user: {
      type: 'object',
      properties: { id: { type: 'string', format: 'uuid' }, username: { type: 'string' }, email: { type: ['string', 'null'] }, is_superuser: { type: 'boolean' } },
      required: ['id', 'username', 'is_superuser'],
    },
    tenants: { type: 'array', items: tenantSchema },
    active_tenant: { anyOf: [tenantSchema, { type: 'null' }] },
    permissions: { type: 'array', items: { type: 'string' }, description: 'Effective grants; ["*"] for a superuser.' },
    via: { type: 'string', enum: ['session', 'token'] },
    read_only: { type: 'boolean' },
    csrf_token: { type: ['string', 'null'], description: 'Send it as X-CSRF-Token on cookie-authenticated writes.' },
  },
  required: ['user', 'tenants', 'active_tenant', 'permissions', 'via', 'read_only', 'csrf_token'],
};

export function registerAuthRoutes(app: FastifyInstance): void {
  app.addSchema(meSchema);
  app.post('/api/auth/login/', {
    schema: {
      tags: ['auth'],
      summary: 'Sign in (sets the session cookie)',
      security: [],
      body: LoginBody,
      response: {
        200: { type: 'object', properties: { detail: { type: 'string' }, csrf_token: { type: 'string', description: 'Send it back as X-CSRF-Token on writes made with the session cookie.' } } },
        429: { type: 'object', properties: { detail: { type: 'string' } }, description: 'Too many failed sign-ins for this account or from this address: try again after Retry-After seconds.' },
      },
    },
    handler: async (req, reply) => {
      const { username, password } = req.body as { username: string; password: string };
      const db = dbOf(req);
      await refuseWhileBlocked(db, username, req.ip);
      const user = await db.selectFrom('users').select(['id', 'password_hash', 'is_active']).where('username', '=', username).executeTakeFirst();
      // Same work and answer whether the user exists or not, so sign-in does not reveal usernames.
      const valid = await verifyPassword(password, user?.password_hash ?? `scrypt$16384$8$1$${'0'.repeat(32)}$${'0'.repeat(64)}`);
      if (!user || !valid || !user.is_active) {
        await recordFailedSignIn(db, username, req.ip, user?.id ?? null);
        throw unauthorized('Invalid username or password.');
      }
      await clearFailedSignIns(db, username, user.id);
      const session = await createSession(db, user.id);
      // A password hash imported from NetBox (Django's pbkdf2_sha256) becomes Cairn's own now that the password is known.
      const rehashed = needsRehash(user.password_hash) ? { password_hash: await hashPassword(password) } : {};
      await db.updateTable('users').set({ last_login: new Date(), ...rehashed }).where('id', '=', user.id).execute();
      setSessionCookies(req, reply, session.cookieValue, session.csrfToken);
      return { detail: 'Signed in.', csrf_token: session.csrfToken };
    },
  });

  app.post('/api/auth/logout/', {
    schema: { tags: ['auth'], summary: 'Sign out (ends the session)', response: { 204: { type: 'null', description: 'Signed out.' } } },
    handler: async (req, reply) => {
      const cookie = req.cookies[SESSION_COOKIE];
      if (cookie) await dbOf(req).deleteFrom('sessions').where('id', '=', sha256(cookie)).execute();
      reply.clearCookie(SESSION_COOKIE, { path: '/' }).clearCookie(CSRF_COOKIE, { path: '/' });
      reply.code(204).send();
    },
  });

  app.get('/api/auth/me/', {
    schema: { tags: ['auth'], summary: 'The signed-in user, tenants, active tenant and effective permissions', response: { 200: { $ref: 'Me#' } } },
    handler: async (req) => describeMe(req),
  });

  app.post('/api/auth/tenant/', {
    schema: { tags: ['auth'], summary: "Switch the session's active tenant", body: TenantBody, response: { 200: { $ref: 'Me#' } } },
    handler: async (req) => {
      const ctx = req.ctx;
      if (ctx.via !== 'session') throw badRequest({ tenant: ['A token is bound to its tenant; sign in with a session to switch tenants.'] });
      const ref = (req.body as { tenant: string }).tenant;
      const db = dbOf(req);
      const tenant = await db
        .selectFrom('tenants')
        .select(['id'])
        .where(isUuid(ref) ? 'id' : 'slug', '=', isUuid(ref) ? ref.toLowerCase() : ref)
        .executeTakeFirst();
      if (!tenant || (!ctx.user!.isSuperuser && !ctx.tenantIds.includes(tenant.id))) throw badRequest({ tenant: [`You are not a member of a tenant "${ref}".`] });
      await db.updateTable('sessions').set({ tenant_id: tenant.id }).where('id', '=', sha256(req.cookies[SESSION_COOKIE]!)).execute();
      req.ctx = { ...ctx, tenantId: tenant.id };
      return describeMe(req);
    },
  });

  // The token as every token route answers it, and its key, which no other answer shows.
  const tokenSchema = outputSchema(tokenModel);
  const tokenWithKey = { ...tokenSchema, properties: { ...(tokenSchema.properties as object), key: { type: 'string', description: 'The secret to send as `Authorization: Token <key>`; shown only here.' } }, required: ['key'] };
  app.post(tokenModel.path, {
    ...registryValidated,
    schema: {
      tags: ['users'],
      summary: 'Create an API token (the key is returned once, in this answer)',
      body: { $ref: 'WritableUsersToken#' },
      response: { 201: tokenWithKey },
    },
    handler: async (req, reply) => {
      if (!req.ctx.user) throw unauthorized();
      const key = newSecret(20);
      const row = await createObject(dbOf(req), req.ctx, tokenModel, req.body, { key_hash: sha256(key), key_prefix: key.slice(0, 8) });
      reply.code(201);
      return { ...(await serializeOne(dbOf(req), req.ctx, tokenModel, row, originOf(req))), key };
    },
  });
}

