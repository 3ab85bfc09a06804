// The vocabularies of rack types and rack reservations (NetBox's RackFormFactorChoices, RackDimensionUnitChoices,
// WeightUnitChoices and RackReservationStatusChoices, values and labels as NetBox has them), served by
// /api/dcim/choices/.
import type { ChoiceOption } from '../core/registry.ts';
import { defineVocabulary } from '../core/vocabularies.ts';

const options = (group: string, pairs: ReadonlyArray<readonly [string, string]>): ChoiceOption[] => pairs.map(([value, label]) => ({ value, label, group }));

export const RACK_FORM_FACTORS = options('Form factor', [
  ['2-post-frame', '2-post frame'],
  ['4-post-frame', '4-post frame'],
  ['4-post-cabinet', '4-post cabinet'],
  ['wall-frame', 'Wall-mounted frame'],
  ['wall-frame-vertical', 'Wall-mounted frame (vertical)'],
  ['wall-cabinet', 'Wall-mounted cabinet'],
  ['wall-cabinet-vertical', 'Wall-mounted cabinet (vertical)'],
]);
export const RACK_DIMENSION_UNITS = options('Dimension unit', [
  ['mm', 'Millimeters'],
  ['in', 'Inches'],
]);
export const WEIGHT_UNITS = options('Weight unit', [
  ['kg', 'Kilograms'],
  ['g', 'Grams'],
  ['lb', 'Pounds'],
  ['oz', 'Ounces'],
]);
export const RACK_RESERVATION_STATUSES = options('Status', [
  ['pending', 'Pending'],
  ['active', 'Active'],
  ['stale', 'Stale'],
]);

defineVocabulary('rack_form_factors', RACK_FORM_FACTORS);
defineVocabulary('rack_dimension_units', RACK_DIMENSION_UNITS);
defineVocabulary('weight_units', WEIGHT_UNITS);
defineVocabulary('rack_reservation_statuses', RACK_RESERVATION_STATUSES);
