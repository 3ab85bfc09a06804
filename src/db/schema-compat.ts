// Whether the code of the release before a migration still reads the schema after it. An upgrade that keeps the
// site readable lets the old release's web answer reads while the new release migrates, when the migration only
// adds (expand, not contract): no table, view, column or function the old code may read is gone, retyped or newly
// nullable (trigger functions aside: reads never call them). Compared on the catalog itself, inside the migration's transaction, so a migration cannot claim it.
import { sql, type Kysely } from 'kysely';

/** What old code may read: relations with their columns, and functions with their signatures. */
export interface SchemaShape {
  /** "relation.column" → "type" plus " not null" where it is. */
  columns: Map<string, string>;
  relations: Map<string, string>;
  /** "name(argument types)" → result type. */
  functions: Map<string, string>;
}

const RELATION_KINDS: Record<string, string> = { r: 'table', p: 'table', v: 'view', m: 'materialized view' };

export async function schemaShape(db: Kysely<unknown>): Promise<SchemaShape> {
  const rows = await sql<{ relation: string; kind: string; column: string | null; type: string | null; not_null: boolean | null }>`
    SELECT c.relname AS relation, c.relkind AS kind, a.attname AS column,
           format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
     WHERE n.nspname = ANY (current_schemas(false)) AND c.relkind IN ('r', 'p', 'v', 'm')`.execute(db);
  const functions = await sql<{ signature: string; result: string }>`
    SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS signature,
           pg_get_function_result(p.oid) AS result
      FROM pg_proc p
      JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = ANY (current_schemas(false)) AND p.prokind IN ('f', 'a', 'w')
       AND p.prorettype <> 'trigger'::regtype`.execute(db);
  const shape: SchemaShape = { columns: new Map(), relations: new Map(), functions: new Map() };
  for (const r of rows.rows) {
    shape.relations.set(r.relation, RELATION_KINDS[r.kind] ?? r.kind);
    if (r.column !== null) shape.columns.set(`${r.relation}.${r.column}`, `${r.type}${r.not_null ? ' not null' : ''}`);
  }
  for (const f of functions.rows) shape.functions.set(f.signature, f.result ?? '');
  return shape;
}

/** What of `before` the code written for it could no longer read in `after`; empty when the change only adds. */
export function unreadableChanges(before: SchemaShape, after: SchemaShape): string[] {
  const out: string[] = [];
  for (const [name, kind] of before.relations) {
    const now = after.relations.get(name);
    if (now === undefined) out.push(`${kind} ${name} is gone`);
    else if (now !== kind) out.push(`${name} was a ${kind} and is a ${now}`);
  }
  for (const [column, was] of before.columns) {
    const relation = column.slice(0, column.indexOf('.'));
    if (!after.relations.has(relation)) continue; // said once, above
    const now = after.columns.get(column);
    if (now === undefined) out.push(`column ${column} is gone`);
    // A column that became NOT NULL still reads as before; one that may now be null, or changed type, does not.
    else if (now !== was && now !== `${was} not null`) out.push(`column ${column} was ${was} and is ${now}`);
  }
  for (const [fn, result] of before.functions) {
    const now = after.functions.get(fn);
    if (now === undefined) out.push(`function ${fn} is gone`);
    else if (now !== result) out.push(`function ${fn} returned ${result} and returns ${now}`);
  }
  return out;
}
