// The options every NetBox dialect route shares.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answeredAsBuilt } from '../core/http.ts';
import { NETBOX_API_VERSION } from './endpoints.ts';

/** Every dialect answer names the NetBox API version it speaks (pynetbox and the Ansible collection read it). */
export async function versionHeader(_req: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('API-Version', NETBOX_API_VERSION);
}

/**
 * Hidden from Cairn's own document (schema.ts describes them), answered as built, versioned. The open response
 * schema is there for answeredAsBuilt's serializer (UTF-8 bytes encoded once, row by row: src/core/json-bytes.ts):
 * without one, Fastify stringifies the answer and encodes it again.
 */
export const dialectRoute = { ...answeredAsBuilt, schema: { hide: true, response: { '2xx': {} } }, onRequest: versionHeader } as const;
