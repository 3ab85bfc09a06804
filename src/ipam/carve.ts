// Free child prefixes of a prefix (NetBox's available-prefixes) and free VIDs of a VLAN group (available-vlans):
// the free space is what the top-level children leave, cut into the largest aligned blocks; carving takes the
// first block of the asked length, under the same per-container lock as address allocation, through the write
// path, all or none.
import { sql, type Kysely } from 'kysely';
import ipaddr from 'ipaddr.js';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { requireModel } from '../core/registry.ts';
import { badRequest, conflict } from '../core/errors.ts';
import { namingItem } from './available.ts';
import { createRowInTx, inTransaction, loadScopedRow, prepareCreate } from '../core/crud/write.ts';
import { sameTenant } from '../core/access.ts';
import type { Row } from '../core/crud/serialize.ts';

interface Net {
  bits: 32 | 128;
  start: bigint;
  length: number;
}

function parseNet(text: string): Net {
  const [addr, len] = ipaddr.parseCIDR(text);
  const bits = addr.kind() === 'ipv4' ? 32 : 128;
  const start = addr.toByteArray().reduce((n, b) => (n << 8n) | BigInt(b), 0n);
  return { bits, start, length: len };
}

function size(bits: number, length: number): bigint {
  return 1n << BigInt(bits - length);
}

function netText(bits: 32 | 128, start: bigint, length: number): string {
  const bytes: number[] = [];
  for (let i = bits / 8 - 1; i >= 0; i--) bytes.push(Number((start >> BigInt(i * 8)) & 0xffn));
  return `${ipaddr.fromByteArray(bytes).toString()}/${length}`;
}

/** The free intervals [start, end] of a prefix, between its top-level children. */
async function freeIntervals(db: Kysely<DB>, prefix: Row): Promise<{ bits: 32 | 128; gaps: Array<[bigint, bigint]> }> {
  const outer = parseNet(String(prefix.prefix));
  // The children that hold space: the prefix's own VRF's, or every VRF's when it is a container in the global
  // table (NetBox's rule, as for utilisation: the global container is the space the VRFs are carved from).
  const holds = (child: string) => sql`${sameTenant(child, 'p')} AND ${sql.ref(`${child}.prefix`)} << p.prefix
    AND (${sql.ref(`${child}.vrf_id`)} IS NOT DISTINCT FROM p.vrf_id OR (p.vrf_id IS NULL AND s.slug = 'container'))`;
  const { rows } = await sql<{ prefix: string }>`SELECT c.prefix::text AS prefix FROM prefixes c, prefixes p LEFT JOIN statuses s ON s.id = p.status_id
    WHERE p.id = ${prefix.id} AND ${holds('c')}
      AND NOT EXISTS (SELECT 1 FROM prefixes m WHERE ${holds('m')} AND m.prefix >> c.prefix)
    ORDER BY c.prefix`.execute(db);
  const gaps: Array<[bigint, bigint]> = [];
  let cursor = outer.start;
  const end = outer.start + size(outer.bits, outer.length) - 1n;
  for (const r of rows) {
    const c = parseNet(r.prefix);
    if (c.start > cursor) gaps.push([cursor, c.start - 1n]);
    const after = c.start + size(c.bits, c.length);
    if (after > cursor) cursor = after;
  }
  if (cursor <= end) gaps.push([cursor, end]);
  return { bits: outer.bits, gaps };
}

/** An interval cut into the largest aligned CIDR blocks, in address order. */
function blocks(bits: 32 | 128, [from, to]: [bigint, bigint]): string[] {
  const out: string[] = [];
  let cur = from;
  while (cur <= to) {
    let length = bits;
    // Grow the block while it stays aligned and inside the interval.
    while (length > 0) {
      const bigger = size(bits, length - 1);
      if (cur % bigger !== 0n || cur + bigger - 1n > to) break;
      length--;
    }
    out.push(netText(bits, cur, length));
    cur += size(bits, length);
  }
  return out;
}

export async function availablePrefixes(db: Kysely<DB>, prefix: Row): Promise<string[]> {
  const { bits, gaps } = await freeIntervals(db, prefix);
  return gaps.flatMap((g) => blocks(bits, g));
}

/** The first aligned block of `length` inside the free intervals, or null; the intervals shrink by it. */
function takeBlock(bits: 32 | 128, gaps: Array<[bigint, bigint]>, length: number): string | null {
  const n = size(bits, length);
  for (const [i, [from, to]] of gaps.entries()) {
    const start = ((from + n - 1n) / n) * n;
    if (start + n - 1n > to) continue;
    const rest: Array<[bigint, bigint]> = [];
    if (start > from) rest.push([from, start - 1n]);
    if (start + n - 1n < to) rest.push([start + n, to]);
    gaps.splice(i, 1, ...rest);
    return netText(bits, start, length);
  }
  return null;
}

function carveItems(body: unknown): Array<Record<string, unknown> & { prefix_length: number }> {
  const items = Array.isArray(body) ? body : [body];
  if (items.length === 0 || items.length > 100) throw badRequest({ non_field_errors: ['Send an object with prefix_length, or a list of 1 to 100 of them.'] });
  items.forEach((item, i) => {
    const at = (k: string) => (Array.isArray(body) ? `[${i}].${k}` : k);
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw badRequest({ [Array.isArray(body) ? `[${i}]` : 'non_field_errors']: ['Expected an object with prefix_length.'] });
    const length = (item as { prefix_length?: unknown }).prefix_length;
    if (typeof length !== 'number' || !Number.isInteger(length) || length < 0 || length > 128) throw badRequest({ [at('prefix_length')]: ['A whole number: the mask length of the prefix to carve, e.g. 26.'] });
    for (const key of ['prefix', 'vrf']) if (key in item) throw badRequest({ [at(key)]: ['Set by the parent prefix: leave it out.'] });
  });
  return items as Array<Record<string, unknown> & { prefix_length: number }>;
}

export async function carvePrefixes(db: Kysely<DB>, ctx: RequestContext, prefixId: string, body: unknown): Promise<Row[]> {
  const items = carveItems(body);
  const model = requireModel('ipam.prefix');
  return inTransaction(db, async (tx) => {
    const parent = await loadScopedRow(tx, ctx, model, prefixId);
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`cairn.ipam.available:${String(parent.id)}`}, 0))`.execute(tx);
    const { bits, gaps } = await freeIntervals(tx, parent);
    const outerLength = parseNet(String(parent.prefix)).length;
    const created: Row[] = [];
    for (const [i, item] of items.entries()) {
      const { prefix_length: length, ...rest } = item;
      if (length <= outerLength || length > bits) {
        throw badRequest({ [Array.isArray(body) ? `[${i}].prefix_length` : 'prefix_length']: [`Inside ${String(parent.prefix)} a child prefix is /${outerLength + 1} to /${bits}.`] });
      }
      const block = takeBlock(bits, gaps, length);
      if (!block) throw conflict(`${String(parent.prefix)} has no free /${length} left${items.length > 1 ? ` for the ${i + 1}${i === 0 ? 'st' : i === 1 ? 'nd' : i === 2 ? 'rd' : 'th'} prefix asked for` : ''}. Nothing was created.`);
      try {
        created.push(await createRowInTx(tx, ctx, model, await prepareCreate(ctx, model, { ...rest, prefix: block, vrf: parent.vrf_id ?? null })));
      } catch (err) {
        throw namingItem(err, body, i);
      }
    }
    return created;
  });
}

/** The first `limit` VIDs of a VLAN group not used by its VLANs. */
export async function freeVids(db: Kysely<DB>, group: Row, limit: number): Promise<number[]> {
  const { rows } = await sql<{ vid: number }>`SELECT v AS vid FROM generate_series(${group.min_vid}::int, ${group.max_vid}::int) v
    WHERE NOT EXISTS (SELECT 1 FROM vlans x WHERE x.group_id = ${group.id} AND x.vid = v) ORDER BY v LIMIT ${limit}`.execute(db);
  return rows.map((r) => r.vid);
}

export async function allocateVlans(db: Kysely<DB>, ctx: RequestContext, groupId: string, body: unknown): Promise<Row[]> {
  const items = Array.isArray(body) ? body : [body];
  if (items.length === 0 || items.length > 100) throw badRequest({ non_field_errors: ['Send an object with the VLAN name, or a list of 1 to 100 of them.'] });
  items.forEach((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw badRequest({ [Array.isArray(body) ? `[${i}]` : 'non_field_errors']: ['Expected an object of VLAN fields (name, …).'] });
    for (const key of ['vid', 'group']) if (key in item) throw badRequest({ [Array.isArray(body) ? `[${i}].${key}` : key]: ['Set by the group: leave it out.'] });
  });
  const model = requireModel('ipam.vlan');
  return inTransaction(db, async (tx) => {
    const group = await loadScopedRow(tx, ctx, requireModel('ipam.vlangroup'), groupId);
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`cairn.ipam.available:${String(group.id)}`}, 0))`.execute(tx);
    const free = await freeVids(tx, group, items.length);
    if (free.length < items.length) {
      throw conflict(`VLAN group ${String(group.name)} has ${free.length === 0 ? 'no free VID' : `only ${free.length} free VIDs`} in ${group.min_vid}–${group.max_vid}; ${items.length} asked for. Nothing was created.`);
    }
    const created: Row[] = [];
    for (const [i, item] of items.entries()) {
      try {
        created.push(await createRowInTx(tx, ctx, model, await prepareCreate(ctx, model, { ...(item as object), vid: free[i], group: group.id })));
      } catch (err) {
        throw namingItem(err, body, i);
      }
    }
    return created;
  });
}
