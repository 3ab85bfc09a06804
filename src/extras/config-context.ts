// Config contexts: JSON data layered onto devices (and VMs) by region, site, role and platform. One call
// evaluates many objects with a constant number of queries, so template rendering over a whole list can use it.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import type { ModelDef } from '../core/registry.ts';
import { loadScopedRow } from '../core/crud/write.ts';
import { MAX_TREE_DEPTH as MAX_REGION_DEPTH } from '../core/tree.ts';
import { inTenant, tenantOf } from '../core/access.ts';

/** What the matching needs of an object: anything with a site, a role and a platform (devices, VMs). */
export interface ConfigContextSubject {
  id: string;
  siteId: string | null;
  roleId: string | null;
  platformId: string | null;
}

export interface RenderedConfigContext {
  rendered: Record<string, unknown>;
  /** Names of the contexts that matched, in merge order. */
  applied: string[];
}

interface ContextRow {
  name: string;
  data: Record<string, unknown>;
  regions: string[];
  sites: string[];
  roles: string[];
  platforms: string[];
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Mappings merge key by key; anything else (lists, scalars, a change of type) is replaced by a copy of the layer. */
export function deepMerge(base: Record<string, unknown>, layer: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(layer)) {
    const current = out[key];
    out[key] = isMapping(current) && isMapping(value) ? deepMerge(current, value) : structuredClone(value);
  }
  return out;
}

/** Region ids of each site: its own region and every ancestor (one recursive query for all sites). */
async function siteRegionChains(db: Kysely<DB>, tenantId: string, siteIds: string[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  if (siteIds.length === 0) return out;
  const { rows } = await sql<{ site_id: string; region_id: string }>`WITH RECURSIVE up(site_id, region_id, depth) AS (
      SELECT s.id, s.region_id, 1 FROM sites s WHERE s.id = ANY(${siteIds}::uuid[]) AND ${inTenant(tenantId, 's')} AND s.region_id IS NOT NULL
      UNION ALL
      SELECT up.site_id, r.parent_id, up.depth + 1 FROM up JOIN regions r ON r.id = up.region_id
      WHERE r.parent_id IS NOT NULL AND up.depth < ${MAX_REGION_DEPTH}
    ) SELECT site_id, region_id FROM up`.execute(db);
  for (const r of rows) {
    const set = out.get(r.site_id) ?? new Set<string>();
    set.add(r.region_id);
    out.set(r.site_id, set);
  }
  return out;
}

function matches(list: string[], value: string | null): boolean {
  return list.length === 0 || (value !== null && list.includes(value));
}

/**
 * The merged config context of every subject, keyed by subject id: active contexts of the tenant that match
 * (criteria ANDed, an empty criterion matches all), folded by weight then name. Two queries whatever the count.
 */
export async function renderConfigContexts(db: Kysely<DB>, tenantId: string, subjects: ConfigContextSubject[]): Promise<Map<string, RenderedConfigContext>> {
  const out = new Map<string, RenderedConfigContext>();
  if (subjects.length === 0) return out;
  // Byte order for names, so PostgreSQL and the embedded database agree on ties of weight.
  const { rows: contexts } = await sql<ContextRow>`SELECT c.name, c.data,
      ARRAY(SELECT x.region_id FROM config_context_regions x WHERE x.config_context_id = c.id) AS regions,
      ARRAY(SELECT x.site_id FROM config_context_sites x WHERE x.config_context_id = c.id) AS sites,
      ARRAY(SELECT x.role_id FROM config_context_roles x WHERE x.config_context_id = c.id) AS roles,
      ARRAY(SELECT x.platform_id FROM config_context_platforms x WHERE x.config_context_id = c.id) AS platforms
    FROM config_contexts c WHERE ${inTenant(tenantId, 'c')} AND c.is_active ORDER BY c.weight, c.name COLLATE "C"`.execute(db);

  const needRegions = contexts.some((c) => c.regions.length > 0);
  const siteIds = [...new Set(subjects.map((s) => s.siteId).filter((v): v is string => v !== null))];
  const chains = needRegions ? await siteRegionChains(db, tenantId, siteIds) : new Map<string, Set<string>>();

  for (const subject of subjects) {
    let rendered: Record<string, unknown> = {};
    const applied: string[] = [];
    const regions = subject.siteId ? chains.get(subject.siteId) : undefined;
    for (const c of contexts) {
      if (!matches(c.sites, subject.siteId) || !matches(c.roles, subject.roleId) || !matches(c.platforms, subject.platformId)) continue;
      if (c.regions.length > 0 && !c.regions.some((r) => regions?.has(r))) continue;
      rendered = deepMerge(rendered, c.data);
      applied.push(c.name);
    }
    out.set(subject.id, { rendered, applied });
  }
  return out;
}

/** The matching inputs of a stored row (a device or VM row as selected from its table). */
export function configContextSubject(row: Record<string, unknown>): ConfigContextSubject {
  const ref = (column: string) => (typeof row[column] === 'string' ? (row[column] as string) : null);
  return { id: String(row.id), siteId: ref('site_id'), roleId: ref('role_id'), platformId: ref('platform_id') };
}

/**
 * The config context of one object of any model with `site`, `role` and `platform` foreign keys (devices,
 * virtual machines), read in the caller's scope: another tenant's id is a 404 like a missing one.
 */
export async function configContextOf(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, id: string): Promise<RenderedConfigContext> {
  const row = await loadScopedRow(db, ctx, model, id);
  return (await renderConfigContexts(db, tenantOf(row), [configContextSubject(row)])).get(String(row.id))!;
}
