// What counts as a developer word in text a user reads (help texts, labels): snake_case names, `…_id`, `null`, a
// source file. Shared by the registry scan (test/form-descriptors.test.ts) and the browser check of every add form.

export function developerWords(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g)) found.add(m[0]);
  for (const m of text.matchAll(/\b\w*_id\b/gi)) found.add(m[0]);
  for (const m of text.matchAll(/\bnull\b/gi)) found.add(m[0]);
  for (const m of text.matchAll(/\b[\w/.-]+\.ts\b/g)) found.add(m[0]);
  return [...found];
}

/**
 * The developer words of a field's help text. A JSON field's help lists the keys one types into it (`local_pref`):
 * those are its syntax, not column names, and are let through; `null`, `…_id` and source files never are.
 */
export function helpProblems(help: string, kind: string): string[] {
  return developerWords(help).filter((w) => kind !== 'json' || !/^[a-z][a-z0-9_]*$/.test(w) || /_id$/.test(w));
}
