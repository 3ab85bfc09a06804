// Simple list templates rendered by PostgreSQL. A template that is one `{% for d in objects %}` loop whose body
// prints only values of the row and of the rows its foreign keys point to (`{{ d.name }},{{ d.site.name }}`,
// `{{ d.platform.name if d.platform else "" }}`, `{{ d.primary_ip|host }}`, `{{ d.custom_fields.tier }}`) is turned
// into one SELECT that writes each row's text in the database, as COPY would: the rows never become JavaScript
// objects, which is where most of a large export's time went (parsing, proxies, garbage collection).
//
// The text must be the engine's, byte for byte, so only what PostgreSQL prints exactly as the engine does is taken
// (text, integer and boolean columns, None as `None`, an IPv4 host); anything else makes the plan null and the
// engine renders. Values whose text depends on the data (an IPv6 address, a number or a list in a custom field, an
// address filter on nothing) are checked per row: each row says whether its text is exact, and a chunk holding one
// that is not is rendered by the engine instead (see export.ts). pushdown.test.ts renders every kind of value both
// ways and expects the same text.
import { sql, type RawBuilder } from 'kysely';
import type { Expr, Stmt } from './engine/ast.ts';
import type { RequestContext } from '../core/context.ts';
import { columnOf, isColumnField, requireModel, type FieldDef, type ModelDef } from '../core/registry.ts';
import { modelAllows, scopeCondition } from '../core/access.ts';
import { hasBuiltinMethod } from './engine/methods.ts';
import { isClosedModel, readableComputed } from './subjects.ts';
import { RESERVED_ATTRS } from './proxies.ts';

/** A list template as PostgreSQL renders it. */
export interface PushdownPlan {
  /** The text before and after the loop (plain text in the source). */
  before: string;
  after: string;
  /** LEFT JOINs of the related rows the body reads, after `<table> t`. */
  joins: RawBuilder<unknown>;
  /** One row's text (never null). */
  line: RawBuilder<unknown>;
  /** Whether that text is exactly the engine's for the row. */
  exact: RawBuilder<unknown>;
  /** Bytes of plain text the body writes for every row, whatever the values (bounds a chunk's size). */
  bodyTextBytes: number;
}

/** Printed as PostgreSQL writes them: the kinds whose column text is the value the engine prints. */
const TEXT_KINDS = new Set(['string', 'text', 'slug', 'url', 'choice', 'color']);

/** A value the body reads, as SQL. */
type Val =
  /** A column: text (`type` says how it prints), NULL for None; `defined` false reads as undefined. */
  | { k: 'scalar'; type: 'text' | 'int' | 'bool' | 'inet' | 'cidr'; sql: RawBuilder<unknown>; defined: RawBuilder<unknown> }
  /** A related row (None when absent or out of the caller's sight). */
  | { k: 'row'; model: ModelDef; alias: string; present: RawBuilder<unknown> }
  /** A row's custom_fields object. */
  | { k: 'cfs'; sql: RawBuilder<unknown> }
  /** One custom field's value (JSON), absent reading as undefined. */
  | { k: 'cf'; cfs: RawBuilder<unknown>; key: string }
  /** A device's or VM's primary address (a brief object; None when it has none the caller may see). */
  | { k: 'addr'; address: RawBuilder<unknown>; present: RawBuilder<unknown> };

/** Text and whether it is exact. */
interface Printed {
  text: RawBuilder<unknown>;
  exact: RawBuilder<unknown>;
}

const TRUE = sql`true`;
/** The alias of a relation the caller may not view (nothing is joined for it). */
const NO_ROW = '';

class Planner {
  private readonly joins: RawBuilder<unknown>[] = [];
  private readonly joined = new Map<string, string>();

  constructor(
    private readonly ctx: RequestContext,
    private readonly model: ModelDef,
    private readonly loopVar: string,
  ) {}

  joinList(): RawBuilder<unknown> {
    return this.joins.length ? sql.join(this.joins, sql` `) : sql``;
  }

  /** The text of `{{ expr }}`, or null when the engine must print it. */
  print(expr: Expr): Printed | null {
    if (expr.type === 'Const') return typeof expr.value === 'string' ? { text: sql`${expr.value}::text`, exact: TRUE } : null;
    if (expr.type === 'Concat') {
      const parts = expr.items.map((e) => this.print(e));
      if (parts.some((p) => p === null)) return null;
      const ok = parts as Printed[];
      return { text: sql`(${sql.join(ok.map((p) => p.text), sql` || `)})`, exact: and(ok.map((p) => p.exact)) };
    }
    if (expr.type === 'CondExpr') {
      const test = this.truth(expr.test);
      const yes = this.print(expr.expr1);
      // No else: an undefined value, printed as nothing.
      const no = expr.expr2 ? this.print(expr.expr2) : { text: sql`''::text`, exact: TRUE };
      if (!test || !yes || !no) return null;
      const exact = yes.exact === TRUE && no.exact === TRUE ? test.exact : and([test.exact, sql`CASE WHEN ${test.value} THEN ${yes.exact} ELSE ${no.exact} END`]);
      return { text: sql`(CASE WHEN ${test.value} THEN ${yes.text} ELSE ${no.text} END)`, exact };
    }
    if (expr.type === 'Filter' && expr.name === 'host' && expr.node && noArgs(expr)) return this.host(expr.node);
    const v = this.value(expr);
    if (!v) return null;
    switch (v.k) {
      case 'scalar':
        // A value of the row itself is always defined: only None needs a case.
        if (v.defined === TRUE) return { text: sql`coalesce(${scalarText(v)}, 'None')`, exact: TRUE };
        return { text: sql`(CASE WHEN NOT ${v.defined} THEN '' ELSE coalesce(${scalarText(v)}, 'None') END)`, exact: TRUE };
      case 'cf':
        return this.printCustomField(v.cfs, v.key);
      default:
        // A row or an object printed whole: the engine's display of it.
        return null;
    }
  }

  /** `x|host`: the address without its mask; exact for IPv4 (an IPv6 text may be written differently). */
  private host(node: Expr): Printed | null {
    const v = this.value(node);
    if (!v) return null;
    let address: RawBuilder<unknown>;
    let present: RawBuilder<unknown>;
    if (v.k === 'addr') {
      address = v.address;
      present = v.present;
    } else if (v.k === 'scalar' && (v.type === 'inet' || v.type === 'cidr')) {
      address = v.sql;
      present = sql`(${v.defined} AND ${v.sql} IS NOT NULL)`;
    } else return null;
    // Nothing to take the host of is an error the engine reports: not exact, so the engine renders the row.
    return { text: sql`coalesce(host(${address}), '')`, exact: sql`(${present} AND family(${address}) = 4)` };
  }

  /**
   * A custom field's value: absent (or no object to hold it) reads as undefined, printed as nothing; JSON null as
   * None; a whole number as the engine prints it. A fraction, a list or an object, or custom fields that are not
   * an object, leave the row to the engine.
   */
  private printCustomField(cfs: RawBuilder<unknown>, key: string): Printed {
    const v = sql`(${cfs} -> ${key}::text)`;
    return {
      text: sql`(CASE jsonb_typeof(${v}) WHEN 'string' THEN ${cfs} ->> ${key}::text WHEN 'null' THEN 'None'
        WHEN 'boolean' THEN CASE WHEN ${v} = 'true'::jsonb THEN 'True' ELSE 'False' END
        WHEN 'number' THEN trunc((${v})::numeric)::text ELSE '' END)`,
      exact: sql`(CASE jsonb_typeof(${v}) WHEN 'number' THEN (${v})::numeric = trunc((${v})::numeric) AND abs((${v})::numeric) < 1e15
        WHEN 'array' THEN false WHEN 'object' THEN false ELSE ${cfs} IS NULL OR jsonb_typeof(${cfs}) = 'object' END)`,
    };
  }

  /** Whether `expr` is true as the engine tests it (Python truth), with its exactness. */
  private truth(expr: Expr): { value: RawBuilder<unknown>; exact: RawBuilder<unknown> } | null {
    const v = this.value(expr);
    if (!v) return null;
    switch (v.k) {
      case 'row':
      case 'addr':
        return { value: v.present, exact: TRUE };
      case 'cfs':
        return null;
      case 'scalar': {
        const t = v.type === 'int' ? sql`${v.sql} <> 0` : v.type === 'bool' ? sql`${v.sql}` : v.type === 'text' ? sql`${v.sql} <> ''` : sql`${v.sql} IS NOT NULL`;
        return { value: sql`coalesce(${v.defined} AND ${t}, false)`, exact: TRUE };
      }
      case 'cf': {
        const j = sql`(${v.cfs} -> ${v.key}::text)`;
        const type = sql`jsonb_typeof(${j})`;
        return {
          value: sql`coalesce(CASE WHEN ${type} = 'string' THEN ${j} <> '""'::jsonb WHEN ${type} = 'boolean' THEN ${j} = 'true'::jsonb
            WHEN ${type} = 'number' THEN (${j})::numeric <> 0 ELSE false END, false)`,
          exact: sql`((${v.cfs} IS NULL OR jsonb_typeof(${v.cfs}) = 'object') AND coalesce(${type} IN ('string', 'boolean', 'number', 'null'), true))`,
        };
      }
    }
  }

  /** The value of an attribute path from the loop variable, or null when it is not one this planner knows. */
  private value(expr: Expr): Val | null {
    if (expr.type === 'Getattr') {
      if (expr.node.type === 'Name' && expr.node.name === this.loopVar) return this.attrOfRow(this.model, 't', TRUE, expr.attr, true);
      const parent = this.value(expr.node);
      if (!parent) return null;
      if (parent.k === 'row') {
        // A relation the caller may not view is None: any attribute of it reads as undefined.
        if (parent.alias === NO_ROW) return { k: 'scalar', type: 'text', sql: sql`NULL::text`, defined: sql`false` };
        return this.attrOfRow(parent.model, parent.alias, parent.present, expr.attr, false);
      }
      // A dict's method (items, get…) answers before its key of that name.
      if (parent.k === 'cfs') return hasBuiltinMethod({}, expr.attr) ? null : { k: 'cf', cfs: parent.sql, key: expr.attr };
      if (parent.k === 'addr' && expr.attr === 'address') return { k: 'scalar', type: 'inet', sql: parent.address, defined: parent.present };
      return null;
    }
    if (expr.type === 'Getitem' && expr.arg.type === 'Const' && typeof expr.arg.value === 'string') {
      const parent = this.value(expr.node);
      if (parent?.k === 'cfs') return { k: 'cf', cfs: parent.sql, key: expr.arg.value };
    }
    return null;
  }

  private attrOfRow(model: ModelDef, alias: string, present: RawBuilder<unknown>, name: string, top: boolean): Val | null {
    // A row's own names (resolveAccess in proxies.ts) are left to the engine.
    if (name.startsWith('_') || RESERVED_ATTRS.has(name)) return null;
    const field = Object.hasOwn(model.fields, name) ? model.fields[name]! : undefined;
    if (!field) {
      // The primary address, read as the list reads it (dcim/service.ts primaryIpField): the IPv4 one, else the
      // IPv6 one, within the caller's scope.
      if (top && name === 'primary_ip' && Object.hasOwn(model.computed, name) && readableComputed(model).includes(name) && model.fields.primary_ip4 && model.fields.primary_ip6) {
        const ip = requireModel('ipam.ipaddress');
        const a = this.join('primary_ip', () => sql`LEFT JOIN ${sql.table(ip.table)} pip ON pip.id = coalesce(t.primary_ip4_id, t.primary_ip6_id) AND ${scopeCondition(this.ctx, ip, 'pip')}`, 'pip');
        return { k: 'addr', address: sql.ref(`${a}.address`), present: sql`(${sql.ref(`${a}.id`)} IS NOT NULL)` };
      }
      return null;
    }
    if (field.secret || field.writeOnly) return null;
    const column = sql.ref(`${alias}.${columnOf(name, field)}`);
    if (field.kind === 'fk') {
      // One step only: a value of a related row's related row is not taken (None there is an error in the engine).
      if (!top) return null;
      const target = requireModel(field.target!);
      if (isClosedModel(target) || target.name === 'tenancy.tenant') return null;
      // Without view permission on the target, the engine reads the relation as None.
      if (!modelAllows(this.ctx, target, 'view')) return { k: 'row', model: target, alias: NO_ROW, present: sql`false` };
      const r = this.join(`fk:${name}`, (as) => sql`LEFT JOIN ${sql.table(target.table)} ${sql.ref(as)} ON ${sql.ref(`${as}.id`)} = ${column} AND ${scopeCondition(this.ctx, target, as)}`);
      return { k: 'row', model: target, alias: r, present: sql`(${sql.ref(`${r}.id`)} IS NOT NULL)` };
    }
    if (field.kind === 'custom_fields') return top ? { k: 'cfs', sql: column } : null;
    if (!isColumnField(field)) return null;
    const type = scalarType(field);
    return type ? { k: 'scalar', type, sql: column, defined: present } : null;
  }

  /** A LEFT JOIN added once per relation; returns its alias. */
  private join(key: string, build: (alias: string) => RawBuilder<unknown>, alias = `j${this.joined.size}`): string {
    const known = this.joined.get(key);
    if (known) return known;
    this.joined.set(key, alias);
    this.joins.push(build(alias));
    return alias;
  }
}

function scalarType(field: FieldDef): 'text' | 'int' | 'bool' | 'inet' | 'cidr' | null {
  if (TEXT_KINDS.has(field.kind)) return 'text';
  if (field.kind === 'integer') return 'int';
  if (field.kind === 'boolean') return 'bool';
  if (field.kind === 'inet' || field.kind === 'cidr') return field.kind;
  return null;
}

/** A non-null scalar's text as the engine prints the driver's value. */
function scalarText(v: Extract<Val, { k: 'scalar' }>): RawBuilder<unknown> {
  switch (v.type) {
    case 'text':
      return sql`${v.sql}::text`;
    case 'int':
      return sql`${v.sql}::text`;
    case 'bool':
      return sql`CASE WHEN ${v.sql} THEN 'True' ELSE 'False' END`;
    case 'inet':
      // The driver hands over the inet's output text, which abbrev() writes (no /32 on a host).
      return sql`abbrev(${v.sql})`;
    case 'cidr':
      return sql`${v.sql}::text`;
  }
}

function noArgs(e: Extract<Expr, { type: 'Filter' }>): boolean {
  return e.args.length === 0 && e.kwargs.length === 0 && e.dynArgs === null && e.dynKwargs === null;
}

/** The conjunction, leaving out parts that are plainly true (most are: PostgreSQL then checks nothing per row). */
function and(parts: RawBuilder<unknown>[]): RawBuilder<unknown> {
  const kept = parts.filter((p) => p !== TRUE);
  return kept.length ? sql`(${sql.join(kept, sql` AND `)})` : TRUE;
}

/**
 * The plan of a list template over `model`, or null when the engine must render it: the template is text, one
 * `{% for x in objects %}` (or `queryset`) loop without else, filter or recursion, and text; the loop's body is
 * text and prints of values the planner knows.
 */
export function planPushdown(ctx: RequestContext, model: ModelDef, body: readonly Stmt[]): PushdownPlan | null {
  const loops = body.filter((s) => s.type !== 'Data');
  if (loops.length !== 1) return null;
  const loop = loops[0]!;
  if (loop.type !== 'For' || loop.target.type !== 'Name' || loop.target.name === 'loop' || loop.orelse.length || loop.filter || loop.recursive) return null;
  if (loop.iter.type !== 'Name' || (loop.iter.name !== 'objects' && loop.iter.name !== 'queryset')) return null;
  const at = body.indexOf(loop);
  const textOf = (stmts: readonly Stmt[]) => stmts.map((s) => (s.type === 'Data' ? s.text : '')).join('');
  const planner = new Planner(ctx, model, loop.target.name);
  const parts: Printed[] = [];
  let bodyTextBytes = 0;
  for (const s of loop.body) {
    if (s.type === 'Data') {
      parts.push({ text: sql`${s.text}::text`, exact: TRUE });
      bodyTextBytes += Buffer.byteLength(s.text, 'utf8');
    } else if (s.type === 'Print') {
      const p = planner.print(s.expr);
      if (!p) return null;
      parts.push(p);
    } else return null;
  }
  return {
    before: textOf(body.slice(0, at)),
    after: textOf(body.slice(at + 1)),
    joins: planner.joinList(),
    line: parts.length ? sql`(${sql.join(parts.map((p) => p.text), sql` || `)})` : sql`''::text`,
    exact: and(parts.map((p) => p.exact)),
    bodyTextBytes,
  };
}
