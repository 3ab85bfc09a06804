// Sign-in, sessions and CSRF, tenant switching, API tokens, permissions, and what authentication costs.
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { startHarness, type Harness } from './helpers/harness.ts';
import { forgetCachedTokens } from '../src/core/auth/credentials.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

interface Session {
  cookie: string;
  csrf: string;
}

async function login(username: string, password: string): Promise<LightMyRequestResponse> {
  return h.app.inject({ method: 'POST', url: '/api/auth/login/', payload: { username, password } });
}

async function session(username: string): Promise<Session> {
  const res = await login(username, `${username}-password`);
  expect(res.statusCode, res.body).toBe(200);
  const cookie = res.cookies.find((c) => c.name === 'cairn_session')!.value;
  const csrf = res.cookies.find((c) => c.name === 'cairn_csrf')!.value;
  return { cookie, csrf };
}

function withSession(s: Session, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, csrf: string | null = s.csrf) {
  return h.app.inject({
    method,
    url,
    cookies: { cairn_session: s.cookie, cairn_csrf: s.csrf },
    headers: csrf === null ? {} : { 'x-csrf-token': csrf },
    ...(payload ? { payload } : {}),
  });
}

async function userId(username: string): Promise<string> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM users WHERE username = ${username}`.execute(h.database.db);
  return rows[0]!.id;
}

describe('sessions', () => {
  it('login sets an HttpOnly SameSite=Lax session cookie and a readable CSRF cookie', async () => {
    const res = await login('alice', 'alice-password');
    expect(res.statusCode, res.body).toBe(200);
    const sessionCookie = res.cookies.find((c) => c.name === 'cairn_session');
    const csrfCookie = res.cookies.find((c) => c.name === 'cairn_csrf');
    expect(sessionCookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(csrfCookie?.httpOnly).not.toBe(true);
    expect(csrfCookie?.sameSite).toBe('Lax');
    expect((res.json() as { csrf_token: string }).csrf_token).toBe(csrfCookie!.value);
    // Only a hash of the cookie is stored.
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM sessions WHERE id = ${sessionCookie!.value}`.execute(h.database.db);
    expect(rows[0]!.n).toBe(0);
  });

  it('a wrong password or an unknown user is 401 with the same answer', async () => {
    const wrong = await login('alice', 'not-the-password');
    const unknown = await login('nosuchuser', 'whatever-password');
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.cookies.find((c) => c.name === 'cairn_session')).toBeUndefined();
    expect((await h.app.inject({ method: 'POST', url: '/api/auth/login/', payload: { username: 'alice' } })).statusCode).toBe(400);
  });

  it('cookie writes need the CSRF header; token writes do not', async () => {
    const s = await session('alice');
    const before = await sql<{ n: number }>`SELECT count(*)::int AS n FROM tags`.execute(h.database.db);
    const none = await withSession(s, 'POST', '/api/tags/', { name: 'csrf-none', slug: 'csrf-none' }, null);
    expect(none.statusCode, none.body).toBe(403);
    const wrong = await withSession(s, 'POST', '/api/tags/', { name: 'csrf-wrong', slug: 'csrf-wrong' }, 'not-the-token');
    expect(wrong.statusCode).toBe(403);
    const after = await sql<{ n: number }>`SELECT count(*)::int AS n FROM tags`.execute(h.database.db);
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
    // Reads need no CSRF token.
    expect((await withSession(s, 'GET', '/api/tags/', undefined, null)).statusCode).toBe(200);
    const ok = await withSession(s, 'POST', '/api/tags/', { name: 'csrf-ok', slug: 'csrf-ok' });
    expect(ok.statusCode, ok.body).toBe(201);
    const byToken = await h.as('alice').post('/api/tags/', { name: 'token-write', slug: 'token-write' });
    expect(byToken.statusCode, byToken.body).toBe(201);
  });

  it('logout ends the session', async () => {
    const s = await session('alice');
    expect((await withSession(s, 'GET', '/api/auth/me/')).statusCode).toBe(200);
    const out = await withSession(s, 'POST', '/api/auth/logout/');
    expect(out.statusCode).toBe(204);
    expect((await withSession(s, 'GET', '/api/auth/me/')).statusCode).toBe(401);
    expect((await withSession(s, 'GET', '/api/tags/')).statusCode).toBe(401);
  });

  it('/api/auth/me/ describes the user, tenants, active tenant and permissions', async () => {
    const s = await session('viewer');
    const me = (await withSession(s, 'GET', '/api/auth/me/')).json() as Record<string, unknown>;
    expect(me.user).toMatchObject({ username: 'viewer', is_superuser: false });
    expect(me.tenants).toEqual([expect.objectContaining({ id: h.tenants.a, slug: 'alpha', name: 'Alpha' })]);
    expect(me.active_tenant).toMatchObject({ id: h.tenants.a, slug: 'alpha' });
    expect(me.permissions).toEqual(['*.view']);
    expect(me.via).toBe('session');
    expect(me.csrf_token).toBe(s.csrf);

    const admin = (await h.as('adminB').get('/api/auth/me/')).json() as Record<string, unknown>;
    expect(admin.user).toMatchObject({ username: 'admin', is_superuser: true });
    expect(admin.active_tenant).toMatchObject({ slug: 'beta' });
    expect((admin.tenants as Array<{ slug: string }>).map((t) => t.slug).sort()).toEqual(['alpha', 'beta']);
    expect(admin.permissions).toEqual(['*']);
    expect(admin.via).toBe('token');
  });

  it('/api/auth/tenant/ switches a session to a tenant the user belongs to, only', async () => {
    const s = await session('admin');
    const betaTag = await h.as('adminB').post('/api/tags/', { name: 'beta-only', slug: 'beta-only' });
    expect(betaTag.statusCode).toBe(201);
    expect((await withSession(s, 'GET', `/api/tags/${betaTag.json().id}/`)).statusCode).toBe(404);
    const switched = await withSession(s, 'POST', '/api/auth/tenant/', { tenant: 'beta' });
    expect(switched.statusCode, switched.body).toBe(200);
    expect(switched.json().active_tenant).toMatchObject({ slug: 'beta' });
    expect((await withSession(s, 'GET', `/api/tags/${betaTag.json().id}/`)).statusCode).toBe(200);
    // By id too, and it sticks to the session.
    expect((await withSession(s, 'POST', '/api/auth/tenant/', { tenant: h.tenants.a })).json().active_tenant).toMatchObject({ slug: 'alpha' });
    expect((await withSession(s, 'GET', '/api/auth/me/')).json().active_tenant).toMatchObject({ slug: 'alpha' });

    const alice = await session('alice');
    const refused = await withSession(alice, 'POST', '/api/auth/tenant/', { tenant: 'beta' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toHaveProperty('tenant');
    expect((await withSession(alice, 'GET', '/api/auth/me/')).json().active_tenant).toMatchObject({ slug: 'alpha' });
    expect((await withSession(alice, 'POST', '/api/auth/tenant/', { tenant: 'no-such-tenant' })).statusCode).toBe(400);
    // A token is bound to its tenant.
    const byToken = await h.as('admin').post('/api/auth/tenant/', { tenant: 'beta' });
    expect(byToken.statusCode).toBe(400);
    expect((await h.as('admin').get('/api/auth/me/')).json().active_tenant).toMatchObject({ slug: 'alpha' });
  });
});

describe('API tokens', () => {
  it('the key is returned once, only its hash is stored, and it works', async () => {
    const created = await h.as('alice').post('/api/users/tokens/', { description: 'ci' });
    expect(created.statusCode, created.body).toBe(201);
    const token = created.json() as { id: string; key: string; key_prefix: string; tenant: { id: string }; user: { id: string } };
    expect(token.key).toMatch(/^[0-9a-f]{40}$/);
    expect(token.key_prefix).toBe(token.key.slice(0, 8));
    expect(token.tenant.id).toBe(h.tenants.a);
    expect(token.user.id).toBe(await userId('alice'));

    const detail = await h.as('alice').get(`/api/users/tokens/${token.id}/`);
    expect(detail.statusCode).toBe(200);
    expect(detail.body).not.toContain(token.key);
    expect(detail.json()).not.toHaveProperty('key');
    const list = await h.as('alice').get('/api/users/tokens/');
    expect(list.body).not.toContain(token.key);

    const { rows } = await sql<{ row: string }>`SELECT t::text AS row FROM tokens t`.execute(h.database.db);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.row).not.toContain(token.key);

    const me = await h.app.inject({ method: 'GET', url: '/api/auth/me/', headers: { authorization: `Token ${token.key}` } });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ via: 'token', user: { username: 'alice' }, active_tenant: { slug: 'alpha' } });
  });

  it('last_used is written on use, at most once a minute, and never for an expired token', async () => {
    const made = (await h.as('alice').post('/api/users/tokens/', { description: 'last-used' })).json() as { id: string; key: string; last_used: string | null };
    expect(made.last_used).toBeNull();
    const use = (key: string) => h.app.inject({ method: 'GET', url: '/api/auth/me/', headers: { authorization: `Token ${key}` } });
    const lastUsed = async (id: string) => (await sql<{ t: Date | null }>`SELECT last_used AS t FROM tokens WHERE id = ${id}`.execute(h.database.db)).rows[0]!.t;
    expect((await use(made.key)).statusCode).toBe(200);
    const first = await lastUsed(made.id);
    expect(first).not.toBeNull();
    expect((await h.as('alice').get(`/api/users/tokens/${made.id}/`)).json().last_used).toBe(first!.toISOString());
    // A cache miss within the minute does not write again; one after it does.
    forgetCachedTokens();
    expect((await use(made.key)).statusCode).toBe(200);
    expect(await lastUsed(made.id)).toEqual(first);
    await sql`UPDATE tokens SET last_used = now() - interval '2 minutes' WHERE id = ${made.id}`.execute(h.database.db);
    forgetCachedTokens();
    expect((await use(made.key)).statusCode).toBe(200);
    expect((await lastUsed(made.id))!.getTime()).toBeGreaterThan(Date.now() - 60_000);
    await sql`UPDATE tokens SET last_used = NULL, expires = now() - interval '1 second' WHERE id = ${made.id}`.execute(h.database.db);
    forgetCachedTokens();
    expect((await use(made.key)).statusCode).toBe(401);
    expect(await lastUsed(made.id)).toBeNull();
  });

  it('a token is scoped to its tenant; a user cannot make one for a tenant they are not in', async () => {
    const forBeta = await h.as('admin').post('/api/users/tokens/', { tenant: h.tenants.b });
    expect(forBeta.statusCode, forBeta.body).toBe(201);
    const key = (forBeta.json() as { key: string }).key;
    const tag = await h.as('admin').post('/api/tags/', { name: 'alpha-scoped', slug: 'alpha-scoped' });
    const viaBeta = await h.app.inject({ method: 'GET', url: `/api/tags/${tag.json().id}/`, headers: { authorization: `Token ${key}` } });
    expect(viaBeta.statusCode).toBe(404);
    const refused = await h.as('alice').post('/api/users/tokens/', { tenant: h.tenants.b });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toHaveProperty('tenant');
    const past = await h.as('alice').post('/api/users/tokens/', { expires: '2000-01-01T00:00:00Z' });
    expect(past.statusCode).toBe(400);
    expect(past.json()).toHaveProperty('expires');
  });

  it('a user sees and manages only their own tokens', async () => {
    const aliceId = await userId('alice');
    const list = (await h.as('alice').get('/api/users/tokens/?limit=1000')).json() as { count: number; results: Array<{ user: { id: string } }> };
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM tokens WHERE user_id = ${aliceId}`.execute(h.database.db);
    expect(list.count).toBe(rows[0]!.n);
    for (const t of list.results) expect(t.user.id).toBe(aliceId);
    const { rows: others } = await sql<{ id: string }>`SELECT id FROM tokens WHERE user_id <> ${aliceId} LIMIT 1`.execute(h.database.db);
    expect((await h.as('alice').get(`/api/users/tokens/${others[0]!.id}/`)).statusCode).toBe(404);
    expect((await h.as('alice').delete(`/api/users/tokens/${others[0]!.id}/`)).statusCode).toBe(404);
    expect((await h.as('alice').patch(`/api/users/tokens/${others[0]!.id}/`, { description: 'mine now' })).statusCode).toBe(404);
  });

  it('an expired token is 401, also once it was cached', async () => {
    const created = await h.as('alice').post('/api/users/tokens/', { expires: new Date(Date.now() + 3_600_000).toISOString() });
    const key = (created.json() as { key: string }).key;
    const call = () => h.app.inject({ method: 'GET', url: '/api/tags/', headers: { authorization: `Token ${key}` } });
    expect((await call()).statusCode).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 2 * 3_600_000);
    expect((await call()).statusCode).toBe(401);
    vi.useRealTimers();

    const stale = await h.as('alice').post('/api/users/tokens/', {});
    const staleKey = (stale.json() as { id: string; key: string }).key;
    await sql`UPDATE tokens SET expires = now() - interval '1 minute' WHERE id = ${stale.json().id}`.execute(h.database.db);
    expect((await h.app.inject({ method: 'GET', url: '/api/tags/', headers: { authorization: `Token ${staleKey}` } })).statusCode).toBe(401);
  });

  it('a deleted token stops working at once in this process', async () => {
    const created = await h.as('alice').post('/api/users/tokens/', {});
    const { id, key } = created.json() as { id: string; key: string };
    const call = () => h.app.inject({ method: 'GET', url: '/api/tags/', headers: { authorization: `Token ${key}` } });
    expect((await call()).statusCode).toBe(200);
    expect((await h.as('alice').delete(`/api/users/tokens/${id}/`)).statusCode).toBe(204);
    expect((await call()).statusCode).toBe(401);
  });

  it('bad Authorization headers are 401', async () => {
    for (const authorization of ['Bearer abc', 'Token', 'Token a b', `Token ${'0'.repeat(40)}`]) {
      const res = await h.app.inject({ method: 'GET', url: '/api/tags/', headers: { authorization } });
      expect(res.statusCode, authorization).toBe(401);
    }
  });
});

describe('permissions: 401, 403, 404', () => {
  it('viewer reads but cannot write; nobody cannot read; superuser does everything', async () => {
    const tag = (await h.as('admin').post('/api/tags/', { name: 'perm-tag', slug: 'perm-tag' })).json() as { id: string };
    const viewer = h.as('viewer');
    expect((await viewer.get('/api/tags/')).statusCode).toBe(200);
    expect((await viewer.get(`/api/tags/${tag.id}/`)).statusCode).toBe(200);
    expect((await viewer.post('/api/tags/', { name: 'v', slug: 'v' })).statusCode).toBe(403);
    expect((await viewer.patch(`/api/tags/${tag.id}/`, { description: 'x' })).statusCode).toBe(403);
    expect((await viewer.delete(`/api/tags/${tag.id}/`)).statusCode).toBe(403);
    // Read everything in the tenant, but never the deployment's accounts.
    expect((await viewer.get('/api/users/')).statusCode).toBe(403);

    const nobody = h.as('nobody');
    expect((await nobody.get('/api/tags/')).statusCode).toBe(403);
    expect((await nobody.get(`/api/tags/${tag.id}/`)).statusCode).toBe(403);
    expect((await nobody.post('/api/tags/', { name: 'n', slug: 'n' })).statusCode).toBe(403);
    // Their own account and tokens remain reachable.
    expect((await nobody.get('/api/auth/me/')).statusCode).toBe(200);
    expect((await nobody.get('/api/users/tokens/')).statusCode).toBe(200);

    const admin = h.as('admin');
    expect((await admin.get('/api/users/')).statusCode).toBe(200);
    const group = await admin.post('/api/groups/', { name: 'Auditors' });
    expect(group.statusCode, group.body).toBe(201);
    expect((await admin.patch(`/api/tags/${tag.id}/`, { description: 'by admin' })).statusCode).toBe(200);
    expect((await admin.delete(`/api/tags/${tag.id}/`)).statusCode).toBe(204);
  });

  it('granting a permission to a group takes effect', async () => {
    const admin = h.as('admin');
    const group = (await admin.post('/api/groups/', { name: 'Taggers' })).json() as { id: string };
    expect((await admin.post('/api/permissions/', { group: group.id, permission: 'tag.view' })).statusCode).toBe(201);
    const user = await admin.post('/api/users/', { username: 'tagger', password: 'tagger-password', tenants: [h.tenants.a], groups: [group.id] });
    expect(user.statusCode, user.body).toBe(201);
    const res = await login('tagger', 'tagger-password');
    const cookie = res.cookies.find((c) => c.name === 'cairn_session')!.value;
    const get = (url: string) => h.app.inject({ method: 'GET', url, cookies: { cairn_session: cookie } });
    expect((await get('/api/tags/')).statusCode).toBe(200);
    expect((await get('/api/journal-entries/')).statusCode).toBe(403);
  });

  it('401 without credentials, 403 without the permission, 404 outside the tenant', async () => {
    const betaTag = (await h.as('bob').post('/api/tags/', { name: 'bob-tag', slug: 'bob-tag' })).json() as { id: string };
    const url = `/api/tags/${betaTag.id}/`;
    expect((await h.as('anonymous').get(url)).statusCode).toBe(401);
    expect((await h.as('nobody').get(url)).statusCode).toBe(403);
    expect((await h.as('alice').get(url)).statusCode).toBe(404);
    expect((await h.as('bob').get(url)).statusCode).toBe(200);
    // Only a superuser may make a superuser, even with users.manage.
    const managers = (await h.as('admin').post('/api/groups/', { name: 'Managers' })).json() as { id: string };
    await h.as('admin').post('/api/permissions/', { group: managers.id, permission: 'users.manage' });
    await h.as('admin').post('/api/users/', { username: 'manager', password: 'manager-password', tenants: [h.tenants.a], groups: [managers.id] });
    const s = await session('manager');
    expect((await withSession(s, 'GET', '/api/users/')).statusCode).toBe(200);
    const escalate = await withSession(s, 'POST', '/api/users/', { username: 'evil', password: 'evil-password', is_superuser: true });
    expect(escalate.statusCode).toBe(403);
    // Nor take over a superuser's account: its password, its name, its existence.
    const adminRow = (await withSession(s, 'GET', '/api/users/?username=admin')).json() as { results: Array<{ id: string }> };
    const adminUrl = `/api/users/${adminRow.results[0]!.id}/`;
    const hashBefore = await sql<{ h: string }>`SELECT password_hash AS h FROM users WHERE username = 'admin'`.execute(h.database.db);
    expect((await withSession(s, 'PATCH', adminUrl, { password: 'taken-over-1' })).statusCode).toBe(403);
    expect((await withSession(s, 'PATCH', adminUrl, { is_active: false })).statusCode).toBe(403);
    expect((await withSession(s, 'DELETE', adminUrl)).statusCode).toBe(403);
    const hashAfter = await sql<{ h: string }>`SELECT password_hash AS h FROM users WHERE username = 'admin'`.execute(h.database.db);
    expect(hashAfter.rows).toEqual(hashBefore.rows);
    expect((await login('admin', 'taken-over-1')).statusCode).toBe(401);
    // Ordinary accounts remain theirs to manage.
    const plain = (await withSession(s, 'POST', '/api/users/', { username: 'plain', password: 'plain-password' })).json() as { id: string };
    expect((await withSession(s, 'PATCH', `/api/users/${plain.id}/`, { password: 'plain-password-2' })).statusCode).toBe(200);
  });
});

describe('authentication cost', () => {
  it('a token request costs at most one query for authentication, none once cached', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const created = await h.as('alice').post('/api/users/tokens/', {});
    const key = (created.json() as { key: string }).key;
    const call = async () => {
      const before = h.database.queryCount();
      const res = await h.app.inject({ method: 'GET', url: '/api/tags/?limit=1', headers: { authorization: `Token ${key}` } });
      expect(res.statusCode).toBe(200);
      return h.database.queryCount() - before;
    };
    // Frozen clock: the maintenance flag's cache cannot expire between the two calls.
    await h.as('alice').get('/api/tags/?limit=1');
    const first = await call();
    const second = await call();
    expect(first - second).toBe(1);
    const third = await call();
    expect(third).toBe(second);
  });
});
