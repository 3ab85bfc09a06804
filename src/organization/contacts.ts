// Contacts (NetBox's tenancy app): people and teams to call about an object, in groups (a tree), and their
// assignments to objects of the models NetBox's ContactsMixin marks, each with a role and a priority.
import { sql, type RawBuilder } from 'kysely';
import { defineModel, displayColumn, getModel, registerGenericReverse, type ComputedField, type ModelDef } from '../core/registry.ts';
import { callerTenant, sameTenant } from '../core/access.ts';
import { ErrorCollector } from '../core/errors.ts';
import { treeParentCheck } from '../core/tree.ts';
import './contact-choices.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

/**
 * The models whose objects can have contacts: NetBox's ContactsMixin models, by the names Cairn gives them. Models
 * not (yet) defined here are skipped where the set is read, so a family that adds one (circuits, power, VPN)
 * gets contacts without touching this list. Kept in step with web/src/pages/detail/contact-models.ts.
 */
export const CONTACT_OBJECT_TYPES: readonly string[] = [
  'organization.region',
  'dcim.sitegroup',
  'organization.site',
  'dcim.location',
  'dcim.rack',
  'dcim.manufacturer',
  'dcim.device',
  'dcim.powerpanel',
  'circuits.provider',
  'circuits.provideraccount',
  'circuits.circuit',
  'circuits.virtualcircuit',
  'ipam.asn',
  'ipam.aggregate',
  'ipam.prefix',
  'ipam.iprange',
  'ipam.ipaddress',
  'ipam.service',
  'tenancy.owner',
  'virtualization.clustergroup',
  'virtualization.cluster',
  'virtualization.virtualmachine',
  'vpn.l2vpn',
  'vpn.tunnelgroup',
  'vpn.tunnel',
];

/** The defined models among CONTACT_OBJECT_TYPES (read when asked: families register their models in any order). */
export function contactObjectModels(): ModelDef[] {
  return CONTACT_OBJECT_TYPES.map((name) => getModel(name)).filter((m): m is ModelDef => m !== undefined && m.tenantScoped);
}

/**
 * The assigned object as a brief (`{object_type, id, display}`, so the UI links it to its page), read beside the
 * assignment: one CASE over the models that can have contacts, each a lookup by primary key in the row's tenant.
 */
function assignedObjectSelect(alias: string): RawBuilder<unknown> {
  const type = sql.ref(`${alias}.object_type`);
  const id = sql.ref(`${alias}.object_id`);
  const models = contactObjectModels();
  if (models.length === 0) return sql`NULL::json`;
  const displays = models.map(
    (m) => sql`WHEN ${m.name} THEN (SELECT o.${sql.ref(displayColumn(m))}::text FROM ${sql.table(m.table)} o WHERE o.id = ${id} AND ${sameTenant('o', alias)})`,
  );
  return sql`json_build_object('object_type', ${type}, 'id', ${id}, 'display', CASE ${type} ${sql.join(displays, sql` `)} END)`;
}

const assignedObjectField: ComputedField = {
  label: 'Object',
  kind: 'object',
  schema: {
    type: ['object', 'null'],
    properties: {
      object_type: { type: 'string' },
      id: { type: 'string', format: 'uuid' },
      display: { type: ['string', 'null'], description: 'The object\'s name (null when it is gone).' },
    },
  },
  async load({ db, ctx, rows }) {
    const ids = rows.map((r) => String(r.id));
    const { rows: found } = await sql<{ id: string; object: unknown }>`SELECT a.id, ${assignedObjectSelect('a')} AS object FROM contact_assignments a
      WHERE a.id = ANY(${ids}::uuid[]) AND ${callerTenant(ctx, 'a')}`.execute(db);
    return new Map(found.map((r) => [r.id, r.object]));
  },
  inline: { select: (_ctx, alias) => assignedObjectSelect(alias), value: (selected) => selected ?? null },
};

export const contactGroupModel = defineModel({
  name: 'tenancy.contactgroup',
  table: 'contact_groups',
  path: '/api/contact-groups/',
  label: 'contact group',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    parent: { kind: 'fk', target: 'tenancy.contactgroup', nullable: true, onDelete: 'protect' },
    description: { kind: 'string', maxLength: 200, default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: { validate: treeParentCheck('contact_groups', 'contact group') },
});

export const contactRoleModel = defineModel({
  name: 'tenancy.contactrole',
  table: 'contact_roles',
  path: '/api/contact-roles/',
  label: 'contact role',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    description: { kind: 'string', maxLength: 200, default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
});

export const contactModel = defineModel({
  name: 'tenancy.contact',
  table: 'contacts',
  path: '/api/contacts/',
  label: 'contact',
  tenantScoped: true,
  fields: {
    // NetBox 4.2's single group (4.3 made it a list); a deleted group leaves its contacts ungrouped.
    group: { kind: 'fk', target: 'tenancy.contactgroup', label: 'Contact group', nullable: true, onDelete: 'set_null' },
    name: { kind: 'string', maxLength: 100, naturalOrder: true },
    title: { kind: 'string', maxLength: 100, default: '' },
    phone: { kind: 'string', maxLength: 50, default: '' },
    email: {
      kind: 'string',
      maxLength: 254,
      default: '',
      pattern: /^$|^[^\s@]+@[^\s@]+\.[^\s@]+$/,
      patternMessage: 'Enter an email address such as noc@example.com, or leave it empty.',
    },
    address: { kind: 'string', maxLength: 200, default: '' },
    link: { kind: 'url', maxLength: 200, default: '' },
    description: { kind: 'string', maxLength: 200, default: '' },
    comments: { kind: 'text', default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'title', 'phone', 'email', 'description'],
  defaultOrdering: ['name'],
});

export const contactAssignmentModel = defineModel({
  name: 'tenancy.contactassignment',
  table: 'contact_assignments',
  path: '/api/contact-assignments/',
  label: 'contact assignment',
  tenantScoped: true,
  // Shown as its contact's name, as NetBox shows an assignment.
  displayField: 'id',
  displayParent: ['contact'],
  fields: {
    object_type: { kind: 'string', maxLength: 100, label: 'Object type', help: 'The kind of object, such as organization.site or dcim.device.' },
    object_id: { kind: 'uuid', label: 'Object ID' },
    contact: { kind: 'fk', target: 'tenancy.contact', onDelete: 'protect' },
    role: { kind: 'fk', target: 'tenancy.contactrole', onDelete: 'protect' },
    priority: { kind: 'choice', vocabulary: 'contact_priorities', nullable: true },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  defaultOrdering: ['created'],
  computed: { object: assignedObjectField },
  // The object is shown linked (computed `object`); its bare id stays in the API and the form.
  listColumnsExclude: ['object_id'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, ctx, input, existing }) {
      const type = String('object_type' in input ? input.object_type : existing?.object_type);
      const id = String('object_id' in input ? input.object_id : existing?.object_id);
      const target = contactObjectModels().find((m) => m.name === type);
      const errors = new ErrorCollector();
      if (!target) {
        errors.add('object_type', `"${type}" is not an object type contacts can be assigned to. Use one of: ${contactObjectModels().map((m) => m.name).join(', ')}.`);
        errors.throwIfAny();
        return;
      }
      const { rows } = await sql`SELECT 1 FROM ${sql.table(target.table)} WHERE id = ${id} AND ${callerTenant(ctx)}`.execute(tx);
      if (rows.length === 0) errors.add('object_id', `No ${target.label} with id ${id} exists.`);
      // NetBox's unique constraint (object, contact, role), said in words before the database refuses it.
      const contact = 'contact' in input ? input.contact : existing?.contact_id;
      const role = 'role' in input ? input.role : existing?.role_id;
      if (typeof contact === 'string' && typeof role === 'string' && rows.length) {
        const dup = await sql`SELECT 1 FROM contact_assignments WHERE object_type = ${type} AND object_id = ${id} AND contact_id = ${contact} AND role_id = ${role}
          AND ${callerTenant(ctx)} AND id <> ${String(existing?.id ?? '00000000-0000-0000-0000-000000000000')}`.execute(tx);
        if (dup.rows.length) errors.add('contact', `This contact already has this role on this ${target.label}.`);
      }
      errors.throwIfAny();
    },
  },
});

// A device template reads its contacts as `device.contacts` (assignments: contact, role, priority), as NetBox's
// templates read `device.contacts`.
registerGenericReverse({ name: 'contacts', source: 'tenancy.contactassignment', typeColumn: 'object_type', idColumn: 'object_id', targets: () => contactObjectModels().map((m) => m.name) });
