// A prefix's utilisation, stored in prefixes.utilization and kept by the write path (NetBox's rules: a
// container counts the space its top-level child prefixes cover, of every VRF when it is in the global table;
// any other prefix counts its distinct addresses and the ranges marked utilised, IPv4 network and broadcast left
// out below /31 unless a pool). Every address, range and prefix write refreshes the prefixes it can change, so
// a list page reads a column instead of counting addresses per row.
//
// Concurrency: the prefixes to refresh are locked first (in id order) and recomputed by a later statement,
// whose snapshot (READ COMMITTED) sees every write committed by a transaction that held those locks before:
// two writers in one prefix cannot each miss the other's row.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import type { ComputedField } from '../core/registry.ts';
import { inTenant, sameTenant, tenantKeys, tenantOf } from '../core/access.ts';
import type { Row } from '../core/crud/serialize.ts';

/**
 * Where a write changed the counted space: a network in a tenant and VRF. `within`: the prefixes holding the
 * network (an address, a prefix); `overlap`: also the prefixes inside it (a range spans parts of several).
 * `crossVrf`: global-table containers count it too (a prefix in a VRF is a child of the global space).
 */
export interface UsageKey {
  tenant: string;
  vrf_id: unknown;
  network: string;
  mode: 'within' | 'overlap';
  crossVrf: boolean;
}

export const prefixUsageKey = (row: Row): UsageKey => ({ tenant: tenantOf(row), vrf_id: row.vrf_id, network: String(row.prefix), mode: 'within', crossVrf: true });

/** An address counts as its host, whatever its mask. */
export const addressUsageKey = (row: Row): UsageKey => {
  const host = String(row.address).split('/')[0]!;
  return { tenant: tenantOf(row), vrf_id: row.vrf_id, network: `${host}/${host.includes(':') ? 128 : 32}`, mode: 'within', crossVrf: false };
};

/** A range as the smallest network holding both its ends (computed in SQL: see `keyNetwork`). */
export const rangeUsageKey = (row: Row): UsageKey => ({
  tenant: tenantOf(row),
  vrf_id: row.vrf_id,
  network: `${String(row.start_address).split('/')[0]}-${String(row.end_address).split('/')[0]}`,
  mode: 'overlap',
  crossVrf: false,
});

/** Address bits of a prefix's family, in SQL. */
const bitsOf = (alias: string) => sql`(CASE family(${sql.ref(`${alias}.prefix`)}) WHEN 4 THEN 32 ELSE 128 END)`;

/** Same tenant and VRF (the global table is its own VRF): the space addresses, ranges and a prefix's hierarchy live in. */
export function sameSpace(a: string, b: string) {
  return sql`${sameTenant(a, b)} AND ${sql.ref(`${a}.vrf_id`)} IS NOT DISTINCT FROM ${sql.ref(`${b}.vrf_id`)}`;
}

/** The children a container counts: its own VRF's, or every VRF's when the container is in the global table. */
function containerSpace(child: string, container: string) {
  return sql`${sameTenant(child, container)} AND (${sql.ref(`${container}.vrf_id`)} IS NULL OR ${sql.ref(`${child}.vrf_id`)} IS NOT DISTINCT FROM ${sql.ref(`${container}.vrf_id`)})`;
}

/** A range's size as numeric; IPv6 ranges past 2^62 addresses count as 2^62 (inet subtraction is 64-bit). */
const rangeSizeSql = (alias: string) => {
  const start = sql`host(${sql.ref(`${alias}.start_address`)})::inet`;
  const end = sql`host(${sql.ref(`${alias}.end_address`)})::inet`;
  return sql`(CASE WHEN family(${start}) = 4 OR ${end} < ${start} + 4611686018427387904 THEN (${end} - ${start} + 1)::numeric ELSE power(2::numeric, 62) END)`;
};

/** Percent used, one decimal, of prefix `p` whose status row is `s` (LEFT JOINed). */
const utilizationOf = sql`round(least(100, 100 * (CASE WHEN s.slug = 'container' THEN
    (SELECT coalesce(sum(power(2::numeric, ${bitsOf('c')} - masklen(c.prefix))), 0) FROM prefixes c
      WHERE ${containerSpace('c', 'p')} AND c.prefix << p.prefix
        -- No prefix between: one holding c with a longer mask than p (both hold c, so that is "inside p"). Written
        -- with masklen, not m.prefix << p.prefix, so the index finds m by m >> c (c's few ancestors): with << the
        -- plan read all of p's children for each child, 11.5 s for a /10 of 2,500 /27s (hours for 60,000).
        AND NOT EXISTS (SELECT 1 FROM prefixes m WHERE ${containerSpace('m', 'p')} AND m.prefix >> c.prefix AND masklen(m.prefix) > masklen(p.prefix)))
  ELSE
    -- Addresses outside the ranges marked utilised (all of the prefix's, less those in such a range), plus those
    -- ranges whole. Subtracted rather than a NOT EXISTS per address: that read every range of the tenant for each
    -- address (its VRF test cannot use an index), 2.7 s for 50,000 addresses and 1,250 ranges. The ranges are
    -- read once per prefix, those reaching into it kept.
    (SELECT count(DISTINCT a.host)::numeric FROM ip_addresses a
      WHERE ${sameSpace('a', 'p')} AND a.address && p.prefix AND a.host <<= p.prefix)
    - (SELECT count(DISTINCT a.host)::numeric FROM ip_ranges r JOIN ip_addresses a
        ON ${sameSpace('a', 'p')} AND a.address && p.prefix AND a.host <<= p.prefix
          AND a.host BETWEEN host(r.start_address)::inet AND host(r.end_address)::inet
      WHERE ${sameSpace('r', 'p')} AND r.mark_utilized
        AND host(r.end_address)::inet >= host(network(p.prefix))::inet AND host(r.start_address)::inet <= host(broadcast(p.prefix))::inet)
    + (SELECT coalesce(sum(${rangeSizeSql('r')}), 0) FROM ip_ranges r
        WHERE ${sameSpace('r', 'p')} AND r.mark_utilized AND host(r.start_address)::inet <<= p.prefix AND host(r.end_address)::inet <<= p.prefix)
  END) / greatest(1, power(2::numeric, ${bitsOf('p')} - masklen(p.prefix))
    - CASE WHEN family(p.prefix) = 4 AND masklen(p.prefix) < 31 AND NOT p.is_pool AND coalesce(s.slug, '') <> 'container' THEN 2 ELSE 0 END)), 1)::float8`;

/** The network of a key in SQL: a range's `a-b` becomes the smallest network holding both. */
const keyNetwork = sql`(CASE WHEN strpos(k.network, '-') > 0
    THEN inet_merge(split_part(k.network, '-', 1)::inet, split_part(k.network, '-', 2)::inet)
    ELSE k.network::cidr END)`;

/**
 * Ends the subquery computing `pct` so PostgreSQL cannot pull it up into the UPDATE: pulled up, `x.pct` was written
 * out twice, in the IS DISTINCT FROM filter and in SET, and every count ran twice (a tenant's 6,254 prefixes over
 * 50,000 addresses: 7.1 s).
 */
const COMPUTED_ONCE = sql`OFFSET 0`;

/** Recomputes the stored utilisation of the prefixes `p` that `which` selects, in one statement. */
async function recompute(tx: Kysely<DB>, which: RawBuilder<unknown>): Promise<void> {
  await sql`UPDATE prefixes t SET utilization = x.pct
    FROM (SELECT p.id, ${utilizationOf} AS pct FROM prefixes p LEFT JOIN statuses s ON s.id = p.status_id WHERE ${which}
      ${COMPUTED_ONCE}) x
    WHERE t.id = x.id AND t.utilization IS DISTINCT FROM x.pct`.execute(tx);
}

/** Refreshes the utilisation of every prefix a write at `keys` can change: two statements whatever the keys. */
export async function refreshUtilization(tx: Kysely<DB>, keys: UsageKey[]): Promise<void> {
  if (keys.length === 0) return;
  const { rows } = await sql<{ id: string }>`
    SELECT p.id FROM prefixes p
    JOIN ${tenantKeys('k', keys.map((k) => k.tenant), [
      { name: 'vrf_id', type: 'uuid', values: keys.map((k) => (k.vrf_id ? String(k.vrf_id) : null)) },
      { name: 'network', type: 'text', values: keys.map((k) => k.network) },
      { name: 'overlap', type: 'bool', values: keys.map((k) => k.mode === 'overlap') },
      { name: 'cross_vrf', type: 'bool', values: keys.map((k) => k.crossVrf) },
    ])}
      ON ${sameTenant('p', 'k')} AND (p.vrf_id IS NOT DISTINCT FROM k.vrf_id OR (k.cross_vrf AND p.vrf_id IS NULL))
      AND (p.prefix >>= ${keyNetwork} OR (k.overlap AND p.prefix << ${keyNetwork}))
    ORDER BY p.id FOR UPDATE OF p`.execute(tx);
  if (rows.length) await recompute(tx, sql`p.id = ANY(${[...new Set(rows.map((r) => r.id))]}::uuid[])`);
}

/** Every prefix of a tenant (after a bulk load that wrote past the hooks). */
export async function refreshTenantUtilization(tx: Kysely<DB>, tenantId: string): Promise<void> {
  await recompute(tx, inTenant(tenantId, 'p'));
}

/** The stored value as it is now (for a row the caller is about to answer with). */
export async function rereadUtilization(tx: Kysely<DB>, row: Row): Promise<void> {
  const { rows } = await sql<{ utilization: number }>`SELECT utilization FROM prefixes WHERE id = ${row.id}`.execute(tx);
  if (rows[0]) row.utilization = rows[0].utilization;
}

/** The hooks an address or range model adds: every create, move and delete, single or bulk. */
export function usageHooks(keyOf: (row: Row) => UsageKey, placing: string[]) {
  const moved = (before: Row, row: Row) => placing.some((c) => before[c] !== row[c]);
  return {
    afterCreate: ({ tx, row }: { tx: Kysely<DB>; row: Row }) => refreshUtilization(tx, [keyOf(row)]),
    afterUpdate: async ({ tx, before, row, inBulk }: { tx: Kysely<DB>; before: Row; row: Row; inBulk?: boolean }) => {
      if (!inBulk && moved(before, row)) await refreshUtilization(tx, [keyOf(before), keyOf(row)]);
    },
    afterUpdateMany: async ({ tx, rows }: { tx: Kysely<DB>; rows: Array<{ before: Row; row: Row }> }) => {
      await refreshUtilization(tx, rows.filter((r) => moved(r.before, r.row)).flatMap((r) => [keyOf(r.before), keyOf(r.row)]));
    },
    afterDelete: ({ tx, rows }: { tx: Kysely<DB>; rows: Row[] }) => refreshUtilization(tx, rows.map(keyOf)),
  };
}

/** `utilization`: percent with one decimal, read from the stored column (no query per page). */
export const utilizationField: ComputedField = {
  label: 'Utilisation',
  kind: 'percent',
  schema: { type: 'number', minimum: 0, maximum: 100, description: 'Percent used, one decimal.' },
  async load({ rows }) {
    return new Map(rows.map((r) => [String(r.id), r.utilization === undefined || r.utilization === null ? 0 : Number(r.utilization)]));
  },
};
