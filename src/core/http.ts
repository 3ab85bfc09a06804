// Small HTTP helpers shared by every domain's routes.
import type { FastifyInstance, FastifyReply, FastifyRequest, RequestPayload } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { Database } from '../db/database.ts';
import type { RequestContext } from './context.ts';
import type { ModelDef } from './registry.ts';
import { requireModelPermission, type Action } from './access.ts';
import { fieldError } from './errors.ts';
import { isUuid } from './ids.ts';
import { jsonBytes } from './json-bytes.ts';
import type { Config } from '../config.ts';
import type { WriteGate } from './write-gate.ts';

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext;
  }
  interface FastifyInstance {
    database: Database;
    config: Config;
    cairnVersion: string;
    writeGate: WriteGate;
  }
  interface FastifyContextConfig {
    /** What a read-only token is told when refused this (non-GET) route, when the general refusal would mislead. */
    readOnlyRefusal?: string;
  }
}

export function dbOf(req: FastifyRequest): Kysely<DB> {
  return req.server.database.db;
}

/** `scheme://host[:port]`, as URL.origin writes it (no default port), so an object's url is the same on every route. */
export function originOf(req: FastifyRequest): string {
  const host = req.host;
  const defaultPort = req.protocol === 'https' ? ':443' : ':80';
  return `${req.protocol}://${host.endsWith(defaultPort) ? host.slice(0, -defaultPort.length) : host}`;
}

export function requestUrl(req: FastifyRequest): URL {
  return new URL(req.url, originOf(req));
}

export function parseId(value: unknown, field = 'id'): string {
  if (!isUuid(value)) throw fieldError(field, `"${String(value).slice(0, 60)}" is not a valid id.`);
  return value.toLowerCase();
}

/**
 * Route option: the answer is sent as the handler built it. Its response schema documents it; a compiled
 * serializer would silently drop every property the schema does not list.
 *
 * The JSON goes out as UTF-8 bytes encoded once, row by row (src/core/json-bytes.ts says why). As a string,
 * Fastify measured its length in bytes and the socket encoded it again; an answer with one `›` (in any display) is
 * a two-byte string, whose measuring alone was 9 % of the server's time under load.
 */
export const answeredAsBuilt = {
  serializerCompiler: () => (data: unknown) => jsonBytes(data) as unknown as string,
} as const;

/**
 * Route options of the generic model routes (src/core/crud/routes.ts) alone: their bodies and list filters are
 * checked by the registry's validator, which names fields and reasons in the model's words. Every other route
 * is checked by Fastify against its TypeBox schema (test/one-path.test.ts, "one validator", keeps it so).
 */
export const registryValidated = {
  validatorCompiler: () => () => true,
  ...answeredAsBuilt,
} as const;

/**
 * A preParsing hook that runs `check` (a permission check) before the body is parsed or anything is validated,
 * so a caller who may not act gets 403 whatever it sent.
 */
export function checkedFirst(check: (req: FastifyRequest) => void | Promise<void>) {
  return async (req: FastifyRequest, _reply: FastifyReply, payload: RequestPayload): Promise<RequestPayload> => {
    await check(req);
    return payload;
  };
}

/**
 * The permission pre-check of a route on registry models: each `[model, action]` the caller must be allowed (with
 * requireModelPermission's 403 and message), before the body is parsed or anything is validated. The generic CRUD
 * routes (`permitted` in src/core/crud/routes.ts, one model) and the domains' routes over several models (the
 * IPAM allocations) both use it.
 */
export function permittedFirst(...checks: ReadonlyArray<readonly [ModelDef, Action | string]>) {
  return checkedFirst((req) => {
    for (const [model, action] of checks) requireModelPermission(req.ctx, model, action);
  });
}

export type App = FastifyInstance;
