// The DCIM vocabularies served by GET /api/dcim/choices/ and enforced on the fields that name them.
// Values are stable wire identifiers (templates and imports match on them); labels are what people read.
import type { ChoiceOption } from '../core/registry.ts';
import { defineVocabulary } from '../core/vocabularies.ts';
// The layer-4 protocols of a device type's services (defined with IPAM's application services).
import '../ipam/service-choices.ts';

function group(name: string, pairs: ReadonlyArray<readonly [string, string]>): ChoiceOption[] {
  return pairs.map(([value, label]) => ({ value, label, group: name }));
}

export const INTERFACE_TYPES: readonly ChoiceOption[] = [
  ...group('Virtual', [
    ['virtual', 'Virtual'],
    ['bridge', 'Bridge'],
    ['lag', 'Link Aggregation Group (LAG)'],
    ['loopback', 'Loopback'],
    ['tunnel', 'Tunnel'],
  ]),
  ...group('Ethernet (fixed)', [
    ['100base-fx', '100BASE-FX (10/100ME FIBER)'],
    ['100base-tx', '100BASE-TX (10/100ME)'],
    ['1000base-t', '1000BASE-T (1GE)'],
    ['1000base-x-gbic', 'GBIC (1GE)'],
    ['2.5gbase-t', '2.5GBASE-T (2.5GE)'],
    ['5gbase-t', '5GBASE-T (5GE)'],
    ['10gbase-t', '10GBASE-T (10GE)'],
    ['10gbase-cx4', '10GBASE-CX4 (10GE)'],
  ]),
  ...group('Ethernet (modular)', [
    ['1000base-x-sfp', 'SFP (1GE)'],
    ['10gbase-x-sfpp', 'SFP+ (10GE)'],
    ['10gbase-x-xfp', 'XFP (10GE)'],
    ['25gbase-x-sfp28', 'SFP28 (25GE)'],
    ['40gbase-x-qsfpp', 'QSFP+ (40GE)'],
    ['50gbase-x-sfp56', 'SFP56 (50GE)'],
    ['50gbase-x-qsfp28', 'QSFP28 (50GE)'],
    ['100gbase-x-cfp', 'CFP (100GE)'],
    ['100gbase-x-qsfp28', 'QSFP28 (100GE)'],
    ['100gbase-x-dsfp', 'DSFP (100GE)'],
    ['200gbase-x-qsfp56', 'QSFP56 (200GE)'],
    ['200gbase-x-qsfpdd', 'QSFP-DD (200GE)'],
    ['400gbase-x-qsfpdd', 'QSFP-DD (400GE)'],
    ['400gbase-x-osfp', 'OSFP (400GE)'],
    ['800gbase-x-qsfpdd', 'QSFP-DD (800GE)'],
    ['800gbase-x-osfp', 'OSFP (800GE)'],
  ]),
  ...group('Ethernet (backplane)', [
    ['1000base-kx', '1000BASE-KX (1GE)'],
    ['10gbase-kr', '10GBASE-KR (10GE)'],
    ['25gbase-kr', '25GBASE-KR (25GE)'],
    ['40gbase-kr4', '40GBASE-KR4 (40GE)'],
    ['100gbase-kr4', '100GBASE-KR4 (100GE)'],
  ]),
  ...group('Wireless', [
    ['ieee802.11a', 'IEEE 802.11a'],
    ['ieee802.11g', 'IEEE 802.11b/g'],
    ['ieee802.11n', 'IEEE 802.11n'],
    ['ieee802.11ac', 'IEEE 802.11ac'],
    ['ieee802.11ax', 'IEEE 802.11ax'],
    ['ieee802.11be', 'IEEE 802.11be'],
  ]),
  ...group('Cellular', [
    ['lte', 'LTE'],
    ['5g', '5G'],
  ]),
  ...group('Serial', [
    ['rs-232', 'RS-232'],
    ['rs-485', 'RS-485'],
  ]),
  ...group('Stacking', [
    ['cisco-stackwise', 'Cisco StackWise'],
    ['cisco-stackwise-plus', 'Cisco StackWise Plus'],
    ['juniper-vcp', 'Juniper VCP'],
    ['extreme-summitstack', 'Extreme SummitStack'],
  ]),
  ...group('Other', [['other', 'Other']]),
];

export const CABLE_TYPES: readonly ChoiceOption[] = [
  // NetBox's whole list (its demo data uses the generic smf and mmf), so every NetBox cable type imports.
  ...group('Copper', [
    ['cat3', 'CAT3'],
    ['cat5', 'CAT5'],
    ['cat5e', 'CAT5e'],
    ['cat6', 'CAT6'],
    ['cat6a', 'CAT6a'],
    ['cat7', 'CAT7'],
    ['cat7a', 'CAT7a'],
    ['cat8', 'CAT8'],
    ['mrj21-trunk', 'MRJ21 Trunk'],
    ['dac-active', 'Direct Attach Copper (Active)'],
    ['dac-passive', 'Direct Attach Copper (Passive)'],
    ['coaxial', 'Coaxial'],
    ['rg-6', 'RG-6'],
    ['rg-8', 'RG-8'],
    ['rg-11', 'RG-11'],
    ['rg-59', 'RG-59'],
    ['rg-62', 'RG-62'],
    ['rg-213', 'RG-213'],
    ['lmr-100', 'LMR-100'],
    ['lmr-200', 'LMR-200'],
    ['lmr-400', 'LMR-400'],
  ]),
  ...group('Fiber', [
    ['mmf', 'Multimode Fiber'],
    ['mmf-om1', 'Multimode Fiber (OM1)'],
    ['mmf-om2', 'Multimode Fiber (OM2)'],
    ['mmf-om3', 'Multimode Fiber (OM3)'],
    ['mmf-om4', 'Multimode Fiber (OM4)'],
    ['mmf-om5', 'Multimode Fiber (OM5)'],
    ['smf', 'Single-mode Fiber'],
    ['smf-os1', 'Single-mode Fiber (OS1)'],
    ['smf-os2', 'Single-mode Fiber (OS2)'],
    ['aoc', 'Active Optical Cabling (AOC)'],
  ]),
  ...group('Other', [
    ['power', 'Power'],
    ['usb', 'USB'],
  ]),
];

export const DUPLEX: readonly ChoiceOption[] = group('Duplex', [
  ['half', 'Half'],
  ['full', 'Full'],
  ['auto', 'Auto'],
]);

export const INTERFACE_MODES: readonly ChoiceOption[] = group('802.1Q mode', [
  ['access', 'Access'],
  ['tagged', 'Tagged'],
  ['tagged-all', 'Tagged (All)'],
]);

export const POE_MODES: readonly ChoiceOption[] = group('PoE mode', [
  ['pd', 'PD (powered device)'],
  ['pse', 'PSE (power sourcing equipment)'],
]);

export const POE_TYPES: readonly ChoiceOption[] = [
  ...group('IEEE standard', [
    ['type1-ieee802.3af', '802.3af (Type 1)'],
    ['type2-ieee802.3at', '802.3at (Type 2)'],
    ['type3-ieee802.3bt', '802.3bt (Type 3)'],
    ['type4-ieee802.3bt', '802.3bt (Type 4)'],
  ]),
  ...group('Passive', [
    ['passive-24v-2pair', 'Passive 24V (2-pair)'],
    ['passive-24v-4pair', 'Passive 24V (4-pair)'],
    ['passive-48v-2pair', 'Passive 48V (2-pair)'],
    ['passive-48v-4pair', 'Passive 48V (4-pair)'],
  ]),
];

export const FIBRE_COUNTS: readonly ChoiceOption[] = group('Connector fibres', [
  ['1', '1 fibre (simplex)'],
  ['2', '2 fibres (duplex)'],
  ['4', '4 fibres'],
  ['8', '8 fibres (MPO-8)'],
  ['12', '12 fibres (MPO-12)'],
  ['16', '16 fibres (MPO-16)'],
  ['24', '24 fibres (MPO-24)'],
]);

/** Speeds in kbit/s, as interfaces report them. */
export const SPEEDS: readonly ChoiceOption[] = group('Speed', [
  ['10000', '10 Mbps'],
  ['100000', '100 Mbps'],
  ['1000000', '1 Gbps'],
  ['2500000', '2.5 Gbps'],
  ['5000000', '5 Gbps'],
  ['10000000', '10 Gbps'],
  ['25000000', '25 Gbps'],
  ['40000000', '40 Gbps'],
  ['50000000', '50 Gbps'],
  ['100000000', '100 Gbps'],
  ['200000000', '200 Gbps'],
  ['400000000', '400 Gbps'],
  ['800000000', '800 Gbps'],
]);

export const LENGTH_UNITS: readonly ChoiceOption[] = group('Length unit', [
  ['km', 'Kilometers'],
  ['m', 'Meters'],
  ['cm', 'Centimeters'],
  ['mi', 'Miles'],
  ['ft', 'Feet'],
  ['in', 'Inches'],
]);

/** Front and rear port connectors, NetBox's PortTypeChoices values. */
export const PORT_TYPES: readonly ChoiceOption[] = [
  ...group('Copper', [
    ['8p8c', '8P8C'],
    ['8p6c', '8P6C'],
    ['8p4c', '8P4C'],
    ['8p2c', '8P2C'],
    ['6p6c', '6P6C'],
    ['6p4c', '6P4C'],
    ['6p2c', '6P2C'],
    ['4p4c', '4P4C'],
    ['4p2c', '4P2C'],
    ['gg45', 'GG45'],
    ['tera-4p', 'TERA 4P'],
    ['tera-2p', 'TERA 2P'],
    ['tera-1p', 'TERA 1P'],
    ['110-punch', '110 Punch'],
    ['bnc', 'BNC'],
    ['f', 'F Connector'],
    ['n', 'N Connector'],
    ['mrj21', 'MRJ21'],
  ]),
  ...group('Fiber optic', [
    ['fc', 'FC'],
    ['lc', 'LC'],
    ['lc-pc', 'LC/PC'],
    ['lc-upc', 'LC/UPC'],
    ['lc-apc', 'LC/APC'],
    ['lsh', 'LSH'],
    ['lsh-pc', 'LSH/PC'],
    ['lsh-upc', 'LSH/UPC'],
    ['lsh-apc', 'LSH/APC'],
    ['lx5', 'LX.5'],
    ['mpo', 'MPO'],
    ['mtrj', 'MTRJ'],
    ['sc', 'SC'],
    ['sc-pc', 'SC/PC'],
    ['sc-upc', 'SC/UPC'],
    ['sc-apc', 'SC/APC'],
    ['st', 'ST'],
    ['cs', 'CS'],
    ['sn', 'SN'],
    ['sma-905', 'SMA 905'],
    ['sma-906', 'SMA 906'],
    ['urm-p2', 'URM-P2'],
    ['urm-p4', 'URM-P4'],
    ['urm-p8', 'URM-P8'],
    ['splice', 'Splice'],
  ]),
  ...group('Other', [['other', 'Other']]),
];

defineVocabulary('interface_types', INTERFACE_TYPES);
defineVocabulary('port_types', PORT_TYPES);
defineVocabulary('cable_types', CABLE_TYPES);
defineVocabulary('duplex', DUPLEX);
defineVocabulary('interface_modes', INTERFACE_MODES);
defineVocabulary('poe_modes', POE_MODES);
defineVocabulary('poe_types', POE_TYPES);
defineVocabulary('fibre_counts', FIBRE_COUNTS);
defineVocabulary('speeds', SPEEDS);
defineVocabulary('length_units', LENGTH_UNITS);
