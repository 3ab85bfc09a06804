// Next free addresses of a prefix (NetBox's available-ips): the free space computed in SQL from the gaps between
// the addresses in use (range arithmetic, never by walking addresses), and allocation that is safe under
// concurrent callers: a transaction-scoped advisory lock per prefix, taken before the free space is read, so
// two callers never get the same address.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import ipaddr from 'ipaddr.js';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { requireModel } from '../core/registry.ts';
import { badRequest, conflict, namingItem as namingItemOf } from '../core/errors.ts';
import { inTransaction, loadScopedRow, prepareCreate, createRowInTx } from '../core/crud/write.ts';
import type { Row } from '../core/crud/serialize.ts';
import { inTenant, tenantLedOrder, tenantOf } from '../core/access.ts';

export const MAX_AVAILABLE = 1000;

/** Where free addresses are looked for: a tenant and VRF, the first and last host (SQL), the mask to answer with. */
interface AddressSpace {
  tenantId: string;
  vrfId: string | null;
  first: RawBuilder<unknown>;
  last: RawBuilder<unknown>;
  /** A network the space lies in, for the address index (`address && network`). */
  network: RawBuilder<unknown>;
  maskLength: RawBuilder<unknown>;
}

/** A prefix's assignable hosts: IPv4 leaves out network and broadcast below /31, IPv6 the subnet-router anycast
 * address below /127, unless the prefix is a pool (NetBox's rules). */
export function prefixSpace(prefix: Row): AddressSpace {
  const p = sql`${String(prefix.prefix)}::cidr`;
  const pool = prefix.is_pool === true;
  return {
    tenantId: tenantOf(prefix),
    vrfId: prefix.vrf_id ? String(prefix.vrf_id) : null,
    first: sql`(host(network(${p}))::inet + CASE WHEN ${pool} THEN 0 WHEN family(${p}) = 4 AND masklen(${p}) < 31 THEN 1 WHEN family(${p}) = 6 AND masklen(${p}) < 127 THEN 1 ELSE 0 END)`,
    last: sql`(host(broadcast(${p}))::inet - CASE WHEN ${pool} THEN 0 WHEN family(${p}) = 4 AND masklen(${p}) < 31 THEN 1 ELSE 0 END)`,
    network: p,
    maskLength: sql`masklen(${p})`,
  };
}

/** An IP range's hosts, both ends included, answered with the range's mask. */
export function rangeSpace(range: Row): AddressSpace {
  const start = sql`${String(range.start_address)}::inet`;
  const end = sql`${String(range.end_address)}::inet`;
  return {
    tenantId: tenantOf(range),
    vrfId: range.vrf_id ? String(range.vrf_id) : null,
    first: sql`host(${start})::inet`,
    last: sql`host(${end})::inet`,
    network: sql`network(${start})`,
    maskLength: sql`masklen(${start})`,
  };
}

/** The first `limit` free addresses of a space, with its mask (`10.0.0.5/24`), in address order (from gapsOf). */
export async function freeAddresses(db: Kysely<DB>, space: AddressSpace, limit: number): Promise<string[]> {
  const { rows } = await sql<{ address: string }>`
    ${gapsOf(space, limit)}
    SELECT set_masklen(g.gstart + i, ${space.maskLength})::text AS address
    FROM gaps g CROSS JOIN generate_series(0, ${limit - 1}) AS i
    WHERE g.gstart + i <= g.gend
    ORDER BY g.gstart + i LIMIT ${limit}`.execute(db);
  return rows.map((r) => r.address);
}

/** A run of free addresses: its first and last (with the space's mask) and how many it holds (exact, as text: an IPv6 run can exceed 2^53). */
export interface FreeRange {
  start_address: string;
  end_address: string;
  size: string;
}

/** The first `limit` runs of free addresses of a space, in address order: the gaps freeAddresses reads, whole. */
export async function freeRanges(db: Kysely<DB>, space: AddressSpace, limit: number): Promise<FreeRange[]> {
  const { rows } = await sql<{ start_address: string; end_address: string }>`
    ${gapsOf(space, limit)}
    SELECT set_masklen(g.gstart, ${space.maskLength})::text AS start_address, set_masklen(g.gend, ${space.maskLength})::text AS end_address
    FROM gaps g ORDER BY g.gstart LIMIT ${limit}`.execute(db);
  return rows.map((r) => ({ ...r, size: String(hostNumber(r.end_address) - hostNumber(r.start_address) + 1n) }));
}

/** An address (mask ignored) as the number it is. */
function hostNumber(address: string): bigint {
  return ipaddr.parse(address.split('/')[0]!).toByteArray().reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
}

/**
 * The free runs of a space as a `gaps (gstart, gend)` CTE, in address order: the used hosts come from the index on
 * (tenant, VRF, host) (migration 0023) in address order, the gaps between neighbours are found as they stream by
 * (a host used twice, in a space that allows it, makes an empty gap) and the scan stops after `limit` gaps; the
 * space after the last used host comes from one backward index probe.
 */
function gapsOf(space: AddressSpace, limit: number): RawBuilder<unknown> {
  // Bounds as expressions over constants (folded once by the planner), the VRF as an equality or IS NULL (not
  // IS NOT DISTINCT FROM): both so the index serves the scan.
  const inSpace = sql`${inTenant(space.tenantId, 'a')} AND ${space.vrfId === null ? sql`a.vrf_id IS NULL` : sql`a.vrf_id = ${space.vrfId}::uuid`}
    AND a.host BETWEEN ${space.first} AND ${space.last}`;
  return sql`
    WITH inner_gaps AS (
      SELECT gstart, gend FROM (
        -- Ordered by the index's own columns (tenant and VRF are fixed here): the index order feeds the window
        -- with no sort, so the LIMIT below stops the scan.
        SELECT coalesce(lag(a.host) OVER (ORDER BY ${tenantLedOrder('a', ['vrf_id', 'host'])}) + 1, ${space.first}) AS gstart, a.host - 1 AS gend
        FROM ip_addresses a WHERE ${inSpace}
      ) x WHERE gstart <= gend LIMIT ${limit}
    ),
    last_used AS MATERIALIZED (SELECT (SELECT a.host FROM ip_addresses a WHERE ${inSpace} ORDER BY ${tenantLedOrder('a', ['vrf_id', 'host'], 'desc')} LIMIT 1) AS h),
    gaps AS (
      SELECT gstart, gend FROM inner_gaps
      UNION ALL
      SELECT CASE WHEN l.h IS NULL THEN ${space.first} ELSE l.h + 1 END, ${space.last} FROM last_used l
        WHERE ${space.first} <= ${space.last} AND (l.h IS NULL OR l.h < ${space.last})
    )`;
}

/** A prefix or an IP range as the caller may see it (404 otherwise), with the space its free addresses are in. */
export async function loadContainer(db: Kysely<DB>, ctx: RequestContext, kind: 'prefix' | 'range', id: string): Promise<{ row: Row; space: AddressSpace; label: string }> {
  if (kind === 'prefix') {
    const row = await loadScopedRow(db, ctx, requireModel('ipam.prefix'), id);
    return { row, space: prefixSpace(row), label: String(row.prefix) };
  }
  const row = await loadScopedRow(db, ctx, requireModel('ipam.iprange'), id);
  return { row, space: rangeSpace(row), label: `The range ${String(row.start_address)}–${String(row.end_address)}` };
}

/** A failure of one item: named by its index when the body was a list. */
export function namingItem(err: unknown, body: unknown, i: number): unknown {
  return Array.isArray(body) ? namingItemOf(err, i) : err;
}

/** Request bodies of POST available-ips: `{}` or one object for one address, a list for several. */
function requestedItems(body: unknown): Array<Record<string, unknown>> {
  if (body === undefined || body === null) return [{}];
  const items = Array.isArray(body) ? body : [body];
  if (items.length === 0) throw badRequest({ non_field_errors: ['Send {} or an object for one address, or a non-empty list of objects.'] });
  if (items.length > MAX_AVAILABLE) throw badRequest({ non_field_errors: [`At most ${MAX_AVAILABLE} addresses per call.`] });
  items.forEach((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw badRequest({ [`[${i}]`]: ['Expected an object of address fields.'] });
    for (const key of ['address', 'vrf']) {
      if (key in item) throw badRequest({ [Array.isArray(body) ? `[${i}].${key}` : key]: ['Set by the prefix: leave it out.'] });
    }
  });
  return items as Array<Record<string, unknown>>;
}

/**
 * Creates one address per item in the first free addresses of the prefix (in its VRF), all or none, through the
 * write path (checks, hooks, change log). 409 naming the prefix when there is not enough room.
 */
export async function allocateAddresses(db: Kysely<DB>, ctx: RequestContext, kind: 'prefix' | 'range', containerId: string, body: unknown): Promise<Row[]> {
  const items = requestedItems(body);
  const model = requireModel('ipam.ipaddress');
  return inTransaction(db, async (tx) => {
    const { row, space, label } = await loadContainer(tx, ctx, kind, containerId);
    // Per container: concurrent callers queue here, and each reads the free space after the previous one committed.
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`cairn.ipam.available:${String(row.id)}`}, 0))`.execute(tx);
    const free = await freeAddresses(tx, space, items.length);
    if (free.length < items.length) {
      throw conflict(`${label} has ${free.length === 0 ? 'no free address' : `only ${free.length} free address${free.length === 1 ? '' : 'es'}`}; ${items.length} ${items.length === 1 ? 'was' : 'were'} asked for. Nothing was created.`);
    }
    const created: Row[] = [];
    for (const [i, item] of items.entries()) {
      try {
        const input = await prepareCreate(ctx, model, { ...item, address: free[i], vrf: space.vrfId });
        created.push(await createRowInTx(tx, ctx, model, input));
      } catch (err) {
        throw namingItem(err, body, i);
      }
    }
    return created;
  });
}
