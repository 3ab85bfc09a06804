// Free AS numbers of an ASN range (NetBox's available-asns): computed in SQL from the gaps between the ASNs in
// use (never by walking a range that may hold four billion numbers), and allocation safe under concurrent
// callers: a transaction-scoped advisory lock per range, taken before the free numbers are read, as
// available-ips does (./available.ts).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { requireModel } from '../core/registry.ts';
import { badRequest, conflict } from '../core/errors.ts';
import { inTransaction, loadScopedRow, prepareCreate, createRowInTx } from '../core/crud/write.ts';
import type { Row } from '../core/crud/serialize.ts';
import { inTenant, tenantLedOrder, tenantOf } from '../core/access.ts';
import { MAX_AVAILABLE, namingItem } from './available.ts';

/**
 * The first `limit` free ASNs of a range, in order. The used ASNs come from the index on (tenant, asn) in order,
 * the gaps between neighbours are found as they stream by and the scan stops after `limit` gaps; the space after
 * the last used ASN comes from one backward index probe.
 */
export async function freeAsns(db: Kysely<DB>, range: Row, limit: number): Promise<number[]> {
  const first = sql`${Number(range.start_asn)}::bigint`;
  const last = sql`${Number(range.end_asn)}::bigint`;
  const inRange = sql`${inTenant(tenantOf(range), 'a')} AND a.asn BETWEEN ${first} AND ${last}`;
  const { rows } = await sql<{ asn: number }>`
    WITH inner_gaps AS (
      SELECT gstart, gend FROM (
        SELECT coalesce(lag(a.asn) OVER (ORDER BY ${tenantLedOrder('a', ['asn'])}) + 1, ${first}) AS gstart, a.asn - 1 AS gend
        FROM asns a WHERE ${inRange}
      ) x WHERE gstart <= gend LIMIT ${limit}
    ),
    last_used AS MATERIALIZED (SELECT (SELECT a.asn FROM asns a WHERE ${inRange} ORDER BY ${tenantLedOrder('a', ['asn'], 'desc')} LIMIT 1) AS h),
    gaps AS (
      SELECT gstart, gend FROM inner_gaps
      UNION ALL
      SELECT coalesce(l.h + 1, ${first}), ${last} FROM last_used l WHERE l.h IS NULL OR l.h < ${last}
    )
    SELECT g.gstart + i AS asn
    FROM gaps g CROSS JOIN generate_series(0, ${limit - 1}) AS i
    WHERE g.gstart + i <= g.gend
    ORDER BY g.gstart + i LIMIT ${limit}`.execute(db);
  return rows.map((r) => Number(r.asn));
}

/** Request bodies of POST available-asns: `{}` or one object for one ASN, a list for several. */
function requestedItems(body: unknown): Array<Record<string, unknown>> {
  if (body === undefined || body === null) return [{}];
  const items = Array.isArray(body) ? body : [body];
  if (items.length === 0) throw badRequest({ non_field_errors: ['Send {} or an object for one ASN, or a non-empty list of objects.'] });
  if (items.length > MAX_AVAILABLE) throw badRequest({ non_field_errors: [`At most ${MAX_AVAILABLE} ASNs per call.`] });
  items.forEach((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw badRequest({ [`[${i}]`]: ['Expected an object of ASN fields.'] });
    for (const key of ['asn', 'rir']) {
      if (key in item) throw badRequest({ [Array.isArray(body) ? `[${i}].${key}` : key]: ['Set by the ASN range: leave it out.'] });
    }
  });
  return items as Array<Record<string, unknown>>;
}

/**
 * Creates one ASN per item on the first free numbers of the range (of the range's RIR), all or none, through the
 * write path (checks, hooks, change log). 409 naming the range when there is not enough room.
 */
export async function allocateAsns(db: Kysely<DB>, ctx: RequestContext, rangeId: string, body: unknown): Promise<Row[]> {
  const items = requestedItems(body);
  const model = requireModel('ipam.asn');
  return inTransaction(db, async (tx) => {
    const range = await loadScopedRow(tx, ctx, requireModel('ipam.asnrange'), rangeId);
    // Per range: concurrent callers queue here, and each reads the free numbers after the previous one committed.
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`cairn.ipam.available-asns:${String(range.id)}`}, 0))`.execute(tx);
    const free = await freeAsns(tx, range, items.length);
    if (free.length < items.length) {
      const label = `The ASN range ${String(range.name)} (${String(range.start_asn)}-${String(range.end_asn)})`;
      throw conflict(`${label} has ${free.length === 0 ? 'no free ASN' : `only ${free.length} free ASN${free.length === 1 ? '' : 's'}`}; ${items.length} ${items.length === 1 ? 'was' : 'were'} asked for. Nothing was created.`);
    }
    const created: Row[] = [];
    for (const [i, item] of items.entries()) {
      try {
        const input = await prepareCreate(ctx, model, { ...item, asn: free[i], rir: range.rir_id });
        created.push(await createRowInTx(tx, ctx, model, input));
      } catch (err) {
        throw namingItem(err, body, i);
      }
    }
    return created;
  });
}
