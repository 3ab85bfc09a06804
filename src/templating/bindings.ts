// Config-template binding (SPEC "Config-template binding"): a device template bound to a device, its role or its
// platform; the first found in that order wins. VMs resolve the same way (VM, role, platform). The device API
// shows `config_template: {own, resolved}`; bindings are checked to name a template of the right type.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { addComputedField, addModelHook, type ComputedField } from '../core/registry.ts';
import { fieldError } from '../core/errors.ts';
import { addListFilters } from '../core/crud/read.ts';
import { isUuid } from '../core/ids.ts';
import { DEVICE_TEMPLATE_TYPE } from './bundles.ts';
import type { SubjectKind } from './device-context.ts';
import { callerTenant } from '../core/access.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

const SUBJECT_TABLE: Record<SubjectKind, string> = { device: 'devices', vm: 'virtual_machines' };

export interface Binding {
  own: { id: string; name: string } | null;
  resolved: { id: string; name: string } | null;
}

/** One query for any number of subjects: each one's own template and the one that applies. */
export async function resolveBindings(db: Kysely<DB>, kind: SubjectKind, ids: string[]): Promise<Map<string, Binding>> {
  const out = new Map<string, Binding>();
  if (ids.length === 0) return out;
  const { rows } = await sql<{ id: string; own_id: string | null; own_name: string | null; res_id: string | null; res_name: string | null }>`
    SELECT s.id, o.id AS own_id, o.name AS own_name, t.id AS res_id, t.name AS res_name
    FROM ${sql.table(SUBJECT_TABLE[kind])} s
    LEFT JOIN device_roles r ON r.id = s.role_id
    LEFT JOIN platforms p ON p.id = s.platform_id
    LEFT JOIN export_templates o ON o.id = s.config_template_id
    LEFT JOIN export_templates t ON t.id = COALESCE(s.config_template_id, r.config_template_id, p.config_template_id)
    WHERE s.id = ANY(${ids}::uuid[])`.execute(db);
  for (const r of rows) {
    out.set(r.id, {
      own: r.own_id ? { id: r.own_id, name: r.own_name! } : null,
      resolved: r.res_id ? { id: r.res_id, name: r.res_name! } : null,
    });
  }
  return out;
}

const bindingField: ComputedField = {
  label: 'Config template',
  kind: 'object',
  schema: {
    type: 'object',
    description: 'own: the template bound to this device; resolved: the one a render uses (device, then role, then platform). Write config_template_id.',
    properties: {
      own: { type: ['object', 'null'], properties: { id: { type: 'string' }, name: { type: 'string' } } },
      resolved: { type: ['object', 'null'], properties: { id: { type: 'string' }, name: { type: 'string' } } },
    },
  },
  async load({ db, rows }) {
    const bindings = await resolveBindings(db, 'device', rows.map((r) => String(r.id)));
    return new Map([...bindings].map(([id, b]) => [id, b as unknown]));
  },
  // Beside each row of a page, as resolveBindings resolves it: [own id, own name, resolved id, resolved name].
  inline: {
    select: (_ctx, alias) => {
      const col = (c: string) => sql.ref(`${alias}.${c}`);
      return sql`(SELECT json_build_array(ot.id, ot.name, rt.id, rt.name) FROM (SELECT ${col('config_template_id')} AS own,
          COALESCE(${col('config_template_id')}, (SELECT r.config_template_id FROM device_roles r WHERE r.id = ${col('role_id')}),
            (SELECT p.config_template_id FROM platforms p WHERE p.id = ${col('platform_id')})) AS resolved) k
        LEFT JOIN export_templates ot ON ot.id = k.own LEFT JOIN export_templates rt ON rt.id = k.resolved)`;
    },
    value: (selected): Binding => {
      const [ownId, ownName, id, name] = (Array.isArray(selected) ? selected : []) as Array<string | null>;
      return { own: ownId ? { id: ownId, name: ownName! } : null, resolved: id ? { id, name: name! } : null };
    },
  },
};

/** A validate hook on a model: the bound template must be a device template (the tenant check is the fk's). */
function checkBindingType(modelName: string, key: string): void {
  addModelHook(modelName, 'validate', async (args) => {
    const id = args.input[key];
    if (typeof id !== 'string' || !isUuid(id)) return;
    const { rows } = await sql<{ name: string; object_type: string }>`SELECT name, object_type FROM export_templates
      WHERE id = ${id.toLowerCase()} AND ${callerTenant(args.ctx)}`.execute(args.tx);
    const t = rows[0];
    if (t && t.object_type !== DEVICE_TEMPLATE_TYPE) {
      throw fieldError(key, `${t.name} is a template for ${t.object_type}; bind a device template (object type ${DEVICE_TEMPLATE_TYPE}).`);
    }
  }, { bulkLoad: PLANNED_BY_LOADERS });
}

addComputedField('dcim.device', 'config_template', bindingField);
checkBindingType('dcim.device', 'config_template_id');
checkBindingType('dcim.devicerole', 'config_template');
checkBindingType('dcim.platform', 'config_template');
checkBindingType('virtualization.virtualmachine', 'config_template');

// The binding is write-only on the device (read as config_template), so its filter is declared here: devices
// bound to these templates directly. A value that is not an id matches nothing, like any foreign-key filter.
addListFilters('dcim.device', {
  config_template_id: (values, alias) => {
    const ids = values.filter(isUuid).map((v) => v.toLowerCase());
    return ids.length ? sql`${sql.ref(`${alias}.config_template_id`)} = ANY(${ids}::uuid[])` : sql`false`;
  },
});
