// The compliance engine: rules check devices or VMs (end-of-life status, a required field, a field matching a
// pattern) and keep one violation row per failing object, with the time it started failing. Rules are evaluated
// when a rule or an object changes, when end-of-life data changes, and on demand.
import { Type, type Static } from 'typebox';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import { ErrorCollector } from '../core/errors.ts';
import { columnOf, isColumnField, requireModel } from '../core/registry.ts';
import { recordTable } from '../core/records.ts';
import { readSettings, enabledSql } from '../lifecycle/settings.ts';
import { statusSql } from '../lifecycle/status.ts';
import { inTenant, tenantAs, tenantOf } from '../core/access.ts';
import type { Row } from '../core/crud/serialize.ts';

export const OBJECT_TYPES = ['dcim.device', 'virtualization.virtualmachine'] as const;
export type ObjectType = (typeof OBJECT_TYPES)[number];
export const CHECK_KINDS = ['eol_status', 'field_required', 'field_regex'] as const;

const violations = recordTable('compliance_violations', { numbered: false });

const FAIL_ON: Record<string, string[]> = { eol: ['eol'], ending: ['ending', 'eol'], unknown: ['unknown'] };
const STATUS_LABEL: Record<string, string> = { eol: 'End of life', ending: 'Support ending', unknown: 'Unknown', supported: 'Supported' };

export interface RuleRow {
  id: string;
  tenant: string;
  name: string;
  object_type: string;
  enabled: boolean;
  check_kind: string;
  settings: Record<string, unknown>;
}

const TABLES: Record<ObjectType, string> = { 'dcim.device': 'devices', 'virtualization.virtualmachine': 'virtual_machines' };

/** `serial`, `platform` or `custom_fields.<name>` → the SQL text of that value on row `o`, or an error. */
function fieldExpression(objectType: ObjectType, field: string): RawBuilder<unknown> | string {
  const cf = /^custom_fields\.([A-Za-z0-9_]{1,50})$/.exec(field);
  if (cf) return sql`(o.custom_fields ->> ${cf[1]!})`;
  const model = requireModel(objectType);
  const def = model.fields[field];
  if (!def || !isColumnField(def) || def.secret || def.writeOnly || def.kind === 'custom_fields') {
    return `"${field}" is not a field of ${model.labelPlural}; use a field name or custom_fields.<name>.`;
  }
  return sql`(${sql.ref(`o.${columnOf(field, def)}`)})::text`;
}

/** Checks a rule's settings for its kind and object type; every problem is named under `settings`/`object_type`. */
export function validateRule(input: Record<string, unknown>, existing: Record<string, unknown> | null): void {
  const errors = new ErrorCollector();
  const objectType = String(input.object_type ?? existing?.object_type ?? '');
  const kind = String(input.check_kind ?? existing?.check_kind ?? '');
  const settings = (input.settings ?? existing?.settings ?? {}) as Record<string, unknown>;
  if (!(OBJECT_TYPES as readonly string[]).includes(objectType)) errors.add('object_type', 'A rule applies to devices (dcim.device) or virtual machines (virtualization.virtualmachine).');
  const allowed: Record<string, string[]> = { eol_status: ['fail_on'], field_required: ['field'], field_regex: ['field', 'pattern'] };
  for (const key of Object.keys(settings)) if (!allowed[kind]?.includes(key)) errors.add('settings', `Unknown setting "${key}" for ${kind}.`);
  if (kind === 'eol_status') {
    if (typeof settings.fail_on !== 'string' || !(settings.fail_on in FAIL_ON)) errors.add('settings', 'Pick what the check fails on: fail_on = eol, ending or unknown.');
  } else if (kind === 'field_required' || kind === 'field_regex') {
    if (typeof settings.field !== 'string' || settings.field === '') errors.add('settings', 'Name the field to check (settings.field).');
    else if ((OBJECT_TYPES as readonly string[]).includes(objectType)) {
      const expr = fieldExpression(objectType as ObjectType, settings.field);
      if (typeof expr === 'string') errors.add('settings', expr);
    }
    if (kind === 'field_regex') {
      if (typeof settings.pattern !== 'string' || settings.pattern.length === 0 || settings.pattern.length > 500) errors.add('settings', 'Give a pattern (settings.pattern) of 1 to 500 characters.');
      else {
        try {
          new RegExp(settings.pattern, 'u');
        } catch (err) {
          errors.add('settings', `The pattern does not compile: ${(err as Error).message}`);
        }
      }
    }
  }
  errors.throwIfAny();
}

interface Failure {
  id: string;
  message: string;
}

/** A rule as a write hook holds it (its stored row). */
export function ruleOf(row: Row): RuleRow {
  return {
    id: String(row.id),
    tenant: tenantOf(row),
    name: String(row.name),
    object_type: String(row.object_type),
    enabled: Boolean(row.enabled),
    check_kind: String(row.check_kind),
    settings: (row.settings ?? {}) as Record<string, unknown>,
  };
}

async function failuresOf(db: Kysely<DB>, rule: RuleRow, objectIds: string[] | null, eolOn: boolean, warningDays: number): Promise<Failure[]> {
  if (!rule.enabled || !(OBJECT_TYPES as readonly string[]).includes(rule.object_type)) return [];
  const objectType = rule.object_type as ObjectType;
  const table = sql.table(TABLES[objectType]);
  const scope = sql`${inTenant(rule.tenant, 'o')} ${objectIds ? sql`AND o.id = ANY(${objectIds}::uuid[])` : sql``}`;
  const s = rule.settings;
  if (rule.check_kind === 'eol_status') {
    // Off means the rule reports nothing, not that everything is unknown.
    if (!eolOn) return [];
    const failOn = FAIL_ON[String(s.fail_on)] ?? [];
    const { rows } = await sql<{ id: string; status: string }>`SELECT o.id, ${statusSql('m', warningDays)} AS status
      FROM ${table} o LEFT JOIN eol_mappings m ON m.platform_id = o.platform_id WHERE ${scope}`.execute(db);
    return rows.filter((r) => failOn.includes(r.status)).map((r) => ({ id: r.id, message: `Platform end-of-life status is ${STATUS_LABEL[r.status]} (fails on ${String(s.fail_on)}).` }));
  }
  const expr = fieldExpression(objectType, String(s.field));
  if (typeof expr === 'string') return [];
  if (rule.check_kind === 'field_required') {
    const { rows } = await sql<{ id: string }>`SELECT o.id FROM ${table} o WHERE ${scope} AND (${expr} IS NULL OR ${expr} = '' OR ${expr} = '[]')`.execute(db);
    return rows.map((r) => ({ id: r.id, message: `${String(s.field)} is empty.` }));
  }
  if (rule.check_kind === 'field_regex') {
    // JavaScript semantics, the ones the rule was validated with (PostgreSQL's regex dialect differs).
    const re = new RegExp(String(s.pattern), 'u');
    const { rows } = await sql<{ id: string; value: string | null }>`SELECT o.id, ${expr} AS value FROM ${table} o WHERE ${scope}`.execute(db);
    return rows.filter((r) => !re.test(r.value ?? '')).map((r) => ({ id: r.id, message: `${String(s.field)} does not match ${String(s.pattern)}.` }));
  }
  return [];
}

/** Brings a rule's violations in line with what fails now (for some objects, or all); `since` survives. */
export async function evaluateRule(db: Kysely<DB>, rule: RuleRow, objectIds: string[] | null = null): Promise<number> {
  const settings = await readSettings(db);
  const failures = await failuresOf(db, rule, objectIds, settings.enabled, settings.warning_days);
  const ids = failures.map((f) => f.id);
  await sql`DELETE FROM compliance_violations WHERE rule_id = ${rule.id} ${objectIds ? sql`AND object_id = ANY(${objectIds}::uuid[])` : sql``}
    AND NOT (object_id = ANY(${ids}::uuid[]))`.execute(db);
  await violations.append(
    db,
    rule.tenant,
    failures.map((f) => ({ rule_id: rule.id, object_type: rule.object_type, object_id: f.id, message: f.message })),
    { upsert: { on: ['rule_id', 'object_id'], update: ['message'] }, returning: false },
  );
  return failures.length;
}

async function rulesOf(db: Kysely<DB>, where: RawBuilder<unknown>): Promise<RuleRow[]> {
  const { rows } = await sql<RuleRow>`SELECT r.id, ${tenantAs('r')}, r.name, r.object_type, r.enabled, r.check_kind, r.settings FROM compliance_rules r WHERE ${where}`.execute(db);
  return rows;
}

/** Every rule of a tenant (all tenants when null), optionally only one kind. */
/** What an evaluation did, as its job record says it: "3 rules evaluated, 1 violation". */
export function evaluationSummary(r: { rules: number; violations: number }): string {
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${count(r.rules, 'rule')} evaluated, ${count(r.violations, 'violation')}`;
}

export async function evaluateRules(db: Kysely<DB>, tenantId: string | null, kind?: string): Promise<{ rules: number; violations: number }> {
  const rules = await rulesOf(db, sql`${tenantId ? sql`${inTenant(tenantId)}` : sql`true`} AND ${kind ? sql`check_kind = ${kind}` : sql`true`}`);
  let violations = 0;
  for (const rule of rules) violations += await evaluateRule(db, rule);
  return { rules: rules.length, violations };
}

/** After one object changed: only its rows are re-checked. */
export async function evaluateObject(db: Kysely<DB>, tenantId: string, objectType: ObjectType, objectId: string): Promise<void> {
  await evaluateObjects(db, tenantId, objectType, [objectId]);
}

/** After a bulk change: the rules are read once and each re-checks all the objects at once. */
export async function evaluateObjects(db: Kysely<DB>, tenantId: string, objectType: ObjectType, objectIds: string[]): Promise<void> {
  if (objectIds.length === 0) return;
  const rules = await rulesOf(db, sql`${inTenant(tenantId)} AND object_type = ${objectType}`);
  for (const rule of rules) await evaluateRule(db, rule, objectIds);
}

/** How many enabled rules judge objects of a type now (end-of-life rules only while that feature is on). */
export async function applyingRules(db: Kysely<DB>, tenantId: string, objectType: ObjectType): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM compliance_rules r
    WHERE ${inTenant(tenantId, 'r')} AND r.object_type = ${objectType} AND r.enabled AND ${ruleInForce}`.execute(db);
  return rows[0]!.n;
}

/**
 * A rule (alias r) that judges objects now: end-of-life rules judge nothing while that feature is off. It decides
 * which rules count and which of their violations are read.
 */
export const ruleInForce = sql`(r.check_kind <> 'eol_status' OR ${enabledSql})`;

/** An open violation as the API answers it. */
export const ViolationAnswer = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    rule: Type.Object(
      {
        id: Type.String({ format: 'uuid' }),
        name: Type.String(),
        check_kind: Type.Unsafe<string>({ type: 'string', enum: [...CHECK_KINDS] }),
        fail_on: Type.Optional(Type.String({ description: 'An eol_status rule: the status from which it fails.' })),
      },
      { additionalProperties: false },
    ),
    object_type: Type.Unsafe<string>({ type: 'string', enum: [...OBJECT_TYPES] }),
    object_id: Type.String({ format: 'uuid' }),
    message: Type.String(),
    since: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);
export type ViolationAnswer = Static<typeof ViolationAnswer>;

export async function listViolations(
  db: Kysely<DB>,
  tenantId: string,
  filters: { rule?: string; objectType?: string; objectId?: string; limit: number; offset: number },
): Promise<{ count: number; results: ViolationAnswer[] }> {
  const where = sql`${inTenant(tenantId, 'v')} AND ${ruleInForce}
    ${filters.rule ? sql`AND v.rule_id = ${filters.rule}` : sql``}
    ${filters.objectType ? sql`AND v.object_type = ${filters.objectType}` : sql``}
    ${filters.objectId ? sql`AND v.object_id = ${filters.objectId}` : sql``}`;
  const [count, page] = await Promise.all([
    sql<{ n: number }>`SELECT count(*)::int AS n FROM compliance_violations v JOIN compliance_rules r ON r.id = v.rule_id WHERE ${where}`.execute(db),
    sql<{ id: string; rule_id: string; name: string; check_kind: string; settings: Record<string, unknown>; object_type: string; object_id: string; message: string; since: Date | string }>`
      SELECT v.id, v.rule_id, r.name, r.check_kind, r.settings, v.object_type, v.object_id, v.message, v.since
      FROM compliance_violations v JOIN compliance_rules r ON r.id = v.rule_id WHERE ${where}
      ORDER BY v.since, v.id LIMIT ${filters.limit} OFFSET ${filters.offset}`.execute(db),
  ]);
  return {
    count: count.rows[0]!.n,
    results: page.rows.map((v) => ({
      id: v.id,
      rule: { id: v.rule_id, name: v.name, check_kind: v.check_kind, ...(v.check_kind === 'eol_status' ? { fail_on: String(v.settings.fail_on) } : {}) },
      object_type: v.object_type,
      object_id: v.object_id,
      message: v.message,
      since: new Date(v.since).toISOString(),
    })),
  };
}

