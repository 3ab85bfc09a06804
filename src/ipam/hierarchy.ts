// The prefix hierarchy: each prefix's depth (prefixes containing it) and children (prefixes it contains) in its
// tenant and VRF, kept as columns by the write path so a list page reads them as they are; the prefix hooks
// also keep utilisation (./utilization.ts). The rows to change are locked in id order before they are
// recomputed, so concurrent writers in one space neither deadlock nor miss each other's rows.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { HookArgs } from '../core/registry.ts';
import { inTenant, tenantKeys, tenantOf } from '../core/access.ts';
import type { Row } from '../core/crud/serialize.ts';
import { prefixUsageKey, refreshUtilization, sameSpace } from './utilization.ts';

/** A prefix row, or the part of one that places it: its tenant, VRF and network. */
type PrefixKey = Record<string, unknown>;

/**
 * Recomputes depth and children of every prefix that contains, equals or lies inside one of `keys` (the prefixes
 * a write created, moved or is about to delete). `excluding`: rows being deleted, counted by no one. Two
 * statements (lock, update) whatever the number of keys.
 */
export async function refreshHierarchy(tx: Kysely<DB>, keys: PrefixKey[], excluding: string[] = []): Promise<void> {
  if (keys.length === 0) return;
  const vrfs = keys.map((k) => (k.vrf_id === null || k.vrf_id === undefined ? null : String(k.vrf_id)));
  const prefixes = keys.map((k) => String(k.prefix));
  const counted = sql`q.id <> ALL(${excluding}::uuid[])`;
  const placed = tenantKeys('k', keys.map(tenantOf), [
    { name: 'vrf_id', type: 'uuid', values: vrfs },
    { name: 'prefix', type: 'cidr', values: prefixes },
  ]);
  const { rows: affected } = await sql<{ id: string }>`SELECT a.id FROM prefixes a
      JOIN ${placed}
        ON ${sameSpace('a', 'k')} AND (a.prefix >>= k.prefix OR a.prefix << k.prefix)
      WHERE a.id <> ALL(${excluding}::uuid[])
      ORDER BY a.id FOR UPDATE OF a`.execute(tx);
  const ids = [...new Set(affected.map((r) => r.id))];
  if (ids.length === 0) return;
  await sql`UPDATE prefixes p SET depth = x.depth, children = x.children
    FROM (
      SELECT a.id,
        (SELECT count(*)::int FROM prefixes q WHERE ${sameSpace('q', 'a')} AND q.prefix >> a.prefix AND ${counted}) AS depth,
        (SELECT count(*)::int FROM prefixes q WHERE ${sameSpace('q', 'a')} AND q.prefix << a.prefix AND ${counted}) AS children
      FROM prefixes a WHERE a.id = ANY(${ids}::uuid[])
    ) x
    WHERE p.id = x.id AND (p.depth, p.children) IS DISTINCT FROM (x.depth, x.children)`.execute(tx);
}

/**
 * Every prefix of a tenant at once (after a bulk load that wrote prefixes past the hooks). A prefix's containers
 * are found by key, not by the inet index: for each mask length the tenant uses that is shorter than the prefix's,
 * the prefix cut to that length (set_masklen on a cidr zeroes the rest) is the only network that can contain it,
 * looked up by hash. The index took 0.01-0.07 ms a prefix (4.5 s for 62,500 prefixes); the lookups take a few
 * hundred ms. Each containing pair is counted both ways; only rows whose counts change are written (an update
 * re-checks every foreign key of a row written in the same transaction).
 */
export async function refreshTenantHierarchy(tx: Kysely<DB>, tenantId: string): Promise<void> {
  await sql`WITH lengths AS (
      SELECT DISTINCT family(p.prefix) AS family, masklen(p.prefix) AS len FROM prefixes p WHERE ${inTenant(tenantId, 'p')}
    ),
    pairs AS (
      SELECT i.id AS inner_id, o.id AS outer_id
      FROM prefixes i
      JOIN lengths l ON l.family = family(i.prefix) AND l.len < masklen(i.prefix)
      JOIN prefixes o ON o.prefix = set_masklen(i.prefix, l.len) AND ${sameSpace('o', 'i')}
      WHERE ${inTenant(tenantId, 'i')}
    ),
    depth AS (SELECT inner_id AS id, count(*)::int AS n FROM pairs GROUP BY inner_id),
    children AS (SELECT outer_id AS id, count(*)::int AS n FROM pairs GROUP BY outer_id)
    UPDATE prefixes p SET depth = x.depth, children = x.children
    FROM (
      SELECT a.id, coalesce(d.n, 0) AS depth, coalesce(c.n, 0) AS children
      FROM prefixes a LEFT JOIN depth d ON d.id = a.id LEFT JOIN children c ON c.id = a.id
      WHERE ${inTenant(tenantId, 'a')}
    ) x
    WHERE p.id = x.id AND (p.depth, p.children) IS DISTINCT FROM (x.depth, x.children)`.execute(tx);
}

/** The row as it is now stored (the derived columns of a row the caller is about to answer with). */
async function reread(tx: Kysely<DB>, row: Row): Promise<void> {
  const { rows } = await sql<{ depth: number; children: number; utilization: number }>`SELECT depth, children, utilization FROM prefixes WHERE id = ${row.id}`.execute(tx);
  if (rows[0]) Object.assign(row, rows[0]);
}

function moved(before: Row, row: Row): boolean {
  return before.prefix !== row.prefix || before.vrf_id !== row.vrf_id;
}

/** A status or pool change alters how the prefix counts (a container counts child prefixes, a pool every address). */
function recounted(before: Row, row: Row): boolean {
  return moved(before, row) || before.status_id !== row.status_id || before.is_pool !== row.is_pool;
}

/** The prefix model's hooks that keep the hierarchy and utilisation: one refresh per write, one per bulk call. */
export const hierarchyHooks = {
  async afterCreate({ tx, row }: HookArgs & { row: Row }): Promise<void> {
    await refreshHierarchy(tx, [row]);
    await refreshUtilization(tx, [prefixUsageKey(row)]);
    await reread(tx, row);
  },
  async afterUpdate({ tx, before, row, inBulk }: HookArgs & { before: Row; row: Row; inBulk?: boolean }): Promise<void> {
    if (inBulk || !recounted(before, row)) return;
    if (moved(before, row)) await refreshHierarchy(tx, [before, row]);
    await refreshUtilization(tx, [prefixUsageKey(before), prefixUsageKey(row)]);
    await reread(tx, row);
  },
  async afterUpdateMany({ tx, rows }: HookArgs & { rows: Array<{ before: Row; row: Row }> }): Promise<void> {
    const changed = rows.filter((r) => recounted(r.before, r.row));
    await refreshHierarchy(tx, changed.filter((r) => moved(r.before, r.row)).flatMap((r) => [r.before, r.row]));
    await refreshUtilization(tx, changed.flatMap((r) => [prefixUsageKey(r.before), prefixUsageKey(r.row)]));
    for (const r of changed) await reread(tx, r.row);
  },
  async beforeDelete({ tx, row }: HookArgs & { row: Row }): Promise<void> {
    await refreshHierarchy(tx, [row], [String(row.id)]);
  },
  async beforeDeleteMany({ tx, rows }: HookArgs & { rows: Row[] }): Promise<void> {
    await refreshHierarchy(tx, rows, rows.map((r) => String(r.id)));
  },
  /** The containers of what was deleted count less now. */
  async afterDelete({ tx, rows }: HookArgs & { rows: Row[] }): Promise<void> {
    await refreshUtilization(tx, rows.map(prefixUsageKey));
  },
};
