// What a cable may end on. Each kind of cable end (an interface, a front or rear port, a console port, a power
// feed, a circuit termination…) is registered once by the file that defines its model, with the object it belongs
// to (a device, a power panel, a circuit), whether a trace may end on it, and how a trace passes through it. The
// cable's fields, its validation, link peers and traces all read this registry, so a new kind of end is one
// registration, not an edit of the cabling code.
import { noteRegistration } from '../core/provenance.ts';
import { sql, type RawBuilder } from 'kysely';
import { tenantColumn } from '../core/access.ts';

export interface CableEndKind {
  /** The model's name, as stored in cable_terminations.termination_type. */
  type: string;
  table: string;
  /** The object every end of this kind belongs to, shown before its name (`ams1-leaf1 › Ethernet1`). */
  parent: { model: string; table: string; column: string; nameColumn: string };
  /**
   * SQL expressions over the kind's row (alias `x`) for the columns every end shows; the default is the column of
   * that name, or NULL (`type`, `description`, `custom_fields`) where the table has none.
   */
  columns?: { name?: string; name_natural?: string; type?: string | null; description?: string | null; custom_fields?: string | null } & PanelColumns;
  /** A trace that reaches this kind and cannot go on ends complete here (an interface, a console port, a power feed). */
  endpoint: boolean;
  /**
   * Where a trace goes on from an end of this kind without a cable (a circuit's far termination, an outlet's power
   * port): the next end's kind, and its id as a scalar SQL expression over the reached end's id (`far`), fenced by
   * `mine(alias)` on every table it reads.
   */
  passThrough?: { type: string; next(far: RawBuilder<unknown>, mine: (alias: string) => RawBuilder<unknown>): RawBuilder<unknown> };
  /** Kinds an end of this kind may be cabled to (NetBox's COMPATIBLE_TERMINATION_TYPES). */
  compatible: readonly string[];
  /**
   * The table has NetBox's `mark_connected` flag (connected outside Cairn): a cable may not end on an object
   * marked so.
   */
  markConnected?: boolean;
  /**
   * Ends of this kind that take no cable (a circuit termination on a provider network): a condition over the
   * kind's row (alias `x`), and why, in words that follow the end's name.
   */
  uncableable?: { when: string; reason: string };
}

/** A patch panel's columns, which only front and rear ports have (NULL for every other kind). */
interface PanelColumns {
  rear_port_id?: string;
  rear_port_position?: string;
  positions?: string;
}

const kinds = new Map<string, CableEndKind>();

/**
 * Every kind of cable end, in registration order: also the list the cable's a/b_terminations accept (the same
 * array, filled as kinds register, which is before the app reads it).
 */
export const TERMINATION_TYPES: string[] = [];

let union: RawBuilder<unknown> | null = null;

export function registerCableEnd(kind: CableEndKind): void {
  if (kinds.has(kind.type)) throw new Error(`Cable end ${kind.type} is registered twice.`);
  noteRegistration(kind.type, 'cable end', [`parent ${kind.parent.model}`]);
  kinds.set(kind.type, kind);
  TERMINATION_TYPES.push(kind.type);
  union = null;
}

export function cableEndKind(type: string): CableEndKind | undefined {
  return kinds.get(type);
}

export function cableEndKinds(): CableEndKind[] {
  return [...kinds.values()];
}

/** The kinds a trace may end on complete. */
export function endpointTypes(): string[] {
  return cableEndKinds().filter((k) => k.endpoint).map((k) => k.type);
}

/** May an end of kind `a` be cabled to one of kind `b`? */
export function compatibleEnds(a: string, b: string): boolean {
  return kinds.get(a)?.compatible.includes(b) ?? false;
}

/**
 * Every object a cable may end on, as one relation with its kind beside each row: object_type, id, numid, the
 * tenant, parent_type/parent_id/parent_name (the device, panel or circuit it belongs to), device_id (the parent
 * when it is a device, else NULL), name, name_natural, type, description, custom_fields, and the panel columns
 * rear_port_id, rear_port_position, positions (NULL for other kinds). Filters on it (id, tenant) are pushed into
 * each branch by the planner, so it costs what the lookups one by one would.
 */
export function cableablePorts(): RawBuilder<unknown> {
  if (union) return union;
  const branches = cableEndKinds().map((k) => {
    const c = k.columns ?? {};
    const col = (key: 'type' | 'description' | 'custom_fields', cast: string) => {
      const expr = c[key];
      return expr === null ? sql.raw(`NULL::${cast}`) : sql.raw(expr ?? `x.${key}`);
    };
    const panel = (column: keyof PanelColumns, cast: string) => sql.raw(c[column] ?? `NULL::${cast}`);
    return sql`SELECT ${k.type}::text AS object_type, x.id, x.numid, ${tenantColumn('x')}, ${k.parent.model}::text AS parent_type,
      ${sql.ref(`x.${k.parent.column}`)} AS parent_id,
      (SELECT ${sql.ref(`par.${k.parent.nameColumn}`)} FROM ${sql.table(k.parent.table)} par WHERE par.id = ${sql.ref(`x.${k.parent.column}`)})::text AS parent_name,
      ${k.parent.model === 'dcim.device' ? sql.ref(`x.${k.parent.column}`) : sql`NULL::uuid`} AS device_id,
      ${sql.raw(c.name ?? 'x.name')}::text AS name, ${sql.raw(c.name_natural ?? 'x.name_natural')}::text AS name_natural,
      ${col('type', 'text')}::text AS type, ${col('description', 'text')}::text AS description, ${col('custom_fields', 'jsonb')}::jsonb AS custom_fields,
      ${panel('rear_port_id', 'uuid')}::uuid AS rear_port_id, ${panel('rear_port_position', 'integer')}::integer AS rear_port_position,
      ${panel('positions', 'integer')}::integer AS positions
      FROM ${sql.table(k.table)} x`;
  });
  union = sql`(${sql.join(branches, sql` UNION ALL `)})`;
  return union;
}
