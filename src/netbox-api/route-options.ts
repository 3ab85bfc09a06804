// The options every NetBox dialect route shares.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answeredAsBuilt } from '../core/http.ts';
import { NETBOX_API_VERSION } from './endpoints.ts';

/** Every dialect answer names the NetBox API version it speaks (pynetbox and the Ansible collection read it). */
export async function versionHeader(_req: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('API-Version', NETBOX_API_VERSION);
}

/** Hidden from Cairn's own document (schema.ts describes them), answered as built, versioned. */
export const dialectRoute = { ...answeredAsBuilt, schema: { hide: true }, onRequest: versionHeader } as const;
