// The circuits vocabularies (NetBox's circuits/choices.py), served with the others by GET /api/dcim/choices/.
// Values are NetBox's wire values, so an import and a NetBox client read them unchanged.
import type { ChoiceOption } from '../core/registry.ts';
import { defineVocabulary } from '../core/vocabularies.ts';

/** A circuit's two ends (CircuitTerminationSideChoices). */
export const CIRCUIT_TERM_SIDES: readonly ChoiceOption[] = [
  { value: 'A', label: 'A' },
  { value: 'Z', label: 'Z' },
];

/**
 * What a termination ends on (NetBox 4.2's termination_type). NetBox's names: `dcim.site` is Cairn's
 * organization.site.
 */
export const CIRCUIT_TERMINATION_TYPES: readonly ChoiceOption[] = [
  { value: 'dcim.site', label: 'Site' },
  { value: 'dcim.location', label: 'Location' },
  { value: 'circuits.providernetwork', label: 'Provider network' },
];

/** Commit rates and port speeds people pick from, in Kbps (CircuitCommitRateChoices, CircuitTerminationPortSpeedChoices). */
export const CIRCUIT_SPEEDS: readonly ChoiceOption[] = [
  ['10000', '10 Mbps'],
  ['100000', '100 Mbps'],
  ['1000000', '1 Gbps'],
  ['10000000', '10 Gbps'],
  ['25000000', '25 Gbps'],
  ['40000000', '40 Gbps'],
  ['100000000', '100 Gbps'],
  ['200000000', '200 Gbps'],
  ['400000000', '400 Gbps'],
  ['1544', 'T1 (1.544 Mbps)'],
  ['2048', 'E1 (2.048 Mbps)'],
].map(([value, label]) => ({ value: value!, label: label! }));

defineVocabulary('circuit_term_sides', CIRCUIT_TERM_SIDES);
defineVocabulary('circuit_termination_types', CIRCUIT_TERMINATION_TYPES);
defineVocabulary('circuit_speeds', CIRCUIT_SPEEDS);
