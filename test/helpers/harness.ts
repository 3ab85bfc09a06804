// The app on a fresh database with two tenants and a cast of users and tokens, plus small request helpers.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { sql } from 'kysely';
import { inject } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { createTenant, createToken, createUser } from '../../src/core/accounts.ts';
import { openPGlite } from '../../src/db/database.ts';
import { embeddedSharedBuffersMb } from '../../src/config.ts';
import { bringDerivedInLine } from '../../src/db/migrator.ts';
import { openTestDatabase, type TestDatabase } from './database.ts';
import { copyDataDir } from './data-dir-copy.ts';
import { sharedDir, sourceHash } from '../runner/shared-cache.ts';

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

export async function groupId(database: Pick<TestDatabase, 'db'>, name: string): Promise<string> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM groups WHERE name = ${name}`.execute(database.db);
  return rows[0]!.id;
}

interface Cast {
  tenants: { a: string; b: string };
  tokens: Harness['tokens'];
}

/** Two tenants and the users, groups and tokens of `Who`, made through the product's own account functions. */
async function createCast(db: TestDatabase['db']): Promise<Cast> {
  const a = (await createTenant(db, 'Alpha', 'alpha')).id;
  const b = (await createTenant(db, 'Beta', 'beta')).id;
  const editor = await groupId({ db }, 'Editor');
  const viewerGroup = await groupId({ db }, 'Viewer');
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
  return { tenants: { a, b }, tokens };
}

/**
 * Embedded: the run's migrated template with the cast already in it, made once per source tree and shared
 * (test/runner/shared-cache.ts) by every file that starts a harness, with the cast's ids and tokens beside it.
 * Making the cast is some thirty writes through the write pipeline on PGlite, in the test's own process: 0.29 of
 * the 1.13 CPU-s a harness took to start, in about eighty files. Null on PostgreSQL (the server does that work there:
 * 0.02 CPU-s of the worker's) and without a run template.
 */
async function castTemplate(): Promise<{ dataDir: string; cast: Cast } | null> {
  if (process.env.TEST_DATABASE_URL) return null;
  const template = inject('pgliteTemplate');
  if (!template) return null;
  const key = `${basename(dirname(template))}-${sourceHash(resolve(import.meta.dirname, '../..'), ['test/helpers/harness.ts', 'test/helpers/database.ts'])}`;
  const dir = await sharedDir('cairn-test-harness-', key, async (d) => {
    copyDataDir(template, join(d, 'data'));
    const database = await openPGlite(join(d, 'data'), { sharedBuffersMb: embeddedSharedBuffersMb() });
    try {
      // As openTestDatabase does before a harness makes its cast (the derived objects of this worker's registry).
      await bringDerivedInLine(database.db);
      writeFileSync(join(d, 'cast.json'), JSON.stringify(await createCast(database.db)));
    } finally {
      await database.close();
    }
  }, "the harness's cast");
  return { dataDir: join(dir, 'data'), cast: JSON.parse(readFileSync(join(dir, 'cast.json'), 'utf8')) as Cast };
}

export async function startHarness(): Promise<Harness> {
  const ready = await castTemplate();
  const database = await openTestDatabase(ready?.dataDir);
  const { tenants: { a, b }, tokens } = ready?.cast ?? (await createCast(database.db));
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
