// Wireless: LAN groups (a tree), wireless LANs (an SSID with its authentication) and point-to-point wireless links
// between two radio interfaces. An interface's own radio fields (role, channel, power, LANs) are in
// dcim/interface-wireless.ts.
import { sql } from 'kysely';
import { defineModel, type FieldDef, type ModelHooks } from '../core/registry.ts';
import { callerTenant } from '../core/access.ts';
import { ErrorCollector } from '../core/errors.ts';
import { secretTransform } from '../core/secrets.ts';
import { ownerField } from '../organization/owners.ts';
import { treeParentCheck } from '../core/tree.ts';
import { WIRELESS_INTERFACE_TYPES } from '../dcim/wireless-choices.ts';
import './choices.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

/** NetBox's 802.11 limits: an SSID is at most 32 octets, a pre-shared key at most 64 characters. */
const SSID_MAX = 32;

/** The authentication fields a wireless LAN and a wireless link share (NetBox's WirelessAuthenticationBase). */
const authFields: Record<string, FieldDef> = {
  auth_type: { kind: 'choice', vocabulary: 'wireless_auth_types', nullable: true, label: 'Authentication type' },
  auth_cipher: { kind: 'choice', vocabulary: 'wireless_auth_ciphers', nullable: true, label: 'Authentication cipher' },
  auth_psk: {
    kind: 'string',
    label: 'Pre-shared key',
    maxLength: 64,
    nullable: true,
    secret: true,
    writeOnly: true,
    transform: secretTransform('auth_psk'),
    help: 'Write-only: stored encrypted, never returned.',
  },
};

export const wirelessLanGroupModel = defineModel({
  name: 'wireless.wirelesslangroup',
  table: 'wireless_lan_groups',
  path: '/api/wireless-lan-groups/',
  label: 'wireless LAN group',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    parent: { kind: 'fk', target: 'wireless.wirelesslangroup', nullable: true, onDelete: 'protect' },
    description: { kind: 'string', maxLength: 200, default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: { validate: treeParentCheck('wireless_lan_groups', 'wireless LAN group') },
});

export const wirelessLanModel = defineModel({
  name: 'wireless.wirelesslan',
  table: 'wireless_lans',
  path: '/api/wireless-lans/',
  label: 'wireless LAN',
  tenantScoped: true,
  displayField: 'ssid',
  fields: {
    ssid: { kind: 'string', maxLength: SSID_MAX, label: 'SSID' },
    group: { kind: 'fk', target: 'wireless.wirelesslangroup', nullable: true, onDelete: 'set_null' },
    status: { kind: 'choice', vocabulary: 'wireless_lan_statuses', default: 'active' },
    vlan: { kind: 'fk', target: 'ipam.vlan', label: 'VLAN', nullable: true, onDelete: 'protect' },
    owner: ownerField,
    ...authFields,
    description: { kind: 'string', maxLength: 200, default: '' },
    comments: { kind: 'text', default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['ssid', 'description'],
  defaultOrdering: ['ssid'],
});

/** The value a write leaves: the input's when sent, else the stored one. */
function merged(input: Record<string, unknown>, existing: Record<string, unknown> | null, key: string, column: string): unknown {
  return key in input ? input[key] ?? null : existing?.[column] ?? null;
}

/**
 * Both ends are radio interfaces (NetBox's rule), not the same one, and neither is already an end of another
 * link (either side): an interface has one wireless link at most, as it has one cable.
 */
const checkLinkEnds: NonNullable<ModelHooks['validate']> = async ({ tx, ctx, input, existing }) => {
  const ends = { interface_a: merged(input, existing, 'interface_a', 'interface_a_id'), interface_b: merged(input, existing, 'interface_b', 'interface_b_id') };
  if (!('interface_a' in input) && !('interface_b' in input)) return;
  const ids = Object.values(ends).filter((v): v is string => typeof v === 'string');
  const { rows } = await sql<{ id: string; name: string; type: string; device: string; link: string | null }>`
    SELECT i.id, i.name, i.type, d.name AS device,
      (SELECT l.id::text FROM wireless_links l WHERE (l.interface_a_id = i.id OR l.interface_b_id = i.id)
         AND l.id IS DISTINCT FROM ${existing?.id ?? null}::uuid LIMIT 1) AS link
    FROM interfaces i JOIN devices d ON d.id = i.device_id WHERE i.id = ANY(${ids}::uuid[]) AND ${callerTenant(ctx, 'i')}`.execute(tx);
  const errors = new ErrorCollector();
  for (const [key, id] of Object.entries(ends)) {
    if (!(key in input)) continue;
    const i = rows.find((r) => r.id === id);
    // Another tenant's id reads as missing here and is answered by the generic reference check.
    if (!i) continue;
    if (!WIRELESS_INTERFACE_TYPES.has(i.type)) errors.add(key, `${i.device} › ${i.name} is a ${i.type} interface, not a wireless one: a wireless link joins two radios.`);
    else if (i.link) errors.add(key, `${i.device} › ${i.name} is already an end of another wireless link.`);
  }
  if (errors.empty && ends.interface_a === ends.interface_b) errors.add('interface_b', 'A wireless link joins two different interfaces.');
  errors.throwIfAny();
};

export const wirelessLinkModel = defineModel({
  name: 'wireless.wirelesslink',
  table: 'wireless_links',
  path: '/api/wireless-links/',
  label: 'wireless link',
  tenantScoped: true,
  // Its SSID when it has one, else "Wireless link #12".
  displayField: 'ssid',
  fields: {
    // An end's interface deleted takes the link with it, as a cable losing an end (NetBox protects the interface
    // but deletes the link with its device).
    interface_a: { kind: 'fk', target: 'dcim.interface', onDelete: 'cascade', label: 'Interface A', help: 'A wireless interface (802.11, LTE or 5G).' },
    interface_b: { kind: 'fk', target: 'dcim.interface', onDelete: 'cascade', label: 'Interface B', help: 'A wireless interface (802.11, LTE or 5G).' },
    ssid: { kind: 'string', maxLength: SSID_MAX, default: '', label: 'SSID' },
    status: { kind: 'choice', vocabulary: 'link_statuses', default: 'connected' },
    owner: ownerField,
    ...authFields,
    distance: { kind: 'decimal', nullable: true, min: 0, max: 999_999.99 },
    distance_unit: { kind: 'choice', vocabulary: 'distance_units', nullable: true },
    description: { kind: 'string', maxLength: 200, default: '' },
    comments: { kind: 'text', default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['ssid', 'description'],
  defaultOrdering: ['numid'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate(args) {
      await checkLinkEnds(args);
      const { input, existing } = args;
      const distance = merged(input, existing, 'distance', 'distance');
      const unit = merged(input, existing, 'distance_unit', 'distance_unit');
      if (distance !== null && unit === null) {
        const errors = new ErrorCollector();
        errors.add('distance_unit', 'A distance needs its unit: km, m, mi or ft.');
        errors.throwIfAny();
      }
    },
  },
});
