// Vocabularies of modules, device bays and module types, with NetBox's values and labels (dcim/choices.py:
// ModuleStatusChoices, ModuleAirflowChoices, SubdeviceRoleChoices), served by GET /api/dcim/choices/.
import type { ChoiceOption } from '../core/registry.ts';
import { defineVocabulary } from '../core/vocabularies.ts';

export const MODULE_STATUSES: readonly ChoiceOption[] = [
  { value: 'offline', label: 'Offline' },
  { value: 'active', label: 'Active' },
  { value: 'planned', label: 'Planned' },
  { value: 'staged', label: 'Staged' },
  { value: 'failed', label: 'Failed' },
  { value: 'decommissioning', label: 'Decommissioning' },
];

export const MODULE_AIRFLOWS: readonly ChoiceOption[] = [
  { value: 'front-to-rear', label: 'Front to rear' },
  { value: 'rear-to-front', label: 'Rear to front' },
  { value: 'left-to-right', label: 'Left to right' },
  { value: 'right-to-left', label: 'Right to left' },
  { value: 'side-to-rear', label: 'Side to rear' },
  { value: 'passive', label: 'Passive' },
];

export const SUBDEVICE_ROLES: readonly ChoiceOption[] = [
  { value: 'parent', label: 'Parent' },
  { value: 'child', label: 'Child' },
];

defineVocabulary('module_statuses', MODULE_STATUSES);
defineVocabulary('module_airflows', MODULE_AIRFLOWS);
defineVocabulary('subdevice_roles', SUBDEVICE_ROLES);
