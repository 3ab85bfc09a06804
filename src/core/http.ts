// Small HTTP helpers shared by every domain's routes.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { Database } from '../db/database.ts';
import type { RequestContext } from './context.ts';
import { fieldError } from './errors.ts';
import { isUuid } from './ids.ts';
import type { Config } from '../config.ts';

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext;
  }
  interface FastifyInstance {
    database: Database;
    config: Config;
    cairnVersion: string;
  }
}

export function dbOf(req: FastifyRequest): Kysely<DB> {
  return req.server.database.db;
}

export function originOf(req: FastifyRequest): string {
  return `${req.protocol}://${req.host}`;
}

export function requestUrl(req: FastifyRequest): URL {
  return new URL(req.url, originOf(req));
}

export function parseId(value: unknown, field = 'id'): string {
  if (!isUuid(value)) throw fieldError(field, `"${String(value).slice(0, 60)}" is not a valid id.`);
  return value.toLowerCase();
}

/** Route options that skip Fastify's own body checks: the registry's validator answers with field errors. */
export const registryValidated = {
  validatorCompiler: () => () => true,
  serializerCompiler: () => (data: unknown) => JSON.stringify(data),
} as const;

export type App = FastifyInstance;
