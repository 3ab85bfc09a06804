// The Cairn side's column types, read from the catalog once per table: how each value is checked (length, whole
// numbers, required) and how it travels in a bulk statement (unnest of typed arrays).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';

export interface CairnColumn {
  name: string;
  /** PostgreSQL's type name (`varchar`, `int4`, `_text` for text[]). */
  udt: string;
  nullable: boolean;
  /** The column's default as SQL text, or null. */
  defaultSql: string | null;
  maxLength: number | null;
  generated: boolean;
}

export async function cairnColumns(tx: Kysely<DB>, table: string): Promise<Map<string, CairnColumn>> {
  const { rows } = await sql<{ column_name: string; udt_name: string; is_nullable: string; column_default: string | null; character_maximum_length: number | null; is_generated: string }>`
    SELECT column_name, udt_name, is_nullable, column_default, character_maximum_length, is_generated
    FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table}`.execute(tx);
  return new Map(rows.map((r) => [r.column_name, {
    name: r.column_name,
    udt: r.udt_name,
    nullable: r.is_nullable === 'YES',
    defaultSql: r.column_default,
    maxLength: r.character_maximum_length,
    generated: r.is_generated === 'ALWAYS',
  }]));
}

/** The value a NOT NULL column takes when NetBox has none (its default, for the simple defaults columns have). */
export function defaultValue(col: CairnColumn): { value: unknown } | null {
  const d = col.defaultSql;
  if (d === null) return null;
  if (/^'(.*)'::(character varying|text|bpchar|character)/.test(d)) return { value: /^'(.*)'::/.exec(d)![1]!.replace(/''/g, "'") };
  if (d === 'true' || d === 'false') return { value: d === 'true' };
  if (/^-?\d+(\.\d+)?$/.test(d)) return { value: Number(d) };
  if (/^'\{\}'::jsonb$/.test(d)) return { value: {} };
  if (/^'\[\]'::jsonb$/.test(d)) return { value: [] };
  if (/^'\{\}'::\w+\[\]$/.test(d) || /^ARRAY\[\]/.test(d)) return { value: [] };
  return null;
}

/** A value as one element of the typed array a bulk statement binds (arrays and JSON travel as text). */
export function encodeForArray(col: CairnColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (col.udt === 'jsonb' || col.udt === 'json') return JSON.stringify(value);
  if (col.udt.startsWith('_')) return arrayLiteral(value as unknown[]);
  if (value instanceof Date) return value.toISOString();
  return value;
}

/** The element type and cast for a column in a bulk statement. */
export function bindType(col: CairnColumn): { pgType: string; cast?: string } {
  if (col.udt.startsWith('_')) return { pgType: 'text', cast: `${col.udt.slice(1)}[]` };
  if (col.udt === 'varchar' || col.udt === 'bpchar') return { pgType: 'text', cast: col.udt };
  return { pgType: col.udt };
}

function arrayLiteral(items: unknown[]): string {
  return `{${items.map((v) => (v === null ? 'NULL' : `"${String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`)).join(',')}}`;
}
