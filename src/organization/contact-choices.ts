// Contact vocabularies, with NetBox's values and labels (tenancy/choices.py) so an import carries them over.
import { defineVocabulary } from '../core/vocabularies.ts';
import type { ChoiceOption } from '../core/registry.ts';

/** How much a contact is the one to call for an object (NetBox's ContactPriorityChoices). */
export const CONTACT_PRIORITIES: readonly ChoiceOption[] = [
  { value: 'primary', label: 'Primary' },
  { value: 'secondary', label: 'Secondary' },
  { value: 'tertiary', label: 'Tertiary' },
  { value: 'inactive', label: 'Inactive' },
];

defineVocabulary('contact_priorities', CONTACT_PRIORITIES);
