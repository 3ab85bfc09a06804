// Inventory items (NetBox's InventoryItem, InventoryItemRole, InventoryItemTemplate): the parts inside a device
// that are not components (fans, power supplies, optics, cards), a tree per device, with their templates on the
// device type made into items when a device is created. NetBox's optional link from an item to one component
// (component_type/component_id) is left out.
import { sql } from 'kysely';
import { defineModel, requireModel, type HookArgs } from '../core/registry.ts';
import { callerTenant } from '../core/access.ts';
import { ErrorCollector } from '../core/errors.ts';
import { insertRows } from '../core/crud/insert-rows.ts';
import { treeParentCheck } from '../core/tree.ts';
import { registerDeviceMaterializer } from './service.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

type ValidateArgs = HookArgs & { input: Record<string, unknown>; existing: Record<string, unknown> | null };

export const inventoryItemRoleModel = defineModel({
  name: 'dcim.inventoryitemrole',
  table: 'inventory_item_roles',
  path: '/api/inventory-item-roles/',
  label: 'inventory item role',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    color: { kind: 'color', default: '9e9e9e' },
    description: { kind: 'string', maxLength: 200, default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
});

/** A parent sits on the same device (or device type) as its child: the tree is one device's. */
function sameOwnerParent(table: string, owner: 'device' | 'device_type', label: string) {
  const cycle = treeParentCheck(table, label);
  return async (args: ValidateArgs): Promise<void> => {
    const { tx, ctx, input, existing } = args;
    const parent = 'parent' in input ? input.parent : existing?.parent_id ?? null;
    if (typeof parent !== 'string') return;
    const owned = owner in input ? input[owner] : existing?.[`${owner}_id`];
    const { rows } = await sql<{ owner_id: string; name: string }>`SELECT ${sql.ref(`${owner}_id`)} AS owner_id, name FROM ${sql.table(table)}
      WHERE id = ${parent} AND ${callerTenant(ctx)}`.execute(tx);
    const errors = new ErrorCollector();
    if (rows[0] && rows[0].owner_id !== owned) errors.add('parent', `${rows[0].name} is on another ${owner === 'device' ? 'device' : 'device type'}: a ${label}'s parent is on its own.`);
    errors.throwIfAny();
    await cycle(args);
  };
}

export const inventoryItemTemplateModel = defineModel({
  name: 'dcim.inventoryitemtemplate',
  table: 'inventory_item_templates',
  path: '/api/inventory-item-templates/',
  label: 'inventory item template',
  tenantScoped: true,
  displayParent: ['device_type'],
  fields: {
    device_type: { kind: 'fk', target: 'dcim.devicetype', onDelete: 'cascade' },
    parent: { kind: 'fk', target: 'dcim.inventoryitemtemplate', nullable: true, onDelete: 'cascade', help: 'An inventory item template of the same device type this one sits in.', pickerFilters: { device_type_id: '$field:device_type' } },
    name: { kind: 'string', maxLength: 64, naturalOrder: true },
    label: { kind: 'string', maxLength: 64, default: '' },
    role: { kind: 'fk', target: 'dcim.inventoryitemrole', nullable: true, onDelete: 'protect' },
    manufacturer: { kind: 'fk', target: 'dcim.manufacturer', nullable: true, onDelete: 'protect' },
    part_id: { kind: 'string', maxLength: 50, default: '', label: 'Part ID', help: 'The manufacturer\'s part identifier.' },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'label', 'part_id', 'description'],
  defaultOrdering: ['device_type', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: { validate: sameOwnerParent('inventory_item_templates', 'device_type', 'inventory item template') },
});

export const inventoryItemModel = defineModel({
  name: 'dcim.inventoryitem',
  table: 'inventory_items',
  path: '/api/inventory-items/',
  label: 'inventory item',
  tenantScoped: true,
  displayParent: ['device'],
  fields: {
    device: { kind: 'fk', target: 'dcim.device', onDelete: 'cascade' },
    parent: { kind: 'fk', target: 'dcim.inventoryitem', nullable: true, onDelete: 'cascade', help: 'An inventory item of the same device this one sits in.', pickerFilters: { device_id: '$field:device' } },
    name: { kind: 'string', maxLength: 64, naturalOrder: true },
    label: { kind: 'string', maxLength: 64, default: '' },
    role: { kind: 'fk', target: 'dcim.inventoryitemrole', nullable: true, onDelete: 'protect' },
    manufacturer: { kind: 'fk', target: 'dcim.manufacturer', nullable: true, onDelete: 'protect' },
    part_id: { kind: 'string', maxLength: 50, default: '', label: 'Part ID', help: 'The manufacturer\'s part identifier.' },
    serial: { kind: 'string', maxLength: 50, default: '', label: 'Serial number' },
    asset_tag: { kind: 'string', maxLength: 50, nullable: true, unique: true, pattern: /\S/, patternMessage: 'Use null for an item without an asset tag.' },
    discovered: { kind: 'boolean', help: 'Found by automated discovery rather than entered by hand.' },
    description: { kind: 'string', maxLength: 200, default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'label', 'part_id', 'serial', 'asset_tag', 'description'],
  defaultOrdering: ['device', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: { validate: sameOwnerParent('inventory_items', 'device', 'inventory item') },
});

interface ItemTemplate {
  id: string;
  parent_id: string | null;
  name: string;
  label: string;
  role_id: string | null;
  manufacturer_id: string | null;
  part_id: string;
  description: string;
}

/** A new device's inventory items from its type's templates: one insert per level of the tree, parents first. */
async function materializeInventoryItems({ tx, ctx, row }: HookArgs & { row: Record<string, unknown> }): Promise<void> {
  const { rows: templates } = await sql<ItemTemplate>`SELECT id, parent_id, name, label, role_id, manufacturer_id, part_id, description
    FROM inventory_item_templates WHERE device_type_id = ${row.device_type_id} AND ${callerTenant(ctx)} ORDER BY name_natural`.execute(tx);
  const itemOf = new Map<string, string>();
  let level = templates.filter((t) => t.parent_id === null);
  while (level.length > 0) {
    const made = await insertRows(
      tx,
      ctx,
      requireModel('dcim.inventoryitem'),
      level.map((t) => ({ device_id: row.id, parent_id: t.parent_id ? itemOf.get(t.parent_id)! : null, name: t.name, label: t.label, role_id: t.role_id, manufacturer_id: t.manufacturer_id, part_id: t.part_id, description: t.description })),
    );
    // Matched by (parent, name), NetBox's unique key, rather than trusting the order RETURNING gives.
    const byKey = new Map(made.map((m) => [`${String(m.parent_id)}|${String(m.name)}`, String(m.id)]));
    for (const t of level) itemOf.set(t.id, byKey.get(`${t.parent_id ? itemOf.get(t.parent_id)! : 'null'}|${t.name}`)!);
    level = templates.filter((t) => t.parent_id !== null && itemOf.has(t.parent_id) && !itemOf.has(t.id));
  }
}

registerDeviceMaterializer(materializeInventoryItems);
