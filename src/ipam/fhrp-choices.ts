// The FHRP vocabularies (NetBox's FHRPGroupProtocolChoices and FHRPGroupAuthTypeChoices), served by
// GET /api/dcim/choices/ with every other vocabulary and enforced on the FHRP group's fields.
import type { ChoiceOption } from '../core/registry.ts';
import { defineVocabulary } from '../core/vocabularies.ts';

export const FHRP_PROTOCOLS: readonly ChoiceOption[] = [
  { value: 'vrrp2', label: 'VRRPv2', group: 'Standard' },
  { value: 'vrrp3', label: 'VRRPv3', group: 'Standard' },
  { value: 'carp', label: 'CARP', group: 'Standard' },
  { value: 'clusterxl', label: 'ClusterXL', group: 'CheckPoint' },
  { value: 'hsrp', label: 'HSRP', group: 'Cisco' },
  { value: 'glbp', label: 'GLBP', group: 'Cisco' },
  { value: 'other', label: 'Other' },
];

export const FHRP_AUTH_TYPES: readonly ChoiceOption[] = [
  { value: 'plaintext', label: 'Plaintext' },
  { value: 'md5', label: 'MD5' },
];

defineVocabulary('fhrp_group_protocols', FHRP_PROTOCOLS);
defineVocabulary('fhrp_group_auth_types', FHRP_AUTH_TYPES);
