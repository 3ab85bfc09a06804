// The wireless vocabularies (NetBox's WirelessLANStatusChoices, WirelessAuthTypeChoices, WirelessAuthCipherChoices,
// LinkStatusChoices and DistanceUnitChoices, values and labels as NetBox has them), served by /api/dcim/choices/.
import type { ChoiceOption } from '../core/registry.ts';
import { defineVocabulary } from '../core/vocabularies.ts';

const options = (group: string, pairs: ReadonlyArray<readonly [string, string]>): ChoiceOption[] => pairs.map(([value, label]) => ({ value, label, group }));

export const WIRELESS_LAN_STATUSES = options('Status', [
  ['active', 'Active'],
  ['reserved', 'Reserved'],
  ['disabled', 'Disabled'],
  ['deprecated', 'Deprecated'],
]);
export const WIRELESS_AUTH_TYPES = options('Authentication type', [
  ['open', 'Open'],
  ['wep', 'WEP'],
  ['wpa-personal', 'WPA Personal (PSK)'],
  ['wpa-enterprise', 'WPA Enterprise'],
]);
export const WIRELESS_AUTH_CIPHERS = options('Authentication cipher', [
  ['auto', 'Auto'],
  ['tkip', 'TKIP'],
  ['aes', 'AES'],
]);
export const LINK_STATUSES = options('Status', [
  ['connected', 'Connected'],
  ['planned', 'Planned'],
  ['decommissioning', 'Decommissioning'],
]);
export const DISTANCE_UNITS = options('Distance unit', [
  ['km', 'Kilometers'],
  ['m', 'Meters'],
  ['mi', 'Miles'],
  ['ft', 'Feet'],
]);

defineVocabulary('wireless_lan_statuses', WIRELESS_LAN_STATUSES);
defineVocabulary('wireless_auth_types', WIRELESS_AUTH_TYPES);
defineVocabulary('wireless_auth_ciphers', WIRELESS_AUTH_CIPHERS);
defineVocabulary('link_statuses', LINK_STATUSES);
defineVocabulary('distance_units', DISTANCE_UNITS);
