// nat_outside: the addresses that name this one as their NAT inside address, for a page of addresses in one query.
import { sql } from 'kysely';
import type { ComputedField } from '../core/registry.ts';
import { requireModel } from '../core/registry.ts';
import { scopeCondition } from '../core/access.ts';
import { briefFromJson, briefJson, briefObject, type Row } from '../core/crud/serialize.ts';
import { briefSchema } from '../core/crud/schemas.ts';

export const natOutsideField: ComputedField = {
  label: 'NAT (outside)',
  kind: 'objects',
  schema: { type: 'array', items: briefSchema },
  async load({ db, ctx, rows, origin }) {
    const out = new Map<string, unknown>();
    for (const r of rows) out.set(String(r.id), []);
    if (rows.length === 0) return out;
    const model = requireModel('ipam.ipaddress');
    const { rows: outside } = await sql<Row>`SELECT o.* FROM ip_addresses o
      WHERE o.nat_inside_id = ANY(${rows.map((r) => String(r.id))}::uuid[]) AND ${scopeCondition(ctx, model, 'o')} ORDER BY o.address`.execute(db);
    for (const o of outside) (out.get(String(o.nat_inside_id)) as unknown[]).push(briefObject(model, o, origin));
    return out;
  },
  inline: {
    select: (ctx, alias) => {
      const model = requireModel('ipam.ipaddress');
      return sql`(SELECT json_agg(${briefJson(model, 'o')} ORDER BY o.address) FROM ip_addresses o
        WHERE o.nat_inside_id = ${sql.ref(`${alias}.id`)} AND ${scopeCondition(ctx, model, 'o')})`;
    },
    value: (selected, origin) => {
      const model = requireModel('ipam.ipaddress');
      return Array.isArray(selected) ? selected.map((v) => briefFromJson(model, v, origin)) : [];
    },
  },
};
