// Keyset reads of a list: the rows after a given row in the list's ordering, read off the ordering's index instead
// of skipped past (OFFSET) or looked up one by one from a list of ids. Rows read this way carry their ordering's
// values as text (keysetColumns) so the next read can continue after the last of them (keysetAfter).
import { sql, type RawBuilder } from 'kysely';
import type { OrderKey } from './list-query.ts';
import type { Row } from './serialize.ts';

/** The name a row's value of ordering key `i` comes back under; no field can be called so. */
function orderColumn(i: number): string {
  return `__order_${i}`;
}

/**
 * `, <alias>.<column>::text AS "__order_<i>"` for each key but the last (the id, which rows carry anyway) and those
 * `carried` says the rows already hold as that text (a text column the query selects). As text, a value goes back
 * into the next query as it came: PostgreSQL reads the parameter as the column's type.
 */
export function keysetColumns(keys: readonly OrderKey[], alias: string, carried: (column: string) => boolean = () => false): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  keys.slice(0, -1).forEach((k, i) => {
    if (!carried(k.column)) parts.push(sql`, ${sql.ref(`${alias}.${k.column}`)}::text AS ${sql.ref(orderColumn(i))}`);
  });
  return parts.length ? sql.join(parts, sql``) : sql``;
}

/** The names keysetColumns gives its columns (with nothing carried), for a query that reads them back by name. */
export function keysetColumnNames(keys: readonly OrderKey[]): string[] {
  return keys.slice(0, -1).map((_k, i) => orderColumn(i));
}

/** The value of key `i` of `row`, as keysetColumns read it (or the row carried it): text, or null. */
function keyValue(keys: readonly OrderKey[], row: Row, i: number): string | null {
  const own = orderColumn(i);
  const v = i === keys.length - 1 ? row.id : own in row ? row[own] : row[keys[i]!.column];
  return v === null || v === undefined ? null : String(v);
}

/**
 * The condition selecting the rows after `row` in the ordering `keys` (ascending nulls first, descending nulls last,
 * as the list's ORDER BY has them; the id ascending last). All ascending and not null, it is one row comparison an
 * index range scan serves; otherwise the key-by-key expansion, led by a bound on the first key where one exists.
 */
export function keysetAfter(keys: readonly OrderKey[], row: Row, alias: string): RawBuilder<unknown> {
  const ref = (k: OrderKey) => sql.ref(`${alias}.${k.column}`);
  if (keys.every((k) => !k.desc && !k.nullable)) {
    return sql`(${sql.join(keys.map(ref))}) > (${sql.join(keys.map((_k, i) => sql`${keyValue(keys, row, i)}`))})`;
  }
  const last = keys.length - 1;
  let cond: RawBuilder<unknown> = sql`${ref(keys[last]!)} > ${keyValue(keys, row, last)}`;
  for (let i = last - 1; i >= 0; i--) {
    const k = keys[i]!;
    const v = keyValue(keys, row, i);
    const r = ref(k);
    let after: RawBuilder<unknown>;
    let same: RawBuilder<unknown>;
    if (v === null) {
      // Nulls come first ascending, last descending.
      after = k.desc ? sql`false` : sql`${r} IS NOT NULL`;
      same = sql`${r} IS NULL`;
    } else {
      after = k.desc ? (k.nullable ? sql`(${r} < ${v} OR ${r} IS NULL)` : sql`${r} < ${v}`) : sql`${r} > ${v}`;
      same = sql`${r} = ${v}`;
    }
    cond = sql`(${after} OR (${same} AND ${cond}))`;
  }
  const first = keys[0]!;
  const v0 = keyValue(keys, row, 0);
  if (v0 === null || (first.desc && first.nullable)) return cond;
  return first.desc ? sql`(${ref(first)} <= ${v0} AND ${cond})` : sql`(${ref(first)} >= ${v0} AND ${cond})`;
}
