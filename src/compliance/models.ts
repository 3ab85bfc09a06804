// Compliance rules as a registry model (generic CRUD at /api/compliance/rules/), the `compliance` summary on
// device and VM rows, and re-evaluation when a device, a VM or end-of-life data changes.
import { sql } from 'kysely';
import { addComputedField, defineModel, type ComputedField, type ModelDef, type ModelHooks } from '../core/registry.ts';
import { deviceModel } from '../dcim/models.ts';
import { virtualMachineModel } from '../virtualization/models.ts';
import { onEolChange } from '../lifecycle/service.ts';
import { evaluateObject, evaluateObjects, evaluateRule, evaluateRules, validateRule, ruleInForce, ruleOf, type ObjectType } from './service.ts';
import { sameTenant, tenantOf } from '../core/access.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

export const complianceRuleModel = defineModel({
  name: 'compliance.rule',
  table: 'compliance_rules',
  path: '/api/compliance/rules/',
  label: 'compliance rule',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    object_type: {
      kind: 'choice',
      choices: [
        { value: 'dcim.device', label: 'Device' },
        { value: 'virtualization.virtualmachine', label: 'Virtual machine' },
      ],
    },
    enabled: { kind: 'boolean', default: true },
    check_kind: {
      kind: 'choice',
      choices: [
        { value: 'eol_status', label: 'End-of-life status' },
        { value: 'field_required', label: 'Field required' },
        { value: 'field_regex', label: 'Field matches pattern' },
      ],
    },
    settings: {
      kind: 'json',
      jsonObject: true,
      default: {},
      help: 'eol_status: {fail_on: eol | ending | unknown}; field_required: {field}; field_regex: {field, pattern}. field is a field name or custom_fields.<name>.',
    },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ input, existing }) {
      validateRule(input, existing);
    },
    afterCreate: async ({ tx, row }) => {
      await evaluateRule(tx, ruleOf(row));
    },
    afterUpdate: async ({ tx, row }) => {
      await evaluateRule(tx, ruleOf(row));
    },
  },
});

/**
 * A device's or a VM's compliance: its open violations, and how many enabled rules apply to its kind (its tenant's;
 * end-of-life rules only while that feature is on), so "no violations" and "nothing checked" read differently.
 */
function complianceField(model: ModelDef): ComputedField {
  const rulesOf = (alias: string) => sql`(SELECT count(*)::int FROM compliance_rules r
    WHERE ${sameTenant('r', alias)} AND r.object_type = ${model.name} AND r.enabled AND ${ruleInForce})`;
  const violationsOf = (alias: string) => sql`(SELECT count(*)::int FROM compliance_violations v JOIN compliance_rules r ON r.id = v.rule_id
    WHERE v.object_id = ${sql.ref(`${alias}.id`)} AND ${ruleInForce})`;
  const answer = (selected: unknown) => {
    const v = (selected ?? {}) as { violations?: unknown; rules?: unknown };
    return { violations: Number(v.violations ?? 0), rules: Number(v.rules ?? 0) };
  };
  const select = (alias: string) => sql`json_build_object('violations', ${violationsOf(alias)}, 'rules', ${rulesOf(alias)})`;
  return {
    label: 'Compliance',
    kind: 'object',
    schema: {
      type: 'object',
      properties: {
        violations: { type: 'integer', description: 'Open violations of enabled rules.' },
        rules: { type: 'integer', description: 'Enabled rules that check objects of this kind (0: nothing is checked).' },
      },
      required: ['violations', 'rules'],
    },
    async load({ db, rows }) {
      const ids = rows.map((r) => String(r.id));
      const { rows: found } = await sql<{ id: string; c: unknown }>`SELECT o.id, ${select('o')} AS c FROM ${sql.table(model.table)} o
        WHERE o.id = ANY(${ids}::uuid[])`.execute(db);
      const byId = new Map(found.map((f) => [f.id, answer(f.c)]));
      return new Map(ids.map((id) => [id, byId.get(id) ?? { violations: 0, rules: 0 }]));
    },
    // The same beside each row of a page (the rules and violations are the object's tenant's, as in load).
    inline: { select: (_ctx, alias) => select(alias), value: answer },
  };
}

/** Re-checks an object after its own hooks ran, in the same transaction. */
function evaluateAfterChange(model: ModelDef): void {
  const hooks: ModelHooks = model.hooks;
  const afterCreate = hooks.afterCreate;
  const afterUpdate = hooks.afterUpdate;
  hooks.afterCreate = async (args) => {
    if (afterCreate) await afterCreate(args);
    await evaluateObject(args.tx, tenantOf(args.row), model.name as ObjectType, String(args.row.id));
  };
  hooks.afterUpdate = async (args) => {
    if (afterUpdate) await afterUpdate(args);
    // A bulk update re-checks all its rows at once in afterUpdateMany (queries constant in the number of ids).
    if (!args.inBulk) await evaluateObject(args.tx, tenantOf(args.row), model.name as ObjectType, String(args.row.id));
  };
  const afterUpdateMany = hooks.afterUpdateMany;
  hooks.afterUpdateMany = async (args) => {
    if (afterUpdateMany) await afterUpdateMany(args);
    const byTenant = new Map<string, string[]>();
    for (const { row } of args.rows) {
      const tenant = tenantOf(row);
      byTenant.set(tenant, [...(byTenant.get(tenant) ?? []), String(row.id)]);
    }
    for (const [tenant, ids] of byTenant) await evaluateObjects(args.tx, tenant, model.name as ObjectType, ids);
  };
}

for (const model of [deviceModel, virtualMachineModel]) {
  addComputedField(model.name, 'compliance', complianceField(model));
  evaluateAfterChange(model);
}

// A mapping, a refresh or an import can move a platform's status: end-of-life rules follow.
onEolChange((db, tenantId) => evaluateRules(db, tenantId, 'eol_status').then(() => undefined));
