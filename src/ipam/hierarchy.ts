// The prefix hierarchy: each prefix's depth (prefixes containing it) and children (prefixes it contains) in its
// tenant and VRF, kept as columns by the write path so a list page reads them as they are; and utilisation, read
// for a whole page in one query (NetBox's rules: a container counts the space its top-level child prefixes
// cover, of every VRF when it is in the global table; any other prefix counts its addresses and the ranges marked utilised, IPv4 network and broadcast left
// out below /31 unless a pool).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { ComputedField, HookArgs } from '../core/registry.ts';
import { inTenant, sameTenant } from '../core/access.ts';
import type { Row } from '../core/crud/serialize.ts';

/** A prefix row, or the part of one that places it: its tenant, VRF and network. */
type PrefixKey = Record<string, unknown>;

/** Same tenant and VRF (the global table is its own VRF): the space a hierarchy lives in. */
function sameSpace(a: string, b: string) {
  return sql`${sameTenant(a, b)} AND ${sql.ref(`${a}.vrf_id`)} IS NOT DISTINCT FROM ${sql.ref(`${b}.vrf_id`)}`;
}

/**
 * Recomputes depth and children of every prefix that contains, equals or lies inside one of `keys` (the prefixes
 * a write created, moved or is about to delete). `excluding`: rows being deleted, counted by no one. One
 * statement whatever the number of keys.
 */
export async function refreshHierarchy(tx: Kysely<DB>, keys: PrefixKey[], excluding: string[] = []): Promise<void> {
  if (keys.length === 0) return;
  const tenants = keys.map((k) => String(k.tenant_id));
  const vrfs = keys.map((k) => (k.vrf_id === null || k.vrf_id === undefined ? null : String(k.vrf_id)));
  const prefixes = keys.map((k) => String(k.prefix));
  const counted = sql`q.id <> ALL(${excluding}::uuid[])`;
  await sql`UPDATE prefixes p SET depth = x.depth, children = x.children
    FROM (
      SELECT a.id,
        (SELECT count(*)::int FROM prefixes q WHERE ${sameSpace('q', 'a')} AND q.prefix >> a.prefix AND ${counted}) AS depth,
        (SELECT count(*)::int FROM prefixes q WHERE ${sameSpace('q', 'a')} AND q.prefix << a.prefix AND ${counted}) AS children
      FROM prefixes a
      JOIN unnest(${tenants}::uuid[], ${vrfs}::uuid[], ${prefixes}::cidr[]) AS k(tenant_id, vrf_id, prefix)
        ON ${sameSpace('a', 'k')} AND (a.prefix >>= k.prefix OR a.prefix << k.prefix)
      WHERE a.id <> ALL(${excluding}::uuid[])
    ) x
    WHERE p.id = x.id AND (p.depth, p.children) IS DISTINCT FROM (x.depth, x.children)`.execute(tx);
}

/** Every prefix of a tenant at once (after a bulk load that wrote prefixes past the hooks). */
export async function refreshTenantHierarchy(tx: Kysely<DB>, tenantId: string): Promise<void> {
  await sql`UPDATE prefixes p SET
      depth = (SELECT count(*)::int FROM prefixes q WHERE ${sameSpace('q', 'p')} AND q.prefix >> p.prefix),
      children = (SELECT count(*)::int FROM prefixes q WHERE ${sameSpace('q', 'p')} AND q.prefix << p.prefix)
    WHERE ${inTenant(tenantId, 'p')}`.execute(tx);
}

/** The row as it is now stored (depth and children of a row the caller is about to answer with). */
async function reread(tx: Kysely<DB>, row: Row): Promise<void> {
  const { rows } = await sql<{ depth: number; children: number }>`SELECT depth, children FROM prefixes WHERE id = ${row.id}`.execute(tx);
  if (rows[0]) Object.assign(row, rows[0]);
}

function moved(before: Row, row: Row): boolean {
  return before.prefix !== row.prefix || before.vrf_id !== row.vrf_id;
}

/** The prefix model's hooks that keep the hierarchy: one refresh per write, one per bulk call. */
export const hierarchyHooks = {
  async afterCreate({ tx, row }: HookArgs & { row: Row }): Promise<void> {
    await refreshHierarchy(tx, [row]);
    await reread(tx, row);
  },
  async afterUpdate({ tx, before, row, inBulk }: HookArgs & { before: Row; row: Row; inBulk?: boolean }): Promise<void> {
    if (inBulk || !moved(before, row)) return;
    await refreshHierarchy(tx, [before, row]);
    await reread(tx, row);
  },
  async afterUpdateMany({ tx, rows }: HookArgs & { rows: Array<{ before: Row; row: Row }> }): Promise<void> {
    const changed = rows.filter((r) => moved(r.before, r.row));
    await refreshHierarchy(tx, changed.flatMap((r) => [r.before, r.row]));
    for (const r of changed) await reread(tx, r.row);
  },
  async beforeDelete({ tx, row }: HookArgs & { row: Row }): Promise<void> {
    await refreshHierarchy(tx, [row], [String(row.id)]);
  },
  async beforeDeleteMany({ tx, rows }: HookArgs & { rows: Row[] }): Promise<void> {
    await refreshHierarchy(tx, rows, rows.map((r) => String(r.id)));
  },
};

/**
 * The children a container counts: its own VRF's, or every VRF's when the container is in the global table
 * (NetBox's rule: a global container is the space the VRFs are carved from).
 */
function containerSpace(child: string, container: string) {
  return sql`${sameTenant(child, container)} AND (${sql.ref(`${container}.vrf_id`)} IS NULL OR ${sql.ref(`${child}.vrf_id`)} IS NOT DISTINCT FROM ${sql.ref(`${container}.vrf_id`)})`;
}

/** Address bits of a prefix's family, in SQL. */
const bitsOf = (alias: string) => sql`(CASE family(${sql.ref(`${alias}.prefix`)}) WHEN 4 THEN 32 ELSE 128 END)`;

/** A range's size as numeric; IPv6 ranges past 2^62 addresses count as 2^62 (inet subtraction is 64-bit). */
const rangeSizeSql = (alias: string) => {
  const start = sql`host(${sql.ref(`${alias}.start_address`)})::inet`;
  const end = sql`host(${sql.ref(`${alias}.end_address`)})::inet`;
  return sql`(CASE WHEN family(${start}) = 4 OR ${end} < ${start} + 4611686018427387904 THEN (${end} - ${start} + 1)::numeric ELSE power(2::numeric, 62) END)`;
};

/**
 * `utilization`: percent with one decimal, for a page of prefixes in one query. A container's share is the space
 * of its top-level child prefixes; any other prefix's is its distinct addresses over its usable size.
 */
export const utilizationField: ComputedField = {
  label: 'Utilisation',
  kind: 'percent',
  schema: { type: 'number', minimum: 0, maximum: 100, description: 'Percent used, one decimal.' },
  async load({ db, rows }) {
    const out = new Map<string, unknown>();
    if (rows.length === 0) return out;
    const ids = rows.map((r) => String(r.id));
    const { rows: found } = await sql<{ id: string; pct: number }>`
      SELECT p.id, round(least(100, 100 * (CASE WHEN s.slug = 'container' THEN
          (SELECT coalesce(sum(power(2::numeric, ${bitsOf('c')} - masklen(c.prefix))), 0) FROM prefixes c
            WHERE ${containerSpace('c', 'p')} AND c.prefix << p.prefix
              AND NOT EXISTS (SELECT 1 FROM prefixes m WHERE ${containerSpace('m', 'p')} AND m.prefix << p.prefix AND m.prefix >> c.prefix))
        ELSE
          -- Addresses outside the ranges marked utilised, plus those ranges whole.
          (SELECT count(DISTINCT host(a.address))::numeric FROM ip_addresses a
            WHERE ${sameSpace('a', 'p')} AND a.address && p.prefix AND host(a.address)::inet <<= p.prefix
              AND NOT EXISTS (SELECT 1 FROM ip_ranges r WHERE ${sameSpace('r', 'p')} AND r.mark_utilized
                AND host(a.address)::inet BETWEEN host(r.start_address)::inet AND host(r.end_address)::inet))
          + (SELECT coalesce(sum(${rangeSizeSql('r')}), 0) FROM ip_ranges r
              WHERE ${sameSpace('r', 'p')} AND r.mark_utilized AND host(r.start_address)::inet <<= p.prefix AND host(r.end_address)::inet <<= p.prefix)
        END) / greatest(1, power(2::numeric, ${bitsOf('p')} - masklen(p.prefix))
          - CASE WHEN family(p.prefix) = 4 AND masklen(p.prefix) < 31 AND NOT p.is_pool AND coalesce(s.slug, '') <> 'container' THEN 2 ELSE 0 END)), 1)::float8 AS pct
      FROM prefixes p LEFT JOIN statuses s ON s.id = p.status_id
      WHERE p.id = ANY(${ids}::uuid[])`.execute(db);
    for (const r of found) out.set(r.id, Number(r.pct));
    return out;
  },
};
