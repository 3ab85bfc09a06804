// The L2VPN vocabularies (NetBox's L2VPNTypeChoices and L2VPNStatusChoices, values, labels and groups as NetBox
// has them), served by /api/dcim/choices/.
import type { ChoiceOption } from '../core/registry.ts';
import { defineVocabulary } from '../core/vocabularies.ts';

const options = (group: string, pairs: ReadonlyArray<readonly [string, string]>): ChoiceOption[] => pairs.map(([value, label]) => ({ value, label, group }));

export const L2VPN_TYPES: readonly ChoiceOption[] = [
  ...options('VPLS', [['vpws', 'VPWS'], ['vpls', 'VPLS']]),
  ...options('VXLAN', [['vxlan', 'VXLAN'], ['vxlan-evpn', 'VXLAN-EVPN']]),
  ...options('L2VPN E-VPN', [['mpls-evpn', 'MPLS EVPN'], ['pbb-evpn', 'PBB EVPN'], ['evpn-vpws', 'EVPN VPWS']]),
  ...options('E-Line', [['epl', 'EPL'], ['evpl', 'EVPL']]),
  ...options('E-LAN', [['ep-lan', 'Ethernet Private LAN'], ['evp-lan', 'Ethernet Virtual Private LAN']]),
  ...options('E-Tree', [['ep-tree', 'Ethernet Private Tree'], ['evp-tree', 'Ethernet Virtual Private Tree']]),
  ...options('Other', [['spb', 'SPB']]),
];

/** Point-to-point types: two terminations at most (NetBox's L2VPNTypeChoices.P2P). */
export const POINT_TO_POINT_L2VPN_TYPES: ReadonlySet<string> = new Set(['vpws', 'epl', 'ep-lan', 'ep-tree']);

export const L2VPN_STATUSES = options('Status', [
  ['active', 'Active'],
  ['planned', 'Planned'],
  ['decommissioning', 'Decommissioning'],
]);

defineVocabulary('l2vpn_types', L2VPN_TYPES);
defineVocabulary('l2vpn_statuses', L2VPN_STATUSES);
