// The app on a fresh database with two tenants and a cast of users and tokens, plus small request helpers.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.ts';
import { createTenant, createToken, createUser } from '../../src/core/accounts.ts';
import { openTestDatabase, type TestDatabase } from './database.ts';

export type Who = 'admin' | 'adminB' | 'alice' | 'aliceRO' | 'bob' | 'viewer' | 'nobody' | 'anonymous';

export interface Harness {
  app: FastifyInstance;
  database: TestDatabase;
  tenants: { a: string; b: string };
  tokens: Record<Exclude<Who, 'anonymous'>, string>;
  as(who: Who): Client;
  close(): Promise<void>;
}

export interface Client {
  get(url: string): Promise<LightMyRequestResponse>;
  post(url: string, body?: unknown): Promise<LightMyRequestResponse>;
  put(url: string, body?: unknown): Promise<LightMyRequestResponse>;
  patch(url: string, body?: unknown): Promise<LightMyRequestResponse>;
  delete(url: string, body?: unknown): Promise<LightMyRequestResponse>;
}

export async function groupId(database: TestDatabase, name: string): Promise<string> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM groups WHERE name = ${name}`.execute(database.db);
  return rows[0]!.id;
}

export async function startHarness(): Promise<Harness> {
  const database = await openTestDatabase();
  const db = database.db;
  const a = (await createTenant(db, 'Alpha', 'alpha')).id;
  const b = (await createTenant(db, 'Beta', 'beta')).id;
  const editor = await groupId(database, 'Editor');
  const viewerGroup = await groupId(database, 'Viewer');
  await createUser(db, { username: 'admin', password: 'admin-password', isSuperuser: true, tenantIds: [a, b] });
  await createUser(db, { username: 'alice', password: 'alice-password', tenantIds: [a], groupIds: [editor] });
  await createUser(db, { username: 'bob', password: 'bob-password', tenantIds: [b], groupIds: [editor] });
  await createUser(db, { username: 'viewer', password: 'viewer-password', tenantIds: [a], groupIds: [viewerGroup] });
  await createUser(db, { username: 'nobody', password: 'nobody-password', tenantIds: [a] });
  const tokens = {
    admin: await createToken(db, { username: 'admin', tenantSlug: 'alpha' }),
    adminB: await createToken(db, { username: 'admin', tenantSlug: 'beta' }),
    alice: await createToken(db, { username: 'alice', tenantSlug: 'alpha' }),
    aliceRO: await createToken(db, { username: 'alice', tenantSlug: 'alpha', readOnly: true }),
    bob: await createToken(db, { username: 'bob', tenantSlug: 'beta' }),
    viewer: await createToken(db, { username: 'viewer', tenantSlug: 'alpha' }),
    nobody: await createToken(db, { username: 'nobody', tenantSlug: 'alpha' }),
  };
  const app = await buildApp({ database });

  const client = (who: Who): Client => {
    const headers: Record<string, string> = who === 'anonymous' ? {} : { authorization: `Token ${tokens[who]}` };
    const send = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown) =>
      app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: body as object }) });
    return {
      get: (url) => send('GET', url),
      post: (url, body) => send('POST', url, body ?? {}),
      put: (url, body) => send('PUT', url, body ?? {}),
      patch: (url, body) => send('PATCH', url, body ?? {}),
      delete: (url, body) => send('DELETE', url, body),
    };
  };

  return {
    app,
    database,
    tenants: { a, b },
    tokens,
    as: client,
    close: async () => {
      await app.close();
      await database.close();
    },
  };
}
