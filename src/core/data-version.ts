// "Has anything changed?" without reading what changed: the version of a tenant's data and of deployment-wide
// data (users, groups, permissions), raised at the commit of every transaction that writes the change log
// (migration 0029). Documents built from many tables (the Ansible inventory) key their ETag on it.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from './context.ts';

/** The counter of data that belongs to no tenant. */
const DEPLOYMENT_SCOPE = '00000000-0000-0000-0000-000000000000';

/** `<tenant version>.<deployment version>` for the caller's active tenant; one indexed read. */
export async function dataVersion(db: Kysely<DB>, ctx: RequestContext): Promise<string> {
  const tenant = ctx.tenantId ?? DEPLOYMENT_SCOPE;
  const { rows } = await sql<{ scope: string; version: string }>`
    SELECT scope::text AS scope, version::text AS version FROM data_versions WHERE scope = ANY(${[tenant, DEPLOYMENT_SCOPE]}::uuid[])`.execute(db);
  const of = (scope: string) => rows.find((r) => r.scope === scope)?.version ?? '0';
  return `${of(tenant)}.${of(DEPLOYMENT_SCOPE)}`;
}
