// Revalidation of the Ansible inventory without rebuilding it: the ETag of each document built is remembered
// under everything the document depends on (the caller, their permissions, the active tenant, the query, the
// release, and the version of the tenant's and deployment-wide data). An If-None-Match naming the ETag
// remembered for the current key is answered 304 after one indexed read instead of the full build.
//
// The version is read before the document is built, so a document can only be newer than its key: a commit
// meanwhile raises the version and the next request misses the key, never the other way round.
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { dataVersion } from '../core/data-version.ts';
import { VERSION } from '../version.ts';
import type { QueryValues } from './inventory.ts';

/** Keys kept per process; a key is a few hundred bytes. */
const MAX_KEYS = 1_000;
const remembered = new Map<string, string>();

export async function inventoryKey(db: Kysely<DB>, ctx: RequestContext, query: QueryValues): Promise<string> {
  const params = Object.keys(query)
    .sort()
    .map((k) => `${k}=${JSON.stringify(query[k])}`)
    .join('&');
  const grants = ctx.user?.isSuperuser ? '*' : [...ctx.permissions].sort().join(',');
  return [VERSION, ctx.user?.id ?? '', grants, ctx.tenantId ?? '', params, await dataVersion(db, ctx)].join('|');
}

export function rememberedEtag(key: string): string | undefined {
  return remembered.get(key);
}

export function rememberEtag(key: string, etag: string): void {
  remembered.delete(key);
  remembered.set(key, etag);
  // A Map iterates in insertion order: the first key is the least recently built.
  if (remembered.size > MAX_KEYS) remembered.delete(remembered.keys().next().value!);
}
