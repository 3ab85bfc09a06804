// Validate rules tests add to models (issue #54: one rule holds on every write path). Test files share a process
// one after another, so a rule stays on its model for the files that follow: each acts only while its test turns
// it on, and the registry-wide check that every rule says how bulk writes honour it leaves these out.
import { addModelHook, type ModelHooks } from '../../src/core/registry.ts';

type Rule = NonNullable<ModelHooks['validate']>;
const added = new Set<Rule>();

/** Adds `rule` to the model's validate rules, saying nothing of bulk writes: they run it for every row. */
export function addTestRule(modelName: string, rule: Rule): void {
  added.add(rule);
  addModelHook(modelName, 'validate', rule);
}

export function isTestRule(rule: Rule): boolean {
  return added.has(rule);
}
