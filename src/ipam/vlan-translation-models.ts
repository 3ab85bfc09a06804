// VLAN translation (NetBox 4.2): a named policy of rules, each mapping a local VID to a remote one, which device
// and VM interfaces name (vlan_translation_policy). A VID appears once per policy on each side, so a policy is a
// one-to-one mapping.
import { defineModel } from '../core/registry.ts';

const vid = (label: string) => ({ kind: 'integer', label, min: 1, max: 4094, help: 'Numeric VLAN ID, 1 to 4094.' }) as const;

export const vlanTranslationPolicyModel = defineModel({
  name: 'ipam.vlantranslationpolicy',
  table: 'vlan_translation_policies',
  path: '/api/vlan-translation-policies/',
  label: 'VLAN translation policy',
  labelPlural: 'VLAN translation policies',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    description: { kind: 'string', maxLength: 200, default: '' },
    comments: { kind: 'text', default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['name'],
});

export const vlanTranslationRuleModel = defineModel({
  name: 'ipam.vlantranslationrule',
  table: 'vlan_translation_rules',
  path: '/api/vlan-translation-rules/',
  label: 'VLAN translation rule',
  tenantScoped: true,
  displayField: 'local_vid',
  displayQualifier: 'remote_vid',
  displayParent: ['policy'],
  fields: {
    policy: { kind: 'fk', target: 'ipam.vlantranslationpolicy', onDelete: 'cascade' },
    local_vid: vid('Local VLAN ID'),
    remote_vid: vid('Remote VLAN ID'),
    description: { kind: 'string', maxLength: 200, default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['description'],
  defaultOrdering: ['policy', 'local_vid'],
});
