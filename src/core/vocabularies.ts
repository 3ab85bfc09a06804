// Named option lists (served by /api/dcim/choices/). Domains register theirs at import time.
import type { ChoiceOption } from './registry.ts';

const vocabularies = new Map<string, readonly ChoiceOption[]>();

export function defineVocabulary(name: string, options: readonly ChoiceOption[]): void {
  vocabularies.set(name, options);
}

export function vocabularyOptions(name: string): readonly ChoiceOption[] {
  const options = vocabularies.get(name);
  if (!options) throw new Error(`Unknown vocabulary ${name}.`);
  return options;
}

export function allVocabularies(): ReadonlyMap<string, readonly ChoiceOption[]> {
  return vocabularies;
}
